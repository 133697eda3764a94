// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"fmt"
	"math/big"
	"sort"

	"ibreservoir/lfsr"
)

// LFSRLUT is the comparator circuit of Figure 5.7 (thesis section 5.9): a
// B-bit maximal-length LFSR and a pre-programmed table
//
//	T[l] = round((2^B - 1) / l)        (half up: floor((2(2^B-1) + l) / (2l)))
//
// A draw for l answers "state <= T[l]" and then steps the LFSR k times (k = 1
// by default; k = B gives B "fresh" bits per draw). The register is the
// Fibonacci form of package lfsr (bit 0 is the output, the feedback enters at
// bit B-1) with the XAPP052 taps of width B.
//
// The register never holds 0 and, being maximal, visits each of the 2^B - 1
// non-zero states once per period; exactly T[l] of them are <= T[l], so when
// the draws visit every state (gcd(k, 2^B-1) = 1) the probability of a 0 is
//
//	P0(l) = T[l] / (2^B - 1),  within 1/(2(2^B-1)) of 1/l        (section 5.9)
//
// because T[l] is (2^B-1)/l rounded to the nearest integer. When k shares a
// factor g with 2^B - 1 (B = 6 with k = 6, say, g = 3), the draws see only
// every k-th state of the cycle: an orbit of (2^B-1)/g states that depends on
// the starting state, on which P0 differs from T[l]/(2^B-1), sometimes by more
// than the bound. P0 then counts that orbit exactly (EnumerateP0).
//
// Successive states with k < B share B-k bits (the Fibonacci register shifts),
// so successive draws are correlated; that, not P0, is this generator's
// main flaw, and the statistical battery measures it.
type LFSRLUT struct {
	reg   *lfsr.Fibonacci
	k     int
	maxL  int
	table []uint32 // table[l] = T[l], l = 1..maxL; table[0] unused

	// The last EnumerateP0 result, and the state it was computed from (it
	// holds for every state of that orbit, but is keyed on one for
	// simplicity). Shared by clones; never modified once set.
	p0From uint32
	p0     []*big.Rat
}

// LUT returns T[1..maxL] for a B-bit register (index 0 unused).
func LUT(b, maxL int) []uint32 {
	m := uint64(1)<<b - 1
	t := make([]uint32, maxL+1)
	for l := 1; l <= maxL; l++ {
		t[l] = uint32((2*m + uint64(l)) / (2 * uint64(l)))
	}
	return t
}

// MaxLFSRSteps bounds k, the LFSR steps per draw.
const MaxLFSRSteps = 1024

// NewLFSRLUT returns the Figure 5.7 generator with a b-bit LFSR stepped k
// times per draw, for l up to maxL (at most 2^b - 1, so that every T[l] >= 1),
// its register seeded from seed by SplitMix64 (the first non-zero b-bit value).
func NewLFSRLUT(b, k int, seed uint64, maxL int) (*LFSRLUT, error) {
	if b < lfsr.MinWidth || b > lfsr.MaxWidth {
		return nil, fmt.Errorf("lfsr-lut: LFSR width %d outside %d..%d", b, lfsr.MinWidth, lfsr.MaxWidth)
	}
	if k < 1 || k > MaxLFSRSteps {
		return nil, fmt.Errorf("lfsr-lut: %d LFSR steps per draw; want 1..%d", k, MaxLFSRSteps)
	}
	if maxL < 1 || uint64(maxL) > lfsr.Period(b) {
		return nil, fmt.Errorf("lfsr-lut/b%d: maxL %d outside 1..%d (2^%d-1); use a wider LFSR for longer paths", b, maxL, lfsr.Period(b), b)
	}
	mask := uint32(lfsr.Period(b))
	var s uint32
	for s == 0 {
		s = uint32(splitMix64(&seed)) & mask
	}
	reg, err := lfsr.NewFibonacci(b, s)
	if err != nil {
		return nil, err
	}
	return &LFSRLUT{reg: reg, k: k, maxL: maxL, table: LUT(b, maxL)}, nil
}

// Width is B, Steps is k.
func (g *LFSRLUT) Width() int { return g.reg.Width() }
func (g *LFSRLUT) Steps() int { return g.k }

// Table returns T[l] for l = 1..MaxL (index 0 unused), the values the RTL's
// lookup table holds.
func (g *LFSRLUT) Table() []uint32 { return append([]uint32(nil), g.table...) }

func (g *LFSRLUT) Name() string {
	if g.k == 1 {
		return fmt.Sprintf("lfsr-lut/b%d", g.Width())
	}
	return fmt.Sprintf("lfsr-lut/b%d/k%d", g.Width(), g.k)
}

