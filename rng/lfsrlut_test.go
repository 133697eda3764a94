// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"ibreservoir/lfsr"
)

func TestLUTValues(t *testing.T) {
	tab := LUT(16, 10)
	// (2^16-1)/l = 65535, 32767.5, 21845, 16383.75, 13107, 10922.5, 9362.14, 8191.875, 7281.67, 6553.5
	want := []uint32{0, 65535, 32768, 21845, 16384, 13107, 10923, 9362, 8192, 7282, 6554}
	for l := 1; l <= 10; l++ {
		if tab[l] != want[l] {
			t.Errorf("T[%d] = %d, want %d (halves round up)", l, tab[l], want[l])
		}
	}
	if tab := LUT(3, 7); tab[7] != 1 || tab[3] != 2 || tab[5] != 1 {
		t.Errorf("LUT(3) = %v", tab)
	}
}

// TestLFSRLUTPeriodCount drives Draw itself around whole periods: over
// 2^B - 1 draws (k = 1) the answer is true exactly T[l] times, for every l.
func TestLFSRLUTPeriodCount(t *testing.T) {
	for _, b := range []int{3, 4, 5, 8, 11} {
		maxL := min(20, int(lfsr.Period(b)))
		g, err := NewLFSRLUT(b, 1, 99, maxL)
		if err != nil {
			t.Fatal(err)
		}
		for l := 1; l <= maxL; l++ {
			var n uint32
			for range lfsr.Period(b) {
				if g.Draw(l) {
					n++
				}
			}
			if n != g.table[l] {
				t.Errorf("b%d l=%d: %d zeros in a period, want T[l] = %d", b, l, n, g.table[l])
			}
		}
	}
}

// TestLFSRLUTP0 enumerates the full period for every width up to 20 (k = 1,
// and k = B where gcd(B, 2^B-1) = 1) and checks P0 = T[l]/(2^B-1) exactly,
// and within 1/(2(2^B-1)) of 1/l, for every l.
func TestLFSRLUTP0(t *testing.T) {
	maxB := 20
	if testing.Short() {
		maxB = 14
	}
	for b := lfsr.MinWidth; b <= maxB; b++ {
		for _, k := range []int{1, b} {
			maxL := min(64, int(lfsr.Period(b)))
			g, err := NewLFSRLUT(b, k, uint64(b), maxL)
			if err != nil {
				t.Fatal(err)
			}
			if g.orbitGCD() != 1 {
				continue
			}
			m := int64(lfsr.Period(b))
			enum := g.EnumerateP0()
			bound := big.NewRat(1, 2*m)
			for l := 1; l <= maxL; l++ {
				want := big.NewRat(int64(g.table[l]), m)
				if enum[l].Cmp(want) != 0 || g.P0(l).Cmp(want) != 0 {
					t.Fatalf("b%d k%d l=%d: enumerated %v, P0 %v, want T[l]/(2^B-1) = %v", b, k, l, enum[l], g.P0(l), want)
				}
				dev := new(big.Rat).Sub(want, big.NewRat(1, int64(l)))
				if dev.Abs(dev).Cmp(bound) > 0 {
					t.Errorf("b%d l=%d: |P0 - 1/l| = %v exceeds 1/(2(2^B-1)) = %v", b, l, dev, bound)
				}
			}
		}
	}
}

// TestLFSRLUTShortOrbit covers k sharing a factor with 2^B - 1: the draws see
// one of g cosets of the cycle, P0 depends on which, and the thesis's bound
// can fail. B = 6, k = 6 (g = 3) is small enough to check by hand.
func TestLFSRLUTShortOrbit(t *testing.T) {
	g, _ := NewLFSRLUT(6, 6, 0, 63)
	if g.orbitGCD() != 3 {
		t.Fatalf("gcd(6, 63) = %d", g.orbitGCD())
	}
	seen := map[string]bool{}
	exceeded := false
	for s := uint32(1); s < 64; s++ {
		g.SetState(State{uint64(s)})
		p := g.EnumerateP0()
		// Cross-check P0 against counting Draw over the orbit's 21 draws.
		c := g.Clone().(*LFSRLUT)
		for _, l := range []int{2, 5} {
			var n int64
			c2 := c.Clone().(*LFSRLUT)
			for range 21 {
				if c2.Draw(l) {
					n++
				}
			}
			if want := big.NewRat(n, 21); p[l].Cmp(want) != 0 || g.P0(l).Cmp(want) != 0 {
				t.Fatalf("state %#x l=%d: P0 %v, enumerated %v, draws counted %v", s, l, g.P0(l), p[l], want)
			}
		}
		seen[p[2].String()] = true
		for l := 1; l <= 63; l++ {
			dev := new(big.Rat).Sub(p[l], big.NewRat(1, int64(l)))
			if dev.Abs(dev).Cmp(big.NewRat(1, 126)) > 0 {
				exceeded = true
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("P0(2) is the same on every orbit; expected it to depend on the start state")
	}
	if !exceeded {
		t.Errorf("no orbit broke the 1/(2(2^B-1)) bound; expected b6/k6 to")
	}
}

// TestJumpMatchesSteps holds the table-driven k-step jump used by
// EnumerateP0 equal to k single steps.
func TestJumpMatchesSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, b := range []int{3, 7, 16, 24, 31, 32} {
		for _, k := range []int{1, 2, 5, b, 33} {
			reg, _ := lfsr.NewFibonacci(b, 1)
			j := newJump(reg, k)
			for range 200 {
				s := r.Uint32() & uint32(lfsr.Period(b))
				if s == 0 {
					continue
				}
				ref, _ := lfsr.NewFibonacci(b, s)
				for range k {
					ref.Step()
				}
				if got := j.apply(s); got != ref.State() {
					t.Fatalf("b%d k%d from %#x: jump %#x, steps %#x", b, k, s, got, ref.State())
				}
			}
		}
	}
}

func TestLFSRLUTErrors(t *testing.T) {
	for _, c := range []struct {
		b, k, maxL int
		msg        string
	}{
		{2, 1, 3, "width 2"},
		{33, 1, 3, "width 33"},
		{8, 0, 3, "0 LFSR steps"},
		{3, 1, 8, "maxL 8 outside 1..7"},
		{8, 1, 0, "maxL 0"},
	} {
		_, err := NewLFSRLUT(c.b, c.k, 1, c.maxL)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("NewLFSRLUT(%d, %d, maxL %d): error %v, want one mentioning %q", c.b, c.k, c.maxL, err, c.msg)
		}
	}
	g, _ := NewLFSRLUT(8, 1, 1, 8)
	if err := g.SetState(State{0}); err == nil {
		t.Errorf("zero state accepted")
	}
	if err := g.SetState(State{0x100}); err == nil {
		t.Errorf("9-bit state accepted by an 8-bit LFSR")
	}
}
