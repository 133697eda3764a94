// SPDX-License-Identifier: Apache-2.0

package header

// The two link-level checks of an InfiniBand packet (IBA Vol. 1, section 7.8):
//
//   - ICRC, the invariant CRC: CRC-32 with the Ethernet polynomial 0x04C11DB7,
//     processed least-significant bit first (reflected), initial value and final
//     XOR 0xFFFFFFFF. It covers the packet from the first byte of the LRH to the
//     last byte of the payload (including the pad), with the variant fields
//     replaced by ones (see invariantMask). It is sent least-significant byte first.
//   - VCRC, the variant CRC: CRC-16 with polynomial 0x100B, reflected, initial
//     value and final XOR 0xFFFF. It covers every byte from the first byte of the
//     LRH through the last byte of the ICRC, as they are on the wire, and is sent
//     least-significant byte first. Every switch recomputes it.
//
// Both are table-driven byte-at-a-time reflected CRCs. The bitwise forms below
// (crc32Bitwise, crc16Bitwise) are the definitions the tables are built from and
// the oracle the tests compare them against.

import (
	"hash/crc32"
	"math/bits"
)

const (
	// ICRCPoly is the ICRC generator polynomial in normal (MSB-first) form.
	ICRCPoly = 0x04C11DB7
	// VCRCPoly is the VCRC generator polynomial in normal (MSB-first) form.
	VCRCPoly = 0x100B

	icrcPolyReflected = 0xEDB88320 // bits of ICRCPoly reversed
	vcrcPolyReflected = 0xD008     // bits of VCRCPoly reversed
)

var (
	icrcTable   = crc32.MakeTable(icrcPolyReflected)
	vcrcTable   = makeCRC16Table(vcrcPolyReflected)
	vcrcSlicing = makeSlicingTable(vcrcTable)
)

// makeSlicingTable extends the byte table t to the sixteen tables of
// slicing-by-16: s[k][b] is the register after byte b is followed by k zero
// bytes, so sixteen bytes can be folded in with sixteen independent lookups.
func makeSlicingTable(t *[256]uint16) *[16][256]uint16 {
	var s [16][256]uint16
	s[0] = *t
	for b := range 256 {
		c := t[b]
		for k := 1; k < 16; k++ {
			c = c>>8 ^ t[byte(c)]
			s[k][b] = c
		}
	}
	return &s
}

func makeCRC16Table(polyReflected uint16) *[256]uint16 {
	var t [256]uint16
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ polyReflected
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return &t
}

// CRC32 returns the ICRC-parameter CRC-32 (reflected 0x04C11DB7, init and final
// XOR all ones) of b, with no masking. It equals the IEEE CRC-32 of Ethernet.
func CRC32(b []byte) uint32 { return crc32.Checksum(b, icrcTable) }

// CRC16 returns the VCRC-parameter CRC-16 (reflected 0x100B, init and final
// XOR 0xFFFF) of b.
func CRC16(b []byte) uint16 { return ^updateCRC16(0xFFFF, b) }

// updateCRC16 runs the VCRC register over b: the carry-less-multiply fold
// where the CPU and the process's path allow (archUpdateCRC16, amd64), and
// slicingUpdateCRC16 for the rest (TestCRCImplementations holds both to
// the bitwise definition).
func updateCRC16(crc uint16, b []byte) uint16 {
	crc, b = archUpdateCRC16(crc, b)
	return slicingUpdateCRC16(crc, b)
}

// simpleUpdateCRC16 runs the reflected CRC-16 register over b a byte at a
// time, without the final XOR.
func simpleUpdateCRC16(crc uint16, b []byte) uint16 {
	for _, x := range b {
		crc = crc>>8 ^ vcrcTable[byte(crc)^x]
	}
	return crc
}

// slicingUpdateCRC16 is simpleUpdateCRC16 sixteen bytes at a time
// (slicing-by-16, as hash/crc32's slicingUpdate does eight): the 16-bit
// register is XORed into the first two of the next sixteen bytes, and the
// register after them is the XOR of each byte's contribution followed by
// the bytes after it, s[15-i][byte i]. The dependent chain is one step per
// sixteen bytes instead of one per byte, which makes the VCRC check of
// every switch stage (refmodel.Model.Stage) several times faster.
func slicingUpdateCRC16(crc uint16, b []byte) uint16 {
	t := vcrcSlicing
	for len(b) >= 16 {
		crc = t[15][b[0]^byte(crc)] ^ t[14][b[1]^byte(crc>>8)] ^ t[13][b[2]] ^ t[12][b[3]] ^
			t[11][b[4]] ^ t[10][b[5]] ^ t[9][b[6]] ^ t[8][b[7]] ^
			t[7][b[8]] ^ t[6][b[9]] ^ t[5][b[10]] ^ t[4][b[11]] ^
			t[3][b[12]] ^ t[2][b[13]] ^ t[1][b[14]] ^ t[0][b[15]]
		b = b[16:]
	}
	return simpleUpdateCRC16(crc, b)
}

// foldConstants are the constants of the carry-less-multiply fold of a
// reflected CRC-32 with the degree-32 polynomial p (bit i the coefficient
// of x^i), the method of Intel's "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction" (2009): x^n mod p reflected in
// 32 bits and shifted left one, for n = 4*128+32, 4*128-32, 128+32, 128-32
// and 64 (folding 64 bytes on, 16 bytes on, and 64 bits to 32); then p and
// floor(x^64 / p), reflected in 33 bits (Barrett's reduction).
// TestFoldConstants holds them to the IEEE CRC-32's published ones.
func foldConstants(p uint64) [7]uint64 {
	xnmod := func(n int) uint64 {
		r := uint64(1)
		for range n {
			if r <<= 1; r&(1<<32) != 0 {
				r ^= p
			}
		}
		return r
	}
	refl := func(v uint64, n int) uint64 { return bits.Reverse64(v) >> (64 - n) }
	var q, rem uint64 = 0, 1 << 32 // x^64 / p by long division, x^64 = x^32 * x^32
	for i := 32; i >= 0; i-- {
		// rem holds x^(32+i)'s remainder so far; the quotient bit i
		if rem&(1<<32) != 0 {
			q |= 1 << i
			rem ^= p
		}
		rem <<= 1
	}
	return [7]uint64{refl(xnmod(4*128+32), 32) << 1, refl(xnmod(4*128-32), 32) << 1, refl(xnmod(128+32), 32) << 1,
		refl(xnmod(128-32), 32) << 1, refl(xnmod(64), 32) << 1, refl(p, 33), refl(q, 33)}
}

// crc32Bitwise and crc16Bitwise are the bit-serial definitions, kept as the
// oracle for the table-driven forms and for the hardware generators.
func crc32Bitwise(b []byte) uint32 {
	crc := ^uint32(0)
	for _, x := range b {
		crc ^= uint32(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ icrcPolyReflected
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func crc16Bitwise(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, x := range b {
		crc ^= uint16(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ vcrcPolyReflected
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}
