/* Peak concurrency (a sweep over half-open intervals) and peak output
 * tokens per 1-second bucket. */
#include "helpers.h"

#include "exact/timeline.h"

static void push(timeline *tl, const llmlat_alloc *al, int64_t start, int64_t e2e)
{
    assert_int_equal(timeline_reserve(tl, al, 1, 0), LLMLAT_OK);
    success_record r = { .start_ns = start, .e2e_ns = e2e };
    timeline_push_record(tl, &r);
}

static uint64_t peak(const timeline *tl, const llmlat_alloc *al)
{
    uint64_t p = 99;
    assert_int_equal(timeline_peak_concurrency(tl, al, &p), LLMLAT_OK);
    return p;
}

static void concurrency_sweep(void **state)
{
    (void)state;
    llmlat_alloc al = alloc_current();
    timeline tl;
    timeline_init(&tl);
    assert_int_equal(peak(&tl, &al), 0);
    push(&tl, &al, 0, 10);
    assert_int_equal(peak(&tl, &al), 1);
    push(&tl, &al, 10, 10); /* starts when the first ends: departures first */
    assert_int_equal(peak(&tl, &al), 1);
    push(&tl, &al, 5, 10); /* [5, 15) overlaps both */
    assert_int_equal(peak(&tl, &al), 2);
    push(&tl, &al, 12, 0); /* zero length: never concurrent */
    assert_int_equal(peak(&tl, &al), 2);
    push(&tl, &al, 6, -1); /* no E2E: not in the sweep */
    assert_int_equal(peak(&tl, &al), 2);
    push(&tl, &al, 1, 100);
    push(&tl, &al, 2, 100);
    assert_int_equal(peak(&tl, &al), 4); /* at 5: [0,10) [5,15) [1,101) [2,102) */
    /* near the int64 limit, ends saturate rather than wrap */
    push(&tl, &al, INT64_MAX - 5, 10);
    assert_int_equal(peak(&tl, &al), 4);
    timeline_free(&tl, &al);
}

static void tokens_per_second_buckets(void **state)
{
    (void)state;
    llmlat_alloc al = alloc_current();
    timeline tl;
    timeline_init(&tl);
    uint64_t p;
    bool defined;
    assert_int_equal(timeline_peak_per_second(&tl, &al, &p, &defined), LLMLAT_OK);
    assert_false(defined);
    /* buckets start at the earliest record start, 500 ms */
    push(&tl, &al, 2 * SEC, 1);
    push(&tl, &al, 500 * MS, 1);
    assert_int_equal(timeline_reserve(&tl, &al, 0, 5), LLMLAT_OK);
    timeline_push_event(&tl, 1499 * MS, 3); /* bucket 0 */
    timeline_push_event(&tl, 1500 * MS, 4); /* bucket 1: [1.5 s, 2.5 s) */
    timeline_push_event(&tl, 2499 * MS, 2); /* bucket 1 */
    timeline_push_event(&tl, 600 * MS, 1);  /* bucket 0 */
    timeline_push_event(&tl, 9 * SEC, 5);   /* bucket 8 */
    assert_int_equal(timeline_peak_per_second(&tl, &al, &p, &defined), LLMLAT_OK);
    assert_true(defined);
    assert_int_equal(p, 6);
    /* the same events over a span of more seconds than events: counted by
     * sorting rather than by an array per second; same answer */
    assert_int_equal(timeline_reserve(&tl, &al, 0, 1), LLMLAT_OK);
    timeline_push_event(&tl, 100000 * SEC, 1);
    assert_int_equal(timeline_peak_per_second(&tl, &al, &p, &defined), LLMLAT_OK);
    assert_int_equal(p, 6);
    timeline_free(&tl, &al);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrency_sweep),
        cmocka_unit_test(tokens_per_second_buckets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
