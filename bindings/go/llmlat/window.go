package llmlat

// #include "capi.h"
import "C"

import (
	"runtime"
	"time"
)

// Window holds the requests that ended during the last width of the
// caller's clock, in steps, in fixed memory (docs/threads.md, "Sliding
// windows"). Time is what the caller passes: each request's end time, and
// Merge's and Advance's times (int64 ns, the requests' clock); the
// window's clock is the latest of them. View is the window as an
// Aggregator, as of that clock: Advance(now) before reading it at now. A
// Window is changed (Add, Merge, Advance, Reset, Close) by one goroutine
// at a time, and its View is read while none changes it: guard a shared
// one with a sync.RWMutex. A finalizer frees one that was not closed.
type Window struct {
	h    *windowHandle
	view *aggHandle // the window's aggregator, borrowed (it points to h)
}

type windowHandle struct {
	c *C.llmlat_window
}

func (h *windowHandle) free() {
	frees.Add(1)
	C.llmlat_window_free(h.c)
	h.c = nil
}

// NewWindow is an empty window of width in steps of step over bounded
// aggregators with like's settings (like is only read). It allocates
// width/step + 1 aggregators, and never again. ErrInvalid for a nil,
// closed or exact-mode like, a step or width <= 0, a width that is not a
// multiple of step, or more than 1024 steps; ErrNoMem.
func NewWindow(like *Aggregator, width, step time.Duration) (*Window, error) {
	var status C.int32_t = C.LLMLAT_EINVAL
	c := C.llmlat_window_new(like.handle(), C.int64_t(width), C.int64_t(step), &status)
	like.keepAlive()
	if c == nil {
		return nil, check(status, "new window")
	}
	var view *C.llmlat_agg
	C.llmlat_window_view(c, &view)
	h := &windowHandle{c: c}
	runtime.SetFinalizer(h, (*windowHandle).free)
	return &Window{h: h, view: &aggHandle{c: view, view: true, win: h}}, nil
}

// Close frees the window and its view (idempotent; returns nil); the view
// answers ErrInvalid afterwards.
func (w *Window) Close() error {
	if w != nil && w.h != nil && w.h.c != nil {
		runtime.SetFinalizer(w.h, nil)
		w.h.free()
	}
	return nil
}

func (w *Window) handle() *C.llmlat_window {
	if w == nil || w.h == nil {
		return nil
	}
	return w.h.c
}

func (w *Window) keepAlive() {
	if w != nil {
		runtime.KeepAlive(w.h)
	}
}

// Add counts a finished or failed request in the step of its end time,
// moving the clock there if it is later. ErrOrder if it ended before the
// window's oldest step, ErrState if it has not ended; nothing changes then.
func (w *Window) Add(r *Request) error {
	err := check(C.llmlat_window_add(w.handle(), r.handle()), "window add")
	w.keepAlive()
	r.keepAlive()
	return err
}

// Merge counts everything src holds as requests that ended at t (e.g. an
// interval snapshot of a Live taken at t). ErrMismatch when src does not
// merge with the window's aggregators, ErrOrder for t before the oldest
// step.
func (w *Window) Merge(src *Aggregator, t int64) error {
	err := check(C.llmlat_window_merge(w.handle(), src.handle(), C.int64_t(t)), "window merge")
	w.keepAlive()
	src.keepAlive()
	return err
}

// Advance moves the clock to now, dropping the steps that leave the
// window. ErrOrder for a time before the clock (the past is not kept).
func (w *Window) Advance(now int64) error {
	err := check(C.llmlat_window_advance(w.handle(), C.int64_t(now)), "advance")
	w.keepAlive()
	return err
}

// Reset empties the window and forgets its clock.
func (w *Window) Reset() error {
	err := check(C.llmlat_window_reset(w.handle()), "window reset")
	w.keepAlive()
	return err
}

// View is the window as an Aggregator (Stat, Quantile, Rate, Counter,
// Report, MarshalBinary, and as the source of a Merge), owned by the
// window and read only: the calls that would change it are ErrInvalid,
// and Close does nothing (close the window). Its rates are over the span
// the window covers.
func (w *Window) View() *Aggregator {
	if w == nil || w.view == nil {
		return &Aggregator{}
	}
	return &Aggregator{h: w.view}
}
