// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"encoding/binary"
	"hash/crc32"
)

// More candidate hashes for decoding (docs/hashes-and-generators.md,
// "Candidates"): the other cheap families the decode search judges beside
// MXM. Each is a bit function of (id, d) with the per-port constant
// K = 1846571429*d (Hmult0's) where it multiplies; none is a Kind. The
// battery judges them through its plain-Go path and hash/rtl holds their
// hash-only RTL (ibr_hash_candidates.sv).

// Fmix32 is MurmurHash3's 32-bit finalizer: x ^= x>>16; x *= 0x85EBCA6B;
// x ^= x>>13; x *= 0xC2B2AE35; x ^= x>>16. A bijection of the 32-bit words.
func Fmix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85EBCA6B
	x ^= x >> 13
	x *= 0xC2B2AE35
	x ^= x >> 16
	return x
}

// CRC32Word is the IEEE CRC-32 (the ICRC's: reflected 0x04C11DB7, init and
// final XOR 0xFFFFFFFF) of the four bytes of x, least-significant first.
func CRC32Word(x uint32) uint32 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], x)
	return crc32.ChecksumIEEE(b[:])
}

// Mult0Fmix is Hmult0 on a murmur-scrambled id: bit31(K * Fmix32(id)).
func Mult0Fmix(id, d uint32) uint32 { return Mult0Const * d * Fmix32(id) >> 31 }

// Mult0CRC is Hmult0 on a CRC-scrambled id: bit31(K * CRC32Word(id)). The
// scramble is GF(2)-affine (an XOR tree), so it is cheaper than Fmix32.
func Mult0CRC(id, d uint32) uint32 { return Mult0Const * d * CRC32Word(id) >> 31 }

// RandK is the random odd multiplier of port d: Fmix32(d) | 1, a constant
// the switch would hold per port in place of Hmult0's K (the receiver
// recomputes it from d).
func RandK(d uint32) uint32 { return Fmix32(d) | 1 }

// Mult0RandK is a multiplicative hash with a random odd multiplier per
// port: bit31(RandK(d) * id).
func Mult0RandK(id, d uint32) uint32 { return RandK(d) * id >> 31 }

// Mult0Salt is Hmult0 keyed per port by a salt on the id:
// bit31(K * (id ^ Fmix32(d))), two per-port constants.
func Mult0Salt(id, d uint32) uint32 { return Mult0Const * d * (id ^ Fmix32(d)) >> 31 }

// FmixXor is MurmurHash3's finalizer of the id XOR the per-port constant:
// bit31(Fmix32(id ^ K)).
func FmixXor(id, d uint32) uint32 { return Fmix32(id^Mult0Const*d) >> 31 }

// CRC32Xor is bit 0 of CRC32Word(id ^ d). The CRC is GF(2)-affine, so the
// bit is parity(M & id) ^ parity(M & d) ^ c: every link's bit is one
// function of the id, flipped by a per-link constant.
func CRC32Xor(id, d uint32) uint32 { return CRC32Word(id^d) & 1 }

// CRC32K is bit 0 of CRC32Word(K * id): the crc32 Kind with Hmult0's
// multiplier in the product.
func CRC32K(id, d uint32) uint32 { return CRC32Word(Mult0Const*d*id) & 1 }

// MXA is MXM with the second multiplier replaced by 0x00010001 (one 16-bit
// adder): h = K*id; x = h ^ (h >> 16); H = bit31(x * 0x00010001), that is
// bit 15 of x[31:16] + x[15:0].
func MXA(id, d uint32) uint32 {
	h := Mult0Const * d * id
	h ^= h >> 16
	return h * 0x00010001 >> 31
}
