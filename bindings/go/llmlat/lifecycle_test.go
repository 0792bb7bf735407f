package llmlat_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

func TestVersion(t *testing.T) {
	if llmlat.VersionNumber()/10000 != llmlat.APIMajor {
		t.Fatalf("version number %d, want major %d", llmlat.VersionNumber(), llmlat.APIMajor)
	}
	n := llmlat.VersionNumber()
	want := fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
	if llmlat.Version() != want {
		t.Fatalf("Version() = %q, want %q", llmlat.Version(), want)
	}
}

func TestNow(t *testing.T) {
	a := llmlat.Now()
	b := llmlat.Now()
	if a <= 0 || b < a {
		t.Fatalf("Now() went %d then %d", a, b)
	}
}

func TestClose(t *testing.T) {
	r, err := llmlat.NewRequest()
	must(t, err)
	must(t, r.Close())
	must(t, r.Close()) // idempotent
	wantErr(t, r.Start(0), llmlat.ErrInvalid)
	wantErr(t, r.Events([]int64{1}, []uint32{1}), llmlat.ErrInvalid)
	_, err = r.Value(llmlat.TTFT, llmlat.ConvDefault)
	wantErr(t, err, llmlat.ErrInvalid)

	a, err := llmlat.NewAggregator(llmlat.ConvDefault, llmlat.ModeExact)
	must(t, err)
	must(t, a.Close())
	must(t, a.Close())
	_, err = a.Stat(llmlat.TTFT, llmlat.StatMean)
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.MarshalBinary()
	wantErr(t, err, llmlat.ErrInvalid)
	_, err = a.Report(llmlat.FormatText)
	wantErr(t, err, llmlat.ErrInvalid)
	if a.Convention() != -1 || a.Mode() != -1 {
		t.Fatalf("closed aggregator: convention %v, mode %v", a.Convention(), a.Mode())
	}

	var zero llmlat.Aggregator // closed until unmarshaled into
	wantErr(t, zero.Reset(), llmlat.ErrInvalid)
	var nilReq *llmlat.Request
	var nilAgg *llmlat.Aggregator
	wantErr(t, nilReq.Start(0), llmlat.ErrInvalid)
	wantErr(t, nilAgg.Add(nilReq), llmlat.ErrInvalid)
	must(t, nilReq.Close())
	must(t, nilAgg.Close())
}

// Objects that are never closed are freed by their finalizers, while
// others are in use (run it under -race and with GODEBUG=cgocheck=2).
func TestFinalizers(t *testing.T) {
	keep := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	for round := 0; round < 20; round++ {
		for i := 0; i < 50; i++ {
			r, err := llmlat.NewRequest()
			must(t, err)
			record(t, r, seed()[i%2])
			a, err := llmlat.NewAggregator(llmlat.ConvVLLM, llmlat.ModeExact)
			must(t, err)
			must(t, a.Add(r))
			// neither r nor a is closed
		}
		runtime.GC()
		wantNear(t, "kept mean TPOT", val(t)(keep.Stat(llmlat.TPOT, llmlat.StatMean)), 0.030)
	}
}

func TestErrors(t *testing.T) {
	sentinels := []error{llmlat.ErrInvalid, llmlat.ErrNoMem, llmlat.ErrOrder, llmlat.ErrState,
		llmlat.ErrUndefined, llmlat.ErrFormat, llmlat.ErrMismatch, llmlat.ErrNoSpace, llmlat.ErrOverflow}
	texts := []string{"invalid argument", "out of memory", "timestamp before", "not valid in this state",
		"undefined", "malformed", "incompatible", "too small", "would overflow"}
	for i, s := range sentinels {
		if !strings.HasPrefix(s.Error(), "llmlat: ") || !strings.Contains(s.Error(), texts[i]) {
			t.Errorf("sentinel %d reads %q", i, s.Error())
		}
		var e *llmlat.Error
		if !errors.As(s, &e) || e.Status != int32(-1-i) {
			t.Errorf("sentinel %d has status %v", i, e)
		}
		for j, o := range sentinels {
			if errors.Is(s, o) != (i == j) {
				t.Errorf("errors.Is(%v, %v) = %v", s, o, i != j)
			}
		}
	}
	r := newRequest(t)
	must(t, r.Start(10))
	err := r.Event(5, 1)
	var e *llmlat.Error
	if !errors.As(err, &e) || e.Status != -3 || e.Op != "event" {
		t.Fatalf("error %#v", err)
	}
	if err.Error() != "llmlat: event: timestamp before the previous one of the same request" {
		t.Fatalf("error text %q", err.Error())
	}
	if wrapped := fmt.Errorf("streaming: %w", err); !errors.Is(wrapped, llmlat.ErrOrder) {
		t.Fatalf("wrapped %v does not match ErrOrder", wrapped)
	}
}

// Copies of a Request or an Aggregator share one state: closing one closes
// them all, and nothing is freed twice.
func TestCopiesShareState(t *testing.T) {
	r, err := llmlat.NewRequest()
	must(t, err)
	rc := *r
	must(t, rc.Start(5))
	wantErr(t, r.Start(5), llmlat.ErrState) // the copy started it
	must(t, rc.Close())
	wantErr(t, r.Event(6, 1), llmlat.ErrInvalid)
	must(t, r.Close())

	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	data, err := a.MarshalBinary()
	must(t, err)
	b := newAgg(t, llmlat.ConvVLLM, llmlat.ModeBounded)
	bc := *b
	must(t, bc.UnmarshalBinary(data)) // b sees it too
	if b.Convention() != llmlat.ConvDefault || b.Mode() != llmlat.ModeExact {
		t.Fatalf("after the copy's UnmarshalBinary: %v %v", b.Convention(), b.Mode())
	}
	must(t, bc.Close())
	wantErr(t, b.Reset(), llmlat.ErrInvalid)
}
