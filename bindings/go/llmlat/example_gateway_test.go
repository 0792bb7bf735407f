package llmlat_test

import (
	"errors"
	"fmt"
	"log"
	"sort"
	"sync"
	"time"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// gateway routes each request to the upstream whose P90 TTFT over the
// last minute is lowest. Each upstream has a Window; goroutines that
// proxy requests call Route and Done concurrently, so a mutex guards the
// windows (a Window is changed by one goroutine at a time).
type gateway struct {
	mu        sync.Mutex
	names     []string
	windows   []*llmlat.Window
	requests  int
	exploreAt int // every exploreAt-th request goes round robin
}

func newGateway(names ...string) (*gateway, error) {
	like, err := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeBounded)
	if err != nil {
		return nil, err
	}
	defer like.Close() // only read by NewWindow
	g := &gateway{names: names, exploreAt: 10}
	for range names {
		w, err := llmlat.NewWindow(like, time.Minute, 5*time.Second)
		if err != nil {
			return nil, err
		}
		g.windows = append(g.windows, w)
	}
	return g, nil
}

func (g *gateway) Close() {
	for _, w := range g.windows {
		w.Close()
	}
}

// Route picks the upstream for a request arriving at now: the lowest
// windowed P90 TTFT; an upstream with too few requests in its window, and
// every exploreAt-th request, go round robin (so a recovered upstream is
// seen again).
func (g *gateway) Route(now int64) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests++
	if g.requests%g.exploreAt == 0 {
		return g.requests / g.exploreAt % len(g.names)
	}
	best, bestP90 := -1, 0.0
	for i, w := range g.windows {
		// ErrOrder: a request that ended after now was added first (its
		// goroutine took the lock first); the window is then already there
		if err := w.Advance(now); err != nil && !errors.Is(err, llmlat.ErrOrder) {
			log.Fatal(err)
		}
		v := w.View()
		if n, _ := v.Counter(llmlat.CountCompleted); n < 20 {
			return i
		}
		p90, err := v.Quantile(llmlat.TTFT, 0.9)
		if err != nil {
			log.Fatal(err)
		}
		if best < 0 || p90 < bestP90 {
			best, bestP90 = i, p90
		}
	}
	return best
}

// Done records a finished request proxied to upstream i.
func (g *gateway) Done(i int, r *llmlat.Request) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.windows[i].Add(r)
}

// P90 is upstream i's windowed P90 TTFT at now, in ms.
func (g *gateway) P90(i int, now int64) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.windows[i].Advance(now); err != nil && !errors.Is(err, llmlat.ErrOrder) {
		log.Fatal(err)
	}
	p90, _ := g.windows[i].View().Quantile(llmlat.TTFT, 0.9)
	return p90 * 1e3
}

// A gateway in front of three upstreams, simulated (deterministic times,
// a request every 50 ms for 4 minutes): "b" is the fastest until it
// degrades at 60 s and recovers at 120 s. Its windowed P90 TTFT moves the
// traffic away from it within seconds, and back once its slow requests
// have left the one-minute window.
func Example_gateway() {
	g, err := newGateway("a", "b", "c")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	r, err := llmlat.NewRequest()
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	const second = int64(time.Second)
	seed := uint64(42)
	jitter := func(n int64) int64 { // a deterministic 0 .. n-1
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64(seed>>33) % n
	}
	ttft := func(upstream int, now int64) int64 { // the upstreams' behaviour
		base := []int64{120, 80, 200}[upstream]
		if upstream == 1 && now >= 60*second && now < 120*second {
			base = 400 // b degrades
		}
		return (base + jitter(base/2)) * msec
	}

	// in-flight requests, by end time: each is added to its upstream's
	// window when it ends, as a gateway's proxying goroutine would
	type flight struct {
		upstream     int
		start, first int64
	}
	var inflight []flight
	finishUntil := func(now int64) {
		sort.Slice(inflight, func(a, b int) bool { return inflight[a].first < inflight[b].first })
		for len(inflight) > 0 && inflight[0].first+40*msec <= now {
			f := inflight[0]
			inflight = inflight[1:]
			r.Reset()
			r.Start(f.start)
			r.Events([]int64{f.first, f.first + 20*msec, f.first + 40*msec}, []uint32{1, 1, 1})
			if err := r.Finish(f.first + 40*msec); err != nil {
				log.Fatal(err)
			}
			if err := g.Done(f.upstream, r); err != nil {
				log.Fatal(err)
			}
		}
	}

	served := make([]int, 3)
	for now := int64(0); now < 240*second; now += 50 * msec {
		finishUntil(now)
		i := g.Route(now)
		inflight = append(inflight, flight{i, now, now + ttft(i, now)})
		served[i]++
		if end := now + 50*msec; end%(60*second) == 0 {
			fmt.Printf("%3ds: served a %4d, b %4d, c %4d;  P90 TTFT a %.0f ms, b %.0f ms, c %.0f ms\n",
				end/second, served[0], served[1], served[2], g.P90(0, end), g.P90(1, end), g.P90(2, end))
			served = make([]int, 3)
		}
	}
	// Output:
	//  60s: served a   63, b 1075, c   62;  P90 TTFT a 168 ms, b 117 ms, c 293 ms
	// 120s: served a 1010, b  150, c   40;  P90 TTFT a 174 ms, b 585 ms, c 274 ms
	// 180s: served a  997, b  163, c   40;  P90 TTFT a 174 ms, b 115 ms, c 286 ms
	// 240s: served a   40, b 1120, c   40;  P90 TTFT a 169 ms, b 115 ms, c 283 ms
}