func (g *LFSRLUT) MaxL() int      { return g.maxL }
func (g *LFSRLUT) StateBits() int { return g.Width() }

// Draw answers state <= T[l], then steps the LFSR k times.
func (g *LFSRLUT) Draw(l int) bool {
	checkL(g, l)
	z := g.reg.State() <= g.table[l]
	for range g.k {
		g.reg.Step()
	}
	return z
}

// State is the LFSR register, bit i = stage i.
func (g *LFSRLUT) State() State { return State{uint64(g.reg.State())} }

func (g *LFSRLUT) SetState(st State) error {
	if len(st) != 1 || st[0]>>32 != 0 {
		return fmt.Errorf("%s: state must be one word holding %d bits", g.Name(), g.Width())
	}
	if err := g.reg.SetState(uint32(st[0])); err != nil {
		return fmt.Errorf("%s: %w", g.Name(), err)
	}
	return nil
}

func (g *LFSRLUT) Clone() Generator {
	c := *g
	r := *g.reg
	c.reg = &r
	return &c
}

// orbitGCD is gcd(k, 2^B - 1): the draws visit every non-zero state when it
// is 1, and one of g cosets of (2^B-1)/g states otherwise.
func (g *LFSRLUT) orbitGCD() uint64 {
	a, b := uint64(g.k), lfsr.Period(g.Width())
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// P0 returns the exact long-run probability that a draw for l is 0 from the
// current state: T[l]/(2^B-1) when the draws visit every non-zero state
// (gcd(k, 2^B-1) = 1, which package lfsr's primitivity proof guarantees), and
// otherwise the count over the orbit the draws actually visit (EnumerateP0).
func (g *LFSRLUT) P0(l int) *big.Rat {
	checkL(g, l)
	if g.orbitGCD() == 1 {
		return big.NewRat(int64(g.table[l]), int64(lfsr.Period(g.Width())))
	}
	if g.p0 == nil || g.p0From != g.reg.State() {
		g.p0, g.p0From = g.EnumerateP0(), g.reg.State()
	}
	return new(big.Rat).Set(g.p0[l])
}

// EnumerateP0 walks the whole cycle of states the draws visit, from the
// current state until it returns, and returns for every l = 1..MaxL the
// fraction of those states that are <= T[l] (index 0 unused). It does not
// change the generator. Its cost is the orbit's length, (2^B-1)/gcd(k, 2^B-1)
// draws: instant for B <= 20, a few seconds at B = 32.
func (g *LFSRLUT) EnumerateP0() []*big.Rat {
	jump := newJump(g.reg, g.k)
	// bucket[i] counts the states s whose largest l with s <= T[l] is i (T is
	// non-increasing in l); the count for l is the sum of bucket[l..maxL].
	bucket := make([]uint64, g.maxL+1)
	neg := make([]uint32, g.maxL) // neg[i] = ^T[i+1], increasing, for sort.Search
	for l := 1; l <= g.maxL; l++ {
		neg[l-1] = ^g.table[l]
	}
	start := g.reg.State()
	s := start
	var n uint64
	for {
		// Number of l with T[l] >= s, i.e. ^T[l] <= ^s.
		i := sort.Search(len(neg), func(j int) bool { return neg[j] > ^s })
		bucket[i]++
		n++
		s = jump.apply(s)
		if s == start {
			break
		}
	}
	p := make([]*big.Rat, g.maxL+1)
	var acc uint64
	for l := g.maxL; l >= 1; l-- {
		acc += bucket[l]
		p[l] = new(big.Rat).SetFrac(new(big.Int).SetUint64(acc), new(big.Int).SetUint64(n))
	}
	return p
}

// jump applies k Fibonacci steps at once. The step is linear over GF(2) in
// the state bits, so k steps map s to the XOR of the images of its set bits;
// tab[j][v] is the XOR of the images of the bits of byte j set in v.
type jump struct{ tab [4][256]uint32 }

func newJump(reg *lfsr.Fibonacci, k int) *jump {
	var col [32]uint32
	for i := range reg.Width() {
		r, _ := lfsr.NewFibonacci(reg.Width(), 1<<i)
		for range k {
			r.Step()
		}
		col[i] = r.State()
	}
	j := new(jump)
	for b := range 4 {
		for v := range 256 {
			var x uint32
			for i := range 8 {
				if v>>i&1 != 0 {
					x ^= col[8*b+i]
				}
			}
			j.tab[b][v] = x
		}
	}
	return j
}

func (j *jump) apply(s uint32) uint32 {
	return j.tab[0][byte(s)] ^ j.tab[1][byte(s>>8)] ^ j.tab[2][byte(s>>16)] ^ j.tab[3][byte(s>>24)]
}
