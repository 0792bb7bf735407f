// Package llmlat turns the timestamps of streamed LLM responses into latency
// metrics (TTFT, TPOT, ITL, ICL, E2E, tokens/s, goodput) under the exact
// conventions of vLLM, AIPerf, SGLang and LLMPerf. It is a cgo binding of the
// llmlat C library; docs/metrics.md in the llmlat sources defines every
// metric and convention.
//
// # Building
//
// By default the package links the installed library through pkg-config
// (#cgo pkg-config: llmlat), so PKG_CONFIG_PATH must find llmlat.pc, or
// llmlat-uninstalled.pc in a build tree's meson-uninstalled directory, and
// the dynamic loader must find libllmlat.so.1 at run time. Built with the
// tag llmlat_single (go build -tags llmlat_single) the package instead
// compiles the library in from the single header single/llmlat.h of the
// llmlat source tree, and needs neither pkg-config nor the shared library.
//
// The binding is for major version 1 of the C API: compiling against
// another major fails (#error), and loading a library of another major
// panics when the package initializes.
//
// # Recording and aggregating
//
// A [Request] records one streamed response: [Request.Start] when it is sent,
// [Request.Event] (or [Request.Events] for many at once, in one cgo call)
// for each chunk with the number of tokens it carries, and [Request.Finish]
// or [Request.Fail] when the stream ends. Timestamps are int64 nanoseconds on
// one monotonic clock of the caller's choice; [Now] is CLOCK_MONOTONIC.
// Results are float64 seconds (tokens for the token counts, tokens/s for
// rates and [TPSUser]).
//
// An [Aggregator] folds finished requests in ([Aggregator.Add]) under one
// [Convention] and [Mode], and answers statistics ([Aggregator.Stat],
// [Aggregator.Quantile]), system rates ([Aggregator.Rate]), counters
// ([Aggregator.Counter]) and whole reports ([Aggregator.Report], or streamed
// into an io.Writer by [Aggregator.WriteReport]). Aggregators
// of the same convention and mode merge ([Aggregator.Merge]), and serialize
// to a documented byte format ([Aggregator.MarshalBinary]) so that
// aggregators from many processes can be combined.
//
// # Prometheus
//
// [Expose] writes one Prometheus exposition of several aggregators (text
// 0.0.4, OpenMetrics, or protobuf with native histograms), each labelled
// with its constant labels ([Aggregator.SetLabel]); [Handler] serves it
// at /metrics in the format the scraper asks for. Every _sum, _count,
// bucket and counter only grows, so PromQL's rate() makes the windows and
// histogram_quantile over sum() of the native histograms is the fleet's
// quantile, within one bucket (docs/prometheus.md). [Aggregator.Buckets]
// hands the native buckets to other exporters.
//
// # Errors
//
// Every failing call returns an *[Error] carrying the library's status; test
// it with errors.Is against the sentinels [ErrInvalid], [ErrNoMem],
// [ErrOrder], [ErrState], [ErrUndefined], [ErrFormat], [ErrMismatch],
// [ErrNoSpace] and [ErrOverflow]. An undefined value (TPOT of a request with one token, any
// statistic of an empty set) is ErrUndefined with NaN, never a silent 0,
// unless the convention asks for its tool's placeholder (vLLM and SGLang
// report 0). A failed call leaves its object exactly as it was.
//
// # Goroutines and memory
//
// A Request or an Aggregator is changed by one goroutine at a time. Its
// queries (Value, Stat, Quantile, Quantiles, Rate, Counter, Report,
// WriteReport, MarshalBinary, and Merge's source) only read, so several goroutines may
// query one object while none changes it: the rules of a sync.RWMutex,
// which is what to guard a shared object with. Different objects may be
// used from different goroutines freely: the usual pattern is one
// Aggregator per goroutine, merged into one when reporting (see the example
// of [Aggregator.Merge]).
//
// Each object owns C memory. Close frees it at once and may be called more
// than once; a finalizer frees what was not closed, as a backstop only, so
// call Close (or defer it) when done. Methods of a closed object return
// ErrInvalid. The C library never keeps a pointer to Go memory: slices are
// only read or written during the call that receives them.
package llmlat
