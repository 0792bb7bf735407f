package llmlat_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// These tests need llmlat_agg_report (the report issue).

func TestReportJSON(t *testing.T) {
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	must(t, a.SetQuantiles(0.5, 0.9, 0.999))
	s, err := a.Report(llmlat.FormatJSON)
	must(t, err)
	var doc struct {
		Convention string                         `json:"convention"`
		Completed  uint64                         `json:"completed"`
		Failed     uint64                         `json:"failed"`
		OutTokens  uint64                         `json:"total_output_tokens"`
		Goodput    *float64                       `json:"request_goodput"`
		Metrics    map[string]map[string]*float64 `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	if doc.Convention != "default" || doc.Completed != 2 || doc.Failed != 0 || doc.OutTokens != 102 || doc.Goodput != nil {
		t.Fatalf("report %+v", doc)
	}
	v := val(t)
	for m, want := range map[string]map[string]float64{
		"tpot": {"mean": v(a.Stat(llmlat.TPOT, llmlat.StatMean)), "p99.9": v(a.Quantile(llmlat.TPOT, 0.999))},
		"itl":  {"mean": 0.0104, "count": 100, "p90": v(a.Quantile(llmlat.ITL, 0.9))},
		"ttft": {"median": 0.030, "p50": 0.030, "std": 0.020},
	} {
		for k, w := range want {
			got := doc.Metrics[m][k]
			if got == nil || !near(*got, w) {
				t.Errorf("metrics.%s.%s = %v, want %v", m, k, got, w)
			}
		}
	}
}

func TestReportTextAndPrometheus(t *testing.T) {
	a := aggOf(t, llmlat.ConvVLLM, llmlat.ModeExact, seed()...)
	text, err := a.Report(llmlat.FormatText)
	must(t, err)
	if !strings.Contains(strings.ToLower(text), "ttft") {
		t.Errorf("text report without TTFT:\n%s", text)
	}
	prom, err := a.Report(llmlat.FormatPrometheus)
	must(t, err)
	samples := 0
	for _, line := range strings.Split(strings.TrimRight(prom, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("prometheus line %q", line)
		}
		if _, err := strconv.ParseFloat(f[1], 64); err != nil && f[1] != "NaN" {
			t.Fatalf("prometheus line %q: %v", line, err)
		}
		samples++
	}
	if samples == 0 || !strings.Contains(prom, "# TYPE") || !strings.Contains(prom, "ttft") {
		t.Errorf("prometheus report:\n%s", prom)
	}
	_, err = a.Report(llmlat.Format(0))
	wantErr(t, err, llmlat.ErrInvalid)
}

// pieces records what WriteReport hands a writer, and fails (with
// failErr) or panics at write number failAt when asked to.
type pieces struct {
	got     []byte
	writes  int
	failAt  int
	failErr error
	panics  bool
}

func (p *pieces) Write(b []byte) (int, error) {
	if p.failErr != nil && p.writes == p.failAt {
		if p.panics {
			panic(p.failErr)
		}
		return 0, p.failErr
	}
	p.writes++
	p.got = append(p.got, b...)
	return len(b), nil
}

// WriteReport streams the very bytes of Report, in pieces; a writer's
// error stops it at once and comes back as is, and a panic goes on after
// the C call has returned.
func TestWriteReport(t *testing.T) {
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	for _, f := range []llmlat.Format{llmlat.FormatText, llmlat.FormatJSON, llmlat.FormatPrometheus} {
		want, err := a.Report(f)
		must(t, err)
		var all pieces
		must(t, a.WriteReport(&all, f))
		if string(all.got) != want || all.writes < 1 || (len(want) > 8192 && all.writes < 2) {
			t.Errorf("format %d: %d bytes in %d writes, want the %d of Report", f,
				len(all.got), all.writes, len(want))
		}
		stop := errors.New("disk full")
		for at := 0; at < all.writes; at++ {
			p := pieces{failAt: at, failErr: stop}
			if err := a.WriteReport(&p, f); err != stop || p.writes != at ||
				!strings.HasPrefix(want, string(p.got)) {
				t.Errorf("format %d, failing write %d: %v after %d writes", f, at, err, p.writes)
			}
		}
		func() {
			defer func() {
				if r := recover(); r != stop {
					t.Errorf("format %d: recovered %v, want the writer's panic", f, r)
				}
			}()
			a.WriteReport(&pieces{failErr: stop, panics: true}, f)
		}()
	}
	wantErr(t, a.WriteReport(nil, llmlat.FormatJSON), llmlat.ErrInvalid)
	wantErr(t, a.WriteReport(&pieces{}, llmlat.Format(0)), llmlat.ErrInvalid)
}

// ttftBuckets is the le="..." lines of the TTFT histogram of a Prometheus
// report, each with its count.
func ttftBuckets(t *testing.T, a *llmlat.Aggregator) map[string]string {
	t.Helper()
	prom, err := a.Report(llmlat.FormatPrometheus)
	must(t, err)
	le := map[string]string{}
	for _, line := range strings.Split(prom, "\n") {
		if !strings.HasPrefix(line, "llmlat_ttft") || !strings.Contains(line, "_bucket{") {
			continue
		}
		i := strings.Index(line, `le="`)
		j := strings.Index(line[i+4:], `"`)
		f := strings.Fields(line)
		le[line[i+4:i+4+j]] = f[len(f)-1]
	}
	return le
}

func TestSetBuckets(t *testing.T) {
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...) // TTFT 10 and 50 ms
	must(t, a.SetBuckets(llmlat.TTFT, 0.02, 0.04))
	got := ttftBuckets(t, a)
	want := map[string]string{"0.02": "1", "0.04": "1", "+Inf": "2"}
	if len(got) != len(want) {
		t.Fatalf("TTFT buckets %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("TTFT buckets %v, want %v", got, want)
		}
	}
	must(t, a.SetBuckets(llmlat.TTFT)) // back to vLLM's buckets
	if n := len(ttftBuckets(t, a)); n <= 3 {
		t.Fatalf("default TTFT histogram has %d buckets", n)
	}
	wantErr(t, a.SetBuckets(llmlat.TPSUser, 1), llmlat.ErrInvalid)
	wantErr(t, a.SetBuckets(llmlat.TTFT, 0.04, 0.02), llmlat.ErrInvalid)
	wantErr(t, a.SetBuckets(llmlat.TTFT, math.NaN()), llmlat.ErrInvalid)
	wantErr(t, a.SetBuckets(llmlat.TTFT, math.Inf(1)), llmlat.ErrInvalid)
	many := make([]float64, 65)
	for i := range many {
		many[i] = float64(i + 1)
	}
	wantErr(t, a.SetBuckets(llmlat.TTFT, many...), llmlat.ErrInvalid)
	must(t, a.SetBuckets(llmlat.TTFT, many[:64]...))
}
