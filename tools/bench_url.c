#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_url.h"

static bool refuse(char *why, size_t cap, const char *text)
{
    snprintf(why, cap, "%s", text);
    return false;
}

bool bench_url_parse(const char *s, bench_url *u, char *why, size_t cap)
{
    memset(u, 0, sizeof *u);
    const char *p;
    if (strncasecmp(s, "http://", 7) == 0) {
        p = s + 7;
    } else if (strncasecmp(s, "https://", 8) == 0) {
        p = s + 8;
        u->tls = true;
    } else {
        return refuse(why, cap, "is not an http:// or https:// URL");
    }
    size_t auth = strcspn(p, "/?#");
    if (strpbrk(p, "?#"))
        return refuse(why, cap, "has a query or fragment (give the base only)");
    const char *host = p, *host_end, *port = NULL;
    if (memchr(p, '@', auth))
        return refuse(why, cap, "has user information (use --api-key or --header)");
    if (*p == '[') { /* [IPv6] */
        host = p + 1;
        host_end = memchr(p, ']', auth);
        if (!host_end)
            return refuse(why, cap, "has an unclosed '[' in its host");
        if (host_end + 1 < p + auth) {
            if (host_end[1] != ':')
                return refuse(why, cap, "has junk after its IPv6 address");
            port = host_end + 2;
        }
    } else {
        host_end = memchr(p, ':', auth);
        if (host_end)
            port = host_end + 1;
        else
            host_end = p + auth;
    }
    size_t hn = (size_t)(host_end - host);
    if (hn == 0 || hn >= sizeof u->host)
        return refuse(why, cap, hn ? "has a host name too long" : "has no host");
    memcpy(u->host, host, hn);
    if (port) {
        size_t pn = (size_t)(p + auth - port);
        char digits[8];
        if (pn == 0 || pn >= sizeof digits || strspn(port, "0123456789") < pn)
            return refuse(why, cap, "has a port that is not a number");
        memcpy(digits, port, pn);
        digits[pn] = '\0';
        long v = strtol(digits, NULL, 10);
        if (v < 1 || v > 65535)
            return refuse(why, cap, "has a port out of range (1 to 65535)");
        snprintf(u->port, sizeof u->port, "%ld", v);
    } else {
        snprintf(u->port, sizeof u->port, "%s", u->tls ? "443" : "80");
    }
    snprintf(u->authority, sizeof u->authority, "%.*s", (int)auth, p);
    const char *path = p + auth;
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    if (n >= sizeof u->prefix)
        return refuse(why, cap, "has a path too long");
    memcpy(u->prefix, path, n);
    u->prefix[n] = '\0';
    for (const char *c = u->prefix; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            return refuse(why, cap, "has a space or a control character in its path");
    return true;
}

bool bench_url_path(const bench_url *u, const char *endpoint, char *path, size_t cap)
{
    /* a base ending in /v1, as OpenAI's clients take it, and an endpoint
     * starting with it: /v1 once */
    size_t pn = strlen(u->prefix);
    if (pn >= 3 && strcmp(u->prefix + pn - 3, "/v1") == 0 && strncmp(endpoint, "/v1/", 4) == 0)
        endpoint += 3;
    int n = snprintf(path, cap, "%s%s", u->prefix, endpoint);
    return n > 0 && (size_t)n < cap;
}
