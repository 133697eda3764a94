// Package kernel is the inner loop of the one-bit decode (thesis Alg. 7 lines
// 2-12 and Alg. 9 lines 2-10): for a batch of packets sharing one candidate
// set, evaluate H(id, d) for every candidate link d and charge each packet's
// weights against the links whose hash bit is set (or disagrees with the
// packet's bit).
//
// # The algebra
//
// Alg. 9 adds w to counts[d] when H(id, d) equals the packet's hop bit and
// subtracts it otherwise. Writing m(d) = 1 for a mismatch,
//
//	counts[d] += w - 2*w*m(d)
//
// so a kernel only accumulates the data-dependent part and the caller adds
// the batch's constant part to every link once. For every hash but SipHash,
// d -> H(id, d) with id fixed has the shape of hash.Form,
//
//	H(id, d) = parity((A*d*d + B*d) & Mask) ^ C       (mod 2^32)
//
// Two kernels evaluate it.
//
// # The Form contract (Mismatch): any mask
//
// With X = C ^ bit, m(d) = parity((A*d*d + B*d) & Mask) ^ X. Each packet is
// one record of four words:
//
//	word 0  A | B<<32
//	word 1  Mask | X<<32
//	word 2  2*w1   charged to out1 on a mismatch
//	word 3  2*w2   charged to out2 on the same mismatch
//
// For every j < len(ds) and every record i:
//
//	if parity((A_i*ds[j]^2 + B_i*ds[j]) & Mask_i) ^ X_i == 1 {
//		out1[j] -= 2*w1_i
//		out2[j] -= 2*w2_i
//	}
//
// with wrapping int64 arithmetic. Alg. 9 uses one match for both arrays
// (w1 = w, w2 = w if the congested bit is set, else 0); Alg. 7 runs the
// kernel once per reservoir with w2 = 0.
//
// # The sign contract (Sign): a mask of one bit
//
// Every multiplicative hash (single, double, mult0: Mask = 1<<31) and the
// parity hashes (Mask = 1 or 0) have a mask of at most one bit. Bit k of a
// product is bit 31 of the product shifted left by 31-k, and the shift
// distributes over the polynomial, so with A' = A<<(31-k) and B' = B<<(31-k)
// (A' = B' = 0 for an empty mask)
//
//	H(id, d) = sign(A'*d*d + B'*d) ^ C         sign(y) = y>>31
//
// and, with s = w*(-1)^(C ^ bit), the packet adds s - 2*s*sign(.) to
// counts[d]: a constant and a term that only the sign bit switches. Each
// packet is one record of four 32-bit words, B', A', w1 = -2*s1, w2 = -2*s2;
// for every j < len(ds) and every record i:
//
//	if int32(A'_i*ds[j]^2 + B'_i*ds[j]) < 0 {
//		out1[j] += w1_i
//		out2[j] += w2_i            (only when out2 is given)
//	}
//
// The kernel sums each link's charges in 32-bit lanes over all the records
// of a call and widens the sums to 64 bits once per call, so the caller keeps
// the sum of |w1| and of |w2| over a call below 2^31 (Sign panics otherwise).
// quad says some record has A' != 0 (the double hash); without it A' is
// ignored and every record must have A' = 0. One multiply, a sign extraction
// and a masked add per sixteen (packet, link) pairs on AVX-512.
//
// # The SipHash contract (Sip): no Form
//
// SipHash has no Form; its bit is computed in full for every (packet, link):
// H(id, d) = bit 0 of SipHash-2-4 under the key (k0, k1) over the eight bytes
// LE(id) || LE(d). Each record is four 32-bit words, a, x, w1, w2; for every
// j < len(ds) and record i, with the message's low half the id,
//
//	m = a_i | ds[j]<<32     (swap: ds[j] | a_i<<32, the lanes hold the ids)
//	if SipHash-2-4(m) & 1 ^ x_i == 1 {
//		out1[j] += w1_i
//		out2[j] += w2_i            (only when out2 is given)
//	}
//
// with the same 32-bit sums per call as the sign contract. A decode record
// is (id, hop bit, -2w, -2cw): the mismatching links lose 2w.
//
// mismatchGeneric, signGeneric and sipGeneric state the contracts in plain
// Go (sipGeneric through the same SipHash implementation as hash.Func.Bit);
// mismatchAVX512, signAVX512 and sipAVX512 (avo-generated, avx512_amd64.s)
// do the same sixteen links at a time. Mismatch, Sign and Sip choose by
// internal/cpu.
package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/dchest/siphash"
	"github.com/klauspost/cpuid/v2"

	"ibreservoir/internal/cpu"
)

