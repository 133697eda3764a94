// SPDX-License-Identifier: Apache-2.0

package hash

// MXMConst is the second multiplier of mxm: 2^32 divided by the golden
// ratio, rounded to an odd number (Knuth's multiplicative hashing constant).
const MXMConst = 0x9E3779B1

// mxm is the multiply-xorshift-multiply hash (Kind MXM) from the per-port
// constant K = 1846571429*d (Hmult0's, which the stage already holds):
//
//	h = K*id; h ^= h >> 16; H = bit31(h * 0x9E3779B1)   (mod 2^32)
//
// One full multiplier (K*id, as Hmult0's) and one multiplication by a
// constant. The xorshift folds the product's high half, where Hmult0's
// rotation lives, into the low half, and the constant multiplication
// carries every bit into bit 31, so the bit is no longer the sign of a
// rotation by a per-link angle. It has no Form: the xorshift is not affine
// in the product's bits over the integers.
func mxm(k, id uint32) uint32 {
	h := k * id
	h ^= h >> 16
	return h * MXMConst >> 31
}

// MXMFromK is mxm from the per-port constant K = 1846571429*d, for loops
// that hold K per link as the stage does (the battery's candidate search).
func MXMFromK(k, id uint32) uint32 { return mxm(k, id) }
