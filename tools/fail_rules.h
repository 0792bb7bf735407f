/* `llmlat compare --fail-if`: rules FIGURE:+P% (the candidate's figure may
 * be at most P% above the base's) and FIGURE:-P% (at most P% below),
 * comma-separated. A rule is broken when the relative difference passes
 * the limit in its direction and the difference is significant: its
 * bootstrap interval excludes 0 (docs/compare.md). */
#ifndef LLMLAT_FAIL_RULES_H
#define LLMLAT_FAIL_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "llmlat.h"

/* What fail_rule_next returns for a malformed rule. */
#define FAIL_RULE_BAD ((const char *)1)

/* The rule at s: its figure's name into figure (cap bytes), its limit as a
 * signed fraction (+0.05, -0.03). Returns where the next rule starts, NULL
 * after the last, or FAIL_RULE_BAD. */
const char *fail_rule_next(const char *s, char *figure, size_t cap, double *limit);

/* The verdict of one rule on c. */
enum fail_verdict {
    FAIL_KEPT,
    FAIL_BROKEN,
    FAIL_UNKNOWN_FIGURE,
    FAIL_NO_INTERVAL, /* no resamples, or the figure is undefined */
};

/* *rel is the relative difference (NaN when undefined). */
enum fail_verdict fail_rule_check(const llmlat_compare *c, const char *figure, double limit,
                                  double *rel);

#endif
