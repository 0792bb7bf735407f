package llmlat_test

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// Goroutines add to one Live (through their own writers, and through
// Live.Add's borrowed ones) while another snapshots: the last cumulative
// snapshot and the union of the interval snapshots are, byte for byte,
// the aggregator one goroutine builds from the same requests. Under the
// race detector too (go test -race).
func TestLiveLosesNothing(t *testing.T) {
	const workers, perShard, rounds = 6, 25, 8
	like := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, like.SetParam(llmlat.ParamSLOTTFT, 0.05))
	live, err := llmlat.NewLive(like)
	must(t, err)
	defer live.Close()

	intervals := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, intervals.SetParam(llmlat.ParamSLOTTFT, 0.05))
	done := make(chan struct{})
	scraped := make(chan error, 1)
	go func() {
		var snap *llmlat.Aggregator
		var last uint64
		for {
			select {
			case <-done:
				scraped <- nil
				return
			default:
			}
			var err error
			if snap, err = live.Snapshot(llmlat.SnapshotInterval, snap); err == nil {
				err = intervals.Merge(snap)
			}
			if err == nil {
				var c *llmlat.Aggregator
				if c, err = live.Snapshot(llmlat.SnapshotCumulative, nil); err == nil {
					n, _ := c.Counter(llmlat.CountCompleted)
					if n < last {
						t.Errorf("cumulative snapshots shrank: %d after %d", n, last)
					}
					last = n
					c.Close()
				}
			}
			if err != nil {
				scraped <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()

	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r, err := llmlat.NewRequest()
			if err != nil {
				errs[w] = err
				return
			}
			defer r.Close()
			var lw *llmlat.LiveWriter
			if w%2 == 0 { // half use a writer of their own
				if lw, err = live.NewWriter(); err != nil {
					errs[w] = err
					return
				}
				defer lw.Close()
			}
			for k := 0; k < rounds && err == nil; k++ {
				for _, s := range shard(w, perShard) {
					record(t, r, s)
					if lw != nil {
						err = lw.Add(r)
					} else {
						err = live.Add(r)
					}
					if err != nil {
						break
					}
				}
			}
			errs[w] = err
		}(w)
	}
	wg.Wait()
	close(done)
	must(t, <-scraped)
	for _, err := range errs {
		must(t, err)
	}
	last, err := live.Snapshot(llmlat.SnapshotInterval, nil)
	must(t, err)
	must(t, intervals.Merge(last))
	cum, err := live.Snapshot(llmlat.SnapshotCumulative, nil)
	must(t, err)

	single := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, single.SetParam(llmlat.ParamSLOTTFT, 0.05))
	r := newRequest(t)
	for k := 0; k < rounds; k++ {
		for w := 0; w < workers; w++ {
			for _, s := range shard(w, perShard) {
				record(t, r, s)
				must(t, single.Add(r))
			}
		}
	}
	want, _ := single.MarshalBinary()
	for name, a := range map[string]*llmlat.Aggregator{"cumulative": cum, "intervals": intervals} {
		got, _ := a.MarshalBinary()
		if !bytes.Equal(got, want) {
			t.Errorf("%s snapshot differs from the single-goroutine aggregator", name)
		}
	}
	n, _ := cum.Counter(llmlat.CountCompleted)
	f, _ := cum.Counter(llmlat.CountFailed)
	if n+f != workers*perShard*rounds {
		t.Errorf("%d requests, want %d", n+f, workers*perShard*rounds)
	}
}

func TestLiveErrors(t *testing.T) {
	_, err := llmlat.NewLive(nil)
	wantErr(t, err, llmlat.ErrInvalid)
	like := newAgg(t, llmlat.ConvVLLM, llmlat.ModeExact)
	live, err := llmlat.NewLive(like)
	must(t, err)
	_, err = live.Snapshot(llmlat.SnapshotCumulative, newAgg(t, llmlat.ConvVLLM, llmlat.ModeBounded))
	wantErr(t, err, llmlat.ErrMismatch)
	_, err = live.Snapshot(3, nil)
	wantErr(t, err, llmlat.ErrInvalid)
	r := newRequest(t)
	must(t, r.Start(0))
	wantErr(t, live.Add(r), llmlat.ErrState)
	snap, err := live.Snapshot(llmlat.SnapshotCumulative, nil)
	must(t, err)
	if snap.Convention() != llmlat.ConvVLLM || snap.Mode() != llmlat.ModeExact {
		t.Fatal("a snapshot has the template's settings")
	}
	must(t, live.Close())
	must(t, live.Close())
	wantErr(t, live.Add(r), llmlat.ErrInvalid)
	_, err = live.Snapshot(llmlat.SnapshotInterval, nil)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = live.NewWriter()
	wantErr(t, err, llmlat.ErrInvalid)
}

