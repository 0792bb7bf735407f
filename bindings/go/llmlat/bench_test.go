package llmlat_test

import (
	"strconv"
	"testing"
	"time"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// The request is restarted every this many events, so that memory stays
// flat however large b.N is; the cost is amortized in the figures.
const benchStream = 1024

// The cost of a cgo crossing itself (llmlat_now_ns is a clock read), the
// floor under every other figure.
func BenchmarkNow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		llmlat.Now()
	}
}

// One event per cgo call: the hot path of a streaming client.
func BenchmarkEvent(b *testing.B) {
	r := newRequest(b)
	must(b, r.Start(0))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % benchStream
		if j == 0 && i > 0 {
			r.Reset()
			r.Start(0)
		}
		if err := r.Event(int64(j+1)*1000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// A batch of events per cgo call; ns/event is the figure to compare with
// BenchmarkEvent.
func BenchmarkEvents(b *testing.B) {
	for _, batch := range []int{16, 256} {
		b.Run(strconv.Itoa(batch), func(b *testing.B) {
			r := newRequest(b)
			t := make([]int64, batch)
			k := make([]uint32, batch)
			for i := range k {
				k[i] = 1
			}
			b.ReportAllocs()
			b.ResetTimer()
			began := time.Now()
			for i := 0; i < b.N; i++ {
				if i%(benchStream/batch) == 0 {
					r.Reset()
					r.Start(0)
				}
				base := int64(i%(benchStream/batch)*batch) * 1000
				for j := range t {
					t[j] = base + int64(j+1)*1000
				}
				if err := r.Events(t, k); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(began).Nanoseconds())/float64(b.N*batch), "ns/event")
		})
	}
}

// Folding a finished 32-event request into an aggregator. The exact
// aggregator is reset every 4096 adds so that its memory stays flat.
func BenchmarkAdd(b *testing.B) {
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		b.Run(mode.String(), func(b *testing.B) {
			a := newAgg(b, llmlat.ConvDefault, mode)
			r := newRequest(b)
			record(b, r, uniform(0, 80*ms, 12*ms, 32))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%4096 == 4095 {
					a.Reset()
				}
				if err := a.Add(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
