package llmlat

/*
#include "llmlat.h"

// Handles as integers on the hot path, as in request.go.
static inline int32_t go_agg_add(uintptr_t a, uintptr_t r)
{
    return llmlat_agg_add((llmlat_agg *)a, (const llmlat_request *)r);
}

// A streamed report's pieces go to goReportWrite (report_write.go), with
// the sink as a cgo.Handle: C keeps no Go pointer.
extern int32_t goReportWrite(uintptr_t sink, void *bytes, size_t len);

static int32_t go_report_piece(void *sink, const void *bytes, size_t len)
{
    return goReportWrite((uintptr_t)sink, (void *)bytes, len);
}

static inline int32_t go_agg_report_write(llmlat_agg *a, int32_t format, uintptr_t sink)
{
    return llmlat_agg_report_write(a, format, go_report_piece, (void *)sink);
}
*/
import "C"

import (
	"io"
	"math"
	"runtime"
	"runtime/cgo"
	"strings"
	"unsafe"
)

// Aggregator holds the statistics of many requests under one convention
// and mode. It is changed (Add, Merge into it, Set*, Reset, UnmarshalBinary,
// Close) by one goroutine at a time; its queries only read, so several
// goroutines may query it while none changes it. Use one Aggregator per
// goroutine and Merge them to report (see the example of Merge). Close it
// when done; a finalizer frees one that was not closed.
//
// The zero Aggregator is closed until UnmarshalBinary fills it, so that it
// can be decoded into (encoding.BinaryUnmarshaler).
type Aggregator struct {
	h *aggHandle
}

// aggHandle owns the C aggregator and carries the finalizer, so that an
// Aggregator need not be a heap object of its own (a zero value in a struct
// field can be unmarshaled into) and its copies share one state.
type aggHandle struct {
	c *C.llmlat_agg
}

func (h *aggHandle) free() {
	frees.Add(1)
	C.llmlat_agg_free(h.c)
	h.c = nil
}

func newAggHandle(c *C.llmlat_agg) *aggHandle {
	h := &aggHandle{c: c}
	runtime.SetFinalizer(h, (*aggHandle).free)
	return h
}

// NewAggregator is a new, empty Aggregator under convention c in mode mode.
// ErrInvalid for an unknown convention or mode, ErrNoMem if out of memory.
func NewAggregator(c Convention, mode Mode) (*Aggregator, error) {
	var a *C.llmlat_agg
	switch status := C.llmlat_agg_create(C.int32_t(c), C.int32_t(mode), &a); {
	case status == C.LLMLAT_EINVAL && C.llmlat_convention_name(C.int32_t(c)) == nil:
		return nil, invalid("new aggregator", "unknown "+c.String())
	case status == C.LLMLAT_EINVAL:
		return nil, invalid("new aggregator", "unknown "+mode.String())
	case status != C.LLMLAT_OK:
		return nil, check(status, "new aggregator")
	}
	return &Aggregator{h: newAggHandle(a)}, nil
}

// Close frees the aggregator's C memory. It is idempotent and returns nil;
// every later call on a returns ErrInvalid (UnmarshalBinary fills it anew).
// Copies of an Aggregator share its state, so closing one closes all.
func (a *Aggregator) Close() error {
	if a != nil && a.h != nil && a.h.c != nil {
		runtime.SetFinalizer(a.h, nil)
		a.h.free()
	}
	return nil
}

// handle is a's C pointer, NULL for a nil, zero or closed aggregator (the
// library answers EINVAL to NULL). Pair it with runtime.KeepAlive(a.h).
func (a *Aggregator) handle() *C.llmlat_agg {
	if a == nil || a.h == nil {
		return nil
	}
	return a.h.c
}

// keepAlive keeps a's C aggregator from its finalizer until this point.
func (a *Aggregator) keepAlive() {
	if a != nil {
		runtime.KeepAlive(a.h)
	}
}

// Reset drops every sample and counter, keeping the convention, mode,
// parameters and report quantiles.
func (a *Aggregator) Reset() error {
	err := check(C.llmlat_agg_reset(a.handle()), "reset")
	a.keepAlive()
	return err
}

// Convention is the convention a was made with (-1 if a is closed).
func (a *Aggregator) Convention() Convention {
	out := C.int32_t(-1)
	C.llmlat_agg_get_convention(a.handle(), &out)
	a.keepAlive()
	return Convention(out)
}

// Mode is the mode a was made with (-1 if a is closed).
func (a *Aggregator) Mode() Mode {
	out := C.int32_t(-1)
	C.llmlat_agg_get_mode(a.handle(), &out)
	a.keepAlive()
	return Mode(out)
}

// SetParam sets a numbered parameter (seconds where a time). ErrInvalid for
// an unknown param, NaN/Inf or a value outside ParamBounds; ErrState for a
// bounded aggregator's relative error or SLOs once it holds data.
func (a *Aggregator) SetParam(p Param, v float64) error {
	err := check(C.llmlat_agg_set_param(a.handle(), C.int32_t(p), C.double(v)), "set param")
	a.keepAlive()
	return err
}

