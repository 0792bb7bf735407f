/* Shared by the fuzz targets: reading the input as a stream of choices,
 * an allocator that fails on demand and counts what is live, and the
 * abort-with-a-message that a divergence from the reference model ends in.
 *
 * Each target defines LLVMFuzzerTestOneInput. Under libFuzzer
 * (scripts/fuzz) that is the entry point; otherwise replay.c's main()
 * feeds it the files of the committed corpus (meson suite 'fuzz'). */
#ifndef LLMLAT_FUZZ_COMMON_H
#define LLMLAT_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmlat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A divergence: print what differs and abort (the fuzzer keeps the input). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static inline void fz_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz divergence: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

#define FZ_CHECK(cond, ...)       \
    do {                          \
        if (!(cond))              \
            fz_die(__VA_ARGS__);  \
    } while (0)

/* ------------------------------------------------------------ the input */

typedef struct fz_input {
    const uint8_t *p;
    size_t n, at;
} fz_input;

static inline bool fz_more(const fz_input *in)
{
    return in->at < in->n;
}

/* The next byte; 0 once the input is used up. */
static inline uint8_t fz_u8(fz_input *in)
{
    return in->at < in->n ? in->p[in->at++] : 0;
}

static inline uint16_t fz_u16(fz_input *in)
{
    uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)fz_u8(in) << 8);
}

static inline uint32_t fz_u32(fz_input *in)
{
    uint32_t lo = fz_u16(in);
    return lo | (uint32_t)fz_u16(in) << 16;
}

static inline uint64_t fz_u64(fz_input *in)
{
    uint64_t lo = fz_u32(in);
    return lo | (uint64_t)fz_u32(in) << 32;
}

/* ------------------------------------------------ the failing allocator */

/* Allocation number `fail_at` (counted from 0 since fz_alloc_install)
 * fails, and every later one too when `fail_all`; fail_at < 0: none.
 * `live` counts blocks not yet freed: it must be 0 once everything the
 * target made is freed. */
typedef struct fz_alloc {
    long calls;
    long fail_at;
    bool fail_all;
    long live;
    long failures;
} fz_alloc;

static fz_alloc fz_al;

static inline bool fz_alloc_fails(void)
{
    long n = fz_al.calls++;
    if (fz_al.fail_at < 0 || n < fz_al.fail_at)
        return false;
    if (n > fz_al.fail_at && !fz_al.fail_all)
        return false;
    fz_al.failures++;
    return true;
}

static inline void *fz_malloc(void *user, size_t size)
{
    (void)user;
    if (fz_alloc_fails())
        return NULL;
    void *p = malloc(size);
    if (p)
        fz_al.live++;
    return p;
}

static inline void *fz_realloc(void *user, void *p, size_t size)
{
    (void)user;
    if (fz_alloc_fails())
        return NULL;
    void *q = realloc(p, size);
    if (q && !p)
        fz_al.live++;
    return q;
}

static inline void fz_free(void *user, void *p)
{
    (void)user;
    if (p)
        fz_al.live--;
    free(p);
}

/* Objects made from now on use the counting allocator (none failing). */
static inline void fz_alloc_install(void)
{
    fz_al = (fz_alloc){ .fail_at = -1 };
    if (llmlat_set_allocator(fz_malloc, fz_realloc, fz_free, NULL) != LLMLAT_OK)
        fz_die("set_allocator refused the fuzz allocator");
}

static inline void fz_alloc_disarm(void)
{
    fz_al.fail_at = -1;
}

/* Fails the allocation `after` calls from now (and all later ones when
 * `all`). */
static inline void fz_alloc_arm(long after, bool all)
{
    fz_al.fail_at = fz_al.calls + after;
    fz_al.fail_all = all;
}

/* Everything the target made is freed: nothing may be left. */
static inline void fz_alloc_check_released(void)
{
    FZ_CHECK(fz_al.live == 0, "%ld blocks leaked", fz_al.live);
    if (llmlat_set_allocator(NULL, NULL, NULL, NULL) != LLMLAT_OK)
        fz_die("could not restore the default allocator");
}

#endif
