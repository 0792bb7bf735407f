package llmlat

/*
#include "capi.h"

// As go_agg_add: handles as integers (C memory, nothing for cgo to check).
static inline int32_t go_live_add(uintptr_t w, uintptr_t r)
{
    return llmlat_live_add((llmlat_live_writer *)w, (const llmlat_request *)r);
}
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// SnapshotKind selects what Live.Snapshot returns.
type SnapshotKind int32

// The kinds. Their values are the C API's LLMLAT_SNAPSHOT_* ids.
const (
	// SnapshotCumulative holds everything added so far.
	SnapshotCumulative SnapshotKind = 1
	// SnapshotInterval holds what was added since the previous interval
	// snapshot: every accepted request is in exactly one.
	SnapshotInterval SnapshotKind = 2
)

// Live records finished requests from many goroutines while another takes
// snapshots, in the pattern of HdrHistogram's interval recorder
// (docs/threads.md). Unlike the other types, a Live is used by many
// goroutines at once: Add and NewWriter from any number of them, Snapshot
// from any (snapshots take turns). Writers never take a lock of the C
// library nor wait for a snapshot; a snapshot waits at most for each
// writer's add in progress. Close it when no goroutine uses it any more; a
// finalizer frees one that was not closed.
type Live struct {
	h *liveHandle
}

type liveHandle struct {
	c        *C.llmlat_live
	template *Aggregator // the settings of new snapshots
	mu       sync.Mutex  // idle writers
	idle     []*LiveWriter
	snap     sync.Mutex // one snapshot at a time
}

func (h *liveHandle) free() {
	frees.Add(1)
	C.llmlat_live_free(h.c) // its writers too
	h.c = nil
}

// NewLive is a Live whose aggregators take like's settings (convention,
// mode, parameters, report quantiles, histogram bounds, labels; none of
// its data). like is only read. ErrInvalid for a nil or closed like,
// ErrNoMem if out of memory.
func NewLive(like *Aggregator) (*Live, error) {
	c := C.llmlat_live_new(like.handle())
	t := C.llmlat_agg_new_like(like.handle())
	like.keepAlive()
	if c == nil || t == nil {
		C.llmlat_live_free(c)
		C.llmlat_agg_free(t)
		if like.handle() == nil {
			return nil, invalid("new live", "nil or closed aggregator")
		}
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new live"}
	}
	h := &liveHandle{c: c, template: &Aggregator{h: newAggHandle(t)}}
	runtime.SetFinalizer(h, (*liveHandle).free)
	return &Live{h: h}, nil
}

// Close frees the C recorder and its writers (idempotent; returns nil).
// No goroutine may be adding or taking a snapshot.
func (l *Live) Close() error {
	if l != nil && l.h != nil && l.h.c != nil {
		runtime.SetFinalizer(l.h, nil)
		l.h.free()
		l.h.template.Close()
		for _, w := range l.h.idle {
			w.c = nil
		}
		l.h.idle = nil
	}
	return nil
}

func (l *Live) handle() *C.llmlat_live {
	if l == nil || l.h == nil {
		return nil
	}
	return l.h.c
}

// LiveWriter adds to a Live. It is used by one goroutine at a time (a
// worker's own); different writers of one Live run in parallel.
type LiveWriter struct {
	c    *C.llmlat_live_writer
	live *liveHandle // keeps the Live alive while the writer is
}

// NewWriter is a writer handle of l, for one goroutine at a time. It takes
// the slot of a closed writer (with the data that slot holds) before
// allocating one (two aggregators). ErrInvalid for a closed l.
func (l *Live) NewWriter() (*LiveWriter, error) {
	c := C.llmlat_live_writer_new(l.handle())
	if c == nil {
		if l.handle() == nil {
			return nil, invalid("new writer", "closed Live")
		}
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new writer"}
	}
	return &LiveWriter{c: c, live: l.h}, nil
}

// Add folds a finished or failed request in, without a lock, concurrently
// with other writers and the snapshots. ErrState for a request still in
// flight.
func (w *LiveWriter) Add(r *Request) error {
	var c *C.llmlat_live_writer
	if w != nil {
		c = w.c
	}
	err := check(C.go_live_add(C.uintptr_t(uintptr(unsafe.Pointer(c))), r.addr()), "live add")
	r.keepAlive()
	if w != nil {
		runtime.KeepAlive(w.live)
	}
	return err
}

// Close releases the writer handle (idempotent; returns nil): what it
// added stays in its Live.
func (w *LiveWriter) Close() error {
	if w != nil && w.c != nil && w.live.c != nil {
		C.llmlat_live_writer_free(w.c)
		w.c = nil
	}
	return nil
}

// Add folds a finished or failed request in from any goroutine: it
// borrows an idle writer (making one when all are busy) for the call.
func (l *Live) Add(r *Request) error {
	if l.handle() == nil {
		return invalid("live add", "closed Live")
	}
	l.h.mu.Lock()
	var w *LiveWriter
	if n := len(l.h.idle); n > 0 {
		w = l.h.idle[n-1]
		l.h.idle = l.h.idle[:n-1]
	}
	l.h.mu.Unlock()
	if w == nil {
		var err error
		if w, err = l.NewWriter(); err != nil {
			return err
		}
	}
	err := w.Add(r)
	l.h.mu.Lock()
	l.h.idle = append(l.h.idle, w)
	l.h.mu.Unlock()
	return err
}

// Snapshot returns an Aggregator of everything added so far
// (SnapshotCumulative) or of what was added since the previous interval
// snapshot (SnapshotInterval). With into (an aggregator of the same
// settings, such as an earlier snapshot) its data is replaced and it is
// returned, so nothing is allocated; with nil a new one is. ErrMismatch
// when into does not merge with l's aggregators; on an error into is left
// empty and l keeps every request for the next snapshots.
func (l *Live) Snapshot(kind SnapshotKind, into *Aggregator) (*Aggregator, error) {
	if l.handle() == nil {
		return nil, invalid("snapshot", "closed Live")
	}
	out := into
	if out == nil {
		c := C.llmlat_agg_new_like(l.h.template.handle())
		l.h.template.keepAlive()
		if c == nil {
			return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "snapshot"}
		}
		out = &Aggregator{h: newAggHandle(c)}
	}
	l.h.snap.Lock()
	status := C.llmlat_live_snapshot(l.h.c, C.int32_t(kind), out.writable())
	l.h.snap.Unlock()
	out.keepAlive()
	runtime.KeepAlive(l.h)
	if err := check(status, "snapshot"); err != nil {
		return nil, err
	}
	return out, nil
}
