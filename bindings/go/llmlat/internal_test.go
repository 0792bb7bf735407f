package llmlat

import (
	"runtime"
	"testing"
	"time"
)

func TestCheckVersion(t *testing.T) {
	for _, n := range []uint32{10000, 10203, 19999} {
		if err := checkVersion(n); err != nil {
			t.Errorf("checkVersion(%d) = %v", n, err)
		}
	}
	for _, n := range []uint32{0, 9999, 20000, 30102} {
		if err := checkVersion(n); err == nil {
			t.Errorf("checkVersion(%d) accepted another major", n)
		}
	}
	if err := checkVersion(20103); err == nil || err.Error() != "llmlat: the loaded library is version 2.1.3; this Go package needs major version 1" {
		t.Errorf("checkVersion(20103) = %v", err)
	}
}

// waitFrees runs the collector until frees reaches want or a few seconds
// have passed, and returns the count.
func waitFrees(want uint64) uint64 {
	deadline := time.Now().Add(5 * time.Second)
	for frees.Load() < want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return frees.Load()
}

// Close frees at once and clears the finalizer (one free per object); an
// object never closed is freed by its finalizer.
func TestFreedExactlyOnce(t *testing.T) {
	const n = 50
	// Let the finalizers of earlier tests' objects run first.
	base := frees.Load()
	for stable := 0; stable < 5; {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if now := frees.Load(); now != base {
			base, stable = now, 0
		} else {
			stable++
		}
	}
	for i := 0; i < n; i++ {
		r, err := NewRequest()
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewAggregator(ConvDefault, ModeExact)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		a.Close()
		r.Close()
		a.Close()
	}
	if got := frees.Load() - base; got != 2*n {
		t.Fatalf("Close freed %d objects, want %d", got, 2*n)
	}
	for i := 0; i < 5; i++ { // finalizers of closed objects free nothing
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := frees.Load() - base; got != 2*n {
		t.Fatalf("after collection: %d frees, want %d", got, 2*n)
	}

	for i := 0; i < n; i++ {
		if _, err := NewRequest(); err != nil {
			t.Fatal(err)
		}
		if _, err := NewAggregator(ConvVLLM, ModeExact); err != nil {
			t.Fatal(err)
		}
	}
	if got := waitFrees(base+4*n) - base; got != 4*n {
		t.Fatalf("finalizers freed %d objects, want %d", got-2*n, 2*n)
	}
}
