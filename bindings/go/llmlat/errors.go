package llmlat

// #include "llmlat.h"
import "C"

import "math"

// Error is a failed call: the library's status and the operation that
// returned it. Compare it with the sentinels below through errors.Is, or get
// at the status with errors.As.
type Error struct {
	Status int32  // an LLMLAT_E* value of the C API (negative)
	Op     string // the failed operation ("event", "quantile", ...); empty in a sentinel
	Detail string // what the binding adds to the library's text, if anything
}

// The sentinels, one per status of the C API. Errors returned by this
// package match exactly one of them under errors.Is. Their text is the
// library's own (llmlat_strerror).
var (
	// ErrInvalid: a bad argument (unknown id, NaN, q outside [0, 1], a
	// closed object).
	ErrInvalid error = sentinel(C.LLMLAT_EINVAL)
	// ErrNoMem: an allocation failed; the object is unchanged.
	ErrNoMem error = sentinel(C.LLMLAT_ENOMEM)
	// ErrOrder: a timestamp before the previous one of the same request.
	ErrOrder error = sentinel(C.LLMLAT_EORDER)
	// ErrState: a call not valid in this state (event before Start or after
	// Finish, Add of a request still in flight, ...).
	ErrState error = sentinel(C.LLMLAT_ESTATE)
	// ErrUndefined: the value is undefined (TPOT with N <= 1, a statistic
	// of an empty set, a rate with no duration); the value returned is NaN.
	ErrUndefined error = sentinel(C.LLMLAT_EUNDEFINED)
	// ErrFormat: malformed, truncated or corrupted serialized bytes.
	ErrFormat error = sentinel(C.LLMLAT_EFORMAT)
	// ErrMismatch: merging aggregators of different conventions or modes,
	// or bounded ones with different relative errors or SLOs.
	ErrMismatch error = sentinel(C.LLMLAT_EMISMATCH)
	// ErrNoSpace: an output buffer too small. The binding sizes its
	// buffers itself, so a caller should never see it.
	ErrNoSpace error = sentinel(C.LLMLAT_ENOSPC)
	// ErrOverflow: a count, sum or time span would not fit (an event
	// 2^63 ns or more after the start, an aggregator's counter at
	// 2^64 - 1, a request's tokens/s of 2^64 or more). Library 1.1;
	// 1.0 returned ErrInvalid for these.
	ErrOverflow error = sentinel(C.LLMLAT_EOVERFLOW)
)

func sentinel(status C.int32_t) *Error {
	return &Error{Status: int32(status)}
}

// Error is "llmlat: OP: the library's text[: detail]".
func (e *Error) Error() string {
	s := "llmlat: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	s += C.GoString(C.llmlat_strerror(C.int32_t(e.Status)))
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is reports whether target is the sentinel of e's status.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Detail == "" && t.Status == e.Status
}

// check turns a status into nil or an *Error for op.
func check(status C.int32_t, op string) error {
	if status == C.LLMLAT_OK {
		return nil
	}
	return &Error{Status: int32(status), Op: op}
}

// invalid is ErrInvalid for op with the binding's own explanation.
func invalid(op, detail string) error {
	return &Error{Status: C.LLMLAT_EINVAL, Op: op, Detail: detail}
}

// result is a float-returning call's value: NaN with the error when the
// status is not OK.
func result(status C.int32_t, out C.double, op string) (float64, error) {
	if err := check(status, op); err != nil {
		return math.NaN(), err
	}
	return float64(out), nil
}
