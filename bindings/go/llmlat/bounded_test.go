package llmlat_test

import (
	"math"
	"sort"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// These tests need LLMLAT_MODE_BOUNDED (the bounded-mode issue).

func TestBoundedQuantiles(t *testing.T) {
	const alpha = 0.02
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, a.SetParam(llmlat.ParamRelativeError, alpha))
	var ss []stream
	var e2e []float64
	for i := 0; i < 300; i++ {
		s := uniform(int64(i)*ms, int64(1+i%97)*ms/2, int64(1+i%7)*ms, 1+i%31)
		ss = append(ss, s)
		e2e = append(e2e, float64(s.endTime()-s.start)/1e9)
	}
	r := newRequest(t)
	for _, s := range ss {
		record(t, r, s)
		must(t, a.Add(r))
	}
	exact := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, ss...)
	sort.Float64s(e2e)
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.99, 1} {
		got := val(t)(a.Quantile(llmlat.E2E, q))
		h := q * float64(len(e2e)-1)
		lo, hi := e2e[int(math.Floor(h))], e2e[int(math.Ceil(h))]
		if got < lo*(1-alpha) || got > hi*(1+alpha) {
			t.Errorf("bounded E2E q%v = %v, outside [%v, %v] widened by %v", q, got, lo, hi, alpha)
		}
	}
	// count, mean, min and max stay exact.
	for _, s := range []llmlat.Stat{llmlat.StatCount, llmlat.StatMean, llmlat.StatMin, llmlat.StatMax} {
		wantNear(t, "bounded stat", val(t)(a.Stat(llmlat.E2E, s)), val(t)(exact.Stat(llmlat.E2E, s)))
	}
	// Its buckets are fixed once it holds data.
	wantErr(t, a.SetParam(llmlat.ParamRelativeError, 0.01), llmlat.ErrState)
	other := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded) // alpha 0.01
	wantErr(t, a.Merge(other), llmlat.ErrMismatch)
}

// Bounded memory: more of the same traffic takes no more bytes.
func TestBoundedMemory(t *testing.T) {
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	r := newRequest(t)
	feed := func(n int) uint64 {
		for i := 0; i < n; i++ {
			record(t, r, uniform(int64(i%50)*ms, int64(1+i%40)*ms, int64(1+i%9)*ms, 1+i%20))
			must(t, a.Add(r))
		}
		b, err := a.Counter(llmlat.CountMemoryBytes)
		must(t, err)
		return b
	}
	first := feed(200)
	if more := feed(1000); more != first {
		t.Fatalf("bounded aggregator grew from %d to %d bytes", first, more)
	}
}
