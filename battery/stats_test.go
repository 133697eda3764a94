// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func TestBinomialTwoSided(t *testing.T) {
	for _, tc := range []struct {
		k, n uint64
		p    float64
		want float64
	}{
		// R: binom.test(2, 10, 0.5): p = 0.1094 (the doubling and the
		// likelihood methods agree for p = 1/2).
		{2, 10, 0.5, 0.109375},
		{5, 10, 0.5, 1},
		{0, 20, 0.5, 2 * math.Pow(0.5, 20)},
		{20, 20, 0.5, 2 * math.Pow(0.5, 20)},
		// Exactly balanced over 2^32 (Theorem 5.1).
		{1 << 31, 1 << 32, 0.5, 1},
	} {
		if got := binomialTwoSided(tc.k, tc.n, tc.p); math.Abs(got-tc.want) > 1e-9*math.Max(1, tc.want) && math.Abs(got-tc.want)/tc.want > 1e-6 {
			t.Errorf("binomialTwoSided(%d, %d, %g) = %g, want %g", tc.k, tc.n, tc.p, got, tc.want)
		}
	}
	// A tiny upper tail keeps its precision (Survival would give 0).
	if p := binomialTwoSided(1000, 1000, 0.5); p == 0 || p > 1e-290 {
		t.Errorf("binomialTwoSided(1000, 1000, 0.5) = %g, want 2^-999", p)
	}
}

func TestHolm(t *testing.T) {
	p := []float64{0.01, 0.04, math.NaN(), 0.03, 0.5}
	// m = 4: sorted 0.01, 0.03, 0.04, 0.5 -> 0.04, max(0.04, 0.09), max(0.09, 0.08), max(0.09, 0.5).
	want := []float64{0.04, 0.09, math.NaN(), 0.09, 0.5}
	got := holm(p)
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("holm[%d] = %g, want %g", i, got[i], want[i])
		}
	}
}

func TestChiSquareAndIndependence(t *testing.T) {
	x, minE := chiSquare([]uint64{10, 20, 30}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3})
	if math.Abs(x-10) > 1e-12 || minE != 20 {
		t.Errorf("chiSquare = %g, %g; want 10, 20", x, minE)
	}
	if x, _ := chiSquare([]uint64{1, 5}, []float64{0, 1}); !math.IsInf(x, 1) {
		t.Errorf("an impossible cell gives %g, want +Inf", x)
	}
	// A table exactly at its margins' product: statistic 0, p 1.
	if x, p, _ := independence2x2(25, 25, 25, 25); x != 0 || p != 1 {
		t.Errorf("independence2x2 of a flat table = %g, %g", x, p)
	}
	if _, p, _ := independence2x2(50, 0, 0, 50); p > 1e-20 {
		t.Errorf("independence2x2 of a diagonal table: p = %g", p)
	}
	if _, p, _ := independence2x2(10, 10, 0, 0); !math.IsNaN(p) {
		t.Errorf("a constant bit: p = %g, want NaN (untestable)", p)
	}
}

func TestLinearComplexity(t *testing.T) {
	// NIST SP 800-22 section 2.10.4's example: 1101011110001 has L = 4.
	s := []uint8{1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1}
	if l := linearComplexity(s); l != 4 {
		t.Errorf("linear complexity = %d, want 4", l)
	}
	// A maximal 16-bit LFSR's output has complexity 16.
	st := uint16(0xACE1)
	var seq []uint8
	for range lcBlock {
		bit := (st ^ st>>2 ^ st>>3 ^ st>>5) & 1
		seq = append(seq, uint8(st&1))
		st = st>>1 | bit<<15
	}
	if l := linearComplexity(seq); l != 16 {
		t.Errorf("LFSR complexity = %d, want 16", l)
	}
	if c := lcClass(16); c != 0 {
		t.Errorf("class of complexity 16 = %d, want 0", c)
	}
	if c := lcClass(250); c != 3 && c != 4 {
		t.Errorf("class of complexity 250 = %d, want the middle", c)
	}
	if n := runsCount([]uint8{0, 1, 1, 0, 0, 0, 1}); n != 3 {
		t.Errorf("runsCount = %d, want 3", n)
	}
	c := make([]uint64, 8)
	serialCounts([]uint8{1, 0, 1, 0, 0, 0, 1}, c)
	if c[5] != 1 || c[0] != 1 {
		t.Errorf("serialCounts = %v", c)
	}
}

