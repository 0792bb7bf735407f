/* Exact conversions of JSON number text, as the reader's tokenizer hands
 * it over: a time in some unit (seconds, milliseconds, nanoseconds) to
 * integer nanoseconds without going through a double, non-negative
 * integers, and nanoseconds back to seconds text for messages. */
#ifndef LLMLAT_READ_DECIMAL_H
#define LLMLAT_READ_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

/* The power of ten of one unit in nanoseconds. */
#define DEC_SECONDS 9
#define DEC_MILLISECONDS 6
#define DEC_NANOSECONDS 0

/* A time of `unit` (DEC_SECONDS ...) -> nanoseconds, rounded to the
 * nearest nanosecond (halves away from zero) from the exact decimal
 * value: "1.0000000015" s -> 1000000002, "2e-9" s -> 2. text is a valid
 * JSON number of len bytes. false when the result does not fit int64_t. */
LLMLAT_PRIVATE bool dec_to_ns(const char *text, size_t len, int unit, int64_t *out);

/* A time of `unit` -> nanoseconds from the double nearest the text, as
 * Python's json module reads it (the tools that write epoch times as
 * Python floats computed their figures from those doubles): that double's
 * exact value in ns, rounded to the nearest (halves away from zero). text
 * is a NUL-terminated valid JSON number of len bytes. false when it does
 * not fit int64_t. */
LLMLAT_PRIVATE bool dec_double_to_ns(const char *text, size_t len, int unit, int64_t *out);

/* The plain form of seconds alone, which nearly every trace time has:
 * -?D+(.D+)? with at most 10 integer digits (no leading zero) and 9
 * decimals, read from [s, end) in one pass. Returns where it stopped (the
 * caller checks what follows), or NULL when [s, end) does not start with
 * that form. */
LLMLAT_PRIVATE const char *dec_plain_seconds(const char *s, const char *end, int64_t *out);

/* A plain non-negative integer (digits only: no sign, point or exponent)
 * of len bytes, up to max; false otherwise. */
LLMLAT_PRIVATE bool dec_to_u64(const char *text, size_t len, uint64_t max, uint64_t *out);

/* ns as seconds, without trailing zeros: 1500000000 -> "1.5", -1 ->
 * "-0.000000001". out holds at least DEC_TEXT_MAX bytes. */
#define DEC_TEXT_MAX 32
LLMLAT_PRIVATE void dec_seconds_text(int64_t ns, char *out);

#endif
