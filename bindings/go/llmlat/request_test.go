package llmlat_test

import (
	"math"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

func TestRequestValues(t *testing.T) {
	r := newRequest(t)
	must(t, r.Start(1000*ms))
	must(t, r.Event(1005*ms, 0)) // role chunk
	must(t, r.Event(1010*ms, 1))
	must(t, r.Event(1020*ms, 2))
	must(t, r.Event(1050*ms, 1))
	must(t, r.SetInputTokens(7))
	must(t, r.Finish(1060*ms))

	d := llmlat.ConvDefault
	v := val(t)
	wantNear(t, "TTFT", v(r.Value(llmlat.TTFT, d)), 0.010)
	wantNear(t, "E2E", v(r.Value(llmlat.E2E, d)), 0.050)
	wantNear(t, "TPOT", v(r.Value(llmlat.TPOT, d)), 0.040/3)
	// ITL: 2 samples of 5 ms and one of 30 ms, mean 40/3 ms (= TPOT).
	wantNear(t, "ITL", v(r.Value(llmlat.ITL, d)), 0.040/3)
	wantNear(t, "ICL", v(r.Value(llmlat.ICL, d)), 0.020)
	wantNear(t, "ITL_MAX", v(r.Value(llmlat.ITLMax, d)), 0.030)
	wantNear(t, "TPS_USER", v(r.Value(llmlat.TPSUser, d)), 4/0.050)
	wantNear(t, "OUTPUT_TOKENS", v(r.Value(llmlat.OutputTokens, d)), 4)
	wantNear(t, "INPUT_TOKENS", v(r.Value(llmlat.InputTokens, d)), 7)
	wantNear(t, "TOOL_ITL", v(r.Value(llmlat.ToolITL, d)), 0.040/3)

	// vLLM anchors TTFT on the first event, empty or not, and its "ITL" is
	// the inter-chunk latency over every event.
	wantNear(t, "vLLM TTFT", v(r.Value(llmlat.TTFT, llmlat.ConvVLLM)), 0.005)
	wantNear(t, "vLLM ICL", v(r.Value(llmlat.ToolITL, llmlat.ConvVLLM)), 0.045/3)
	// SGLang's E2E ends at the finish.
	wantNear(t, "SGLang E2E", v(r.Value(llmlat.E2E, llmlat.ConvSGLang)), 0.060)
}

func TestRequestUsageCount(t *testing.T) {
	r := newRequest(t)
	must(t, r.Start(0))
	must(t, r.Events([]int64{10 * ms, 30 * ms}, []uint32{1, 1}))
	must(t, r.SetOutputTokens(5))
	must(t, r.Finish(30*ms))
	v := val(t)
	wantNear(t, "N", v(r.Value(llmlat.OutputTokens, llmlat.ConvDefault)), 5)
	wantNear(t, "TPOT", v(r.Value(llmlat.TPOT, llmlat.ConvDefault)), 0.020/4)
}

func TestRequestUndefined(t *testing.T) {
	r := newRequest(t)
	must(t, r.Start(0))
	must(t, r.Event(10*ms, 1))
	must(t, r.Finish(10*ms))
	v, err := r.Value(llmlat.TPOT, llmlat.ConvDefault) // N = 1
	wantErr(t, err, llmlat.ErrUndefined)
	if !math.IsNaN(v) {
		t.Fatalf("undefined TPOT = %v, want NaN", v)
	}
	_, err = r.Value(llmlat.ICL, llmlat.ConvDefault) // one event
	wantErr(t, err, llmlat.ErrUndefined)
	// In flight: what needs the end is undefined, the rest is there.
	must(t, r.Reset())
	must(t, r.Start(0))
	must(t, r.Event(3*ms, 1))
	wantNear(t, "TTFT in flight", val(t)(r.Value(llmlat.TTFT, llmlat.ConvDefault)), 0.003)
	_, err = r.Value(llmlat.OutputTokens, llmlat.ConvDefault)
	wantErr(t, err, llmlat.ErrUndefined)
}

func TestRequestErrors(t *testing.T) {
	r := newRequest(t)
	_, err := r.Value(llmlat.TTFT, llmlat.ConvDefault)
	wantErr(t, err, llmlat.ErrState) // not started
	wantErr(t, r.Event(1, 1), llmlat.ErrState)
	wantErr(t, r.Finish(1), llmlat.ErrState)
	must(t, r.Start(100))
	wantErr(t, r.Start(100), llmlat.ErrState)
	wantErr(t, r.Event(99, 1), llmlat.ErrOrder)
	must(t, r.Event(200, 1))
	wantErr(t, r.Event(150, 1), llmlat.ErrOrder)
	must(t, r.Event(300, math.MaxUint32)) // the largest k is fine
	_, err = r.Value(llmlat.Metric(99), llmlat.ConvDefault)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = r.Value(llmlat.TTFT, llmlat.Convention(99))
	wantErr(t, err, llmlat.ErrInvalid)
	wantErr(t, r.Finish(250), llmlat.ErrOrder)
	must(t, r.Finish(300))
	wantErr(t, r.Event(400, 1), llmlat.ErrState)
	wantErr(t, r.Fail(400), llmlat.ErrState)

	// a time 2^63 ns or more after the start does not fit: ErrOverflow
	o := newRequest(t)
	must(t, o.Start(math.MinInt64))
	wantErr(t, o.Event(math.MaxInt64, 1), llmlat.ErrOverflow)
	wantErr(t, o.Events([]int64{-1, 0}, []uint32{1, 1}), llmlat.ErrOverflow)
	must(t, o.Event(-1, 1)) // 2^63 - 1 ns after: fits
	wantErr(t, o.Finish(0), llmlat.ErrOverflow)
}
