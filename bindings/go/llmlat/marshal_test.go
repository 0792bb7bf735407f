package llmlat_test

import (
	"bytes"
	"encoding"
	"encoding/gob"
	"testing"

	"example.invalid/llmlat/bindings/go/llmlat"
)

// These tests need llmlat_agg_serialize/deserialize (the bounded-mode
// issue), and ModeBounded for the bounded cases.

var (
	_ encoding.BinaryMarshaler   = (*llmlat.Aggregator)(nil)
	_ encoding.BinaryUnmarshaler = (*llmlat.Aggregator)(nil)
)

// sameAggregates fails unless a and b answer the same.
func sameAggregates(t *testing.T, a, b *llmlat.Aggregator) {
	t.Helper()
	if a.Convention() != b.Convention() || a.Mode() != b.Mode() {
		t.Fatalf("convention/mode %v/%v vs %v/%v", a.Convention(), a.Mode(), b.Convention(), b.Mode())
	}
	for c := llmlat.CountCompleted; c <= llmlat.CountPeakConcurrency; c++ {
		x, errx := a.Counter(c)
		y, erry := b.Counter(c)
		if x != y || (errx == nil) != (erry == nil) {
			t.Errorf("counter %d: %d (%v) vs %d (%v)", c, x, errx, y, erry)
		}
	}
	for m := llmlat.TTFT; m <= llmlat.ToolITL; m++ {
		for s := llmlat.StatCount; s <= llmlat.StatMedian; s++ {
			x, errx := a.Stat(m, s)
			y, erry := b.Stat(m, s)
			if (errx == nil) != (erry == nil) || (errx == nil && x != y) {
				t.Errorf("%v stat %d: %v (%v) vs %v (%v)", m, s, x, errx, y, erry)
			}
		}
		for _, q := range []float64{0.1, 0.5, 0.99} {
			x, errx := a.Quantile(m, q)
			y, erry := b.Quantile(m, q)
			if (errx == nil) != (erry == nil) || (errx == nil && x != y) {
				t.Errorf("%v q%v: %v (%v) vs %v (%v)", m, q, x, errx, y, erry)
			}
		}
	}
	for p := llmlat.ParamRelativeError; p <= llmlat.ParamSLOE2E; p++ {
		if x, y := val(t)(a.Param(p)), val(t)(b.Param(p)); x != y {
			t.Errorf("param %d: %v vs %v", p, x, y)
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	for _, mode := range []llmlat.Mode{llmlat.ModeExact, llmlat.ModeBounded} {
		a := newAgg(t, llmlat.ConvAIPerf, mode)
		must(t, a.SetParam(llmlat.ParamSLOTTFT, 0.02))
		r := newRequest(t)
		for _, s := range append(seed(), shard(1, 30)...) {
			record(t, r, s)
			must(t, a.Add(r))
		}
		data, err := a.MarshalBinary()
		must(t, err)
		var b llmlat.Aggregator // the zero value can be unmarshaled into
		must(t, b.UnmarshalBinary(data))
		defer b.Close()
		sameAggregates(t, a, &b)
		again, err := b.MarshalBinary()
		must(t, err)
		if !bytes.Equal(again, data) {
			t.Errorf("%v: re-marshaled bytes differ", mode)
		}
	}
}

func TestUnmarshalRejectsBadBytes(t *testing.T) {
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	data, err := a.MarshalBinary()
	must(t, err)
	b := aggOf(t, llmlat.ConvSGLang, llmlat.ModeExact, seed()[:1]...)
	bad := [][]byte{
		nil,
		{},
		data[:len(data)-1],
		append(append([]byte(nil), data...), 0),
		bytes.Repeat([]byte{0xff}, len(data)),
		data[:4],
	}
	for i, d := range bad {
		wantErr(t, b.UnmarshalBinary(d), llmlat.ErrFormat)
		// b is unchanged
		if b.Convention() != llmlat.ConvSGLang {
			t.Fatalf("case %d: convention %v after a failed unmarshal", i, b.Convention())
		}
		wantNear(t, "count after a failed unmarshal", val(t)(b.Stat(llmlat.E2E, llmlat.StatCount)), 1)
	}
	// Unmarshaling over a live aggregator replaces it.
	must(t, b.UnmarshalBinary(data))
	sameAggregates(t, a, b)
}

// Aggregators travel inside other encodings through the
// encoding.BinaryMarshaler interfaces: here gob, as between processes.
func TestGob(t *testing.T) {
	type shipment struct {
		Host string
		Agg  *llmlat.Aggregator
	}
	a := aggOf(t, llmlat.ConvDefault, llmlat.ModeExact, seed()...)
	var buf bytes.Buffer
	must(t, gob.NewEncoder(&buf).Encode(shipment{"gw-1", a}))
	var got shipment
	must(t, gob.NewDecoder(&buf).Decode(&got))
	defer got.Agg.Close()
	if got.Host != "gw-1" {
		t.Fatalf("host %q", got.Host)
	}
	sameAggregates(t, a, got.Agg)
}
