package llmlat_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// labelled is a bounded default-convention aggregator with labels and 40
// requests.
func labelled(t *testing.T, m llmlat.Mode, labels ...string) *llmlat.Aggregator {
	t.Helper()
	var ss []stream
	for i := 0; i < 40; i++ {
		ss = append(ss, uniform(int64(i)*1000*ms, int64(50+i)*ms, 10*ms, 5))
	}
	a := aggOf(t, llmlat.ConvDefault, m, ss...)
	for i := 0; i+1 < len(labels); i += 2 {
		must(t, a.SetLabel(labels[i], labels[i+1]))
	}
	return a
}

// familyNames reads the delimited MetricFamily messages' names (field 1).
func familyNames(t *testing.T, data []byte) []string {
	t.Helper()
	varint := func(at int) (uint64, int) {
		var v uint64
		for shift := uint(0); ; shift += 7 {
			b := data[at]
			at++
			v |= uint64(b&0x7f) << shift
			if b&0x80 == 0 {
				return v, at
			}
		}
	}
	var names []string
	for at := 0; at < len(data); {
		n, p := varint(at)
		end := p + int(n)
		if tag, q := varint(p); tag != 1<<3|2 {
			t.Fatalf("family without a name first (tag %d)", tag)
		} else {
			l, q := varint(q)
			names = append(names, string(data[q:q+int(l)]))
		}
		at = end
	}
	return names
}

func TestLabels(t *testing.T) {
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, a.SetLabel("route", "/v1/chat"))
	must(t, a.SetLabel("model", "llama \"3\"\n"))
	got, err := a.Labels()
	must(t, err)
	want := []llmlat.Label{{"model", "llama \"3\"\n"}, {"route", "/v1/chat"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("labels %q", got)
	}
	for _, bad := range []string{"", "9a", "__x", "le", "quantile", "version", "convention", "mode", "a\x00b"} {
		if err := a.SetLabel(bad, "v"); !errors.Is(err, llmlat.ErrInvalid) {
			t.Errorf("label %q: %v", bad, err)
		}
	}
	must(t, a.SetLabel("route", "")) // removed
	got, _ = a.Labels()
	if len(got) != 1 {
		t.Fatalf("labels after removal %q", got)
	}
	data, err := a.MarshalBinary()
	must(t, err)
	var b llmlat.Aggregator
	must(t, b.UnmarshalBinary(data))
	defer b.Close()
	if got, _ := b.Labels(); len(got) != 1 || got[0].Name != "model" {
		t.Fatalf("labels after unmarshal %q", got)
	}
	a.Close()
	if _, err := a.Labels(); !errors.Is(err, llmlat.ErrInvalid) {
		t.Fatalf("closed: %v", err)
	}
}

func TestBucketsAndSum(t *testing.T) {
	b := labelled(t, llmlat.ModeBounded)
	e := labelled(t, llmlat.ModeExact)
	for _, m := range []llmlat.Metric{llmlat.TTFT, llmlat.ITL, llmlat.E2E} {
		nb, err := b.Buckets(m)
		must(t, err)
		ne, err := e.Buckets(m)
		must(t, err)
		var total uint64 = nb.ZeroCount
		for i, c := range nb.Counts {
			total += c
			if ne.Counts[i] != c {
				t.Fatalf("%s: bucket %d: %d bounded, %d exact", m, int(nb.Offset)+i, c, ne.Counts[i])
			}
		}
		n, _ := b.Stat(m, llmlat.StatCount)
		if nb.Schema != 6 || ne.Schema != 6 || float64(total) != n || nb.Offset != ne.Offset {
			t.Fatalf("%s: %+v vs %+v, count %v", m, nb, ne, n)
		}
	}
	sum, err := b.Stat(llmlat.TTFT, llmlat.StatSum)
	must(t, err)
	if want := 0.05*40 + 0.001*(39*40/2); sum < want*(1-1e-12) || sum > want*(1+1e-12) {
		t.Fatalf("TTFT sum %v, want %v", sum, want)
	}
	empty := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	if s, err := empty.Stat(llmlat.TTFT, llmlat.StatSum); err != nil || s != 0 {
		t.Fatalf("empty sum %v %v", s, err)
	}
	if nb, err := empty.Buckets(llmlat.TTFT); err != nil || len(nb.Counts) != 0 {
		t.Fatalf("empty buckets %+v %v", nb, err)
	}
}