func TestContinuedFraction(t *testing.T) {
	num, r := rotation(FigureID)
	if math.Abs(r-6.4053) > 1e-4 {
		t.Errorf("r = %g, want about 6.4 (section 5.4)", r)
	}
	terms, _ := continuedFraction(num, 1<<12)
	want := []uint64{0, 6, 2, 2, 7, 5, 1, 5, 1, 25, 4177, 1, 3}
	if len(terms) != len(want) {
		t.Fatalf("terms %v, want %v", terms, want)
	}
	for i := range want {
		if terms[i] != want[i] {
			t.Fatalf("terms %v, want %v", terms, want)
		}
	}
	qs := boundQs(FigureID)
	for _, q := range []int{7, 13, 237, 245} {
		found := false
		for _, x := range qs {
			found = found || x == q
		}
		if !found {
			t.Errorf("bound denominators %v lack %d", qs, q)
		}
	}
}

func TestFloatJSON(t *testing.T) {
	for _, f := range []float64{0, 1, 1.234567891, 1e-300, math.NaN(), math.Inf(1)} {
		b, err := Float(f).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back Float
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		again, _ := back.MarshalJSON()
		if !bytes.Equal(b, again) {
			t.Errorf("%g: %s then %s", f, b, again)
		}
	}
}

// FuzzReadPartial feeds arbitrary bytes to the partial-result reader and, when
// they parse, to Merge and Finalize, which must refuse bad input with an error,
// never a panic. A partial that reads has a checksum that matches. Since a
// mutated file almost never keeps its checksum, each input is also read
// leniently, given a fresh checksum and read again, so that corrupt but valid
// JSON reaches the domain checks of Finalize (as a shard edited by hand would).
func FuzzReadPartial(f *testing.F) {
	c := smallConfig([]string{"parity"}, []string{"ideal"})
	c.IDs, c.Links, c.CountBits = []string{"psn"}, []string{"packed"}, []int{2}
	c.Size.SweepBits, c.Size.ChunkValues, c.Size.WorstBits = 12, 1<<10, 10
	b, err := New(c)
	if err != nil {
		f.Fatal(err)
	}
	p, err := b.RunShard(f.Context(), 0, 1, 1, nil)
	if err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	p.WriteJSON(&good)
	f.Add(good.Bytes())                                                           // a whole, valid partial
	f.Add([]byte(`{"format":"ibreservoir-stats-partial/2","of":2,"shards":[1]}`)) // no config
	f.Add([]byte(`{"format":"other"}`))                                           // wrong format
	f.Add(bytes.Replace(good.Bytes(), []byte(`"chunk":0`), []byte(`"chunk":99`), 1))
	f.Add(bytes.Replace(good.Bytes(), []byte(`"counts":[`), []byte(`"counts":[99999999`), 1)) // a count beyond its domain
	f.Add(append(good.Bytes(), `{"junk":1}`...))                                              // junk after the object
	finish := func(t *testing.T, p *Partial) {
		if sum, err := p.checksum(); err != nil || sum != p.Checksum {
			t.Fatalf("a partial read with checksum %q, its contents give %q", p.Checksum, sum)
		}
		m, err := Merge([]*Partial{p})
		if err != nil {
			return
		}
		if m.Config.canonical() != c.canonical() {
			return // another battery: planning it could take any time
		}
		b.Finalize(m) // must not panic
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := ReadPartial(bytes.NewReader(data)); err == nil {
			finish(t, p)
		}
		var q Partial
		if json.Unmarshal(data, &q) != nil {
			return
		}
		var buf bytes.Buffer
		if q.WriteJSON(&buf) != nil {
			return
		}
		if p, err := ReadPartial(&buf); err == nil {
			finish(t, p)
		}
	})
}
