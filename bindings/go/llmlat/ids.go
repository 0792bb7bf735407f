package llmlat

// #include "capi.h"
import "C"

import "strconv"

// Metric is a per-request metric (docs/metrics.md). Times are in seconds,
// token counts in tokens, TPSUser in tokens/s.
type Metric int32

// The metrics. Their values are the C API's LLMLAT_* ids.
const (
	TTFT         Metric = 1  // time to first token, s
	TPOT         Metric = 2  // (E2E - TTFT) / (N - 1), s, request-weighted
	ITL          Metric = 3  // inter-token latency, per token (token-weighted), s
	ICL          Metric = 4  // inter-chunk latency, one gap per event, s
	E2E          Metric = 5  // end-to-end latency, s
	TPSUser      Metric = 6  // per-user speed N / E2E, tokens/s
	ITLMax       Metric = 7  // largest event gap of a request, s
	OutputTokens Metric = 8  // N, tokens
	InputTokens  Metric = 9  // prompt length, tokens
	ToolITL      Metric = 10 // what the convention's tool calls "ITL" (ITL, ICL, TPOT or LLMPerf's own)
	NTPOT        Metric = 11 // normalized time per output token, latency / N, s
	// From the intended start (Request.Schedule; docs/metrics.md), only of
	// requests that have one: ErrUndefined when none had, whatever the
	// convention.
	DispatchDelay Metric = 12 // start - intended start: how late the client sent it, s
	ScheduledTTFT Metric = 13 // the convention's TTFT anchor - intended start, s
	ScheduledE2E  Metric = 14 // the end of the convention's E2E - intended start, s
)

// String is the metric's lower-case name as the CLI and the JSON report
// spell it ("ttft", "tps_user", ...), or "Metric(N)" for an unknown id.
func (m Metric) String() string {
	if s := C.llmlat_metric_name(C.int32_t(m)); s != nil {
		return C.GoString(s)
	}
	return "Metric(" + strconv.Itoa(int(m)) + ")"
}

// Convention selects whose definitions an aggregator follows: anchors,
// placeholders, ddof, duration and what counts as a success.
type Convention int32

// The conventions. Their values are the C API's LLMLAT_CONV_* ids.
const (
	ConvDefault       Convention = 0 // llmlat's own (docs/metrics.md)
	ConvVLLM          Convention = 1 // vllm bench serve
	ConvAIPerf        Convention = 2 // NVIDIA AIPerf / GenAI-Perf
	ConvSGLang        Convention = 3 // sglang bench_serving
	ConvLLMPerf       Convention = 4 // ray-project llmperf
	ConvGuideLLM      Convention = 5 // vllm-project guidellm
	ConvInferencePerf Convention = 6 // kubernetes-sigs inference-perf
)

// String is the convention's lower-case name ("default", "vllm", ...), or
// "Convention(N)" for an unknown id.
func (c Convention) String() string {
	if s := C.llmlat_convention_name(C.int32_t(c)); s != nil {
		return C.GoString(s)
	}
	return "Convention(" + strconv.Itoa(int(c)) + ")"
}