//go:generate go run -C asm . -out ../avx512_amd64.s -stubs ../avx512_stub_amd64.go -pkg kernel

// RecWords is the number of uint64 words per packet record.
const RecWords = 4

// Rec packs one packet's record.
func Rec(a, b, mask, x uint32, w1, w2 int64) [RecWords]uint64 {
	return [RecWords]uint64{uint64(a) | uint64(b)<<32, uint64(mask) | uint64(x)<<32, uint64(2 * w1), uint64(2 * w2)}
}

// Mismatch applies the contract above with the fastest kernel the CPU has.
// recs holds len(recs)/RecWords records; out1 and out2 are at least len(ds) long.
func Mismatch(ds []uint32, recs []uint64, out1, out2 []int64) {
	check(ds, recs, out1, out2)
	if len(ds) == 0 || len(recs) == 0 {
		return
	}
	if FastPath() {
		mismatchAVX512(ds, recs, out1, out2)
		return
	}
	mismatchGeneric(ds, recs, out1, out2)
}

// MismatchGeneric is the plain-Go reference, exported for cross-checks and
// benchmarks.
func MismatchGeneric(ds []uint32, recs []uint64, out1, out2 []int64) {
	check(ds, recs, out1, out2)
	mismatchGeneric(ds, recs, out1, out2)
}

// SignRecWords is the number of uint32 words per record of the sign contract.
const SignRecWords = 4

// SignRec packs one record of the sign contract: B', A', w1, w2.
func SignRec(b, a uint32, w1, w2 int32) [SignRecWords]uint32 {
	return [SignRecWords]uint32{b, a, uint32(w1), uint32(w2)}
}

// MaxSignSum bounds the sum of |w1| (and of |w2|) over the records of one
// Sign call: the kernel's 32-bit lanes hold it.
const MaxSignSum = math.MaxInt32

// Sign applies the sign contract with the fastest kernel the CPU has. recs
// holds len(recs)/SignRecWords records; out1 is at least len(ds) long, and
// out2 either as long or empty (one output).
func Sign(ds []uint32, recs []uint32, out1, out2 []int64, quad bool) {
	checkSign(ds, recs, out1, out2, quad)
	if len(ds) == 0 || len(recs) == 0 {
		return
	}
	if FastPath() {
		signAVX512(ds, recs, out1, out2, quad)
		return
	}
	signGeneric(ds, recs, out1, out2, quad)
}

// SignGeneric is the plain-Go reference of the sign contract.
func SignGeneric(ds []uint32, recs []uint32, out1, out2 []int64, quad bool) {
	checkSign(ds, recs, out1, out2, quad)
	signGeneric(ds, recs, out1, out2, quad)
}

// A SipKey is SipHash's key and the initial state it gives.
type SipKey struct {
	k0, k1 uint64
	init   [4]uint64 // v0..v3
}

// NewSipKey returns the key (k0, k1): SipHash's initial state is the key
// xored with the constants "somepseudorandomlygeneratedbytes".
func NewSipKey(k0, k1 uint64) SipKey {
	return SipKey{k0: k0, k1: k1, init: [4]uint64{
		k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573}}
}

// Sip applies the SipHash contract with the fastest kernel the CPU has.
// recs holds len(recs)/SignRecWords records; out1 is at least len(ds) long,
// and out2 either as long or empty.
func Sip(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	checkSign(ds, recs, out1, out2, true)
	if len(ds) == 0 || len(recs) == 0 {
		return
	}
	if FastPath() {
		sipAVX512(&key.init, ds, recs, out1, out2, swap)
		return
	}
	sipGeneric(key, ds, recs, out1, out2, swap)
}

// SipGeneric is the plain-Go reference of the SipHash contract.
func SipGeneric(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	checkSign(ds, recs, out1, out2, true)
	sipGeneric(key, ds, recs, out1, out2, swap)
}

// Kernel names the kernel Mismatch, Sign and Sip use: "avx512" or "generic".
func Kernel() string {
	if FastPath() {
		return "avx512"
	}
	return "generic"
}