// Param reads a parameter back.
func (a *Aggregator) Param(p Param) (float64, error) {
	var out C.double
	status := C.llmlat_agg_get_param(a.handle(), C.int32_t(p), &out)
	a.keepAlive()
	return result(status, out, "param")
}

// ParamBounds is the accepted range [lo, hi] of a parameter.
func ParamBounds(p Param) (lo, hi float64, err error) {
	var clo, chi C.double
	if err := check(C.llmlat_param_bounds(C.int32_t(p), &clo, &chi), "param bounds"); err != nil {
		return math.NaN(), math.NaN(), err
	}
	return float64(clo), float64(chi), nil
}

// SetQuantiles sets the quantiles (each in [0, 1], 1 to 32 of them) that
// Report prints; the default is 0.5, 0.9, 0.95, 0.99.
func (a *Aggregator) SetQuantiles(q ...float64) error {
	var p *C.double
	if len(q) > 0 {
		p = (*C.double)(unsafe.Pointer(&q[0]))
	}
	err := check(C.llmlat_agg_set_quantiles(a.handle(), p, C.size_t(len(q))), "set quantiles")
	a.keepAlive()
	runtime.KeepAlive(q)
	return err
}

// SetBuckets sets the upper bounds (seconds, finite, strictly increasing,
// at most 64; +Inf is implicit) of the classic histogram that a
// FormatPrometheus report writes for a time metric (TTFT, TPOT, ITL, ICL,
// E2E or ITLMax). No bounds restore the default, the buckets vLLM's server
// uses. Reset keeps them.
func (a *Aggregator) SetBuckets(m Metric, bounds ...float64) error {
	var p *C.double
	if len(bounds) > 0 {
		p = (*C.double)(unsafe.Pointer(&bounds[0]))
	}
	err := check(C.llmlat_agg_set_buckets(a.handle(), C.int32_t(m), p, C.size_t(len(bounds))), "set buckets")
	a.keepAlive()
	runtime.KeepAlive(bounds)
	return err
}

// Add folds a finished or failed request into a. The request is not
// changed and may be Reset right after. ErrState for a request still in
// flight (or not started).
func (a *Aggregator) Add(r *Request) error {
	err := check(C.go_agg_add(C.uintptr_t(uintptr(unsafe.Pointer(a.handle()))), r.addr()), "add")
	a.keepAlive()
	r.keepAlive()
	return err
}

// Merge adds everything src holds to a, which then equals an aggregator
// that was given the requests of both; a keeps its parameters and src is not
// changed (only read: other goroutines may query it meanwhile, not change it).
// ErrMismatch for a different convention or mode (or bounded aggregators
// with different relative errors or SLOs); ErrInvalid when src is a.
func (a *Aggregator) Merge(src *Aggregator) error {
	err := check(C.llmlat_agg_merge(a.handle(), src.handle()), "merge")
	a.keepAlive()
	src.keepAlive()
	return err
}

// Stat is a statistic of metric m's samples (StatCount counts samples: of
// tokens for ITL). An empty set is ErrUndefined with NaN, unless the
// convention's placeholder applies (vLLM and SGLang: 0).
func (a *Aggregator) Stat(m Metric, s Stat) (float64, error) {
	var out C.double
	status := C.llmlat_agg_stat(a.handle(), C.int32_t(m), C.int32_t(s), &out)
	a.keepAlive()
	return result(status, out, "stat")
}

// Quantile is the q-quantile (q in [0, 1]) of metric m's samples. In
// ModeExact it is the same double as numpy.percentile(x, 100*q); in
// ModeBounded it is within the relative error ParamRelativeError. Empty
// sets as for Stat; ErrInvalid for q outside [0, 1] or NaN.
func (a *Aggregator) Quantile(m Metric, q float64) (float64, error) {
	var out C.double
	status := C.llmlat_agg_quantile(a.handle(), C.int32_t(m), C.double(q), &out)
	a.keepAlive()
	return result(status, out, "quantile")
}

// Quantiles is Quantile for 1 to 32 values of q at once, for about the
// cost of one in ModeExact (one selection pass finds every rank). On an
// error every value is NaN.
func (a *Aggregator) Quantiles(m Metric, q ...float64) ([]float64, error) {
	out := make([]float64, len(q))
	var qp, op *C.double
	if len(q) > 0 {
		qp = (*C.double)(unsafe.Pointer(&q[0]))
		op = (*C.double)(unsafe.Pointer(&out[0]))
	}
	status := C.llmlat_agg_quantiles(a.handle(), C.int32_t(m), qp, C.size_t(len(q)), op)
	a.keepAlive()
	runtime.KeepAlive(q)
	runtime.KeepAlive(out)
	if err := check(status, "quantiles"); err != nil {
		for i := range out {
			out[i] = math.NaN()
		}
		return out, err
	}
	return out, nil
}

