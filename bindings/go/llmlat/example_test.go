package llmlat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"strings"
	"sync"

	"example.invalid/llmlat/bindings/go/llmlat"
)

const msec = int64(1e6) // nanoseconds

// Record one streamed response and read its own metrics. A real client
// takes each timestamp with llmlat.Now() as the chunk arrives; fixed
// timestamps keep the output stable.
func Example() {
	r, err := llmlat.NewRequest()
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	r.Start(0)
	r.Event(5*msec, 0)   // role chunk: no tokens
	r.Event(120*msec, 1) // first token
	r.Event(150*msec, 2) // two tokens in one chunk
	r.Event(180*msec, 1)
	if err := r.Finish(181 * msec); err != nil {
		log.Fatal(err)
	}

	for _, m := range []llmlat.Metric{llmlat.TTFT, llmlat.TPOT, llmlat.E2E} {
		v, _ := r.Value(m, llmlat.ConvDefault)
		fmt.Printf("%s %.1f ms\n", m, v*1e3)
	}
	vllmTTFT, _ := r.Value(llmlat.TTFT, llmlat.ConvVLLM) // vLLM counts the role chunk
	fmt.Printf("vLLM's ttft %.1f ms\n", vllmTTFT*1e3)
	// Output:
	// ttft 120.0 ms
	// tpot 20.0 ms
	// e2e 180.0 ms
	// vLLM's ttft 5.0 ms
}

// Undefined values are errors, never a silent 0.
func ExampleRequest_Value() {
	r, _ := llmlat.NewRequest()
	defer r.Close()
	r.Start(0)
	r.Event(30*msec, 1)
	r.Finish(30 * msec)
	tpot, err := r.Value(llmlat.TPOT, llmlat.ConvDefault) // one token: no TPOT
	fmt.Println(tpot, err)
	fmt.Println(errors.Is(err, llmlat.ErrUndefined))
	// Output:
	// NaN llmlat: value: value undefined
	// true
}

// Chunks buffered by the caller go in with one cgo call, all or nothing.
func ExampleRequest_Events() {
	r, _ := llmlat.NewRequest()
	defer r.Close()
	r.Start(1000 * msec)
	times := []int64{1040 * msec, 1050 * msec, 1060 * msec, 1075 * msec}
	tokens := []uint32{1, 1, 1, 1}
	if err := r.Events(times, tokens); err != nil {
		log.Fatal(err)
	}
	err := r.Events([]int64{1080 * msec, 1070 * msec}, []uint32{1, 1}) // out of order
	fmt.Println(err)
	r.Finish(1075 * msec)
	itl, _ := r.Value(llmlat.ITL, llmlat.ConvDefault)
	fmt.Printf("mean ITL %.1f ms\n", itl*1e3)
	// Output:
	// llmlat: events: timestamp before the previous one of the same request
	// mean ITL 11.7 ms
}

// An aggregator with a goodput SLO.
func ExampleNewAggregator() {
	agg, err := llmlat.NewAggregator(llmlat.ConvVLLM, llmlat.ModeExact)
	if err != nil {
		log.Fatal(err)
	}
	defer agg.Close()
	agg.SetParam(llmlat.ParamSLOTTFT, 0.100) // seconds
	agg.SetParam(llmlat.ParamDuration, 2.0)  // wall time of the run, seconds

	r, _ := llmlat.NewRequest()
	defer r.Close()
	for i, ttft := range []int64{50, 80, 250} {
		r.Reset()
		start := int64(i) * 300 * msec
		r.Start(start)
		r.Events([]int64{start + ttft*msec, start + ttft*msec + 20*msec}, []uint32{1, 1})
		r.Finish(start + ttft*msec + 20*msec)
		if err := agg.Add(r); err != nil {
			log.Fatal(err)
		}
	}
	good, _ := agg.Counter(llmlat.CountGood)
	goodput, _ := agg.Rate(llmlat.RateGoodput)
	p50, _ := agg.Quantile(llmlat.TTFT, 0.5)
	fmt.Printf("good %d, goodput %.1f req/s, median TTFT %.0f ms\n", good, goodput, p50*1e3)
	// Output:
	// good 2, goodput 1.0 req/s, median TTFT 80 ms
}

// One aggregator per goroutine, merged when reporting: an object is changed
// by one goroutine at a time, and merging is exact.
func ExampleAggregator_Merge() {
	const workers = 4
	shards := make([]*llmlat.Aggregator, workers)
	var wg sync.WaitGroup
	for w := range shards {
		shards[w], _ = llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeExact)
		wg.Add(1)
		go func(agg *llmlat.Aggregator, w int) { // agg belongs to this goroutine
			defer wg.Done()
			r, _ := llmlat.NewRequest()
			defer r.Close()
			for i := 0; i < 25; i++ {
				start := int64(w*25+i) * msec
				r.Reset()
				r.Start(start)
				r.Events([]int64{start + 100*msec, start + 110*msec}, []uint32{1, 1})
				r.Finish(start + 110*msec)
				agg.Add(r)
			}
		}(shards[w], w)
	}
	wg.Wait()

	total, _ := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeExact)
	defer total.Close()
	for _, shard := range shards {
		if err := total.Merge(shard); err != nil {
			log.Fatal(err)
		}
		shard.Close()
	}
	n, _ := total.Counter(llmlat.CountCompleted)
	ttft, _ := total.Stat(llmlat.TTFT, llmlat.StatMean)
	fmt.Printf("%d requests, mean TTFT %.0f ms\n", n, ttft*1e3)
	// Output:
	// 100 requests, mean TTFT 100 ms
}