// FastPath reports whether Mismatch and Sign run the AVX-512 kernels:
// AVX-512 F, BW, VL and VPOPCNTDQ (cpu.AVX512), DQ (VPMOVD2M), and BMI2 for
// the tail masks (implied by cpu.AVX2), unless IBRESERVOIR_GENERIC=1.
func FastPath() bool { return fastPath }

var fastPath = haveAVX512 && cpu.AVX512 && cpu.AVX2 && cpuid.CPU.Supports(cpuid.AVX512DQ)

// Each assembly kernel and its reference implement one contract.
func _() {
	f := mismatchAVX512
	f = mismatchGeneric
	g := signAVX512
	g = signGeneric
	h := func(k SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
		sipAVX512(&k.init, ds, recs, o1, o2, swap)
	}
	h = sipGeneric
	_, _, _ = f, g, h
}

func check(ds []uint32, recs []uint64, out1, out2 []int64) {
	if len(recs)%RecWords != 0 {
		panic(fmt.Sprintf("kernel: %d record words, not a multiple of %d", len(recs), RecWords))
	}
	if len(out1) < len(ds) || len(out2) < len(ds) {
		panic(fmt.Sprintf("kernel: %d links but outputs of %d and %d", len(ds), len(out1), len(out2)))
	}
}

func mismatchGeneric(ds []uint32, recs []uint64, out1, out2 []int64) {
	for i := 0; i+RecWords <= len(recs); i += RecWords {
		a, b := uint32(recs[i]), uint32(recs[i]>>32)
		mask, x := uint32(recs[i+1]), uint32(recs[i+1]>>32)
		w1, w2 := int64(recs[i+2]), int64(recs[i+3])
		for j, d := range ds {
			if (uint32(bits.OnesCount32((a*d*d+b*d)&mask))^x)&1 != 0 {
				out1[j] -= w1
				out2[j] -= w2
			}
		}
	}
}

func checkSign(ds []uint32, recs []uint32, out1, out2 []int64, quad bool) {
	if len(recs)%SignRecWords != 0 {
		panic(fmt.Sprintf("kernel: %d sign record words, not a multiple of %d", len(recs), SignRecWords))
	}
	if len(out1) < len(ds) || (len(out2) != 0 && len(out2) < len(ds)) {
		panic(fmt.Sprintf("kernel: %d links but outputs of %d and %d", len(ds), len(out1), len(out2)))
	}
	var s1, s2 int64
	for i := 0; i < len(recs); i += SignRecWords {
		if !quad && recs[i+1] != 0 {
			panic(fmt.Sprintf("kernel: record %d has A' = %#x but quad is false", i/SignRecWords, recs[i+1]))
		}
		s1 += abs32(recs[i+2])
		s2 += abs32(recs[i+3])
	}
	if s1 > MaxSignSum || (len(out2) != 0 && s2 > MaxSignSum) {
		panic(fmt.Sprintf("kernel: the weights of %d records sum to %d and %d in magnitude, beyond the 32-bit lanes' %d", len(recs)/SignRecWords, s1, s2, MaxSignSum))
	}
}

func abs32(w uint32) int64 {
	if v := int64(int32(w)); v < 0 {
		return -v
	}
	return int64(w)
}

func signGeneric(ds []uint32, recs []uint32, out1, out2 []int64, quad bool) {
	two := len(out2) != 0
	for i := 0; i+SignRecWords <= len(recs); i += SignRecWords {
		b, a := recs[i], recs[i+1]
		if !quad {
			a = 0
		}
		w1, w2 := int64(int32(recs[i+2])), int64(int32(recs[i+3]))
		for j, d := range ds {
			if int32(a*d*d+b*d) < 0 {
				out1[j] += w1
				if two {
					out2[j] += w2
				}
			}
		}
	}
}

func sipGeneric(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	two := len(out2) != 0
	var msg [8]byte
	for i := 0; i+SignRecWords <= len(recs); i += SignRecWords {
		a, x := recs[i], recs[i+1]
		w1, w2 := int64(int32(recs[i+2])), int64(int32(recs[i+3]))
		for j, d := range ds {
			lo, hi := a, d
			if swap {
				lo, hi = d, a
			}
			binary.LittleEndian.PutUint32(msg[:4], lo)
			binary.LittleEndian.PutUint32(msg[4:], hi)
			if (uint32(siphash.Hash(key.k0, key.k1, msg[:]))^x)&1 != 0 {
				out1[j] += w1
				if two {
					out2[j] += w2
				}
			}
		}
	}
}
