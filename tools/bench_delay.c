#include <math.h>
#include <string.h>

#include "bench_delay.h"

void delay_init(delay_hist *h)
{
    pthread_mutex_init(&h->lock, NULL);
    memset(&h->counts, 0, sizeof h->counts);
}

void delay_destroy(delay_hist *h)
{
    pthread_mutex_destroy(&h->lock);
}

/* Bucket 0: below 1 us; then 8 per power of two of microseconds. */
static int bucket(int64_t ns)
{
    uint64_t us = ns > 0 ? (uint64_t)ns / 1000 : 0;
    if (us == 0)
        return 0;
    int octave = 63 - __builtin_clzll(us);
    if (octave >= 32)
        return DELAY_BUCKETS - 1;
    int sub = octave >= 3 ? (int)((us >> (octave - 3)) & 7) : (int)((us << (3 - octave)) & 7);
    return 1 + octave * 8 + sub;
}

static double upper_bound_s(int b)
{
    if (b == 0)
        return 1e-6;
    int octave = (b - 1) / 8, sub = (b - 1) % 8;
    return ldexp(1.0 + (sub + 1) / 8.0, octave) * 1e-6;
}

void delay_record(delay_hist *h, int64_t ns)
{
    int b = bucket(ns);
    pthread_mutex_lock(&h->lock);
    h->counts.n[b]++;
    pthread_mutex_unlock(&h->lock);
}

void delay_take(delay_hist *h, delay_counts *into)
{
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < DELAY_BUCKETS; i++)
        into->n[i] += h->counts.n[i];
    memset(&h->counts, 0, sizeof h->counts);
    pthread_mutex_unlock(&h->lock);
}

double delay_quantile(const delay_counts *c, double q)
{
    uint64_t total = 0;
    for (int i = 0; i < DELAY_BUCKETS; i++)
        total += c->n[i];
    if (total == 0)
        return -1;
    uint64_t rank = (uint64_t)ceil(q * (double)total), seen = 0;
    if (rank == 0)
        rank = 1;
    for (int i = 0; i < DELAY_BUCKETS; i++) {
        seen += c->n[i];
        if (seen >= rank)
            return upper_bound_s(i);
    }
    return upper_bound_s(DELAY_BUCKETS - 1);
}
