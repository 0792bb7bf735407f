package llmlat_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"example.invalid/llmlat/bindings/go/llmlat"
)

const trace = `{"requests": [
 {"start": 0, "events": [[0.1, 1], [0.15, 2], [0.2, 0]], "input_tokens": 10, "end": 0.3, "id": "a"},
 {"start": 0.05, "events": [[0.5, 1]], "ok": false},
 {"start": 1, "events": [[0.5, 1]], "id": 42},
 {"start": 1.000000001, "events": [[1.2, 3]], "output_tokens": 5}
], "duration": 4}
`

func marshal(t *testing.T, a *llmlat.Aggregator) []byte {
	t.Helper()
	b, err := a.MarshalBinary()
	must(t, err)
	return b
}

func TestReaderNext(t *testing.T) {
	// one byte at a time: the reader's steps wait for more and run again
	rd, err := llmlat.NewReader(iotest.OneByteReader(strings.NewReader(trace)), llmlat.InputAuto, "t.json")
	must(t, err)
	defer rd.Close()
	r, err := llmlat.NewRequest()
	must(t, err)
	defer r.Close()
	var got []llmlat.Recorded
	var ids []string
	for {
		ok, err := rd.Next(r)
		must(t, err)
		if !ok {
			break
		}
		rec, err := r.Recorded()
		must(t, err)
		got = append(got, rec)
		ids = append(ids, rd.ID())
	}
	if len(got) != 3 || ids[0] != "a" || ids[2] != "" {
		t.Fatalf("requests %d, ids %q", len(got), ids)
	}
	a := got[0]
	if a.Start != 0 || a.End != 300*ms || a.Failed || len(a.Times) != 3 || a.Times[1] != 150*ms ||
		a.Tokens[1] != 2 || a.InputTokens != 10 || a.HasOutput {
		t.Errorf("first request %+v", a)
	}
	if !got[1].Failed || got[2].OutputTokens != 5 || !got[2].HasOutput {
		t.Errorf("others %+v %+v", got[1], got[2])
	}
	if d, ok := rd.Duration(); !ok || d != 4 {
		t.Errorf("duration %v %v", d, ok)
	}
	if rd.Requests() != 4 || rd.Rejected() != 1 || rd.Format() != llmlat.InputTrace {
		t.Errorf("read %d, rejected %d, format %v", rd.Requests(), rd.Rejected(), rd.Format())
	}
	want := `t.json:4:2: request 3 (id "42") rejected: event 1 at 0.5 s is before its start at 1 s`
	if rj := rd.Rejections(); len(rj) != 1 || rj[0] != want {
		t.Errorf("rejections %q", rj)
	}
	if _, _, ok := rd.Run(); ok {
		t.Errorf("a trace has no runs")
	}
}

func TestReaderAddToEqualsNext(t *testing.T) {
	fast := newAgg(t, llmlat.ConvVLLM, llmlat.ModeExact)
	rd, err := llmlat.NewReader(strings.NewReader(trace), llmlat.InputTrace, "t")
	must(t, err)
	must(t, rd.AddTo(fast))
	rd.Close()
	slow := newAgg(t, llmlat.ConvVLLM, llmlat.ModeExact)
	rd, err = llmlat.NewReader(strings.NewReader(trace), llmlat.InputTrace, "t")
	must(t, err)
	r, _ := llmlat.NewRequest()
	for {
		ok, err := rd.Next(r)
		must(t, err)
		if !ok {
			break
		}
		must(t, slow.Add(r))
	}
	if !bytes.Equal(marshal(t, fast), marshal(t, slow)) {
		t.Fatal("AddTo and Next + Add differ")
	}
	// closed: ErrInvalid
	rd.Close()
	if _, err := rd.Next(r); !errors.Is(err, llmlat.ErrInvalid) {
		t.Errorf("next on a closed reader: %v", err)
	}
}

