package llmlat

/*
#include <stdlib.h>
#include "capi.h"

extern int32_t goReportWrite(uintptr_t sink, void *bytes, size_t len);

static int32_t go_expose_piece(void *sink, const void *bytes, size_t len)
{
    return goReportWrite((uintptr_t)sink, (void *)bytes, len);
}

static inline int32_t go_expose_write(llmlat_agg **aggs, size_t n, int32_t format,
                                      int32_t names, uintptr_t sink)
{
    return llmlat_expose_write_names((const llmlat_agg *const *)aggs, n, format, names,
                                     go_expose_piece, (void *)sink);
}
*/
import "C"

import (
	"io"
	"net/http"
	"runtime"
	"runtime/cgo"
	"strconv"
	"strings"
	"unsafe"
)

// Label is one of an aggregator's constant labels.
type Label struct {
	Name, Value string
}

// SetLabel sets a constant label that every exposition and report of a
// writes, e.g. model="llama-3-70b": a Prometheus label name (not "__...",
// nor one the expositions write themselves: le, quantile, version,
// convention, mode) and any UTF-8 value; an empty value removes it.
// ErrInvalid otherwise. Reset keeps the labels, MarshalBinary writes them,
// and Merge keeps a's own.
func (a *Aggregator) SetLabel(name, value string) error {
	if strings.IndexByte(name, 0) >= 0 || strings.IndexByte(value, 0) >= 0 {
		return invalid("set label", "NUL byte in a label")
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var cv *C.char
	if value != "" {
		cv = C.CString(value)
		defer C.free(unsafe.Pointer(cv))
	}
	err := check(C.llmlat_agg_set_label(a.handle(), cn, cv), "set label")
	a.keepAlive()
	return err
}

// Labels are a's constant labels, in name order.
func (a *Aggregator) Labels() ([]Label, error) {
	defer a.keepAlive()
	var n C.size_t
	if err := check(C.llmlat_agg_label_count(a.handle(), &n), "labels"); err != nil {
		return nil, err
	}
	out := make([]Label, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		var name, value *C.char
		if err := check(C.llmlat_agg_get_label(a.handle(), i, &name, &value), "labels"); err != nil {
			return nil, err
		}
		out = append(out, Label{C.GoString(name), C.GoString(value)})
	}
	return out, nil
}

// NativeBuckets are one metric's native-histogram buckets (Prometheus
// native histograms, OpenTelemetry exponential histograms): bucket i
// covers (base^(i-1), base^i] in the metric's unit, base =
// 2^(2^-Schema); Counts[j] is bucket Offset + j; the samples at or below
// ZeroThreshold are ZeroCount.
type NativeBuckets struct {
	Schema        int32
	ZeroThreshold float64
	ZeroCount     uint64
	Offset        int32
	Counts        []uint64
}

// Buckets are the native-histogram buckets of metric m, for exporters
// (llmlat_agg_buckets), in either mode. ErrUndefined for a metric a's data
// lack (Unavailable): it has no buckets either.
func (a *Aggregator) Buckets(m Metric) (NativeBuckets, error) {
	defer a.keepAlive()
	var b NativeBuckets
	var schema, offset C.int32_t
	var zt C.double
	var zc C.uint64_t
	var n C.size_t
	for {
		var p *C.uint64_t
		if len(b.Counts) > 0 {
			p = (*C.uint64_t)(unsafe.Pointer(&b.Counts[0]))
		}
		status := C.llmlat_agg_buckets(a.handle(), C.int32_t(m), &schema, &zt, &zc, &offset, p,
			C.size_t(len(b.Counts)), &n)
		runtime.KeepAlive(b.Counts)
		if status == C.LLMLAT_ENOSPC {
			b.Counts = make([]uint64, int(n))
			continue
		}
		if err := check(status, "buckets"); err != nil {
			return NativeBuckets{}, err
		}
		b.Schema, b.ZeroThreshold, b.ZeroCount, b.Offset = int32(schema), float64(zt), uint64(zc), int32(offset)
		b.Counts = b.Counts[:int(n)]
		return b, nil
	}
}

// ContentType is the HTTP Content-Type of f's bytes ("" for an unknown
// format).
func (f Format) ContentType() string {
	ct := C.llmlat_format_content_type(C.int32_t(f))
	if ct == nil {
		return ""
	}
	return C.GoString(ct)
}

// Names is an exposition's naming scheme (docs/prometheus.md): llmlat's
// own series, or the names, meanings, labels and default classic buckets
// of the series that vLLM's, SGLang's or the OpenTelemetry GenAI
// conventions' dashboards read, each given the llmlat metric of the same
// meaning; what the system has no name for is left out.
type Names int32

// The naming schemes. Their values are the C API's LLMLAT_NAMES_* ids.
const (
	NamesLLMLAT Names = 0 // llmlat_ttft_hist_seconds, ... (Expose's)
	NamesVLLM   Names = 1 // vllm:time_to_first_token_seconds, ...; model as model_name
	NamesSGLang Names = 2 // sglang:time_to_first_token_seconds, ...; model as model_name
	NamesOTel   Names = 3 // gen_ai_server_time_to_first_token_seconds, ...; gen_ai_* labels
)

// String is the scheme's lower-case name ("llmlat", "vllm", "sglang",
// "otel"), or "Names(N)" for an unknown id.
func (n Names) String() string {
	if s := C.llmlat_names_name(C.int32_t(n)); s != nil {
		return C.GoString(s)
	}
	return "Names(" + strconv.Itoa(int(n)) + ")"
}

// ParseNames is the scheme named s, as Names.String spells it; ErrInvalid
// for an unknown name.
func ParseNames(s string) (Names, error) {
	for n := NamesLLMLAT; n <= NamesOTel; n++ {
		if n.String() == s {
			return n, nil
		}
	}
	return 0, invalid("parse names", "unknown naming scheme "+strconv.Quote(s))
}

// Expose writes one Prometheus exposition of aggs to w (llmlat_expose):
// each family's metadata once, one series per aggregator, labelled with
// its constant labels. f is FormatPrometheus (text 0.0.4),
// FormatOpenMetrics or FormatPrometheusProtobuf (native histograms
// included). Only cumulative series are written: windows come from
// PromQL's rate(). ErrInvalid for another format, a closed aggregator, or
// two aggregators with the same labels (Merge them first). w's rules and
// errors are those of WriteReport; the aggregators must not change
// during the call (queries are fine).
func Expose(w io.Writer, f Format, aggs ...*Aggregator) error {
	return ExposeNames(w, f, NamesLLMLAT, aggs...)
}

// ExposeNames is Expose in a naming scheme (llmlat_expose_names).
// ErrInvalid besides for an unknown scheme, and for labels the scheme's
// names make clash (an aggregator with both "model" and "model_name"
// under NamesVLLM, or two aggregators whose labels become the same).
func ExposeNames(w io.Writer, f Format, names Names, aggs ...*Aggregator) error {
	if w == nil {
		return invalid("expose", "nil io.Writer")
	}
	// C memory for the pointers: C keeps no Go pointer, and a Go slice of
	// C pointers passed whole would be one.
	n := len(aggs)
	arr := (**C.llmlat_agg)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof((*C.llmlat_agg)(nil)))))
	if arr == nil {
		return &Error{Status: C.LLMLAT_ENOMEM, Op: "expose"}
	}
	defer C.free(unsafe.Pointer(arr))
	ptrs := unsafe.Slice(arr, n+1)
	for i, a := range aggs {
		if ptrs[i] = a.handle(); ptrs[i] == nil {
			return invalid("expose", "nil or closed Aggregator")
		}
	}
	s := &reportSink{w: w}
	h := cgo.NewHandle(s)
	status := C.go_expose_write(arr, C.size_t(n), C.int32_t(f), C.int32_t(names), C.uintptr_t(h))
	for _, a := range aggs {
		a.keepAlive()
	}
	h.Delete()
	switch {
	case s.panic != nil:
		panic(s.panic)
	case s.err != nil:
		return s.err
	}
	return check(status, "expose")
}

