// SPDX-License-Identifier: Apache-2.0

// Package rng holds the switch-side random-number generators of thesis section
// 5.9. Each answers, once per draw, "did a uniform draw on {0, ..., l-1} come
// out 0?", which is all reservoir sampling with a reservoir of one needs
// (Alg. 3 lines 2-3, Alg. 6, Alg. 8): true with probability 1/l, exactly for the
// ideal generator and approximately, or with structure, for the hardware ones.
//
// Every generator's whole state is explicit (State, SetState), so that a test
// vector can start a generator anywhere and check where it ends.
//
// The generators (docs/spec.md section 4, docs/hashes-and-generators.md),
// built by name with New:
//
//	ideal                  Ideal: xoshiro128** with exact rejection
//	lfsr-lut/b<B>[/k<K>]   LFSRLUT: Figure 5.7, an LFSR compared with a table
//	shiftreg/...           ShiftReg: Figure 5.6, one circulating register per l
//	sender                 Sender: draws the sender NIC carries in the packet
//	                       (Fill, Consume, Hops are the packet-field helpers)
//
// Contract shared by every generator and by the RTL of package verilog:
//   - l is the reservoir's count plus one, 1 <= l <= MaxL().
//   - Every call to Draw consumes exactly one draw's worth of state, whatever l
//     is, including l = 1 (which always answers true). A switch stage that
//     draws twice for one packet (the two-reservoir schemes, when the port is
//     congested) calls Draw twice.
//   - A draw reads the generator's current state and then advances it.
package rng

import (
	"fmt"
	"math/big"
)

// State is a generator's whole state as a little-endian bit string: bit i of
// the state is bit i%64 of word i/64. Bits at and above StateBits are zero.
type State []uint64

// Hex renders the state as StateBits/4 (rounded up) hex digits, most
// significant first, the form $readmemh and the vector files use.
func (s State) Hex(bits int) string {
	n := (bits + 3) / 4
	b := make([]byte, n)
	for i := range n {
		nib := s[i/16] >> (4 * (i % 16)) & 0xF
		b[n-1-i] = "0123456789abcdef"[nib]
	}
	return string(b)
}

// ParseState reads a state of bits bits written by Hex (most significant
// digit first; fewer digits are zero-extended), refusing a digit that is not
// hex and a set bit at or above bits.
func ParseState(s string, bits int) (State, error) {
	if bits < 0 || len(s) > (bits+3)/4+64 {
		return nil, fmt.Errorf("state %q: %d hex digits for a %d-bit state", s, len(s), bits)
	}
	st := make(State, (bits+63)/64)
	for i := range len(s) {
		c := s[len(s)-1-i]
		var nib uint64
		switch {
		case c >= '0' && c <= '9':
			nib = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			nib = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			nib = uint64(c-'A') + 10
		default:
			return nil, fmt.Errorf("state %q: %q is not a hex digit", s, c)
		}
		for b := range 4 {
			if nib>>b&1 == 0 {
				continue
			}
			if bit := 4*i + b; bit >= bits {
				return nil, fmt.Errorf("state %q: bit %d is set, but the state has %d bits", s, bit, bits)
			} else {
				st[bit/64] |= 1 << (bit % 64)
			}
		}
	}
	return st, nil
}

// A Generator draws "zero with probability 1/l".
type Generator interface {
	// Name identifies the generator and its parameters, e.g. "lfsr-lut/b16".
	Name() string
	// MaxL is the largest l the generator serves.
	MaxL() int
	// Draw reports whether this draw is 0 on {0, ..., l-1}, and advances the state.
	Draw(l int) bool
	// StateBits is the width of the state.
	StateBits() int
	// State returns a copy of the whole state.
	State() State
	// SetState replaces the state; it refuses a state the generator can never
	// be in (an all-zero LFSR, say) with an error that says why.
	SetState(State) error
	// Clone returns an independent generator in the same state.
	Clone() Generator
}

// Exact is implemented by generators whose long-run probability of a 0 is
// known in closed form for every l (by construction, or by enumerating a full
// period).
type Exact interface {
	P0(l int) *big.Rat
}

func checkL(g Generator, l int) {
	if l < 1 || l > g.MaxL() {
		panic(fmt.Sprintf("rng: %s: draw with l=%d outside 1..%d", g.Name(), l, g.MaxL()))
	}
}
