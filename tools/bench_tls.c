#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_tls.h"

#ifdef LLMLAT_TLS

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct tls_context {
    SSL_CTX *ctx;
};

struct tls_session {
    SSL *ssl;
    char why[160];
};

bool bench_tls_available(void)
{
    return true;
}

tls_context *tls_context_new(const char *ca_file, bool insecure, char *why, size_t cap)
{
    tls_context *c = calloc(1, sizeof *c);
    if (c)
        c->ctx = SSL_CTX_new(TLS_client_method());
    if (!c || !c->ctx) {
        snprintf(why, cap, "cannot make a TLS context");
        free(c);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(c->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (insecure) {
        SSL_CTX_set_verify(c->ctx, SSL_VERIFY_NONE, NULL);
    } else {
        SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
        int ok = ca_file ? SSL_CTX_load_verify_locations(c->ctx, ca_file, NULL)
                         : SSL_CTX_set_default_verify_paths(c->ctx);
        if (!ok) {
            snprintf(why, cap, "cannot load the trusted certificates%s%s", ca_file ? " of " : "",
                     ca_file ? ca_file : "");
            tls_context_free(c);
            return NULL;
        }
    }
    return c;
}

void tls_context_free(tls_context *c)
{
    if (!c)
        return;
    SSL_CTX_free(c->ctx);
    free(c);
}

tls_session *tls_session_new(tls_context *c, int fd, const char *host)
{
    tls_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ssl = SSL_new(c->ctx);
    if (!s->ssl || !SSL_set_fd(s->ssl, fd)) {
        tls_session_free(s);
        return NULL;
    }
    /* a name is sent as SNI and checked as a DNS name; an address is
     * checked as the certificate's IP address (and never sent as SNI) */
    unsigned char addr[16];
    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl), host);
    } else {
        SSL_set_tlsext_host_name(s->ssl, host);
        SSL_set1_host(s->ssl, host);
    }
    SSL_set_connect_state(s->ssl);
    return s;
}

void tls_session_free(tls_session *s)
{
    if (!s)
        return;
    SSL_free(s->ssl);
    free(s);
}

/* The outcome of a call that returned rc <= 0. */
static int outcome(tls_session *s, int rc, int *want)
{
    int e = SSL_get_error(s->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *want = e == SSL_ERROR_WANT_READ ? TLS_WANT_READ : TLS_WANT_WRITE;
        return TLS_AGAIN;
    }
    if (e == SSL_ERROR_ZERO_RETURN)
        return 0;
    unsigned long code = ERR_get_error();
    long verify = SSL_get_verify_result(s->ssl);
    if (verify != X509_V_OK)
        snprintf(s->why, sizeof s->why, "TLS: certificate not trusted: %s",
                 X509_verify_cert_error_string(verify));
    else if (code)
        snprintf(s->why, sizeof s->why, "TLS: %s", ERR_reason_error_string(code));
    else
        snprintf(s->why, sizeof s->why, "TLS: connection closed");
    ERR_clear_error();
    return TLS_FAILED;
}

int tls_handshake(tls_session *s, int *want)
{
    int rc = SSL_do_handshake(s->ssl);
    if (rc == 1)
        return 1;
    rc = outcome(s, rc, want);
    return rc == 0 ? TLS_FAILED : rc;
}

ssize_t tls_read(tls_session *s, void *buf, size_t n, int *want)
{
    size_t got = 0;
    int rc = SSL_read_ex(s->ssl, buf, n, &got);
    if (rc == 1)
        return (ssize_t)got;
    return outcome(s, rc, want);
}

ssize_t tls_write(tls_session *s, const void *buf, size_t n, int *want)
{
    size_t put = 0;
    int rc = SSL_write_ex(s->ssl, buf, n, &put);
    if (rc == 1)
        return (ssize_t)put;
    rc = outcome(s, rc, want);
    return rc == 0 ? TLS_FAILED : rc;
}

size_t tls_pending(tls_session *s)
{
    return (size_t)SSL_pending(s->ssl);
}

const char *tls_error(tls_session *s)
{
    return s->why[0] ? s->why : "TLS: error";
}

#else /* no TLS in this build */

bool bench_tls_available(void)
{
    return false;
}

tls_context *tls_context_new(const char *ca_file, bool insecure, char *why, size_t cap)
{
    (void)ca_file;
    (void)insecure;
    snprintf(why, cap, "this build has no TLS");
    return NULL;
}

void tls_context_free(tls_context *c)
{
    (void)c;
}

tls_session *tls_session_new(tls_context *c, int fd, const char *host)
{
    (void)c;
    (void)fd;
    (void)host;
    return NULL;
}

void tls_session_free(tls_session *s)
{
    (void)s;
}

int tls_handshake(tls_session *s, int *want)
{
    (void)s;
    (void)want;
    return TLS_FAILED;
}

ssize_t tls_read(tls_session *s, void *buf, size_t n, int *want)
{
    (void)s;
    (void)buf;
    (void)n;
    (void)want;
    return TLS_FAILED;
}

ssize_t tls_write(tls_session *s, const void *buf, size_t n, int *want)
{
    (void)s;
    (void)buf;
    (void)n;
    (void)want;
    return TLS_FAILED;
}

size_t tls_pending(tls_session *s)
{
    (void)s;
    return 0;
}

const char *tls_error(tls_session *s)
{
    (void)s;
    return "this build has no TLS";
}

#endif
