package llmlat

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"math"
	"runtime"
	"time"
	"unsafe"
)

// WindowRule says which requests a window keeps (AddWindow).
type WindowRule int32

// The rules, the C API's LLMLAT_WINDOW_* ids. A request's end is its
// finish or fail time.
const (
	WindowStart  WindowRule = 1 // from <= start < to: consecutive windows are slices
	WindowEnd    WindowRule = 2 // from <= end < to
	WindowInside WindowRule = 3 // from <= start and end <= to: the whole request
)

// The formats of what an exact aggregator keeps of each request, and the
// HTML page (docs/report-formats.md).
const (
	FormatHTML          Format = 6 // one self-contained page: tables and inline SVG
	FormatChromeTrace   Format = 7 // Chrome/Perfetto trace-event JSON of the requests
	FormatRequestsCSV   Format = 8 // one row per request
	FormatRequestsJSONL Format = 9 // the same, one JSON object per line
)

func _() {
	var x [1]struct{}
	_ = x[WindowStart-C.LLMLAT_WINDOW_START]
	_ = x[WindowEnd-C.LLMLAT_WINDOW_END]
	_ = x[WindowInside-C.LLMLAT_WINDOW_INSIDE]
	_ = x[FormatHTML-C.LLMLAT_FORMAT_HTML]
	_ = x[FormatChromeTrace-C.LLMLAT_FORMAT_CHROME_TRACE]
	_ = x[FormatRequestsCSV-C.LLMLAT_FORMAT_REQUESTS_CSV]
	_ = x[FormatRequestsJSONL-C.LLMLAT_FORMAT_REQUESTS_JSONL]
	_ = x[CompareBase-C.LLMLAT_COMPARE_BASE]
	_ = x[CompareRelHigh-C.LLMLAT_COMPARE_REL_HIGH]
}

// NewLike is a new, empty Aggregator set up as a is: convention, mode,
// parameters, report quantiles, histogram bounds and labels.
func (a *Aggregator) NewLike() (*Aggregator, error) {
	c := C.llmlat_agg_new_like(a.handle())
	a.keepAlive()
	if c == nil {
		if a.handle() == nil {
			return nil, invalid("new like", "closed aggregator")
		}
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new like"}
	}
	return &Aggregator{h: newAggHandle(c)}, nil
}

// AddWindow adds to a every request of src that rule keeps in the window
// from .. to (timestamps in ns), as Add would: under a's convention and
// settings. All or nothing. ErrUndefined when src keeps no requests
// (ModeBounded).
func (a *Aggregator) AddWindow(src *Aggregator, from, to int64, rule WindowRule) error {
	err := check(C.llmlat_agg_add_window(a.handle(), src.handle(), C.int64_t(from),
		C.int64_t(to), C.int32_t(rule)), "add window")
	a.keepAlive()
	src.keepAlive()
	return err
}

// Span is the earliest start and the latest end (ns) of the requests a
// keeps. ErrUndefined when there is none, or a keeps none (ModeBounded).
func (a *Aggregator) Span() (first, last int64, err error) {
	var f, l C.int64_t
	err = check(C.llmlat_agg_span(a.handle(), &f, &l), "span")
	a.keepAlive()
	return int64(f), int64(l), err
}

// Steady is a new Aggregator (set up as a, its duration derived) of the
// requests wholly inside [first + max(from, warmup), min(first + to,
// last - cooldown)], first and last being a's Span: what the command's
// --window FROM:TO, --warmup and --cooldown keep (to < 0: no end).
func (a *Aggregator) Steady(from, to, warmup, cooldown time.Duration) (*Aggregator, error) {
	first, last, err := a.Span()
	if err != nil {
		return nil, err
	}
	out, err := a.NewLike()
	if err != nil {
		return nil, err
	}
	if err := out.SetParam(ParamDuration, 0); err != nil {
		out.Close()
		return nil, err
	}
	lo := first + int64(maxDuration(from, warmup))
	hi := last - int64(cooldown)
	if to >= 0 && first+int64(to) < hi {
		hi = first + int64(to)
	}
	if lo <= hi {
		if err := out.AddWindow(a, lo, hi, WindowInside); err != nil {
			out.Close()
			return nil, err
		}
	}
	return out, nil
}

