package llmlat_test

import (
	"math"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// The seed example of the design: A = 100 tokens 10 ms apart, B = 2 tokens
// 50 ms apart: mean TPOT 30 ms (request-weighted), mean ITL 10.4 ms
// (token-weighted).
func seed() []stream {
	a := uniform(0, 10*ms, 10*ms, 100)
	a.input = 20
	b := uniform(5*ms, 50*ms, 50*ms, 2)
	b.input = 10
	return []stream{a, b}
}

func TestAggregatorSeed(t *testing.T) {
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	v := val(t)
	wantNear(t, "mean TPOT", v(a.Stat(llmlat.TPOT, llmlat.StatMean)), 0.030)
	wantNear(t, "mean ITL", v(a.Stat(llmlat.ITL, llmlat.StatMean)), 0.0104)
	wantNear(t, "ITL count", v(a.Stat(llmlat.ITL, llmlat.StatCount)), 100)
	wantNear(t, "TTFT median", v(a.Stat(llmlat.TTFT, llmlat.StatMedian)), 0.030)
	wantNear(t, "TTFT std", v(a.Stat(llmlat.TTFT, llmlat.StatStd)), 0.020)
	wantNear(t, "E2E max", v(a.Stat(llmlat.E2E, llmlat.StatMax)), 1.0)
	wantNear(t, "E2E min", v(a.Stat(llmlat.E2E, llmlat.StatMin)), 0.1)

	counters := map[llmlat.Counter]uint64{
		llmlat.CountCompleted:       2,
		llmlat.CountFailed:          0,
		llmlat.CountTPOTUndefined:   0,
		llmlat.CountInputTokens:     30,
		llmlat.CountOutputTokens:    102,
		llmlat.CountPeakConcurrency: 2,
	}
	for c, want := range counters {
		got, err := a.Counter(c)
		must(t, err)
		if got != want {
			t.Errorf("counter %d = %d, want %d", c, got, want)
		}
	}
	if n, err := a.Counter(llmlat.CountMemoryBytes); err != nil || n == 0 {
		t.Errorf("memory bytes = %d, %v", n, err)
	}
	// D = first start (0) .. last response (A's, at 1 s).
	wantNear(t, "requests/s", v(a.Rate(llmlat.RateRequests)), 2)
	wantNear(t, "output tokens/s", v(a.Rate(llmlat.RateOutputTokens)), 102)
	wantNear(t, "total tokens/s", v(a.Rate(llmlat.RateTotalTokens)), 132)
	must(t, a.SetParam(llmlat.ParamDuration, 2))
	wantNear(t, "requests/s over 2 s", v(a.Rate(llmlat.RateRequests)), 1)
}

func TestAggregatorQuantilesMatchNumpy(t *testing.T) {
	// 41 requests with TTFTs spread unevenly, so that quantiles interpolate.
	var ss []stream
	var ttft []float64
	for i := 0; i < 41; i++ {
		d := int64(i*i%37+1) * ms / 3
		ss = append(ss, uniform(int64(i)*ms, d, 2*ms, 3))
		ttft = append(ttft, float64(d)/1e9)
	}
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, ss...)
	for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
		got, err := a.Quantile(llmlat.TTFT, q)
		must(t, err)
		wantNear(t, "TTFT quantile", got, percentile(ttft, q))
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		_, err := a.Quantile(llmlat.TTFT, q)
		wantErr(t, err, llmlat.ErrInvalid)
	}
}

