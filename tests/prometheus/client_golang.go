// llmlat's protobuf expositions read by Prometheus' own Go packages
// (Debian's client_model 0.3, common 0.39 and client_golang 1.14, in
// GOPATH mode: no module proxy):
//
//   - every ttft-S*.pb decodes with expfmt's delimited-protobuf decoder, and
//     its native histogram equals, span for span and delta for delta,
//     the one client_golang's own native histogram makes of the same
//     observations (ttft-S.ns) at the same schema and zero threshold;
//     schema 10 is exported at 8, as Prometheus 2.x needs;
//   - fleet.pb says what fleet.txt says when expfmt's text parser reads
//     it: the same families, types, label sets (escapes undone) and
//     values; and so in each naming scheme (fleet-vllm, fleet-sglang,
//     fleet-otel), whose histograms carry native buckets too.
//
// Usage: go run client_golang.go DIR
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

var failures int

func fail(format string, args ...interface{}) {
	failures++
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
}

func decode(path string) []*dto.MetricFamily {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	dec := expfmt.NewDecoder(f, expfmt.FmtProtoDelim)
	var out []*dto.MetricFamily
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err == io.EOF {
			return out
		} else if err != nil {
			panic(fmt.Sprintf("%s: %v", path, err))
		}
		out = append(out, mf)
	}
}

func family(mfs []*dto.MetricFamily, name string) *dto.MetricFamily {
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

func observations(path string) []float64 {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var out []float64
	s := bufio.NewScanner(f)
	for s.Scan() {
		ns, err := strconv.ParseInt(s.Text(), 10, 64)
		if err != nil {
			panic(err)
		}
		out = append(out, float64(ns)/1e9) // the double llmlat's samples are: ns / 1e9
	}
	return out
}

// client_golang picks schema -floor(log2(log2(factor))): a factor in the
// middle of the schema's range.
func factorFor(schema int32) float64 {
	return math.Pow(2, 1.5*math.Pow(2, -float64(schema)))
}

func compareNative(schema int, tag string, dir string) {
	name := fmt.Sprintf("ttft-%d%s", schema, tag)
	mf := family(decode(filepath.Join(dir, name+".pb")), "llmlat_ttft_hist_seconds")
	if mf == nil || mf.GetType() != dto.MetricType_HISTOGRAM || len(mf.Metric) != 1 {
		fail("%s: no histogram family", name)
		return
	}
	ours := mf.Metric[0].GetHistogram()
	want := int32(schema)
	if want > 8 {
		want = 8
	}
	if ours.GetSchema() != want {
		fail("%s: schema %d, want %d", name, ours.GetSchema(), want)
	}
	h := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:                         "x",
		Help:                         "x",
		NativeHistogramBucketFactor:  factorFor(want),
		NativeHistogramZeroThreshold: ours.GetZeroThreshold(),
	})
	obs := observations(filepath.Join(dir, name+".ns"))
	for _, v := range obs {
		h.Observe(v)
	}
	var m dto.Metric
	if err := h.Write(&m); err != nil {
		panic(err)
	}
	theirs := m.GetHistogram()
	if theirs.GetSchema() != ours.GetSchema() {
		fail("%s: client_golang chose schema %d", name, theirs.GetSchema())
	}
	if theirs.GetSampleCount() != ours.GetSampleCount() || ours.GetSampleCount() != uint64(len(obs)) {
		fail("%s: count %d, client_golang %d", name, ours.GetSampleCount(), theirs.GetSampleCount())
	}
	if d := math.Abs(theirs.GetSampleSum() - ours.GetSampleSum()); d > 1e-9*ours.GetSampleSum() {
		fail("%s: sum %v, client_golang %v", name, ours.GetSampleSum(), theirs.GetSampleSum())
	}
	if theirs.GetZeroThreshold() != ours.GetZeroThreshold() || theirs.GetZeroCount() != ours.GetZeroCount() {
		fail("%s: zero bucket (%v, %d), client_golang (%v, %d)", name, ours.GetZeroThreshold(),
			ours.GetZeroCount(), theirs.GetZeroThreshold(), theirs.GetZeroCount())
	}
	if !reflect.DeepEqual(spans(ours), spans(theirs)) {
		fail("%s: spans differ:\n ours %v\n client_golang %v", name, spans(ours), spans(theirs))
	}
	if !reflect.DeepEqual(ours.GetPositiveDelta(), theirs.GetPositiveDelta()) {
		fail("%s: deltas differ", name)
	}
	fmt.Printf("%s: schema %d, %d observations, %d spans, %d buckets: equal to client_golang's\n",
		name, ours.GetSchema(), len(obs), len(ours.GetPositiveSpan()), len(ours.GetPositiveDelta()))
}

