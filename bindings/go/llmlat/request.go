package llmlat

/*
#include "capi.h"

// The hot path takes the handle as an integer: cgo checks (and so moves to
// the heap) every pointer argument, which would cost an allocation per
// event. Handles are C memory, so there is nothing to check.
static inline int32_t go_request_event(uintptr_t r, int64_t t_ns, uint32_t k)
{
    return llmlat_request_event((llmlat_request *)r, t_ns, k);
}
static inline int32_t go_request_events(uintptr_t r, const int64_t *t_ns,
                                        const uint32_t *k, size_t n)
{
    return llmlat_request_events((llmlat_request *)r, t_ns, k, n);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Request records one streamed response:
//
//	NewRequest -> Start -> Event* -> Finish | Fail -> Aggregator.Add -> Reset
//
// Recording is O(1) per event and stops allocating once a reused (Reset)
// request has seen its largest stream. A Request is changed by one
// goroutine at a time; Value only reads, so several goroutines may call it
// while none changes the request. Close it when done; a finalizer frees one
// that was not closed.
type Request struct {
	h *reqHandle
}

// reqHandle owns the C recorder and carries the finalizer, so that copies
// of a Request share one state: closing one closes them all, and nothing
// is freed twice.
type reqHandle struct {
	c *C.llmlat_request
}

func (h *reqHandle) free() {
	frees.Add(1)
	C.llmlat_request_free(h.c)
	h.c = nil
}

// NewRequest is a new, empty Request (ErrNoMem if out of memory).
func NewRequest() (*Request, error) {
	c := C.llmlat_request_new()
	if c == nil {
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new request"}
	}
	h := &reqHandle{c: c}
	runtime.SetFinalizer(h, (*reqHandle).free)
	return &Request{h: h}, nil
}

// NewStreamingRequest is a streaming recorder (llmlat_request_new_streaming):
// the same life cycle as NewRequest's, but it keeps only a block of its
// latest 64 events; each full block is folded by the bounded aggregator
// like's bucket layout and gap rule, so its memory follows the spread of
// the request's gaps, not their number, and Aggregator.Add gives the same
// bits as a buffered Request of the same events. It adds to bounded
// aggregators of like's relative error and gap rule (ErrMismatch
// otherwise); like is only read. ErrInvalid for a nil, closed or
// exact-mode like, ErrNoMem.
func NewStreamingRequest(like *Aggregator) (*Request, error) {
	c := C.llmlat_request_new_streaming(like.handle())
	if c == nil {
		defer like.keepAlive()
		if like.handle() == nil || like.Mode() != ModeBounded {
			return nil, invalid("new streaming request", "needs an open bounded aggregator")
		}
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new streaming request"}
	}
	like.keepAlive()
	h := &reqHandle{c: c}
	runtime.SetFinalizer(h, (*reqHandle).free)
	return &Request{h: h}, nil
}

// Close frees the request's C memory. It is idempotent and returns nil;
// every later call on r returns ErrInvalid.
func (r *Request) Close() error {
	if r != nil && r.h != nil && r.h.c != nil {
		runtime.SetFinalizer(r.h, nil)
		r.h.free()
	}
	return nil
}

// handle is r's C pointer, NULL for a nil, zero or closed request (the
// library answers EINVAL to NULL). Pair it with r.keepAlive().
func (r *Request) handle() *C.llmlat_request {
	if r == nil || r.h == nil {
		return nil
	}
	return r.h.c
}

// keepAlive keeps r's C recorder from its finalizer until this point.
func (r *Request) keepAlive() {
	if r != nil {
		runtime.KeepAlive(r.h)
	}
}

// addr is handle() as an integer, for the go_* wrappers of the hot path.
func (r *Request) addr() C.uintptr_t {
	return C.uintptr_t(uintptr(unsafe.Pointer(r.handle())))
}

// Reset brings r back to the state of a new request, keeping its event
// buffer so that a reused request stops allocating.
func (r *Request) Reset() error {
	err := check(C.llmlat_request_reset(r.handle()), "reset")
	r.keepAlive()
	return err
}

// Start marks the request sent (client side) or arrived (server side) at ns
// nanoseconds. ErrState if already started: Reset first.
func (r *Request) Start(ns int64) error {
	err := check(C.llmlat_request_start(r.handle(), C.int64_t(ns)), "start")
	r.keepAlive()
	return err
}

// Schedule records when the request was meant to start (its intended
// start, e.g. the arrival time a benchmark's schedule gave it), at or
// before its start: from it come DispatchDelay, ScheduledTTFT and
// ScheduledE2E (docs/metrics.md, "The intended start"). Before or after
// Start; set again, it replaces the last. ErrState once ended, ErrOrder
// after the start, ErrOverflow when a time of the request would be too
// far from it.
func (r *Request) Schedule(ns int64) error {
	err := check(C.llmlat_request_schedule(r.handle(), C.int64_t(ns)), "schedule")
	r.keepAlive()
	return err
}

// Event records one streamed chunk at ns carrying tokens >= 0 output tokens
// (0: a role chunk, keep-alive or empty delta). ErrState before Start or
// after Finish/Fail, ErrOrder before the start or the previous event,
// ErrInvalid on overflow. A rejected event leaves no trace.
func (r *Request) Event(ns int64, tokens uint32) error {
	err := check(C.go_request_event(r.addr(), C.int64_t(ns), C.uint32_t(tokens)), "event")
	r.keepAlive()
	return err
}

// Events records len(ns) chunks at once, in one cgo call: chunk i arrives
// at ns[i] carrying tokens[i] tokens. All are accepted or none (the errors
// of Event, checked for every chunk before any is stored). Empty slices are
// a no-op; slices of different lengths are ErrInvalid. The slices are only
// read during the call.
func (r *Request) Events(ns []int64, tokens []uint32) error {
	if len(ns) != len(tokens) {
		return invalid("events", "len(ns) != len(tokens)")
	}
	var t *C.int64_t
	var k *C.uint32_t
	if len(ns) > 0 {
		t = (*C.int64_t)(unsafe.Pointer(&ns[0]))
		k = (*C.uint32_t)(unsafe.Pointer(&tokens[0]))
	}
	err := check(C.go_request_events(r.addr(), t, k, C.size_t(len(ns))), "events")
	r.keepAlive()
	runtime.KeepAlive(ns)
	runtime.KeepAlive(tokens)
	return err
}

// SetInputTokens sets the prompt length (default 0), any time before the
// request is added to an aggregator.
func (r *Request) SetInputTokens(n uint64) error {
	err := check(C.llmlat_request_set_input_tokens(r.handle(), C.uint64_t(n)), "set input tokens")
	r.keepAlive()
	return err
}

// SetOutputTokens sets the server's usage count of output tokens; when set
// it is N, otherwise N is the sum of the tokens of the events.
func (r *Request) SetOutputTokens(n uint64) error {
	err := check(C.llmlat_request_set_output_tokens(r.handle(), C.uint64_t(n)), "set output tokens")
	r.keepAlive()
	return err
}

// Finish marks the stream closed normally at ns. ErrState before Start or
// after Finish/Fail, ErrOrder before the start or the last event.
func (r *Request) Finish(ns int64) error {
	err := check(C.llmlat_request_finish(r.handle(), C.int64_t(ns)), "finish")
	r.keepAlive()
	return err
}

// Fail marks the request failed (error, timeout, cancelled) at ns. Same
// errors as Finish.
func (r *Request) Fail(ns int64) error {
	err := check(C.llmlat_request_fail(r.handle(), C.int64_t(ns)), "fail")
	r.keepAlive()
	return err
}

// Cancel marks the request cancelled by the client at ns (a benchmark that
// stops with requests in flight): a failure under every convention, which
// GuideLLM reports as "incomplete" rather than "errored". Same errors as
// Finish.
func (r *Request) Cancel(ns int64) error {
	err := check(C.llmlat_request_cancel(r.handle(), C.int64_t(ns)), "cancel")
	r.keepAlive()
	return err
}

// Value is the request's own value of metric m under convention c, in the
// metric's unit (seconds for times). Per request, ITL and ICL are the
// request's mean gap. Valid once started; what needs data not yet seen is
// ErrUndefined with NaN (TPOT with N <= 1, ICL with one event). ErrState
// before Start, ErrInvalid for an unknown id.
func (r *Request) Value(m Metric, c Convention) (float64, error) {
	var out C.double
	status := C.llmlat_request_value(r.handle(), C.int32_t(c), C.int32_t(m), &out)
	r.keepAlive()
	return result(status, out, "value")
}

// SetLacks says what the request's data lacks (a request rebuilt from
// another tool's result file); LacksChunks is set by SetKnown only.
func (r *Request) SetLacks(l Lacks) error {
	err := check(C.llmlat_request_set_lacks(r.handle(), C.uint32_t(l)), "set lacks")
	r.keepAlive()
	return err
}

// SetKnown gives a per-request value of a request without chunk times:
// TTFT or E2E (seconds), ToolITL, or TPSUser (the tool's own per-request
// throughput, used under its own convention), as the tool of convention c
// measured it. The request then takes no event.
func (r *Request) SetKnown(c Convention, m Metric, value float64) error {
	err := check(C.llmlat_request_set_known(r.handle(), C.int32_t(c), C.int32_t(m),
		C.double(value)), "set known")
	r.keepAlive()
	return err
}

// Recorded is what the request holds: its start and end (end is valid once
// it ended), whether it failed, its events (copies), its token counts
// (hasOutput: a usage count was set) and what its data lacks.
type Recorded struct {
	Start, End   int64
	Scheduled    int64 // the intended start, when HasScheduled
	HasScheduled bool
	Ended        bool
	Failed       bool
	Times        []int64
	Tokens       []uint32
	InputTokens  uint64
	OutputTokens uint64 // the usage count, or the sum of Tokens
	HasOutput    bool
	Lacks        Lacks
}

// Recorded reads back what the request holds; ErrState before Start.
func (r *Request) Recorded() (Recorded, error) {
	h := r.handle()
	defer r.keepAlive()
	var out Recorded
	var start, end C.int64_t
	if err := check(C.llmlat_request_get_start(h, &start), "recorded"); err != nil {
		return out, err
	}
	out.Start = int64(start)
	var sched C.int64_t
	out.HasScheduled = C.llmlat_request_get_schedule(h, &sched) == C.LLMLAT_OK
	out.Scheduled = int64(sched)
	var state C.int32_t
	C.llmlat_request_get_state(h, &state)
	out.Ended = state == C.LLMLAT_STATE_FINISHED || state == C.LLMLAT_STATE_FAILED
	out.Failed = state == C.LLMLAT_STATE_FAILED
	if out.Ended {
		C.llmlat_request_get_end(h, &end)
		out.End = int64(end)
	}
	var t *C.int64_t
	var k *C.uint32_t
	var n C.size_t
	C.llmlat_request_get_events(h, &t, &k, &n)
	if n > 0 {
		out.Times = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(t)), int(n))...)
		out.Tokens = append([]uint32(nil), unsafe.Slice((*uint32)(unsafe.Pointer(k)), int(n))...)
	}
	var in, outTokens C.uint64_t
	C.llmlat_request_get_input_tokens(h, &in)
	out.InputTokens = uint64(in)
	out.HasOutput = C.llmlat_request_get_output_tokens(h, &outTokens) == C.LLMLAT_OK
	out.OutputTokens = uint64(outTokens)
	var lacks C.uint32_t
	C.llmlat_request_get_lacks(h, &lacks)
	out.Lacks = Lacks(lacks)
	return out, nil
}
