// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"math/bits"
	"unsafe"
)

// The portable path: plain Go, for every GOARCH, written for speed. The
// records stream past a few links at a time whose 32-bit sums stay in
// registers (the contracts bound a call's sums to 32 bits); a charged lane
// is selected without a branch, w & (int32(p) >> 31) for the sign, and the
// sums are widened and added to the outputs once per call and link block.

// parityPortable is the portable kernel of the parity contract.
func parityPortable(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	recs = recs[:len(recs)/RecWords*RecWords]
	two := len(out2) != 0
	j := 0
	switch {
	case mask == SignMask && !quad && !two:
		for ; j+4 <= len(ds); j += 4 {
			s0, s1, s2, s3 := signOne4((*[4]uint32)(ds[j:j+4]), recs)
			o := (*[4]int64)(out1[j : j+4])
			o[0] += int64(s0)
			o[1] += int64(s1)
			o[2] += int64(s2)
			o[3] += int64(s3)
		}
	case !two:
		for ; j+4 <= len(ds); j += 4 {
			s0, s1, s2, s3 := formOne4((*[4]uint32)(ds[j:j+4]), recs, quad, mask)
			o := (*[4]int64)(out1[j : j+4])
			o[0] += int64(s0)
			o[1] += int64(s1)
			o[2] += int64(s2)
			o[3] += int64(s3)
		}
	case mask == SignMask && !quad:
		for ; j+4 <= len(ds); j += 4 {
			s, t := signTwo4((*[4]uint32)(ds[j:j+4]), recs)
			o1, o2 := (*[4]int64)(out1[j:j+4]), (*[4]int64)(out2[j:j+4])
			for k := range 4 {
				o1[k] += int64(s[k])
				o2[k] += int64(t[k])
			}
		}
	}
	// The other shapes (quad, a wide mask), and the links past the last
	// block: two links at a time, a parity of the masked product.
	for ; j < len(ds); j += 2 {
		d0, d1 := ds[j], ds[j]
		if j+1 < len(ds) {
			d1 = ds[j+1]
		}
		s0, s1, t0, t1 := formTwo2(d0, d1, recs, quad, mask)
		out1[j] += int64(s0)
		if two {
			out2[j] += int64(t0)
		}
		if j+1 < len(ds) {
			out1[j+1] += int64(s1)
			if two {
				out2[j+1] += int64(t1)
			}
		}
	}
}

// records views recs (a whole number of records) as records, so that the
// loops over them need no bounds checks.
func records(recs []uint32) [][RecWords]uint32 {
	if len(recs) < RecWords {
		return nil
	}
	return unsafe.Slice((*[RecWords]uint32)(unsafe.Pointer(unsafe.SliceData(recs))), len(recs)/RecWords)
}

// signOne4 is the sign kernel for four links and one output: the sums of w1
// over the records whose B*d has its sign bit set.
func signOne4(d *[4]uint32, recs []uint32) (s0, s1, s2, s3 int32) {
	rs := records(recs)
	for i := range rs {
		b, w := rs[i][0], int32(rs[i][2])
		// d read through the pointer: a multiply from memory keeps the
		// links out of the registers the sums need.
		s0 += w & (int32(b*d[0]) >> 31)
		s1 += w & (int32(b*d[1]) >> 31)
		s2 += w & (int32(b*d[2]) >> 31)
		s3 += w & (int32(b*d[3]) >> 31)
	}
	return
}

// signTwo4 is the sign kernel for four links and two outputs.
func signTwo4(d *[4]uint32, recs []uint32) (s, t [4]int32) {
	var s0, s1, s2, s3, t0, t1, t2, t3 int32
	rs := records(recs)
	for i := range rs {
		b, w1, w2 := rs[i][0], int32(rs[i][2]), int32(rs[i][3])
		m0, m1, m2, m3 := int32(b*d[0])>>31, int32(b*d[1])>>31, int32(b*d[2])>>31, int32(b*d[3])>>31
		s0 += w1 & m0
		s1 += w1 & m1
		s2 += w1 & m2
		s3 += w1 & m3
		t0 += w2 & m0
		t1 += w2 & m1
		t2 += w2 & m2
		t3 += w2 & m3
	}
	return [4]int32{s0, s1, s2, s3}, [4]int32{t0, t1, t2, t3}
}

