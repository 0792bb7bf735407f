package llmlat

// #include "capi.h"
import "C"

import (
	"math"
	"runtime"
	"strconv"
	"unsafe"
)

// NoSchedule is a Columns.Scheduled entry of a request without an intended
// start (LLMLAT_NO_SCHEDULE).
const NoSchedule int64 = math.MinInt64

// Columns are many requests given as arrays, for Aggregator.AddColumns:
// request i starts at Start[i] (meant to start at Scheduled[i]), has the
// events Offsets[i] .. Offsets[i+1]-1 of Times and Tokens, and ends at
// End[i], failed when OK[i] is false.
type Columns struct {
	Start   []int64  // ns, one per request
	End     []int64  // nil: each ends at its last event (or its start)
	OK      []bool   // nil: every request finished
	Offsets []uint64 // len(Start)+1 non-decreasing entries; nil when no request has events
	Times   []int64  // ns, Offsets[len(Start)] of them
	Tokens  []uint32 // one per event
	// Per request: nil for 0 input tokens and no usage counts; an output
	// count below 0 means none for that request (N is then the sum of its
	// tokens).
	InputTokens  []int64
	OutputTokens []int64
	// Per request, its intended start (Request.Schedule), at or before its
	// start, or NoSchedule; nil: none has one.
	Scheduled []int64
}

func int64s(s []int64) *C.int64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&s[0]))
}

// AddColumns adds the requests of c in one cgo call, all or none: on an
// error nothing is added and the error's Detail names the first request
// at fault. The slices are only read during the call. The result is that
// of adding the requests one by one, in order.
func (a *Aggregator) AddColumns(c Columns) error {
	n := len(c.Start)
	for _, col := range []struct {
		name string
		len  int
	}{{"End", len(c.End)}, {"OK", len(c.OK)}, {"InputTokens", len(c.InputTokens)},
		{"OutputTokens", len(c.OutputTokens)}, {"Scheduled", len(c.Scheduled)}} {
		if col.len != 0 && col.len != n {
			return invalid("add columns", col.name+" does not have one entry per request")
		}
	}
	if (len(c.Offsets) != 0 || len(c.Times) != 0) && len(c.Offsets) != n+1 {
		return invalid("add columns", "Offsets needs len(Start)+1 entries")
	}
	if len(c.Times) != len(c.Tokens) {
		return invalid("add columns", "Times and Tokens differ in length")
	}
	if len(c.Offsets) > 0 && c.Offsets[n] > uint64(len(c.Times)) {
		return invalid("add columns", "Offsets go past Times")
	}
	var ok *C.uint8_t
	if len(c.OK) != 0 {
		ok = (*C.uint8_t)(unsafe.Pointer(&c.OK[0])) // a Go bool is one byte, 0 or 1
	}
	var off *C.uint64_t
	if len(c.Offsets) != 0 {
		off = (*C.uint64_t)(unsafe.Pointer(&c.Offsets[0]))
	}
	var k *C.uint32_t
	if len(c.Tokens) != 0 {
		k = (*C.uint32_t)(unsafe.Pointer(&c.Tokens[0]))
	}
	var bad C.size_t
	st := C.llmlat_agg_add_columns_scheduled(a.handle(), C.size_t(n), int64s(c.Start),
		int64s(c.End), ok, off, int64s(c.Times), k, int64s(c.InputTokens), int64s(c.OutputTokens),
		int64s(c.Scheduled), &bad)
	a.keepAlive()
	runtime.KeepAlive(c)
	if st == C.LLMLAT_OK {
		return nil
	}
	err := &Error{Status: int32(st), Op: "add columns"}
	if uint64(bad) < uint64(n) {
		err.Detail = "request " + strconv.FormatUint(uint64(bad), 10)
	}
	return err
}

// unavailable is the reason a's data cannot support an id of a kind.
func (a *Aggregator) unavailable(kind C.int32_t, id C.int32_t) (string, bool) {
	var reason *C.char
	st := C.llmlat_agg_unavailable(a.handle(), kind, id, &reason)
	a.keepAlive()
	if st != C.LLMLAT_EUNDEFINED || reason == nil {
		return "", false
	}
	return C.GoString(reason), true
}

// UnavailableMetric is why a's data cannot support metric m (requests
// rebuilt from a tool's result file may lack what it needs); false when it
// can. Its statistics are then ErrUndefined.
func (a *Aggregator) UnavailableMetric(m Metric) (reason string, unavailable bool) {
	return a.unavailable(C.LLMLAT_KIND_METRIC, C.int32_t(m))
}

// UnavailableRate is the same for a rate.
func (a *Aggregator) UnavailableRate(r Rate) (reason string, unavailable bool) {
	return a.unavailable(C.LLMLAT_KIND_RATE, C.int32_t(r))
}

// UnavailableCounter is the same for a counter.
func (a *Aggregator) UnavailableCounter(c Counter) (reason string, unavailable bool) {
	return a.unavailable(C.LLMLAT_KIND_COUNTER, C.int32_t(c))
}
