package llmlat_test

import (
	"bytes"
	"errors"
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
	// NTPOT = E2E / N; GuideLLM's "ITL" is our TPOT, its "TPOT" our NTPOT
	// (to the last token); inference-perf's E2E ends at the finish.
	wantNear(t, "NTPOT", v(r.Value(llmlat.NTPOT, d)), 0.050/4)
	wantNear(t, "GuideLLM ITL", v(r.Value(llmlat.ToolITL, llmlat.ConvGuideLLM)), 0.040/3)
	wantNear(t, "GuideLLM NTPOT", v(r.Value(llmlat.NTPOT, llmlat.ConvGuideLLM)), 0.050/4)
	wantNear(t, "inference-perf NTPOT", v(r.Value(llmlat.NTPOT, llmlat.ConvInferencePerf)),
		0.060/4)
}

func TestCancel(t *testing.T) {
	r := newRequest(t)
	must(t, r.Start(0))
	must(t, r.Event(10*ms, 1))
	must(t, r.Cancel(20*ms))
	if err := r.Cancel(30 * ms); err == nil {
		t.Fatal("Cancel after the end: no error")
	}
	if c, err := llmlat.ParseConvention("inference-perf"); err != nil || c != llmlat.ConvInferencePerf {
		t.Fatalf("ParseConvention(inference-perf) = %v, %v", c, err)
	}
	v := val(t)
	wantNear(t, "GuideLLM E2E of a cancelled request", v(r.Value(llmlat.E2E, llmlat.ConvGuideLLM)), 0)
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

// The intended start: the dispatch delay, and TTFT and E2E measured from
// it under each convention's anchors; undefined without one.
func TestSchedule(t *testing.T) {
	r := newRequest(t)
	must(t, r.Schedule(900*ms))
	if err := r.Start(899 * ms); !errors.Is(err, llmlat.ErrOrder) {
		t.Fatalf("a start before the intended start: %v", err)
	}
	must(t, r.Start(1000*ms))
	must(t, r.Event(1005*ms, 0))
	must(t, r.Event(1010*ms, 1))
	must(t, r.Event(1050*ms, 1))
	must(t, r.Finish(1060*ms))
	v := val(t)
	d := llmlat.ConvDefault
	wantNear(t, "delay", v(r.Value(llmlat.DispatchDelay, d)), 0.100)
	wantNear(t, "scheduled TTFT", v(r.Value(llmlat.ScheduledTTFT, d)), 0.110)
	wantNear(t, "scheduled E2E", v(r.Value(llmlat.ScheduledE2E, d)), 0.150)
	wantNear(t, "vLLM scheduled TTFT", v(r.Value(llmlat.ScheduledTTFT, llmlat.ConvVLLM)), 0.105)
	wantNear(t, "SGLang scheduled E2E", v(r.Value(llmlat.ScheduledE2E, llmlat.ConvSGLang)), 0.160)
	rec, err := r.Recorded()
	must(t, err)
	if !rec.HasScheduled || rec.Scheduled != 900*ms {
		t.Fatalf("Recorded: %+v", rec)
	}
	if llmlat.DispatchDelay.String() != "dispatch_delay" || llmlat.ScheduledE2E.String() != "scheduled_e2e" {
		t.Fatal("metric names")
	}

	a := newAgg(t, llmlat.ConvVLLM, llmlat.ModeBounded)
	if _, err := a.Stat(llmlat.DispatchDelay, llmlat.StatMean); !errors.Is(err, llmlat.ErrUndefined) {
		t.Fatalf("nobody's delay: %v, not ErrUndefined (vLLM's 0.0 is not for it)", err)
	}
	must(t, a.Add(r))
	plain := newRequest(t)
	must(t, plain.Start(0))
	must(t, plain.Event(10*ms, 1))
	must(t, plain.Finish(10*ms))
	must(t, a.Add(plain))
	n, err := a.Stat(llmlat.DispatchDelay, llmlat.StatCount)
	must(t, err)
	if n != 1 {
		t.Fatalf("a request without an intended start counted: %v", n)
	}
	must(t, a.SetParam(llmlat.ParamMaxDispatchDelay, 0.5)) // a reporting threshold
	var c llmlat.Columns
	c.Start = []int64{1000 * ms, 0}
	c.Scheduled = []int64{900 * ms, llmlat.NoSchedule}
	c.Offsets = []uint64{0, 3, 4}
	c.Times = []int64{1005 * ms, 1010 * ms, 1050 * ms, 10 * ms}
	c.Tokens = []uint32{0, 1, 1, 1}
	c.End = []int64{1060 * ms, 10 * ms}
	b := newAgg(t, llmlat.ConvVLLM, llmlat.ModeBounded)
	must(t, b.AddColumns(c))
	must(t, b.SetParam(llmlat.ParamMaxDispatchDelay, 0.5))
	if !bytes.Equal(marshal(t, a), marshal(t, b)) {
		t.Fatal("AddColumns with Scheduled differs from Add")
	}
	c.Scheduled[0] = 1001 * ms
	if err := b.AddColumns(c); !errors.Is(err, llmlat.ErrOrder) {
		t.Fatalf("an intended start after the start: %v", err)
	}
}
