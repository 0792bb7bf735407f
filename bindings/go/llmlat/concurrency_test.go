package llmlat_test

import (
	"fmt"
	"sync"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// shard is the i-th goroutine's share of the workload: its own streams.
func shard(i, perShard int) []stream {
	var ss []stream
	for j := 0; j < perShard; j++ {
		n := i*perShard + j
		s := uniform(int64(n)*3*ms, int64(2+n%13)*ms, int64(1+n%5)*ms, 1+n%17)
		s.input = uint64(10 + n%7)
		s.failed = n%23 == 0
		ss = append(ss, s)
	}
	return ss
}

// The documented pattern: one Request and one Aggregator per goroutine,
// merged for the report. The race detector checks that the binding shares
// nothing between goroutines that use different objects.
func TestPerGoroutineAggregators(t *testing.T) {
	const workers, perShard = 4, 40
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		aggs := make([]*llmlat.Aggregator, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			a := newAgg(t, llmlat.ConvVLLM, mode)
			aggs[w] = a
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r, err := llmlat.NewRequest()
				if err != nil {
					errs[w] = err
					return
				}
				defer r.Close()
				for _, s := range shard(w, perShard) {
					err := r.Reset()
					if err == nil {
						err = r.Start(s.start)
					}
					for i := 0; err == nil && i < len(s.t); i++ {
						err = r.Event(s.t[i], s.k[i])
					}
					if err == nil {
						err = r.SetInputTokens(s.input)
					}
					if err == nil && s.failed {
						err = r.Fail(s.endTime())
					} else if err == nil {
						err = r.Finish(s.endTime())
					}
					if err == nil {
						err = aggs[w].Add(r)
					}
					if err != nil {
						errs[w] = err
						return
					}
				}
			}(w)
		}
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		total := newAgg(t, llmlat.ConvVLLM, mode)
		var all []stream
		for w := 0; w < workers; w++ {
			must(t, total.Merge(aggs[w]))
			all = append(all, shard(w, perShard)...)
		}
		serial := aggOf(t, llmlat.ConvVLLM, mode, all...)
		for _, c := range []llmlat.Counter{llmlat.CountCompleted, llmlat.CountFailed,
			llmlat.CountInputTokens, llmlat.CountOutputTokens, llmlat.CountPeakConcurrency} {
			// (bounded mode has no peak concurrency: undefined in both)
			got, gotErr := total.Counter(c)
			want, wantErr := serial.Counter(c)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("%v: counter %d merged %d (%v), serial %d (%v)", mode, c, got, gotErr, want, wantErr)
			}
		}
		for _, m := range []llmlat.Metric{llmlat.TTFT, llmlat.TPOT, llmlat.ICL, llmlat.E2E} {
			wantNear(t, m.String()+" mean", val(t)(total.Stat(m, llmlat.StatMean)), val(t)(serial.Stat(m, llmlat.StatMean)))
			wantNear(t, m.String()+" p99", val(t)(total.Quantile(m, 0.99)), val(t)(serial.Quantile(m, 0.99)))
		}
		wantNear(t, "requests/s", val(t)(total.Rate(llmlat.RateRequests)), val(t)(serial.Rate(llmlat.RateRequests)))
	}
}

// Queries only read: several goroutines may query one aggregator (and one
// request) while none changes it.
func TestConcurrentQueries(t *testing.T) {
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		a := aggOf(t, llmlat.ConvDefault, mode, shard(0, 60)...)
		r := newRequest(t)
		record(t, r, seed()[0])
		qs := []float64{0.1, 0.5, 0.9, 0.99}
		want, err := a.Quantiles(llmlat.E2E, qs...)
		must(t, err)
		wantTPOT := val(t)(r.Value(llmlat.TPOT, llmlat.ConvDefault))
		errs := make(chan error, 4)
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					got, err := a.Quantiles(llmlat.E2E, qs...)
					if err == nil && got[3] != want[3] {
						err = fmt.Errorf("p99 %v, want %v", got[3], want[3])
					}
					if err == nil {
						_, err = a.Stat(llmlat.ITL, llmlat.StatStd)
					}
					if err == nil {
						_, err = a.Report(llmlat.FormatJSON)
					}
					if v, e := r.Value(llmlat.TPOT, llmlat.ConvDefault); err == nil && (e != nil || v != wantTPOT) {
						err = fmt.Errorf("TPOT %v (%v), want %v", v, e, wantTPOT)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%v: %v", mode, err)
		}
	}
}