// Rate is a system rate per second of the duration D (ParamDuration, or
// derived from the data). ErrUndefined (NaN) when D is 0 or unknown, for
// RateGoodput without an SLO, or a peak with no success.
func (a *Aggregator) Rate(r Rate) (float64, error) {
	var out C.double
	status := C.llmlat_agg_rate(a.handle(), C.int32_t(r), &out)
	a.keepAlive()
	return result(status, out, "rate")
}

// Counter is one of a's counts. ErrUndefined for CountGood without an SLO.
func (a *Aggregator) Counter(c Counter) (uint64, error) {
	var out C.uint64_t
	err := check(C.llmlat_agg_counter(a.handle(), C.int32_t(c), &out), "counter")
	a.keepAlive()
	if err != nil {
		return 0, err
	}
	return uint64(out), nil
}

// Report is a report of a in format f: a readable table (FormatText), one
// JSON object (FormatJSON, docs/report-json.md) or Prometheus text
// exposition (FormatPrometheus). ErrInvalid for an unknown format. The
// report is made once (see WriteReport).
func (a *Aggregator) Report(f Format) (string, error) {
	var b strings.Builder
	if err := a.WriteReport(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// WriteReport writes the report Report returns to w as it is made, in
// pieces of a few KiB, so that no buffer of the report's size is needed
// and the report is made once. w must not keep the slices it is given
// (io.Writer's rule) and must not change a. An error of w stops the
// report and is returned as is (a panic of w goes on once the report has
// stopped); w then holds a prefix of the report. ErrInvalid for an unknown
// format.
func (a *Aggregator) WriteReport(w io.Writer, f Format) error {
	if w == nil {
		return invalid("report", "nil io.Writer")
	}
	s := &reportSink{w: w}
	h := cgo.NewHandle(s)
	status := C.go_agg_report_write(a.handle(), C.int32_t(f), C.uintptr_t(h))
	a.keepAlive()
	h.Delete()
	switch {
	case s.panic != nil:
		panic(s.panic)
	case s.err != nil:
		return s.err
	}
	return check(status, "report")
}

// MarshalBinary serializes a in the library's documented, versioned,
// little-endian byte format (docs/format.md), which UnmarshalBinary, and
// llmlat_agg_deserialize in any process or language, reads back. It
// implements encoding.BinaryMarshaler.
func (a *Aggregator) MarshalBinary() ([]byte, error) {
	return a.write("marshal", 0, func(buf unsafe.Pointer, size C.size_t, n *C.size_t) C.int32_t {
		return C.llmlat_agg_serialize(a.handle(), buf, size, n)
	})
}

// write runs a (buf, cap, &len) call of the C API into a Go buffer of
// first bytes, then once more into one of the size it asked for. The
// buffer is only written during the call.
func (a *Aggregator) write(op string, first int, call func(unsafe.Pointer, C.size_t, *C.size_t) C.int32_t) ([]byte, error) {
	defer a.keepAlive()
	buf := make([]byte, first)
	for {
		var p unsafe.Pointer
		if len(buf) > 0 {
			p = unsafe.Pointer(&buf[0])
		}
		var n C.size_t
		status := call(p, C.size_t(len(buf)), &n)
		runtime.KeepAlive(buf)
		switch {
		case status == C.LLMLAT_OK:
			return buf[:n], nil
		case status == C.LLMLAT_ENOSPC && uint64(n) > uint64(len(buf)):
			buf = make([]byte, n)
		default:
			return nil, check(status, op)
		}
	}
}

// UnmarshalBinary replaces a's state (freeing what it held) with an
// aggregator read from bytes written by MarshalBinary, convention, mode,
// parameters and all. Every byte is treated as hostile: malformed,
// truncated, corrupted or trailing bytes are ErrFormat, and a is then
// unchanged. It implements encoding.BinaryUnmarshaler; a zero Aggregator
// can be unmarshaled into.
func (a *Aggregator) UnmarshalBinary(data []byte) error {
	if a == nil {
		return invalid("unmarshal", "nil *Aggregator")
	}
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	var status C.int32_t = C.LLMLAT_EINVAL
	c := C.llmlat_agg_deserialize(p, C.size_t(len(data)), &status)
	runtime.KeepAlive(data)
	if c == nil {
		if status == C.LLMLAT_OK { // never expected: NULL is an error
			status = C.LLMLAT_ENOMEM
		}
		return check(status, "unmarshal")
	}
	if a.h != nil && a.h.c != nil { // live: swap the state its copies share
		old := a.h.c
		a.h.c = c
		frees.Add(1)
		C.llmlat_agg_free(old)
		runtime.KeepAlive(a.h)
	} else {
		a.h = newAggHandle(c)
	}
	return nil
}