// A JSON report, decoded (docs/report-json.md has the schema).
func ExampleAggregator_Report() {
	agg, _ := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeExact)
	defer agg.Close()
	r, _ := llmlat.NewRequest()
	defer r.Close()
	r.Start(0)
	r.Events([]int64{200 * msec, 225 * msec, 250 * msec}, []uint32{1, 1, 1})
	r.Finish(250 * msec)
	agg.Add(r)

	js, err := agg.Report(llmlat.FormatJSON)
	if err != nil {
		log.Fatal(err)
	}
	var report struct {
		Completed int
		Metrics   map[string]map[string]float64
	}
	json.Unmarshal([]byte(js), &report)
	fmt.Printf("%d completed, p50 TTFT %.3f s, mean TPOT %.3f s\n",
		report.Completed, report.Metrics["ttft"]["p50"], report.Metrics["tpot"]["mean"])
	// Output:
	// 1 completed, p50 TTFT 0.200 s, mean TPOT 0.025 s
}

// Aggregators from other processes arrive as bytes and merge.
func ExampleAggregator_MarshalBinary() {
	remote, _ := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeBounded)
	defer remote.Close()
	r, _ := llmlat.NewRequest()
	defer r.Close()
	r.Start(0)
	r.Events([]int64{40 * msec, 60 * msec}, []uint32{1, 1})
	r.Finish(60 * msec)
	remote.Add(r)
	data, err := remote.MarshalBinary() // send data over the wire ...
	if err != nil {
		log.Fatal(err)
	}

	var received llmlat.Aggregator // ... and read it back at the collector
	if err := received.UnmarshalBinary(data); err != nil {
		log.Fatal(err)
	}
	defer received.Close()
	local, _ := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeBounded)
	defer local.Close()
	local.Add(r)
	if err := local.Merge(&received); err != nil {
		log.Fatal(err)
	}
	n, _ := local.Counter(llmlat.CountCompleted)
	fmt.Println(received.Mode(), n)
	// Output:
	// bounded 2
}

// A server's /metrics: each label set (here one per route) has one
// aggregator per worker goroutine, each guarded by its own lock; a scrape
// merges them into the label set's aggregator, which carries the labels,
// and Handler serves them in the format the scraper asks for. Prometheus
// then computes the fleet's P99 TTFT as
//
//	histogram_quantile(0.99, sum(rate(llmlat_ttft_hist_seconds[5m])))
func ExampleHandler() {
	routes := []string{"/v1/chat", "/v1/completions"}
	type worker struct {
		sync.Mutex
		aggs []*llmlat.Aggregator // one per route
	}
	workers := make([]*worker, 2)
	for i := range workers {
		w := &worker{}
		for range routes {
			a, _ := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeBounded)
			w.aggs = append(w.aggs, a)
		}
		workers[i] = w
	}
	scraped := make([]*llmlat.Aggregator, len(routes))
	for i, route := range routes {
		scraped[i], _ = llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeBounded)
		scraped[i].SetLabel("model", "llama-3-70b")
		scraped[i].SetLabel("route", route)
	}
	var scrapeLock sync.Mutex // one scrape at a time owns scraped
	handler := llmlat.Handler(func() ([]*llmlat.Aggregator, error) {
		scrapeLock.Lock()
		defer scrapeLock.Unlock()
		for i, s := range scraped {
			s.Reset() // keeps the labels
			for _, w := range workers {
				w.Lock()
				err := s.Merge(w.aggs[i])
				w.Unlock()
				if err != nil {
					return nil, err
				}
			}
		}
		return scraped, nil
	})

	// A worker records a request on route 0 (a real one: llmlat.Now()).
	r, _ := llmlat.NewRequest()
	r.Start(0)
	r.Events([]int64{120 * msec, 140 * msec}, []uint32{1, 1})
	r.Finish(140 * msec)
	workers[0].Lock()
	workers[0].aggs[0].Add(r)
	workers[0].Unlock()
	r.Close()

	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics?format=text", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "llmlat_requests_completed_total") {
			fmt.Println(line)
		}
	}
	fmt.Println(rec.Header().Get("Content-Type"))
	// Output:
	// llmlat_requests_completed_total{model="llama-3-70b",route="/v1/chat"} 1
	// llmlat_requests_completed_total{model="llama-3-70b",route="/v1/completions"} 0
	// text/plain; version=0.0.4; charset=utf-8
}