func TestAggregatorFailedAndState(t *testing.T) {
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeExact)
	r := newRequest(t)
	wantErr(t, a.Add(r), llmlat.ErrState) // not started
	must(t, r.Start(0))
	must(t, r.Event(5*ms, 1))
	wantErr(t, a.Add(r), llmlat.ErrState) // in flight
	must(t, r.Fail(6*ms))
	must(t, a.Add(r))
	record(t, r, uniform(0, 4*ms, ms, 1)) // one token: TPOT undefined
	must(t, a.Add(r))
	for c, want := range map[llmlat.Counter]uint64{
		llmlat.CountCompleted: 1, llmlat.CountFailed: 1, llmlat.CountTPOTUndefined: 1,
	} {
		if got, err := a.Counter(c); err != nil || got != want {
			t.Errorf("counter %d = %d, %v; want %d", c, got, err, want)
		}
	}
	// Failed requests stay out of the latency statistics.
	wantNear(t, "TTFT count", val(t)(a.Stat(llmlat.TTFT, llmlat.StatCount)), 1)
	v, err := a.Stat(llmlat.TPOT, llmlat.StatMean)
	wantErr(t, err, llmlat.ErrUndefined)
	if !math.IsNaN(v) {
		t.Errorf("mean of no TPOT = %v, want NaN", v)
	}
	_, err = a.Counter(llmlat.CountGood) // no SLO
	wantErr(t, err, llmlat.ErrUndefined)
	_, err = a.Rate(llmlat.RateGoodput)
	wantErr(t, err, llmlat.ErrUndefined)

	must(t, a.Reset())
	if n, err := a.Counter(llmlat.CountFailed); err != nil || n != 0 {
		t.Errorf("failed after Reset = %d, %v", n, err)
	}
}

func TestAggregatorGoodput(t *testing.T) {
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeExact)
	must(t, a.SetParam(llmlat.ParamSLOTTFT, 0.020))
	must(t, a.SetParam(llmlat.ParamDuration, 4))
	r := newRequest(t)
	for _, s := range seed() { // TTFT 10 ms (good) and 50 ms (not)
		record(t, r, s)
		must(t, a.Add(r))
	}
	if n, err := a.Counter(llmlat.CountGood); err != nil || n != 1 {
		t.Fatalf("good = %d, %v; want 1", n, err)
	}
	wantNear(t, "goodput", val(t)(a.Rate(llmlat.RateGoodput)), 0.25)
	wantNear(t, "SLO read back", val(t)(a.Param(llmlat.ParamSLOTTFT)), 0.020)
}

func TestAggregatorPlaceholders(t *testing.T) {
	// An empty set: undefined by default, vLLM's and SGLang's 0.0.
	for c, undefined := range map[llmlat.Convention]bool{
		llmlat.ConvDefault: true, llmlat.ConvAIPerf: true, llmlat.ConvLLMPerf: true,
		llmlat.ConvVLLM: false, llmlat.ConvSGLang: false,
	} {
		a := newAgg(t, c, llmlat.ModeExact)
		v, err := a.Stat(llmlat.TTFT, llmlat.StatMean)
		if undefined {
			wantErr(t, err, llmlat.ErrUndefined)
		} else if err != nil || v != 0 {
			t.Errorf("%v: empty mean = %v, %v; want 0", c, v, err)
		}
	}
	// LLMPerf's std has ddof 1.
	a := aggOf(t, llmlat.ConvLLMPerf, llmlat.ModeExact, seed()...)
	wantNear(t, "LLMPerf TTFT std", val(t)(a.Stat(llmlat.TTFT, llmlat.StatStd)), 0.040/math.Sqrt2)
}

func TestAggregatorMerge(t *testing.T) {
	var all []stream
	for i := 0; i < 30; i++ {
		all = append(all, uniform(int64(i)*7*ms, int64(5+i%11)*ms, int64(1+i%4)*ms, 1+i%9))
	}
	whole := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, all...)
	left := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, all[:13]...)
	right := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, all[13:]...)
	must(t, left.Merge(right))
	for _, m := range []llmlat.Metric{llmlat.TTFT, llmlat.TPOT, llmlat.ITL, llmlat.ICL, llmlat.E2E} {
		for _, s := range []llmlat.Stat{llmlat.StatCount, llmlat.StatMean, llmlat.StatStd, llmlat.StatMedian, llmlat.StatMax} {
			wantNear(t, m.String(), val(t)(left.Stat(m, s)), val(t)(whole.Stat(m, s)))
		}
		wantNear(t, m.String()+" p90", val(t)(left.Quantile(m, 0.9)), val(t)(whole.Quantile(m, 0.9)))
	}
	wantNear(t, "right unchanged", val(t)(right.Stat(llmlat.TTFT, llmlat.StatCount)), 17)

	wantErr(t, left.Merge(left), llmlat.ErrInvalid)
	vllm := newAgg(t, llmlat.ConvVLLM, llmlat.ModeExact)
	wantErr(t, left.Merge(vllm), llmlat.ErrMismatch)
	bounded := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	wantErr(t, left.Merge(bounded), llmlat.ErrMismatch)
	wantErr(t, left.Merge(nil), llmlat.ErrInvalid)
}

