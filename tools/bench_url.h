/* The server `llmlat bench` measures: --base-url taken apart
 * (http[s]://host[:port][/prefix]) and the path of the endpoint on it. */
#ifndef LLMLAT_BENCH_URL_H
#define LLMLAT_BENCH_URL_H

#include <stdbool.h>

#define URL_HOST_MAX 256
#define URL_PATH_MAX 1024

typedef struct bench_url {
    bool tls;                  /* https */
    char host[URL_HOST_MAX];   /* a name or an address, without IPv6 brackets */
    char port[8];              /* the default port when none was given */
    char authority[URL_HOST_MAX + 16]; /* what the Host header says */
    char prefix[URL_PATH_MAX]; /* the base's path, without a trailing '/' */
} bench_url;

/* Reads s; false with a one-line reason in why. */
bool bench_url_parse(const char *s, bench_url *u, char *why, size_t why_cap);

/* prefix + endpoint into path (a prefix ending in /v1 and an endpoint
 * starting with /v1/ give /v1 once); false when it does not fit. */
bool bench_url_path(const bench_url *u, const char *endpoint, char *path, size_t cap);

#endif