func spans(h *dto.Histogram) [][2]int64 {
	var out [][2]int64
	for _, s := range h.GetPositiveSpan() {
		out = append(out, [2]int64{int64(s.GetOffset()), int64(s.GetLength())})
	}
	return out
}

// A metric's labels as "a=x,b=y" in name order.
func labelKey(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+strconv.Quote(l.GetValue()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func compareFleet(dir, stem string) {
	pb := decode(filepath.Join(dir, stem+".pb"))
	f, err := os.Open(filepath.Join(dir, stem+".txt"))
	if err != nil {
		panic(err)
	}
	var p expfmt.TextParser
	text, err := p.TextToMetricFamilies(f)
	f.Close()
	if err != nil {
		fail("%s.txt: %v", stem, err)
		return
	}
	if len(pb) != len(text) {
		fail("%s: %d families in protobuf, %d in text", stem, len(pb), len(text))
	}
	metrics := 0
	for _, mf := range pb {
		tf := text[mf.GetName()]
		if tf == nil {
			fail("%s: family %s only in protobuf", stem, mf.GetName())
			continue
		}
		if tf.GetType() != mf.GetType() || tf.GetHelp() != mf.GetHelp() {
			fail("%s: %s type/help differ", stem, mf.GetName())
		}
		byLabels := map[string]*dto.Metric{}
		for _, m := range tf.Metric {
			byLabels[labelKey(m)] = m
		}
		if len(byLabels) != len(mf.Metric) {
			fail("%s: %s has %d series in text, %d in protobuf", stem, mf.GetName(), len(byLabels),
				len(mf.Metric))
		}
		for _, m := range mf.Metric {
			metrics++
			t := byLabels[labelKey(m)]
			if t == nil {
				fail("%s: %s{%s} only in protobuf", stem, mf.GetName(), labelKey(m))
				continue
			}
			sameMetric(mf.GetName()+"{"+labelKey(m)+"}", m, t)
		}
	}
	fmt.Printf("%s: %d families, %d series: protobuf = text\n", stem, len(pb), metrics)
}

func same(what string, a, b float64) {
	if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
		fail("%s: protobuf %v, text %v", what, a, b)
	}
}

func sameMetric(what string, pb, text *dto.Metric) {
	switch {
	case pb.Counter != nil:
		same(what, pb.GetCounter().GetValue(), text.GetCounter().GetValue())
	case pb.Gauge != nil:
		same(what, pb.GetGauge().GetValue(), text.GetGauge().GetValue())
	case pb.Summary != nil:
		s, t := pb.GetSummary(), text.GetSummary()
		same(what+" count", float64(s.GetSampleCount()), float64(t.GetSampleCount()))
		same(what+" sum", s.GetSampleSum(), t.GetSampleSum())
		if len(s.GetQuantile()) != len(t.GetQuantile()) {
			fail("%s: quantiles differ", what)
			return
		}
		for i, q := range s.GetQuantile() {
			same(what+" quantile", q.GetQuantile(), t.GetQuantile()[i].GetQuantile())
			same(what+" quantile value", q.GetValue(), t.GetQuantile()[i].GetValue())
		}
	case pb.Histogram != nil:
		h, t := pb.GetHistogram(), text.GetHistogram()
		same(what+" count", float64(h.GetSampleCount()), float64(t.GetSampleCount()))
		same(what+" sum", h.GetSampleSum(), t.GetSampleSum())
		tb := t.GetBucket()
		// the text has the +Inf bucket, the protobuf leaves it implicit
		if len(tb) != len(h.GetBucket())+1 || !math.IsInf(tb[len(tb)-1].GetUpperBound(), 1) {
			fail("%s: %d buckets in protobuf, %d in text", what, len(h.GetBucket()), len(tb))
			return
		}
		for i, b := range h.GetBucket() {
			same(what+" le", b.GetUpperBound(), tb[i].GetUpperBound())
			same(what+" bucket", float64(b.GetCumulativeCount()), float64(tb[i].GetCumulativeCount()))
		}
		if h.Schema == nil || h.ZeroThreshold == nil {
			fail("%s: no native histogram", what)
		}
	default:
		fail("%s: no value", what)
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run client_golang.go DIR")
		os.Exit(2)
	}
	for _, s := range []int{1, 3, 6, 8, 10} {
		compareNative(s, "", os.Args[1])
	}
	compareNative(6, "-sparse", os.Args[1])
	for _, stem := range []string{"fleet", "fleet-vllm", "fleet-sglang", "fleet-otel"} {
		compareFleet(os.Args[1], stem)
	}
	if failures > 0 {
		os.Exit(1)
	}
}
