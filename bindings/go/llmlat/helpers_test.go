package llmlat_test

import (
	"errors"
	"math"
	"sort"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

const ms = int64(1e6) // one millisecond in nanoseconds

// stream is one request as test data: start, events (t, k) and its end.
type stream struct {
	start  int64
	t      []int64
	k      []uint32
	end    int64 // 0: finish at the last event (or the start)
	failed bool
	input  uint64
}

// uniform is a stream of n one-token events, the first ttft after start and
// the next ones gap apart.
func uniform(start, ttft, gap int64, n int) stream {
	s := stream{start: start}
	for i := 0; i < n; i++ {
		s.t = append(s.t, start+ttft+int64(i)*gap)
		s.k = append(s.k, 1)
	}
	return s
}

func (s stream) endTime() int64 {
	if s.end != 0 {
		return s.end
	}
	if len(s.t) > 0 {
		return s.t[len(s.t)-1]
	}
	return s.start
}

// record replays s into r (reset first).
func record(t testing.TB, r *llmlat.Request, s stream) {
	t.Helper()
	must(t, r.Reset())
	must(t, r.Start(s.start))
	must(t, r.Events(s.t, s.k))
	if s.input > 0 {
		must(t, r.SetInputTokens(s.input))
	}
	if s.failed {
		must(t, r.Fail(s.endTime()))
	} else {
		must(t, r.Finish(s.endTime()))
	}
}

// newRequest is a request closed at the end of the test.
func newRequest(t testing.TB) *llmlat.Request {
	t.Helper()
	r, err := llmlat.NewRequest()
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// newAgg is an aggregator closed at the end of the test.
func newAgg(t testing.TB, c llmlat.Convention, m llmlat.Mode) *llmlat.Aggregator {
	t.Helper()
	a, err := llmlat.NewAggregator(c, m)
	must(t, err)
	t.Cleanup(func() { a.Close() })
	return a
}

// aggOf is a new aggregator holding the streams.
func aggOf(t testing.TB, c llmlat.Convention, m llmlat.Mode, ss ...stream) *llmlat.Aggregator {
	t.Helper()
	a := newAgg(t, c, m)
	r := newRequest(t)
	for _, s := range ss {
		record(t, r, s)
		must(t, a.Add(r))
	}
	return a
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails unless err matches the sentinel want.
func wantErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

// near: equal within 1e-12 relative (or absolute near 0), far below the
// nanosecond the library promises.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func wantNear(t testing.TB, what string, got, want float64) {
	t.Helper()
	if !near(got, want) {
		t.Fatalf("%s = %.17g, want %.17g", what, got, want)
	}
}

// val(t)(query) is the value of a query that must succeed.
func val(t testing.TB) func(float64, error) float64 {
	return func(v float64, err error) float64 {
		t.Helper()
		must(t, err)
		return v
	}
}

// percentile is numpy.percentile's default (linear, Hyndman-Fan type 7).
func percentile(x []float64, q float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}
