// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"math/rand/v2"
	"testing"
)

// linearComplexityRef is the Berlekamp-Massey algorithm an entry at a time,
// as NIST SP 800-22 section 2.10 states it: the oracle of linearComplexity.
func linearComplexityRef(s []uint8) int {
	n := len(s)
	b := make([]uint8, n+1)
	c := make([]uint8, n+1)
	t := make([]uint8, n+1)
	b[0], c[0] = 1, 1
	l, m := 0, -1
	for i := 0; i < n; i++ {
		d := s[i]
		for j := 1; j <= l; j++ {
			d ^= c[j] & s[i-j]
		}
		if d == 0 {
			continue
		}
		copy(t, c)
		shift := i - m
		for j := 0; j+shift <= n; j++ {
			c[j+shift] ^= b[j]
		}
		if 2*l <= i {
			l, m = i+1-l, i
			copy(b, t)
		}
	}
	return l
}

// TestLinearComplexityMatchesRef holds the word-at-a-time algorithm to the
// entry-at-a-time one on random sequences of every density and of lengths
// around each word boundary, and on the edge sequences (all zeros, all ones,
// a single one anywhere, periodic ones, LFSR outputs).
func TestLinearComplexityMatchesRef(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(what string, s []uint8) {
		t.Helper()
		if got, want := linearComplexity(s), linearComplexityRef(s); got != want {
			t.Fatalf("%s (%d bits): linear complexity %d, want %d", what, len(s), got, want)
		}
	}
	lengths := []int{0, 1, 2, 3, 62, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, lcBlock - 1, lcBlock, 575, 576, 577, 1000}
	for _, n := range lengths {
		for _, density := range []float64{0.5, 0.5, 0.5, 0.1, 0.9, 0.02} {
			s := make([]uint8, n)
			for i := range s {
				if r.Float64() < density {
					s[i] = 1
				}
			}
			check("random", s)
		}
		s := make([]uint8, n)
		check("zeros", s)
		for i := range s {
			s[i] = 1
		}
		check("ones", s)
		for _, p := range []int{2, 3, 7, 64, 65} {
			for i := range s {
				s[i] = 0
				if i%p == 0 {
					s[i] = 1
				}
			}
			check("periodic", s)
		}
	}
	for n := 1; n <= 200; n++ {
		for at := 0; at < n; at++ {
			s := make([]uint8, n)
			s[at] = 1
			check("single one", s)
		}
	}
	for trial := range 200 {
		// An LFSR of a random length up to 300 from random taps and state.
		k := 1 + r.IntN(300)
		taps := make([]uint8, k)
		st := make([]uint8, k)
		for i := range k {
			taps[i], st[i] = uint8(r.IntN(2)), uint8(r.IntN(2))
		}
		taps[k-1] = 1
		s := append([]uint8(nil), st...)
		for len(s) < lcBlock+trial {
			var x uint8
			for j := range k {
				x ^= taps[j] & s[len(s)-1-j]
			}
			s = append(s, x)
		}
		check("lfsr", s)
	}
}

func BenchmarkLinearComplexity(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	s := make([]uint8, lcBlock)
	for i := range s {
		s[i] = uint8(r.IntN(2))
	}
	b.Run("words", func(b *testing.B) {
		for range b.N {
			linearComplexity(s)
		}
	})
	b.Run("ref", func(b *testing.B) {
		for range b.N {
			linearComplexityRef(s)
		}
	})
}