// formOne4 is the kernel of every shape for four links and one output: the
// sums of w1 over the records whose (A*d + B)*d (A = 0 unless quad) has an
// odd number of bits under the mask.
func formOne4(d *[4]uint32, recs []uint32, quad bool, mask uint32) (s0, s1, s2, s3 int32) {
	rs := records(recs)
	if !quad {
		for i := range rs {
			b, w := rs[i][0], int32(rs[i][2])
			s0 += w & oddMask(b*d[0], mask)
			s1 += w & oddMask(b*d[1], mask)
			s2 += w & oddMask(b*d[2], mask)
			s3 += w & oddMask(b*d[3], mask)
		}
		return
	}
	for i := range rs {
		b, a, w := rs[i][0], rs[i][1], int32(rs[i][2])
		s0 += w & oddMask((a*d[0]+b)*d[0], mask)
		s1 += w & oddMask((a*d[1]+b)*d[1], mask)
		s2 += w & oddMask((a*d[2]+b)*d[2], mask)
		s3 += w & oddMask((a*d[3]+b)*d[3], mask)
	}
	return
}

// oddMask is all ones when p has an odd number of bits under the mask, else
// zero.
func oddMask(p, mask uint32) int32 { return -int32(bits.OnesCount32(p&mask) & 1) }

// formTwo2 is the kernel of every shape for two links: the sums of w1 and w2
// over the records whose (A*d + B)*d = A*d*d + B*d (mod 2^32; A = 0 unless
// quad) has an odd number of bits under the mask.
func formTwo2(d0, d1 uint32, recs []uint32, quad bool, mask uint32) (s0, s1, t0, t1 int32) {
	for _, r := range records(recs) {
		b, a, w1, w2 := r[0], r[1], int32(r[2]), int32(r[3])
		if !quad {
			a = 0
		}
		m0, m1 := oddMask((a*d0+b)*d0, mask), oddMask((a*d1+b)*d1, mask)
		s0 += w1 & m0
		s1 += w1 & m1
		t0 += w2 & m0
		t1 += w2 & m1
	}
	return
}

// sipPortable is the portable kernel of the SipHash contract: SipHash-2-4
// of the one 8-byte block written out on 64-bit words (sip24), the sums of
// a link in registers while the records stream past.
func sipPortable(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	recs = recs[:len(recs)/RecWords*RecWords]
	laneSh, recSh := uint(32), uint(0) // the message is a | d<<32
	if swap {
		laneSh, recSh = 0, 32 // d | a<<32
	}
	v := &key.init
	for j, d := range ds {
		dl := uint64(d) << laneSh
		var s1, s2 int64
		for _, r := range records(recs) {
			h := sip24(v, dl|uint64(r[0])<<recSh)
			m := -int64((uint32(h) ^ r[1]) & 1)
			s1 += int64(int32(r[2])) & m
			s2 += int64(int32(r[3])) & m
		}
		out1[j] += s1
		if len(out2) != 0 {
			out2[j] += s2
		}
	}
}

// sip24 is SipHash-2-4 of the 8-byte message m (little-endian) from the
// initial state v: two compression rounds over m, then the final block of
// the length (8<<56), and four finalization rounds.
func sip24(v *[4]uint64, m uint64) uint64 {
	v0, v1, v2, v3 := v[0], v[1], v[2], v[3]^m
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	round()
	round()
	v0 ^= m
	v3 ^= 8 << 56
	round()
	round()
	v0 ^= 8 << 56
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}

// countPortable is the portable kernel of the count contract (plan.go):
// the links four at a time, their counts in registers while the records
// stream past (the sign mask: the count goes down by one, int32(b*d) >> 31,
// per record whose product has its sign bit set), then w times each count.
func countPortable(pl *Plan, bs []uint32, out []int64, w int32, mask uint32) {
	ds := pl.ds
	j := 0
	for ; j+4 <= len(ds); j += 4 {
		c0, c1, c2, c3 := count4((*[4]uint32)(ds[j:j+4]), bs, mask)
		o := (*[4]int64)(out[j : j+4])
		o[0] -= int64(c0) * int64(w)
		o[1] -= int64(c1) * int64(w)
		o[2] -= int64(c2) * int64(w)
		o[3] -= int64(c3) * int64(w)
	}
	for ; j < len(ds); j++ {
		var c int32
		for _, b := range bs {
			c += oddMask(b*ds[j], mask)
		}
		out[j] -= int64(c) * int64(w)
	}
}

// count4 is minus the counts of the records whose b*d has an odd number of
// bits under the mask, for four links.
func count4(d *[4]uint32, bs []uint32, mask uint32) (c0, c1, c2, c3 int32) {
	if mask == SignMask {
		for _, b := range bs {
			c0 += int32(b*d[0]) >> 31
			c1 += int32(b*d[1]) >> 31
			c2 += int32(b*d[2]) >> 31
			c3 += int32(b*d[3]) >> 31
		}
		return
	}
	for _, b := range bs {
		c0 += oddMask(b*d[0], mask)
		c1 += oddMask(b*d[1], mask)
		c2 += oddMask(b*d[2], mask)
		c3 += oddMask(b*d[3], mask)
	}
	return
}
