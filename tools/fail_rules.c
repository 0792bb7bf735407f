#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail_rules.h"

const char *fail_rule_next(const char *s, char *figure, size_t cap, double *limit)
{
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    const char *colon = memchr(s, ':', len);
    if (!colon || colon == s || (size_t)(colon - s) >= cap)
        return FAIL_RULE_BAD;
    memcpy(figure, s, (size_t)(colon - s));
    figure[colon - s] = '\0';
    const char *p = colon + 1, *end = s + len;
    if (p >= end || (*p != '+' && *p != '-') || end[-1] != '%' || end - p < 3)
        return FAIL_RULE_BAD;
    char num[64];
    size_t n = (size_t)(end - 1 - (p + 1));
    if (n >= sizeof num)
        return FAIL_RULE_BAD;
    memcpy(num, p + 1, n);
    num[n] = '\0';
    for (size_t i = 0; i < n; i++) /* digits and one point only */
        if (!((num[i] >= '0' && num[i] <= '9') || num[i] == '.'))
            return FAIL_RULE_BAD;
    char *stop;
    double v = strtod(num, &stop);
    if (*stop || !isfinite(v))
        return FAIL_RULE_BAD;
    *limit = (*p == '+' ? v : -v) / 100.0;
    return comma ? comma + 1 : NULL;
}

enum fail_verdict fail_rule_check(const llmlat_compare *c, const char *figure, double limit,
                                  double *rel)
{
    double lo, hi;
    int32_t st = llmlat_compare_get(c, figure, LLMLAT_COMPARE_REL_DIFF, rel);
    if (st == LLMLAT_EINVAL)
        return FAIL_UNKNOWN_FIGURE;
    if (st != LLMLAT_OK ||
        llmlat_compare_get(c, figure, LLMLAT_COMPARE_DIFF_LOW, &lo) != LLMLAT_OK ||
        llmlat_compare_get(c, figure, LLMLAT_COMPARE_DIFF_HIGH, &hi) != LLMLAT_OK)
        return FAIL_NO_INTERVAL;
    bool beyond = limit >= 0 ? *rel > limit : *rel < limit;
    bool significant = lo > 0.0 || hi < 0.0;
    return beyond && significant ? FAIL_BROKEN : FAIL_KEPT;
}
