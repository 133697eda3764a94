// SPDX-License-Identifier: Apache-2.0

package header

import (
	"encoding/binary"
	"fmt"
)

// Patching the VCRC instead of recomputing it.
//
// The basic idea: a CRC is linear over GF(2). For two messages of the same
// length, init value and final XOR cancel, so
//
//	VCRC(M') = VCRC(M) ^ raw(M ^ M')
//
// where raw is the CRC register run from 0 with no final XOR. M ^ M' is zero
// except in the few bytes a switch rewrote, pkt[off:off+k], so raw(M ^ M') is
// the register after those k difference bytes (from 0), then advanced through
// the z = n-off-k zero bytes up to the VCRC. A zero byte multiplies the
// register's polynomial by x^8 modulo the generator, so the advance is one
// multiplication by x^(8z) mod P, read from a table. The cost no longer grows
// with the packet: a switch stage on an MTU-size packet patches in the same
// time as on a 30-byte one.
//
// The nitty gritty: the reflected register r holds R(x) = sum of r_i x^(15-i)
// (bit 0 is the x^15 coefficient). Multiplying by x is one step of the
// bit-serial CRC (shift right, XOR the reflected polynomial if bit 0 was set),
// and 1 is 0x8000.

// maxPacketBytes bounds the packets PatchVCRC handles: an 11-bit PktLen of
// words.
const maxPacketBytes = 4 * MaxPktLen

// vcrcZeroPow[z] is x^(8z) mod the VCRC polynomial, reflected.
var vcrcZeroPow = func() *[maxPacketBytes + 1]uint16 {
	var t [maxPacketBytes + 1]uint16
	p := uint16(0x8000) // x^0
	for z := range t {
		t[z] = p
		for range 8 {
			p = mulX16(p)
		}
	}
	return &t
}()

// mulX16 multiplies a reflected CRC-16 polynomial by x modulo the VCRC
// polynomial.
func mulX16(r uint16) uint16 {
	if r&1 != 0 {
		return r>>1 ^ vcrcPolyReflected
	}
	return r >> 1
}

// vcrcAdvance[k][h][b] is the register whose byte h is b (the other zero)
// advanced through 2^k zero bytes: b*x^(8h') * x^(8*2^k) mod P by mulMod16.
// The advance is linear in the register, so advancing r through z zero
// bytes is, for each set bit k of z, one lookup per byte of r (advanceVCRC).
var vcrcAdvance = func() *[vcrcAdvanceBits][2][256]uint16 {
	var t [vcrcAdvanceBits][2][256]uint16
	for k := range t {
		for b := range 256 {
			t[k][0][b] = mulMod16(uint16(b), vcrcZeroPow[1<<k])
			t[k][1][b] = mulMod16(uint16(b)<<8, vcrcZeroPow[1<<k])
		}
	}
	return &t
}()

// vcrcAdvanceBits is the bits of the longest advance, maxPacketBytes.
const vcrcAdvanceBits = 13

func init() {
	if maxPacketBytes >= 1<<vcrcAdvanceBits {
		panic("header: vcrcAdvance does not reach the longest packet")
	}
}

// advanceVCRC is mulMod16(r, vcrcZeroPow[z]) (0 <= z <= maxPacketBytes)
// by vcrcAdvance: two lookups per set bit of z instead of sixteen steps of
// a multiply. TestAdvanceVCRC holds it to mulMod16 for every z.
func advanceVCRC(r uint16, z int) uint16 {
	t := vcrcAdvance
	for k := 0; z != 0; k, z = k+1, z>>1 {
		if z&1 != 0 && k < vcrcAdvanceBits {
			r = t[k][0][byte(r)] ^ t[k][1][byte(r>>8)]
		}
	}
	return r
}

// mulMod16 multiplies two reflected polynomials modulo the VCRC polynomial
// (Horner's rule from the x^15 coefficient, bit 0 of a, down).
func mulMod16(a, b uint16) uint16 {
	var r uint16
	for i := range 16 {
		r = mulX16(r)
		if a>>i&1 != 0 {
			r ^= b
		}
	}
	return r
}

// PatchVCRC updates the VCRC of pkt after the bytes pkt[off:off+len(old)],
// which held old, were rewritten in place. It does in constant time what
// RecomputeVCRC does in time proportional to the packet, and gives the same
// result when the VCRC was right before; a wrong VCRC stays wrong (a switch
// that must repair one recomputes it). The rewritten bytes must lie before the
// VCRC. The reference model's switch stage (refmodel.Model.Stage) patches the
// VCRC it has just checked this way, so its cost does not grow with the
// packet's length a second time.
func PatchVCRC(pkt []byte, off int, old []byte) error {
	fr, err := FrameOf(pkt)
	if err != nil {
		return err
	}
	return PatchVCRCAt(pkt, fr.PktLen, off, old)
}

// PatchVCRCAt is PatchVCRC for a packet whose VCRC starts at byte n (its
// PktLen in bytes, as FrameOf reads it), for a caller that has just read
// it (the switch stage, once per rewritten byte): the headers are not
// parsed again.
func PatchVCRCAt(pkt []byte, n, off int, old []byte) error {
	if n < 0 || n > len(pkt)-VCRCLen {
		return fmt.Errorf("PatchVCRC: a VCRC at byte %d of a %d-byte packet", n, len(pkt))
	}
	if off < 0 || off+len(old) > n {
		return fmt.Errorf("PatchVCRC: bytes %d..%d are not all before the VCRC at byte %d", off, off+len(old)-1, n)
	}
	var r uint16
	for i, o := range old {
		r = r>>8 ^ vcrcTable[byte(r)^o^pkt[off+i]]
	}
	d := advanceVCRC(r, n-off-len(old))
	binary.LittleEndian.PutUint16(pkt[n:], binary.LittleEndian.Uint16(pkt[n:])^d)
	return nil
}