func TestAggregatorParams(t *testing.T) {
	a := newAgg(t, llmlat.ConvSGLang, llmlat.ModeExact)
	if a.Convention() != llmlat.ConvSGLang || a.Mode() != llmlat.ModeExact {
		t.Fatalf("convention, mode = %v, %v", a.Convention(), a.Mode())
	}
	lo, hi, err := llmlat.ParamBounds(llmlat.ParamRelativeError)
	must(t, err)
	if !(lo > 0 && lo < 0.01 && hi > 0.01) {
		t.Fatalf("relative error bounds [%v, %v]", lo, hi)
	}
	wantNear(t, "default relative error", val(t)(a.Param(llmlat.ParamRelativeError)), 0.01)
	wantErr(t, a.SetParam(llmlat.ParamRelativeError, hi*2), llmlat.ErrInvalid)
	wantErr(t, a.SetParam(llmlat.ParamDuration, math.NaN()), llmlat.ErrInvalid)
	wantErr(t, a.SetParam(llmlat.ParamDuration, math.Inf(1)), llmlat.ErrInvalid)
	wantErr(t, a.SetParam(llmlat.Param(42), 1), llmlat.ErrInvalid)
	_, _, err = llmlat.ParamBounds(llmlat.Param(42))
	wantErr(t, err, llmlat.ErrInvalid)

	must(t, a.SetQuantiles(0.5, 0.999))
	wantErr(t, a.SetQuantiles(), llmlat.ErrInvalid)
	wantErr(t, a.SetQuantiles(1.5), llmlat.ErrInvalid)
	wantErr(t, a.SetQuantiles(make([]float64, 33)...), llmlat.ErrInvalid)

	_, err = llmlat.NewAggregator(llmlat.Convention(9), llmlat.ModeExact)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = llmlat.NewAggregator(llmlat.ConvDefault, llmlat.Mode(9))
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.Stat(llmlat.Metric(0), llmlat.StatMean)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.Stat(llmlat.TTFT, llmlat.Stat(0))
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.Rate(llmlat.Rate(0))
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.Counter(llmlat.Counter(0))
	wantErr(t, err, llmlat.ErrInvalid)
}

func TestAggregatorQuantiles(t *testing.T) {
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		a := aggOf(t, llmlat.ConvDefault, mode, shard(2, 40)...)
		qs := []float64{0, 0.25, 0.5, 0.9, 0.999, 1}
		got, err := a.Quantiles(llmlat.ITL, qs...)
		must(t, err)
		for i, q := range qs {
			if want := val(t)(a.Quantile(llmlat.ITL, q)); got[i] != want {
				t.Errorf("%v: Quantiles[%v] = %v, Quantile = %v", mode, q, got[i], want)
			}
		}
		for _, bad := range [][]float64{nil, make([]float64, 33), {0.5, 2}, {math.NaN()}} {
			got, err := a.Quantiles(llmlat.ITL, bad...)
			wantErr(t, err, llmlat.ErrInvalid)
			if len(got) != len(bad) {
				t.Errorf("%d values for %d quantiles", len(got), len(bad))
			}
		}
		empty := newAgg(t, llmlat.ConvDefault, mode)
		got, err = empty.Quantiles(llmlat.TTFT, 0.5, 0.9)
		wantErr(t, err, llmlat.ErrUndefined)
		if len(got) != 2 || !math.IsNaN(got[0]) || !math.IsNaN(got[1]) {
			t.Errorf("%v: quantiles of nothing = %v", mode, got)
		}
	}
}
