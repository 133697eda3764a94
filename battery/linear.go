// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"math"
	"math/bits"
)

// Linearity over GF(2) and the sequence tests (runs, serial, linear
// complexity). Each works on bits produced by the caller and returns counts,
// so that the battery can add them over chunks and shards.

// blrTrial is one trial of the Blum-Luby-Rubinfeld linearity test: for an
// affine f, f(x xor y) = f(x) xor f(y) xor f(0) for every x and y; for a random
// function each trial holds with probability 1/2.
func blrTrial(f func(uint32) uint32, f0, x, y uint32) bool {
	return f(x^y) == f(x)^f(y)^f0
}

// linearComplexity is the length of the shortest linear feedback shift
// register that generates s (each entry 0 or 1), by the Berlekamp-Massey
// algorithm over GF(2) (Massey 1969, as in NIST SP 800-22 section 2.10),
// 64 coefficients to a word: the connection polynomial c, the previous one b
// and the window of the sequence read backwards (bit j the entry j places
// before the current one), so that a discrepancy is the parity of c AND the
// window over bits 0..l. The test file holds the entry-at-a-time statement
// of the same algorithm, its oracle.
func linearComplexity(s []uint8) int {
	n := len(s)
	w := (n + 64) / 64 // words of bits 0..n
	var buf [4 * 9]uint64
	mem := buf[:]
	if 4*w > len(buf) {
		mem = make([]uint64, 4*w)
	}
	c, b, t, win := mem[:w], mem[w:2*w], mem[2*w:3*w], mem[3*w:4*w]
	clear(mem[:4*w])
	c[0], b[0] = 1, 1
	l, m := 0, -1
	for i := 0; i < n; i++ {
		for k := w - 1; k > 0; k-- {
			win[k] = win[k]<<1 | win[k-1]>>63
		}
		win[0] = win[0]<<1 | uint64(s[i]&1)
		var d uint64
		full := (l + 1) / 64
		for k := 0; k < full; k++ {
			d ^= c[k] & win[k]
		}
		if r := uint((l + 1) % 64); r != 0 {
			d ^= c[full] & win[full] & (1<<r - 1)
		}
		if bits.OnesCount64(d)&1 == 0 {
			continue
		}
		copy(t, c)
		// c ^= b << (i-m); bits past n, where the entry-at-a-time
		// statement stops, are never read (l <= n).
		shift := i - m
		ws, bs := shift/64, uint(shift%64)
		for k := w - 1; k >= ws; k-- {
			v := b[k-ws] << bs
			if bs != 0 && k-ws > 0 {
				v |= b[k-ws-1] >> (64 - bs)
			}
			c[k] ^= v
		}
		if 2*l <= i {
			l, m = i+1-l, i
			copy(b, t)
		}
	}
	return l
}

// The linear-complexity test of NIST SP 800-22 section 2.10: blocks of M bits,
// each block's complexity L against its mean mu under randomness, the
// statistic T = (-1)^M (L - mu) + 2/9 binned into seven classes.
const lcBlock = 500

// lcProbs are the class probabilities for M = 500 (SP 800-22 section 3.10).
var lcProbs = []float64{0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833}

// lcClass returns the class (0..6) of a block of lcBlock bits with linear
// complexity l.
func lcClass(l int) int {
	m := float64(lcBlock)
	mu := m/2 + (9+math.Pow(-1, m+1))/36 - (m/3+2.0/9)/math.Pow(2, m)
	t := math.Pow(-1, m)*(float64(l)-mu) + 2.0/9
	switch {
	case t <= -2.5:
		return 0
	case t <= -1.5:
		return 1
	case t <= -0.5:
		return 2
	case t <= 0.5:
		return 3
	case t <= 1.5:
		return 4
	case t <= 2.5:
		return 5
	}
	return 6
}

// runsCount returns the number of adjacent pairs of s that differ (for a random
// sequence, each of the len(s)-1 pairs differs with probability 1/2: the runs
// test in the form whose counts add over blocks).
func runsCount(s []uint8) uint64 {
	var n uint64
	for i := 1; i < len(s); i++ {
		n += uint64(s[i] ^ s[i-1])
	}
	return n
}

// serialCounts adds the counts of the non-overlapping 3-bit tuples of s into c
// (8 entries): Knuth's serial test (TAOCP vol. 2, 3.3.2 B) on triples.
func serialCounts(s []uint8, c []uint64) {
	for i := 0; i+3 <= len(s); i += 3 {
		c[s[i]<<2|s[i+1]<<1|s[i+2]]++
	}
}
