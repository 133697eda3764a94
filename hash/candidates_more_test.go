// SPDX-License-Identifier: Apache-2.0

package hash

import "testing"

// moreCandidates lists the candidates of candidates_more.go with values
// computed apart from this package (Python's arbitrary-precision integers
// reduced mod 2^32, zlib's CRC-32): the bits at ten pairs, and over 4096
// pairs id = 0x9E3779B9*i, d = 0x85EBCA6B*i + 509 (i = 0..4095, mod 2^32)
// the number of ones and the sum of (i+1) over the ones.
var moreCandidates = []struct {
	name       string
	f          func(id, d uint32) uint32
	bits       [10]uint32
	ones, wsum int
}{
	{"Mult0Fmix", Mult0Fmix, [10]uint32{0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, 2027, 4104628},
	{"Mult0CRC", Mult0CRC, [10]uint32{0, 1, 0, 0, 0, 1, 1, 0, 0, 1}, 2042, 4200032},
	{"Mult0RandK", Mult0RandK, [10]uint32{0, 0, 1, 0, 0, 0, 0, 1, 1, 0}, 2003, 4159229},
	{"Mult0Salt", Mult0Salt, [10]uint32{0, 1, 0, 1, 0, 0, 0, 1, 0, 1}, 2069, 4242768},
	{"FmixXor", FmixXor, [10]uint32{0, 1, 1, 0, 1, 1, 0, 0, 0, 0}, 2109, 4349582},
	{"CRC32Xor", CRC32Xor, [10]uint32{0, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 2123, 4374272},
	{"CRC32K", CRC32K, [10]uint32{0, 0, 0, 1, 0, 1, 0, 0, 0, 1}, 2059, 4208507},
	{"MXA", MXA, [10]uint32{0, 1, 1, 0, 1, 0, 0, 0, 0, 1}, 2097, 4296213},
}

var candidatePairs = [10][2]uint32{{0, 0}, {1, 1}, {2, 6}, {44974351, 509}, {0xFFFFFFFF, 0xFFFFFFFF}, {3, 0x8001FD},
	{7, 1021}, {123456789, 987654321}, {0x80000000, 509}, {65537, 33280509}}

func TestMoreCandidatesGolden(t *testing.T) {
	for _, c := range moreCandidates {
		for i, p := range candidatePairs {
			if got := c.f(p[0], p[1]); got != c.bits[i] {
				t.Errorf("%s(%d, %d) = %d, want %d", c.name, p[0], p[1], got, c.bits[i])
			}
		}
		ones, wsum := 0, 0
		for i := range uint32(4096) {
			if c.f(0x9E3779B9*i, 0x85EBCA6B*i+509) == 1 {
				ones++
				wsum += int(i) + 1
			}
		}
		if ones != c.ones || wsum != c.wsum {
			t.Errorf("%s over 4096 pairs: %d ones, weighted sum %d; want %d, %d", c.name, ones, wsum, c.ones, c.wsum)
		}
	}
	// The building blocks' published values: MurmurHash3's finalizer and
	// the IEEE CRC-32 (zlib) of the little-endian words.
	for _, c := range []struct{ x, fmix, crc uint32 }{{0, 0, 0x2144DF1C}, {1, 0x514E28B7, 0x99F8B879}, {0xDEADBEEF, 0x0DE5C6A9, 0x1A5A601F}} {
		if Fmix32(c.x) != c.fmix || CRC32Word(c.x) != c.crc {
			t.Errorf("Fmix32(%#x) = %#x, CRC32Word = %#x; want %#x, %#x", c.x, Fmix32(c.x), CRC32Word(c.x), c.fmix, c.crc)
		}
	}
}

// TestCRC32XorIsOneFunction: CRC32Xor's bit on any two links differs by a
// constant over every id (the reason it cannot decode), on 4096 ids.
func TestCRC32XorIsOneFunction(t *testing.T) {
	for _, pr := range [][2]uint32{{509, 1021}, {33280509, 16384509}} {
		flip := CRC32Xor(0, pr[0]) ^ CRC32Xor(0, pr[1])
		for i := range uint32(4096) {
			id := 0x9E3779B9 * i
			if CRC32Xor(id, pr[0])^CRC32Xor(id, pr[1]) != flip {
				t.Fatalf("links %d and %d: the bits' XOR changes at id %#x", pr[0], pr[1], id)
			}
		}
	}
}
