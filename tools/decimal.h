/* Exact conversions of JSON number text (as json_reader hands it over):
 * seconds to integer nanoseconds without going through a double, and
 * non-negative integers. */
#ifndef LLMLAT_DECIMAL_H
#define LLMLAT_DECIMAL_H

#include <stdbool.h>
#include <stdint.h>

/* Seconds -> nanoseconds, rounded to the nearest nanosecond (halves away
 * from zero) from the exact decimal value: "1.0000000015" -> 1000000002,
 * "2e-9" -> 2. false when the result does not fit int64_t. */
bool decimal_seconds_to_ns(const char *text, int64_t *out);

/* The plain form alone, which nearly every trace time has: -?D+(.D+)?
 * with at most 10 integer digits (no leading zero) and 9 decimals, read
 * from [s, end) in one pass. Returns where it stopped (the caller checks
 * what follows), or NULL when [s, end) does not start with that form. */
const char *decimal_plain_ns(const char *s, const char *end, int64_t *out);

/* A plain non-negative integer (digits only: no sign, point or exponent)
 * up to max; false otherwise. */
bool decimal_to_u64(const char *text, uint64_t max, uint64_t *out);

/* ns as seconds, without trailing zeros: 1500000000 -> "1.5", -1 ->
 * "-0.000000001". out holds at least 32 bytes. */
void ns_to_seconds_text(int64_t ns, char *out);

#endif