func TestWindow(t *testing.T) {
	const s = int64(time.Second)
	like := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	_, err := llmlat.NewWindow(newAgg(t, llmlat.ConvDefault, llmlat.ModeExact), time.Minute, 5*time.Second)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = llmlat.NewWindow(like, time.Minute, 7*time.Second)
	wantErr(t, err, llmlat.ErrInvalid)
	w, err := llmlat.NewWindow(like, time.Minute, 5*time.Second)
	must(t, err)
	must(t, w.Advance(0))
	r := newRequest(t)
	for _, end := range []int64{2 * s, 7 * s, 58 * s} { // steps 0, 1, 11
		record(t, r, uniform(end-100*ms, 50*ms, 10*ms, 6))
		must(t, w.Add(r))
	}
	v := w.View()
	count := func() uint64 { n, _ := v.Counter(llmlat.CountCompleted); return n }
	if count() != 3 {
		t.Fatalf("%d requests, want 3", count())
	}
	wantNear(t, "rate", val(t)(v.Rate(llmlat.RateRequests)), 3.0/58)
	wantNear(t, "ttft", val(t)(v.Stat(llmlat.TTFT, llmlat.StatMean)), 0.05)
	must(t, w.Advance(60*s)) // step 12: step 0 left
	if count() != 2 {
		t.Fatalf("%d requests, want 2", count())
	}
	wantErr(t, w.Advance(59*s), llmlat.ErrOrder)
	record(t, r, uniform(4*s-100*ms, 50*ms, 10*ms, 6)) // ended in step 0
	wantErr(t, w.Add(r), llmlat.ErrOrder)
	// the view is read only
	wantErr(t, v.Reset(), llmlat.ErrInvalid)
	wantErr(t, v.Add(r), llmlat.ErrInvalid)
	wantErr(t, v.SetParam(llmlat.ParamDuration, 1), llmlat.ErrInvalid)
	wantErr(t, v.UnmarshalBinary(nil), llmlat.ErrInvalid)
	must(t, v.Close()) // does nothing
	if count() != 2 {
		t.Fatal("closing the view closed nothing")
	}
	other := newAgg(t, llmlat.ConvDefault, llmlat.ModeBounded)
	must(t, other.Merge(v))
	must(t, w.Merge(other, 61*s))
	if count() != 4 {
		t.Fatalf("%d requests, want 4", count())
	}
	wantErr(t, w.Merge(v, 61*s), llmlat.ErrInvalid) // itself
	must(t, w.Advance(1000*s))
	if count() != 0 {
		t.Fatal("a gap longer than the window empties it")
	}
	must(t, w.Reset())
	must(t, w.Close())
	must(t, w.Close())
	_, err = v.Counter(llmlat.CountCompleted)
	wantErr(t, err, llmlat.ErrInvalid)
	wantErr(t, w.Advance(0), llmlat.ErrInvalid)
}

// A streaming Request gives the bits of a buffered one.
func TestStreamingRequest(t *testing.T) {
	like := newAgg(t, llmlat.ConvSGLang, llmlat.ModeBounded)
	st, err := llmlat.NewStreamingRequest(like)
	must(t, err)
	defer st.Close()
	buf := newRequest(t)
	a := newAgg(t, llmlat.ConvSGLang, llmlat.ModeBounded)
	b := newAgg(t, llmlat.ConvSGLang, llmlat.ModeBounded)
	for w := 0; w < 4; w++ {
		for _, s := range shard(w, 30) {
			record(t, buf, s)
			record(t, st, s)
			must(t, a.Add(buf))
			must(t, b.Add(st))
		}
	}
	x, _ := a.MarshalBinary()
	y, _ := b.MarshalBinary()
	if !bytes.Equal(x, y) {
		t.Fatal("the streaming recorder's aggregator differs from the buffered one's")
	}
	wantErr(t, newAgg(t, llmlat.ConvVLLM, llmlat.ModeBounded).Add(st), llmlat.ErrMismatch)
	_, err = llmlat.NewStreamingRequest(newAgg(t, llmlat.ConvSGLang, llmlat.ModeExact))
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = llmlat.NewStreamingRequest(nil)
	wantErr(t, err, llmlat.ErrInvalid)
}