func TestReaderMalformedAndImporters(t *testing.T) {
	rd, _ := llmlat.NewReader(strings.NewReader(`[{"start": 0}, {"start": x}]`), llmlat.InputAuto, "bad")
	defer rd.Close()
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	err := rd.AddTo(a)
	var e *llmlat.Error
	if !errors.Is(err, llmlat.ErrFormat) || !errors.As(err, &e) ||
		e.Detail != `bad:1:26: "start" must be a number (seconds)` {
		t.Fatalf("malformed: %v", err)
	}
	if n, _ := a.Counter(llmlat.CountCompleted); n != 1 {
		t.Errorf("the request before the error: %d", n)
	}

	runs := `{"date": "x", "duration": 1.5, "ttfts": [0.1], "itls": [[0.01]], "start_times": [5.0]}
{"date": "y", "duration": 2.5, "ttfts": [0.2], "itls": [[0.02]]}`
	for _, c := range []struct {
		run     uint64
		wantDur float64
		lacks   llmlat.Lacks
	}{{0, 2.5, llmlat.LacksStartTimes}, {1, 1.5, 0}} {
		rd, _ := llmlat.NewReader(strings.NewReader(runs), llmlat.InputVLLM, "v")
		must(t, rd.SetRun(c.run))
		agg := newAgg(t, llmlat.ConvVLLM, llmlat.ModeExact)
		must(t, rd.AddTo(agg))
		run, n, ok := rd.Run()
		if d, _ := rd.Duration(); !ok || n != 2 || d != c.wantDur || (c.run != 0 && run != c.run) {
			t.Errorf("run %d: read %d of %d, duration %v", c.run, run, n, d)
		}
		_, unavailable := agg.UnavailableCounter(llmlat.CountPeakConcurrency)
		if unavailable != (c.lacks&llmlat.LacksStartTimes != 0) {
			t.Errorf("run %d: peak concurrency unavailable %v", c.run, unavailable)
		}
		if why, ok := agg.UnavailableMetric(llmlat.ITL); !ok || !strings.Contains(why, "token counts per chunk") {
			t.Errorf("run %d: ITL %q %v", c.run, why, ok)
		}
		rd.Close()
	}
	if in, err := llmlat.ParseInput("genai-perf"); err != nil || in != llmlat.InputGenAIPerf {
		t.Errorf("ParseInput: %v %v", in, err)
	}
	if _, err := llmlat.NewReader(strings.NewReader(""), llmlat.Input(99), ""); !errors.Is(err, llmlat.ErrInvalid) {
		t.Errorf("unknown input: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestReaderSourceError(t *testing.T) {
	rd, _ := llmlat.NewReader(failingReader{}, llmlat.InputAuto, "f")
	defer rd.Close()
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeExact)
	if err := rd.AddTo(a); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("the source's error: %v", err)
	}
}

func TestAddColumns(t *testing.T) {
	streams := []stream{uniform(0, 100*ms, 10*ms, 5), uniform(ms, 50*ms, 20*ms, 3), {start: 2 * ms, failed: true}}
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		one := newAgg(t, llmlat.ConvAIPerf, mode)
		r, _ := llmlat.NewRequest()
		var c llmlat.Columns
		c.Offsets = []uint64{0}
		for _, s := range streams {
			record(t, r, s)
			must(t, one.Add(r))
			c.Start = append(c.Start, s.start)
			c.End = append(c.End, s.endTime())
			c.OK = append(c.OK, !s.failed)
			c.Times = append(c.Times, s.t...)
			c.Tokens = append(c.Tokens, s.k...)
			c.Offsets = append(c.Offsets, uint64(len(c.Times)))
		}
		r.Close()
		all := newAgg(t, llmlat.ConvAIPerf, mode)
		must(t, all.AddColumns(c))
		if !bytes.Equal(marshal(t, one), marshal(t, all)) {
			t.Fatalf("%v: AddColumns differs from Add", mode)
		}
		c.Times[3] = c.Times[2] - 1 // request 0 goes back in time
		err := all.AddColumns(c)
		var e *llmlat.Error
		if !errors.Is(err, llmlat.ErrOrder) || !errors.As(err, &e) || e.Detail != "request 0" {
			t.Errorf("%v: a fault: %v", mode, err)
		}
		if err := all.AddColumns(llmlat.Columns{Start: []int64{0}, End: []int64{1, 2}}); !errors.Is(err, llmlat.ErrInvalid) {
			t.Errorf("%v: lengths: %v", mode, err)
		}
		if !bytes.Equal(marshal(t, one), marshal(t, all)) {
			t.Fatalf("%v: a failed AddColumns changed the aggregator", mode)
		}
	}
}

func TestSetKnown(t *testing.T) {
	r, _ := llmlat.NewRequest()
	defer r.Close()
	must(t, r.Start(0))
	must(t, r.SetKnown(llmlat.ConvLLMPerf, llmlat.TTFT, 0.25))
	must(t, r.SetLacks(llmlat.LacksStartTimes))
	if err := r.Event(1, 1); !errors.Is(err, llmlat.ErrState) {
		t.Errorf("an event after SetKnown: %v", err)
	}
	must(t, r.Finish(1e9))
	if v, err := r.Value(llmlat.TTFT, llmlat.ConvLLMPerf); err != nil || v != 0.25 {
		t.Errorf("its TTFT: %v %v", v, err)
	}
	rec, err := r.Recorded()
	must(t, err)
	if rec.Lacks != llmlat.LacksStartTimes|llmlat.LacksChunks || !rec.Ended || rec.End != 1e9 {
		t.Errorf("recorded %+v", rec)
	}
}
