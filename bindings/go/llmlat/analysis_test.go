package llmlat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// run is n requests started 100 ms apart, TTFT 40 + (i % 7) * 5 ms plus
// shift, then 6 chunks 20 ms apart.
func run(t *testing.T, n int, shift time.Duration, mode Mode) *Aggregator {
	t.Helper()
	a, err := NewAggregator(ConvDefault, mode)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewRequest()
	defer r.Close()
	for i := 0; i < n; i++ {
		start := int64(i) * 100e6
		tt := start + int64(40+(i%7)*5)*1e6 + int64(shift)
		must(t, r.Reset())
		must(t, r.Start(start))
		for k := 0; k < 6; k++ {
			must(t, r.Event(tt, 1))
			tt += 20e6
		}
		must(t, r.Finish(tt))
		must(t, a.Add(r))
	}
	return a
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestWindows(t *testing.T) {
	a := run(t, 40, 0, ModeExact)
	defer a.Close()
	first, last, err := a.Span()
	must(t, err)
	if first != 0 || last <= first {
		t.Fatalf("span %d %d", first, last)
	}
	s, err := a.Steady(0, -1, time.Second, time.Second)
	must(t, err)
	defer s.Close()
	n, _ := s.Counter(CountCompleted)
	if n == 0 || n >= 40 {
		t.Fatalf("steady kept %d", n)
	}
	slice, err := a.NewLike()
	must(t, err)
	defer slice.Close()
	must(t, slice.AddWindow(a, 0, 1e9, WindowStart))
	if n, _ := slice.Counter(CountCompleted); n != 10 {
		t.Fatalf("first second: %d requests", n)
	}
	b := run(t, 5, 0, ModeBounded)
	defer b.Close()
	if _, _, err := b.Span(); !errors.Is(err, ErrUndefined) {
		t.Fatalf("bounded span: %v", err)
	}
	if err := slice.AddWindow(b, 0, 1, WindowStart); !errors.Is(err, ErrUndefined) {
		t.Fatalf("bounded window: %v", err)
	}
	if err := slice.AddWindow(a, 0, 1, 9); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad rule: %v", err)
	}
}

func TestCompare(t *testing.T) {
	base := run(t, 120, 0, ModeExact)
	cand := run(t, 120, 10*time.Millisecond, ModeExact)
	defer base.Close()
	defer cand.Close()
	c, err := Compare(base, cand, 200, 1)
	must(t, err)
	defer c.Close()
	d, err := c.Get("mean_ttft", CompareDiff)
	must(t, err)
	if d < 0.0099 || d > 0.0101 {
		t.Fatalf("mean TTFT diff %g", d)
	}
	lo, _ := c.Get("mean_ttft", CompareDiffLow)
	if lo <= 0 {
		t.Fatalf("the shift is not significant: low %g", lo)
	}
	if figs := c.Figures(); figs[0] != "mean_ttft" || len(figs) < 20 {
		t.Fatalf("figures %v", figs)
	}
	text, err := c.Report(FormatText)
	must(t, err)
	if !strings.Contains(text, "mean_ttft") {
		t.Fatal(text)
	}
	js, err := c.Report(FormatJSON)
	must(t, err)
	var doc map[string]any
	must(t, json.Unmarshal([]byte(js), &doc))
	if _, err := c.Get("nope", CompareDiff); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown figure: %v", err)
	}
	vllm, _ := NewAggregator(ConvVLLM, ModeExact)
	defer vllm.Close()
	if _, err := Compare(base, vllm, 10, 0); !errors.Is(err, ErrMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
	c.Close()
	if _, err := c.Get("mean_ttft", CompareDiff); !errors.Is(err, ErrInvalid) {
		t.Fatalf("closed: %v", err)
	}
}

func TestRequestFormats(t *testing.T) {
	a := run(t, 12, 0, ModeExact)
	defer a.Close()
	csv, err := a.Report(FormatRequestsCSV)
	must(t, err)
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 13 {
		t.Fatalf("%d lines", len(lines))
	}
	trace, err := a.Report(FormatChromeTrace)
	must(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	must(t, json.Unmarshal([]byte(trace), &doc))
	if len(doc.TraceEvents) < 12*6 {
		t.Fatalf("%d events", len(doc.TraceEvents))
	}
	page, err := a.Report(FormatHTML)
	must(t, err)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "<svg") {
		t.Fatal("not a page")
	}
	b := run(t, 3, 0, ModeBounded)
	defer b.Close()
	if _, err := b.Report(FormatRequestsJSONL); !errors.Is(err, ErrUndefined) {
		t.Fatalf("bounded: %v", err)
	}
}