// Handler serves the exposition of the aggregators snapshot returns, at
// each request: the format the scraper's Accept header asks for
// (FormatPrometheusProtobuf when offered, as Prometheus offers it with
// native histograms enabled; else FormatOpenMetrics when offered; else
// FormatPrometheus), or the one the query names: ?format=text,
// ?format=openmetrics, ?format=protobuf (a Prometheus job scraping
// ?format=text keeps the classic buckets, which Prometheus 2.x drops from
// a protobuf histogram with native buckets). snapshot runs on the
// request's goroutine; the usual one merges each label set's per-goroutine
// aggregators into one carrying the labels, under their locks (see the
// example), and returns those. Options: WithNames.
func Handler(snapshot func() ([]*Aggregator, error), opts ...HandlerOption) http.Handler {
	var c handlerConfig
	for _, o := range opts {
		o(&c)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := NegotiateFormat(r)
		aggs, err := snapshot()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", f.ContentType())
		// A failure after the first bytes can only cut the body short.
		_ = ExposeNames(w, f, c.names, aggs...)
	})
}

// HandlerOption sets how a Handler exposes.
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	names Names
}

// WithNames makes a Handler expose in naming scheme n (NamesLLMLAT by
// default): e.g. WithNames(NamesVLLM) for a vLLM Grafana dashboard.
func WithNames(n Names) HandlerOption {
	return func(c *handlerConfig) { c.names = n }
}

// NegotiateFormat is the exposition format Handler serves for r.
func NegotiateFormat(r *http.Request) Format {
	switch r.URL.Query().Get("format") {
	case "text":
		return FormatPrometheus
	case "openmetrics":
		return FormatOpenMetrics
	case "protobuf":
		return FormatPrometheusProtobuf
	}
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "application/vnd.google.protobuf") &&
		strings.Contains(accept, "proto=io.prometheus.client.MetricFamily") &&
		strings.Contains(accept, "encoding=delimited") {
		return FormatPrometheusProtobuf
	}
	if strings.Contains(accept, "application/openmetrics-text") {
		return FormatOpenMetrics
	}
	return FormatPrometheus
}
