// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"math"
	"testing"
)

// theoremIDs are the ids (or links) the exhaustive facts are checked at: odd
// and even, the even ids of the counterexample, the top bit alone (s = 31 in
// the proof of Theorem 5.1: only d's bit 0 matters), all ones, the thesis's
// Figure 5.1 id, and the multiplier itself.
var theoremIDs = []uint32{1, 2, 3, 6, 509, 1 << 31, 1<<32 - 1, 44974351, Mult0Const, 0x40000000, 12 << 20}

func skipWithoutKernels(t *testing.T) {
	t.Helper()
	if fastKernels == nil {
		t.Skip("exhaustive 2^32 sweeps need the vector kernels (none on this CPU, or IBRESERVOIR_GENERIC=1)")
	}
}

// TestTheorem51 checks Theorem 5.1 exhaustively: for Hmult0 and every listed
// id != 0, exactly 2^31 of the 2^32 values of d give 1; for id = 0 none do.
// The same holds with d fixed and id varying (the hash is symmetric).
func TestTheorem51(t *testing.T) {
	skipWithoutKernels(t)
	h := New(Mult0)
	for _, id := range theoremIDs {
		if n := h.OnesOverD(id); n != 1<<31 {
			t.Errorf("Theorem 5.1: id %d: %d of 2^32 d give 1, want 2^31 = %d", id, n, uint64(1<<31))
		}
		if n := h.OnesOverID(id); n != 1<<31 {
			t.Errorf("Theorem 5.1 with d = %d fixed: %d of 2^32 ids give 1, want 2^31", id, n)
		}
	}
	if n := h.OnesOverD(0); n != 0 {
		t.Errorf("id 0: %d of 2^32 d give 1, want 0 (id*d = 0)", n)
	}
}

// Mult0Agree26 is the number of d in [0, 2^32) with Hmult0(2, d) =
// Hmult0(6, d): (2^33 + 4)/3, the counterexample to Theorem 5.2.
const mult0Agree26 = 2863311532

// TestTheorem52Counterexample reproduces the counterexample of section 5.4:
// ids 2 and 6 agree on 2/3 of all d, not 1/2. The exact count is pinned, and
// it is the same with the roles of id and d exchanged.
func TestTheorem52Counterexample(t *testing.T) {
	skipWithoutKernels(t)
	h := New(Mult0)
	n := h.AgreeOverD(2, 6)
	frac := float64(n) / Domain
	t.Logf("Hmult0(2, d) = Hmult0(6, d) for %d of 2^32 d: %.12f", n, frac)
	if n != mult0Agree26 {
		t.Errorf("ids 2 and 6 agree on %d d, want %d", n, uint64(mult0Agree26))
	}
	if math.Abs(frac-2.0/3) > 1e-9 {
		t.Errorf("fraction %.12f is not 2/3", frac)
	}
	if m := h.AgreeOverID(2, 6); m != n {
		t.Errorf("links 2 and 6 agree on %d ids, ids 2 and 6 on %d d; the hash is symmetric", m, n)
	}
	// A pair with neither argument small behaves: ids far from each other and
	// from 0 agree on very nearly half of all d.
	m := h.AgreeOverD(44974351, 1846571429^0x5a5a5a5a)
	if f := float64(m) / Domain; math.Abs(f-0.5) > 1e-3 {
		t.Errorf("large ids agree on a fraction %.6f of d, want about 1/2", f)
	}
}

// TestExhaustiveOtherHashes pins the exhaustive counts that follow from the
// definitions for the other hashes: parity is 1 only for odd id and odd d,
// and every hash that is parity(y & M) of y = B*x with B odd and M != 0 is
// balanced, because x -> B*x permutes the 32-bit values.
func TestExhaustiveOtherHashes(t *testing.T) {
	skipWithoutKernels(t)
	for _, c := range []struct {
		k    Kind
		id   uint32
		want uint64
	}{
		{Parity, 2, 0},
		{Parity, 3, 1 << 31},
		{ParityXor, 2, 1 << 31},
		{SingleMult, 3, 1 << 31},
		{CRC32, 3, 1 << 31},
		{CRC16, 509, 1 << 31},
		{CRC32, 0, 0}, // CRC-32 of four zero bytes is 0x2144DF1C: bit 0 is 0
	} {
		if got := New(c.k).OnesOverD(c.id); got != c.want {
			t.Errorf("%s id %d: %d of 2^32 d give 1, want %d", c.k, c.id, got, c.want)
		}
	}
	// Parity agrees with itself everywhere for ids of equal parity.
	if got := New(Parity).AgreeOverD(2, 6); got != Domain {
		t.Errorf("parity ids 2, 6 agree on %d d, want all 2^32", got)
	}
	if got := New(ParityXor).AgreeOverD(2, 3); got != 0 {
		t.Errorf("parity-xor ids 2, 3 agree on %d d, want none", got)
	}
}

// TestCountBitsMatchesSweep checks the Form-less path (used by SipHash) on a
// sub-range against the kernels and the reference.
func TestCountBitsMatchesSweep(t *testing.T) {
	h := New(Mult0)
	p, _ := h.FormD(2)
	q, _ := h.FormD(6)
	const lo, hi = 1<<32 - 3<<20 - 5, 1 << 32
	want := countAgreeGeneric(p, q, lo, hi)
	got := countBitsRange(func(d uint32) uint32 { return h.Bit(2, d) ^ h.Bit(6, d) ^ 1 }, lo, hi, 3)
	if got != want {
		t.Errorf("countBitsRange %d, reference %d", got, want)
	}
	if got := CountAgree(p, q, lo, hi); got != want {
		t.Errorf("CountAgree %d, reference %d", got, want)
	}
	s := New(SipHash)
	n := countBitsRange(func(d uint32) uint32 { return s.Bit(7, d) }, 0, 1<<16, 2)
	var m uint64
	for d := range uint32(1 << 16) {
		m += uint64(s.Bit(7, d))
	}
	if n != m {
		t.Errorf("siphash count over 2^16 d: %d, loop %d", n, m)
	}
}
