// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"fmt"
	"math/big"
	"math/bits"

	"ibreservoir/internal/seed"
)

// Ideal is the reference generator: xoshiro128** (Blackman and Vigna, 2018)
// driving an exact rejection rule. It stands for the ideal random source the
// thesis's analysis assumes (section 3.3), and is cheap enough in hardware to be
// co-simulated like the others: the output function multiplies by 5 and 9 only.
//
// One draw for l takes 32-bit outputs r until r < A(l) = l*floor(2^32/l), then
// answers r < Z(l) = floor(2^32/l). Among the A(l) accepted values exactly Z(l)
// answer true, so the probability is exactly 1/l. A rejection needs
// r >= 2^32 - (2^32 mod l), which has probability below l/2^32; each
// rejected output still advances the state. The RTL holds A and Z per l.
type Ideal struct {
	s    [4]uint32
	maxL int
}

// NewIdeal returns the ideal generator for l up to maxL, seeded from seed by
// SplitMix64 (seed -> words s0..s3 from the low and high halves of two outputs).
func NewIdeal(seed uint64, maxL int) *Ideal {
	g := &Ideal{maxL: maxL}
	a, b := splitMix64(&seed), splitMix64(&seed)
	g.s = [4]uint32{uint32(a), uint32(a >> 32), uint32(b), uint32(b >> 32)}
	if g.s == [4]uint32{} {
		g.s[0] = 1 // xoshiro's one forbidden state; SplitMix64 never yields it twice in a row
	}
	return g
}

// splitMix64 is Steele, Lea and Flood's SplitMix64 generator: it returns the
// next output from state *x and advances the state by the golden gamma
// (docs/spec.md section 6; seed.Mix is the output function).
func splitMix64(x *uint64) uint64 {
	z := seed.Mix(*x)
	*x += seed.Gamma
	return z
}

// Next returns the next 32-bit output of xoshiro128**.
func (g *Ideal) Next() uint32 {
	s := &g.s
	r := bits.RotateLeft32(s[1]*5, 7) * 9
	t := s[1] << 9
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft32(s[3], 11)
	return r
}

// IdealBounds returns A(l) and Z(l) of the rejection rule.
func IdealBounds(l int) (accept, zero uint64) {
	z := (uint64(1) << 32) / uint64(l)
	return z * uint64(l), z
}

func (g *Ideal) Name() string   { return "ideal" }
func (g *Ideal) MaxL() int      { return g.maxL }
func (g *Ideal) StateBits() int { return 128 }

func (g *Ideal) Draw(l int) bool {
	checkL(g, l)
	a, z := IdealBounds(l)
	for {
		r := uint64(g.Next())
		if r < a {
			return r < z
		}
	}
}

func (g *Ideal) State() State {
	return State{uint64(g.s[0]) | uint64(g.s[1])<<32, uint64(g.s[2]) | uint64(g.s[3])<<32}
}

func (g *Ideal) SetState(st State) error {
	if len(st) != 2 {
		return fmt.Errorf("ideal: state is %d words, want 2 (128 bits)", len(st))
	}
	if st[0] == 0 && st[1] == 0 {
		return fmt.Errorf("ideal: the all-zero state is xoshiro128**'s fixed point")
	}
	g.s = [4]uint32{uint32(st[0]), uint32(st[0] >> 32), uint32(st[1]), uint32(st[1] >> 32)}
	return nil
}

func (g *Ideal) Clone() Generator { c := *g; return &c }

// P0 is exactly 1/l.
func (g *Ideal) P0(l int) *big.Rat { return big.NewRat(1, int64(l)) }