func maxDuration(x, y time.Duration) time.Duration {
	if x > y {
		return x
	}
	return y
}

// Comparison holds two runs side by side (llmlat_compare): each figure of
// a base and a candidate, the difference, the relative difference and 95%
// bootstrap intervals of both (docs/compare.md). Close it when done; a
// finalizer frees one that was not closed.
type Comparison struct {
	h *compareHandle
}

type compareHandle struct {
	c *C.llmlat_compare
}

func (h *compareHandle) free() {
	C.llmlat_compare_free(h.c)
	h.c = nil
}

// CompareField is a field of a figure (Comparison.Get).
type CompareField int32

// The fields, the C API's LLMLAT_COMPARE_* ids.
const (
	CompareBase     CompareField = 1 // the base run's value
	CompareCand     CompareField = 2 // the candidate's
	CompareDiff     CompareField = 3 // candidate - base
	CompareRelDiff  CompareField = 4 // (candidate - base) / base
	CompareDiffLow  CompareField = 5 // the interval of the difference
	CompareDiffHigh CompareField = 6
	CompareRelLow   CompareField = 7 // the interval of the relative difference
	CompareRelHigh  CompareField = 8
)

// Compare compares candidate with base (the same convention), with
// resamples bootstrap resamples of each run's requests drawn from seed.
// ErrMismatch for different conventions. Without resamples, or when a run
// keeps no requests (ModeBounded), there are no intervals (ErrUndefined).
func Compare(base, candidate *Aggregator, resamples uint32, seed uint64) (*Comparison, error) {
	var status C.int32_t
	c := C.llmlat_compare_new(base.handle(), candidate.handle(), C.uint32_t(resamples),
		C.uint64_t(seed), &status)
	base.keepAlive()
	candidate.keepAlive()
	if c == nil {
		return nil, check(status, "compare")
	}
	h := &compareHandle{c: c}
	runtime.SetFinalizer(h, (*compareHandle).free)
	return &Comparison{h: h}, nil
}

func (c *Comparison) handle() *C.llmlat_compare {
	if c == nil || c.h == nil {
		return nil
	}
	return c.h.c
}

// Close frees the comparison; later calls return ErrInvalid.
func (c *Comparison) Close() error {
	if c != nil && c.h != nil && c.h.c != nil {
		runtime.SetFinalizer(c.h, nil)
		c.h.free()
	}
	return nil
}

// Figures are the names of the figures, metrics by id then rates
// ("mean_ttft", "p99_itl", "output_throughput", ...).
func (c *Comparison) Figures() []string {
	var out []string
	for i := 0; ; i++ {
		name := C.llmlat_compare_figure(c.handle(), C.size_t(i))
		if name == nil {
			break
		}
		out = append(out, C.GoString(name))
	}
	runtime.KeepAlive(c.h)
	return out
}

// Get is a field of a figure (seconds, tokens, or per second for rates).
// ErrInvalid for an unknown figure or field; ErrUndefined (NaN) when the
// value is undefined.
func (c *Comparison) Get(figure string, f CompareField) (float64, error) {
	name := C.CString(figure)
	defer C.free(unsafe.Pointer(name))
	var out C.double
	status := C.llmlat_compare_get(c.handle(), name, C.int32_t(f), &out)
	runtime.KeepAlive(c.h)
	if status != C.LLMLAT_OK {
		return math.NaN(), check(status, "compare get")
	}
	return float64(out), nil
}

// Report is the comparison as FormatText (a table) or FormatJSON.
func (c *Comparison) Report(f Format) (string, error) {
	defer runtime.KeepAlive(c.h)
	var n C.size_t
	status := C.llmlat_compare_report(c.handle(), C.int32_t(f), nil, 0, &n)
	for status == C.LLMLAT_ENOSPC {
		buf := make([]byte, n)
		status = C.llmlat_compare_report(c.handle(), C.int32_t(f), unsafe.Pointer(&buf[0]),
			n, &n)
		if status == C.LLMLAT_OK {
			return string(buf[:n]), nil
		}
	}
	return "", check(status, "compare report")
}