func TestExpose(t *testing.T) {
	a := labelled(t, llmlat.ModeBounded, "model", "a")
	b := labelled(t, llmlat.ModeExact, "model", "b")
	var text bytes.Buffer
	must(t, llmlat.Expose(&text, llmlat.FormatPrometheus, a, b))
	s := text.String()
	if strings.Count(s, "# TYPE llmlat_ttft_hist_seconds histogram\n") != 1 ||
		!strings.Contains(s, "llmlat_requests_completed_total{model=\"a\"} 40\n") ||
		!strings.Contains(s, "llmlat_requests_completed_total{model=\"b\"} 40\n") ||
		strings.Contains(s, "llmlat_duration_seconds") {
		t.Fatalf("exposition:\n%s", s)
	}
	var om bytes.Buffer
	must(t, llmlat.Expose(&om, llmlat.FormatOpenMetrics, a, b))
	if !strings.HasSuffix(om.String(), "# EOF\n") {
		t.Fatal("OpenMetrics without # EOF")
	}
	var pb bytes.Buffer
	must(t, llmlat.Expose(&pb, llmlat.FormatPrometheusProtobuf, a, b))
	names := familyNames(t, pb.Bytes())
	if len(names) != strings.Count(s, "# TYPE ") || names[0] != "llmlat_info" {
		t.Fatalf("protobuf families %q", names)
	}
	// refused: the same labels twice, a closed aggregator, a report format
	twin := labelled(t, llmlat.ModeBounded, "model", "a")
	for _, err := range []error{
		llmlat.Expose(&text, llmlat.FormatPrometheus, a, twin),
		llmlat.Expose(&text, llmlat.FormatPrometheus, a, a),
		llmlat.Expose(&text, llmlat.FormatJSON, a),
		llmlat.Expose(nil, llmlat.FormatPrometheus, a),
	} {
		if !errors.Is(err, llmlat.ErrInvalid) {
			t.Errorf("want ErrInvalid, got %v", err)
		}
	}
	var none bytes.Buffer
	must(t, llmlat.Expose(&none, llmlat.FormatPrometheus))
	if none.Len() != 0 {
		t.Fatal("an exposition of nothing is empty")
	}
	twin.Close()
	if err := llmlat.Expose(&text, llmlat.FormatPrometheus, a, twin); !errors.Is(err, llmlat.ErrInvalid) {
		t.Fatalf("closed aggregator: %v", err)
	}
	if llmlat.FormatOpenMetrics.ContentType() != "application/openmetrics-text; version=1.0.0; charset=utf-8" ||
		llmlat.Format(99).ContentType() != "" {
		t.Fatal("content types")
	}
}