// ParseConvention is the Convention named s, as Convention.String spells
// it; ErrInvalid for an unknown name.
func ParseConvention(s string) (Convention, error) {
	for c := ConvDefault; c <= ConvInferencePerf; c++ {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, invalid("parse convention", "unknown name "+strconv.Quote(s))
}

// Mode is how an aggregator keeps samples.
type Mode int32

// The modes. Their values are the C API's LLMLAT_MODE_* ids.
const (
	// ModeExact keeps every sample; quantiles are the same doubles as
	// numpy.percentile's (linear interpolation). Memory grows with the data.
	ModeExact Mode = 0
	// ModeBounded keeps a log-bucketed histogram: fixed memory, every
	// quantile within the relative error ParamRelativeError, exact count,
	// mean, std, min and max. The mode a long-running server uses.
	ModeBounded Mode = 1
)

// String is "exact" or "bounded", or "Mode(N)" for an unknown id.
func (m Mode) String() string {
	switch m {
	case ModeExact:
		return "exact"
	case ModeBounded:
		return "bounded"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Stat is a statistic of a metric's samples, for Aggregator.Stat.
type Stat int32

// The statistics. Their values are the C API's LLMLAT_STAT_* ids.
const (
	StatCount  Stat = 1 // number of samples (of tokens for ITL)
	StatMean   Stat = 2
	StatStd    Stat = 3 // population (ddof 0) unless the convention says otherwise (LLMPerf: ddof 1)
	StatMin    Stat = 4
	StatMax    Stat = 5
	StatMedian Stat = 6 // numpy.median; GuideLLM: its inverse-CDF p50
	StatSum    Stat = 7 // exact, never decreasing as samples are added; 0 for an empty set
)

// Rate is a system rate per second of the duration, for Aggregator.Rate.
type Rate int32

// The rates. Their values are the C API's LLMLAT_RATE_* ids.
const (
	RateRequests         Rate = 1 // completed / D
	RateOutputTokens     Rate = 2 // sum N / D
	RateTotalTokens      Rate = 3 // (sum input + sum N) / D
	RateGoodput          Rate = 4 // good / D; needs at least one SLO
	RatePeakOutputTokens Rate = 5 // largest 1-second bucket
)

// Counter is a count kept by an aggregator, for Aggregator.Counter.
type Counter int32

// The counters. Their values are the C API's LLMLAT_COUNT_* ids.
const (
	CountCompleted       Counter = 1 // successes under the convention
	CountFailed          Counter = 2 // everything added that is not a success
	CountTPOTUndefined   Counter = 3 // successes without a TPOT value
	CountGood            Counter = 4 // successes meeting every SLO; needs an SLO
	CountInputTokens     Counter = 5 // over successes
	CountOutputTokens    Counter = 6 // over successes
	CountPeakConcurrency Counter = 7 // sweep over [start, start + E2E)
	CountMemoryBytes     Counter = 8 // bytes the aggregator holds
)

// Param is a numbered setting of an aggregator, for Aggregator.SetParam.
// Times are in seconds; ParamBounds gives the accepted range.
type Param int32

// The parameters. Their values are the C API's LLMLAT_PARAM_* ids.
const (
	ParamRelativeError Param = 1 // ModeBounded's quantile error alpha, default 0.01
	ParamDuration      Param = 2 // host wall time D, s; 0 = derive it (default)
	ParamSLOTTFT       Param = 3 // TTFT SLO for goodput, s; 0 = none (default)
	ParamSLOTPOT       Param = 4 // TPOT SLO for goodput, s; 0 = none (default)
	ParamSLOE2E        Param = 5 // E2E SLO for goodput, s; 0 = none (default)
	// The P99 dispatch delay (s) beyond which the text and HTML reports
	// warn that the client fell behind its schedule; default 0.001.
	ParamMaxDispatchDelay Param = 6
	// N under ConvInferencePerf: 0 the client's count (default), 1 the
	// server's usage count; set before any request is added
	ParamServerOutputTokens Param = 7
)

// Format is the format of Aggregator.Report, and (the last three) of
// Expose.
type Format int32

// The report formats. Their values are the C API's LLMLAT_FORMAT_* ids.
const (
	FormatText               Format = 1 // a readable summary table
	FormatJSON               Format = 2 // one object, docs/report-json.md
	FormatPrometheus         Format = 3 // Prometheus text exposition format 0.0.4
	FormatOpenMetrics        Format = 4 // OpenMetrics 1.0 text
	FormatPrometheusProtobuf Format = 5 // delimited MetricFamily protobuf, native histograms
)

// The Go values above are written out so that go doc shows them. This
// fails to compile if any differs from the header's: a constant index
// other than 0 into a one-element array is a compile-time error.
func _() {
	var x [1]struct{}
	_ = x[TTFT-C.LLMLAT_TTFT]
	_ = x[TPOT-C.LLMLAT_TPOT]
	_ = x[ITL-C.LLMLAT_ITL]
	_ = x[ICL-C.LLMLAT_ICL]
	_ = x[E2E-C.LLMLAT_E2E]
	_ = x[TPSUser-C.LLMLAT_TPS_USER]
	_ = x[ITLMax-C.LLMLAT_ITL_MAX]
	_ = x[OutputTokens-C.LLMLAT_OUTPUT_TOKENS]
	_ = x[InputTokens-C.LLMLAT_INPUT_TOKENS]
	_ = x[ToolITL-C.LLMLAT_TOOL_ITL]
	_ = x[NTPOT-C.LLMLAT_NTPOT]
	_ = x[DispatchDelay-C.LLMLAT_DISPATCH_DELAY]
	_ = x[ScheduledTTFT-C.LLMLAT_SCHEDULED_TTFT]
	_ = x[ScheduledE2E-C.LLMLAT_SCHEDULED_E2E]
	_ = x[ConvDefault-C.LLMLAT_CONV_DEFAULT]
	_ = x[ConvVLLM-C.LLMLAT_CONV_VLLM]
	_ = x[ConvAIPerf-C.LLMLAT_CONV_AIPERF]
	_ = x[ConvSGLang-C.LLMLAT_CONV_SGLANG]
	_ = x[ConvLLMPerf-C.LLMLAT_CONV_LLMPERF]
	_ = x[ConvGuideLLM-C.LLMLAT_CONV_GUIDELLM]
	_ = x[ConvInferencePerf-C.LLMLAT_CONV_INFERENCE_PERF]
	_ = x[ModeExact-C.LLMLAT_MODE_EXACT]
	_ = x[ModeBounded-C.LLMLAT_MODE_BOUNDED]
	_ = x[StatCount-C.LLMLAT_STAT_COUNT]
	_ = x[StatMean-C.LLMLAT_STAT_MEAN]
	_ = x[StatStd-C.LLMLAT_STAT_STD]
	_ = x[StatMin-C.LLMLAT_STAT_MIN]
	_ = x[StatMax-C.LLMLAT_STAT_MAX]
	_ = x[StatMedian-C.LLMLAT_STAT_MEDIAN]
	_ = x[StatSum-C.LLMLAT_STAT_SUM]
	_ = x[RateRequests-C.LLMLAT_RATE_REQUESTS]
	_ = x[RateOutputTokens-C.LLMLAT_RATE_OUTPUT_TOKENS]
	_ = x[RateTotalTokens-C.LLMLAT_RATE_TOTAL_TOKENS]
	_ = x[RateGoodput-C.LLMLAT_RATE_GOODPUT]
	_ = x[RatePeakOutputTokens-C.LLMLAT_RATE_PEAK_OUTPUT_TOKENS]
	_ = x[CountCompleted-C.LLMLAT_COUNT_COMPLETED]
	_ = x[CountFailed-C.LLMLAT_COUNT_FAILED]
	_ = x[CountTPOTUndefined-C.LLMLAT_COUNT_TPOT_UNDEFINED]
	_ = x[CountGood-C.LLMLAT_COUNT_GOOD]
	_ = x[CountInputTokens-C.LLMLAT_COUNT_INPUT_TOKENS]
	_ = x[CountOutputTokens-C.LLMLAT_COUNT_OUTPUT_TOKENS]
	_ = x[CountPeakConcurrency-C.LLMLAT_COUNT_PEAK_CONCURRENCY]
	_ = x[CountMemoryBytes-C.LLMLAT_COUNT_MEMORY_BYTES]
	_ = x[ParamRelativeError-C.LLMLAT_PARAM_RELATIVE_ERROR]
	_ = x[ParamDuration-C.LLMLAT_PARAM_DURATION]
	_ = x[ParamSLOTTFT-C.LLMLAT_PARAM_SLO_TTFT]
	_ = x[ParamSLOTPOT-C.LLMLAT_PARAM_SLO_TPOT]
	_ = x[ParamSLOE2E-C.LLMLAT_PARAM_SLO_E2E]
	_ = x[ParamMaxDispatchDelay-C.LLMLAT_PARAM_MAX_DISPATCH_DELAY]
	_ = x[ParamServerOutputTokens-C.LLMLAT_PARAM_SERVER_OUTPUT_TOKENS]
	_ = x[InputGuideLLM-C.LLMLAT_INPUT_GUIDELLM]
	_ = x[InputInferencePerf-C.LLMLAT_INPUT_INFERENCE_PERF]
	_ = x[LacksGaps-C.LLMLAT_LACKS_GAPS]
	_ = x[LacksSchedule-C.LLMLAT_LACKS_SCHEDULE]
	_ = x[FormatText-C.LLMLAT_FORMAT_TEXT]
	_ = x[FormatJSON-C.LLMLAT_FORMAT_JSON]
	_ = x[FormatPrometheus-C.LLMLAT_FORMAT_PROMETHEUS]
	_ = x[FormatOpenMetrics-C.LLMLAT_FORMAT_OPENMETRICS]
	_ = x[FormatPrometheusProtobuf-C.LLMLAT_FORMAT_PROMETHEUS_PROTOBUF]
}
