/* What the reader's fuzz targets share (fuzz_trace.c, fuzz_import.c):
 * the input fed to a reader in pieces that start and end anywhere (so
 * that every step is cut short and run again), requests taken out with
 * llmlat_reader_next or folded with llmlat_reader_add_to, and what must
 * hold however hostile the bytes are: the reading ends, either with every
 * request accounted for (added as a success or a failure, or rejected) or
 * with one error line naming the input; no crash, no leak. */
#ifndef LLMLAT_FUZZ_READER_H
#define LLMLAT_FUZZ_READER_H

#include "fuzz_common.h"

/* The size of the next piece fed after `fed` bytes: a third of the input,
 * then single bytes for a while, then the rest in blocks. */
static inline size_t fz_piece(size_t fed, size_t size)
{
    size_t left = size - fed;
    if (fed == 0)
        return size / 3 ? size / 3 : left;
    if (fed < size / 3 + 64)
        return 1;
    return left < 4096 ? left : 4096;
}

static inline void fz_one_line(const char *m)
{
    size_t n = strlen(m);
    FZ_CHECK(n > 0 && n < 512, "message of %zu bytes", n);
    FZ_CHECK(strncmp(m, "fuzz:", 5) == 0, "message without the input name: %s", m);
    FZ_CHECK(!strchr(m, '\n'), "message of several lines: %s", m);
}

static inline void fz_read(const uint8_t *data, size_t size, int32_t input, int32_t conv,
                           int32_t mode, bool use_next)
{
    fz_alloc_install();
    llmlat_agg *a = llmlat_agg_new(conv, mode);
    llmlat_reader *rd = llmlat_reader_new(input, "fuzz");
    llmlat_request *r = llmlat_request_new();
    FZ_CHECK(a && rd && r, "new");
    size_t fed = 0;
    uint64_t rejected = 0, refused = 0;
    int32_t st, what;
    for (;;) {
        st = use_next ? llmlat_reader_next(rd, r, &what) : llmlat_reader_add_to(rd, a, &what);
        if (st != LLMLAT_OK)
            break;
        if (what == LLMLAT_READ_END)
            break;
        if (what == LLMLAT_READ_REQUEST) {
            FZ_CHECK(use_next, "add_to handed a request over");
            int32_t added = llmlat_agg_add(a, r);
            FZ_CHECK(added == LLMLAT_OK || added == LLMLAT_EOVERFLOW, "add: %d", added);
            refused += added != LLMLAT_OK;
        } else if (what == LLMLAT_READ_REJECTED) {
            rejected++;
            fz_one_line(llmlat_reader_message(rd));
        } else {
            FZ_CHECK(what == LLMLAT_READ_MORE, "what %d", what);
            if (fed == size) {
                st = llmlat_reader_end(rd);
                FZ_CHECK(st == LLMLAT_OK, "end: %d", st);
            } else {
                size_t n = fz_piece(fed, size);
                st = llmlat_reader_feed(rd, data + fed, n);
                FZ_CHECK(st == LLMLAT_OK, "feed: %d", st);
                fed += n;
            }
        }
    }
    uint64_t requests = 0, counted_rejected = 0;
    FZ_CHECK(llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REQUESTS, &requests) == LLMLAT_OK, "c");
    FZ_CHECK(llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REJECTED, &counted_rejected) ==
                 LLMLAT_OK,
             "r");
    FZ_CHECK(counted_rejected == rejected, "%llu rejections counted, %llu seen",
             (unsigned long long)counted_rejected, (unsigned long long)rejected);
    if (st == LLMLAT_OK) {
        uint64_t completed = 0, failed = 0;
        FZ_CHECK(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &completed) == LLMLAT_OK, "c");
        FZ_CHECK(llmlat_agg_counter(a, LLMLAT_COUNT_FAILED, &failed) == LLMLAT_OK, "f");
        FZ_CHECK(completed + failed + rejected + refused == requests,
                 "%llu requests read, %llu + %llu added, %llu rejected, %llu refused",
                 (unsigned long long)requests, (unsigned long long)completed,
                 (unsigned long long)failed, (unsigned long long)rejected,
                 (unsigned long long)refused);
        double d;
        if (llmlat_reader_duration(rd, &d) == LLMLAT_OK) /* as the command does */
            llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, d);
        size_t len = 0;
        FZ_CHECK(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len) == LLMLAT_ENOSPC,
                 "report sizing");
        char *buf = malloc(len);
        FZ_CHECK(buf, "test allocation");
        FZ_CHECK(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, buf, len, &len) == LLMLAT_OK,
                 "report");
        free(buf);
    } else {
        FZ_CHECK(st == LLMLAT_EFORMAT, "error %d without allocation failures", st);
        fz_one_line(llmlat_reader_message(rd));
        FZ_CHECK(llmlat_reader_feed(rd, data, size) == st, "the error is not sticky");
    }
    llmlat_request_free(r);
    llmlat_reader_free(rd);
    llmlat_agg_free(a);
    fz_alloc_check_released();
}

#endif
