/* Writes a synthetic trace for bench/report-bench.sh: N requests of E
 * events each, as JSON Lines on stdout, deterministic (fixed seed).
 * Requests arrive every 2 ms; the first chunk comes 50-150 ms after the
 * start, then a chunk every 15-35 ms carrying 1 token (2-4 one time in
 * ten, an empty chunk one time in fifty).
 *
 *   cc -O2 -o report_gen bench/report_gen.c && ./report_gen 100000 200 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    uint64_t x = rng_state; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static int64_t uniform(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

/* ns as "S.NNNNNNNNN" (times here are positive). */
static char *put_seconds(char *p, int64_t ns)
{
    char tmp[24];
    int n = 0;
    int64_t s = ns / 1000000000;
    do {
        tmp[n++] = (char)('0' + s % 10);
        s /= 10;
    } while (s);
    while (n)
        *p++ = tmp[--n];
    *p++ = '.';
    int64_t frac = ns % 1000000000;
    for (int64_t d = 100000000; d; d /= 10)
        *p++ = (char)('0' + frac / d % 10);
    return p;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long e = argc > 2 ? atol(argv[2]) : 200;
    if (n < 1 || e < 1) {
        fprintf(stderr, "usage: report_gen REQUESTS EVENTS_PER_REQUEST\n");
        return 2;
    }
    char *line = malloc((size_t)e * 32 + 256);
    if (!line)
        return 1;
    for (long i = 0; i < n; i++) {
        int64_t start = 1000000000 + (int64_t)i * 2000000;
        int64_t t = start + uniform(50000000, 150000000);
        char *p = line;
        p += sprintf(p, "{\"start\": ");
        p = put_seconds(p, start);
        p += sprintf(p, ", \"input_tokens\": %d, \"events\": [", (int)uniform(100, 2000));
        for (long j = 0; j < e; j++) {
            if (j)
                t += uniform(15000000, 35000000);
            uint64_t r = next() % 50;
            int k = r == 0 ? 0 : r < 5 ? (int)uniform(2, 4) : 1;
            *p++ = '[';
            p = put_seconds(p, t);
            p += sprintf(p, ",%d]%s", k, j + 1 < e ? "," : "");
        }
        p += sprintf(p, "], \"end\": ");
        p = put_seconds(p, t + 100000);
        p += sprintf(p, "}\n");
        fwrite(line, 1, (size_t)(p - line), stdout);
    }
    free(line);
    return ferror(stdout) ? 1 : 0;
}
