// SPDX-License-Identifier: Apache-2.0

package hash

// Candidate hashes for decoding (docs/hashes-and-generators.md, "Candidates
// beyond the thesis"). They are not yet Kinds: the battery judges them by
// the decode family through its plain-Go path (battery/candidate.go), and
// hash/rtl holds their hash-only RTL for synthesis.

// MXMConst is the second multiplier of MXM: 2^32 divided by the golden
// ratio, rounded to an odd number (Knuth's multiplicative hashing constant).
const MXMConst = 0x9E3779B1

// MXM is the multiply-xorshift-multiply candidate: with the per-port
// constant K = 1846571429*d (Hmult0's, which the stage already holds),
//
//	h = K*id; h ^= h >> 16; H = bit31(h * 0x9E3779B1)   (mod 2^32)
//
// One full multiplier (K*id, as Hmult0's) and one multiplication by a
// constant. The xorshift folds the product's high half, where Hmult0's
// rotation lives, into the low half, and the constant multiplication
// carries every bit into bit 31, so the bit is no longer the sign of a
// rotation by a per-link angle.
func MXM(id, d uint32) uint32 {
	h := Mult0Const * d * id
	h ^= h >> 16
	return h * MXMConst >> 31
}
