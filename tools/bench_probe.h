/* Before `llmlat bench` sends a request: the server's address (the first
 * of getaddrinfo's that accepts a connection, within --connect-timeout),
 * and, without --model, the model its GET /v1/models names first. A server
 * that cannot be reached at all is one line on stderr and exit status 1. */
#ifndef LLMLAT_BENCH_PROBE_H
#define LLMLAT_BENCH_PROBE_H

#include <stddef.h>
#include <sys/socket.h>

#include "bench_options.h"
#include "bench_tls.h"

/* Returns the exit status: 0, or 1 (said on stderr). *model is "" when
 * none was asked for or found. */
int probe_server(const bench_options *o, tls_context *tls, struct sockaddr_storage *addr,
                 socklen_t *addr_len, char *model, size_t model_cap);

#endif
