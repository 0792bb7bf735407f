/* TLS for `llmlat bench` (https://), over OpenSSL when the build has it
 * (meson option tls, Debian's libssl-dev), on non-blocking sockets: every
 * call that cannot go on says whether it waits to read or to write.
 * Without OpenSSL bench_tls_available() is false and bench refuses https://
 * before anything is sent. */
#ifndef LLMLAT_BENCH_TLS_H
#define LLMLAT_BENCH_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct tls_context tls_context;
typedef struct tls_session tls_session;

/* What a call returns when it cannot go on now (*want: TLS_WANT_*), or
 * fails (tls_error says why). */
#define TLS_AGAIN (-1)
#define TLS_FAILED (-2)
#define TLS_WANT_READ 1
#define TLS_WANT_WRITE 2

bool bench_tls_available(void);

/* A client context: the system's trusted certificates, or ca_file's; none
 * checked when insecure. NULL with a reason in why. */
tls_context *tls_context_new(const char *ca_file, bool insecure, char *why, size_t cap);
void tls_context_free(tls_context *c);

/* A session over connected socket fd to host (its name checked against
 * the certificate, and sent as SNI). NULL when out of memory. */
tls_session *tls_session_new(tls_context *c, int fd, const char *host);
void tls_session_free(tls_session *s);

/* 1 when the handshake is done, TLS_AGAIN or TLS_FAILED. */
int tls_handshake(tls_session *s, int *want);
/* Bytes read (> 0), 0 at the peer's close, TLS_AGAIN or TLS_FAILED. */
ssize_t tls_read(tls_session *s, void *buf, size_t n, int *want);
/* Bytes written (> 0), TLS_AGAIN or TLS_FAILED. */
ssize_t tls_write(tls_session *s, const void *buf, size_t n, int *want);
/* Bytes OpenSSL holds already decrypted (the socket shows no more). */
size_t tls_pending(tls_session *s);
/* Why the last call failed, one line. */
const char *tls_error(tls_session *s);

#endif