func TestHandlerNegotiates(t *testing.T) {
	a := labelled(t, llmlat.ModeBounded, "model", "a")
	srv := httptest.NewServer(llmlat.Handler(func() ([]*llmlat.Aggregator, error) {
		return []*llmlat.Aggregator{a}, nil
	}))
	defer srv.Close()
	cases := []struct{ query, accept, want string }{
		{"", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3",
			llmlat.FormatPrometheusProtobuf.ContentType()},
		{"", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5", llmlat.FormatOpenMetrics.ContentType()},
		{"", "", llmlat.FormatPrometheus.ContentType()},
		{"?format=text", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
			llmlat.FormatPrometheus.ContentType()},
		{"?format=openmetrics", "", llmlat.FormatOpenMetrics.ContentType()},
		{"?format=protobuf", "", llmlat.FormatPrometheusProtobuf.ContentType()},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", srv.URL+"/metrics"+c.query, nil)
		if c.accept != "" {
			req.Header.Set("Accept", c.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != c.want || body.Len() == 0 {
			t.Errorf("%s %q: %s (%d bytes), want %s", c.query, c.accept, got, body.Len(), c.want)
		}
	}
	failing := httptest.NewRecorder()
	llmlat.Handler(func() ([]*llmlat.Aggregator, error) { return nil, errors.New("no") }).
		ServeHTTP(failing, httptest.NewRequest("GET", "/metrics", nil))
	if failing.Code != http.StatusInternalServerError {
		t.Fatalf("a failed snapshot: %d", failing.Code)
	}
}

func TestExposeNames(t *testing.T) {
	a := labelled(t, llmlat.ModeBounded, "model", "a", "operation", "chat")
	b := labelled(t, llmlat.ModeExact, "model", "b")
	var plain, named bytes.Buffer
	must(t, llmlat.Expose(&plain, llmlat.FormatPrometheus, a, b))
	must(t, llmlat.ExposeNames(&named, llmlat.FormatPrometheus, llmlat.NamesLLMLAT, a, b))
	if plain.String() != named.String() {
		t.Fatal("NamesLLMLAT is not Expose's exposition")
	}
	want := map[llmlat.Names]string{
		llmlat.NamesVLLM:   "vllm:request_success_total{model_name=\"a\",operation=\"chat\"} 40\n",
		llmlat.NamesSGLang: "sglang:num_requests_total{model_name=\"b\"} 40\n",
		llmlat.NamesOTel: "gen_ai_client_token_usage_count{gen_ai_request_model=\"a\"," +
			"gen_ai_operation_name=\"chat\",gen_ai_token_type=\"output\"} 40\n",
	}
	for n, line := range want {
		var text bytes.Buffer
		must(t, llmlat.ExposeNames(&text, llmlat.FormatPrometheus, n, a, b))
		if !strings.Contains(text.String(), line) || strings.Contains(text.String(), "llmlat_") {
			t.Errorf("%v:\n%s", n, text.String())
		}
		if p, err := llmlat.ParseNames(n.String()); err != nil || p != n {
			t.Errorf("ParseNames(%q) = %v, %v", n.String(), p, err)
		}
	}
	if _, err := llmlat.ParseNames("grafana"); !errors.Is(err, llmlat.ErrInvalid) {
		t.Errorf("ParseNames of an unknown name: %v", err)
	}
	if llmlat.Names(9).String() != "Names(9)" || llmlat.NamesOTel.String() != "otel" {
		t.Error("Names.String")
	}
	// a rename that makes a label twice; an unknown scheme
	both := labelled(t, llmlat.ModeBounded, "model", "x", "model_name", "y")
	var text bytes.Buffer
	for _, err := range []error{
		llmlat.ExposeNames(&text, llmlat.FormatPrometheus, llmlat.NamesVLLM, both),
		llmlat.ExposeNames(&text, llmlat.FormatPrometheus, llmlat.Names(9), a),
	} {
		if !errors.Is(err, llmlat.ErrInvalid) {
			t.Errorf("want ErrInvalid, got %v", err)
		}
	}
	if text.Len() != 0 {
		t.Error("a refused exposition wrote bytes")
	}
	must(t, llmlat.ExposeNames(&text, llmlat.FormatPrometheus, llmlat.NamesOTel, both))
}

func TestHandlerWithNames(t *testing.T) {
	a := labelled(t, llmlat.ModeBounded, "model", "a")
	snapshot := func() ([]*llmlat.Aggregator, error) { return []*llmlat.Aggregator{a}, nil }
	for _, c := range []struct {
		h    http.Handler
		want string
	}{
		{llmlat.Handler(snapshot), "# TYPE llmlat_ttft_hist_seconds histogram\n"},
		{llmlat.Handler(snapshot, llmlat.WithNames(llmlat.NamesVLLM)),
			"vllm:time_to_first_token_seconds_count{model_name=\"a\"} 40\n"},
		{llmlat.Handler(snapshot, llmlat.WithNames(llmlat.NamesSGLang)),
			"# TYPE sglang:time_to_first_token_seconds histogram\n"},
		{llmlat.Handler(snapshot, llmlat.WithNames(llmlat.NamesOTel)),
			"# UNIT gen_ai_server_time_to_first_token_seconds seconds\n"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
		c.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("want %q in:\n%s", c.want, rec.Body.String())
		}
	}
}

func TestBucketsOfWhatTheDataLack(t *testing.T) {
	a := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	r, err := llmlat.NewRequest()
	must(t, err)
	defer r.Close()
	must(t, r.Start(0))
	must(t, r.SetLacks(llmlat.LacksInputTokens))
	must(t, r.Event(100*ms, 1))
	must(t, r.Finish(100*ms))
	must(t, a.Add(r))
	if _, err := a.Buckets(llmlat.InputTokens); !errors.Is(err, llmlat.ErrUndefined) {
		t.Fatalf("buckets of a metric the data lack: %v", err)
	}
	if nb, err := a.Buckets(llmlat.TTFT); err != nil || nb.ZeroCount+nb.Counts[0] != 1 {
		t.Fatalf("TTFT buckets %+v %v", nb, err)
	}
}
