// Package kernel is the inner loop of the one-bit decode (thesis Alg. 7 lines
// 2-12 and Alg. 9 lines 2-10): for a batch of packets sharing one candidate
// set, evaluate H(id, d) for every candidate link d and charge each packet's
// weights against the links whose hash disagrees with the packet's bit.
//
// # The algebra
//
// Alg. 9 adds w to counts[d] when H(id, d) equals the packet's hop bit and
// subtracts it otherwise. Writing m(d) = 1 for a mismatch,
//
//	counts[d] += w - 2*w*m(d)
//
// so the kernel only accumulates the mismatch part, -2w*m(d), and the caller
// adds the batch's total weight to every link once. For every hash but SipHash,
// d -> H(id, d) with id fixed has the shape of hash.Form,
//
//	H(id, d) = parity((A*d*d + B*d) & Mask) ^ C       (mod 2^32)
//
// so with X = C ^ bit, m(d) = parity((A*d*d + B*d) & Mask) ^ X. Each packet is
// one record of four words:
//
//	word 0  A | B<<32
//	word 1  Mask | X<<32
//	word 2  2*w1   charged to out1 on a mismatch
//	word 3  2*w2   charged to out2 on the same mismatch
//
// Alg. 9 uses one match for both arrays (w1 = w, w2 = w if the congested bit
// is set, else 0); Alg. 7 runs the kernel once per reservoir with w2 = 0.
//
// # The contract
//
// For every j < len(ds) and every record i:
//
//	if parity((A_i*ds[j]^2 + B_i*ds[j]) & Mask_i) ^ X_i == 1 {
//		out1[j] -= 2*w1_i
//		out2[j] -= 2*w2_i
//	}
//
// with wrapping int64 arithmetic. mismatchGeneric states it in plain Go;
// mismatchAVX512 (avo-generated, mismatch_amd64.s) does the same sixteen links at
// a time. Mismatch chooses by internal/cpu.
package kernel

import (
	"fmt"
	"math/bits"

	"ibreservoir/internal/cpu"
)

//go:generate go run -C asm . -out ../mismatch_amd64.s -stubs ../mismatch_amd64_stub.go -pkg kernel

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

// Kernel names the kernel Mismatch uses: "avx512" or "generic".
func Kernel() string {
	if FastPath() {
		return "avx512"
	}
	return "generic"
}

// FastPath reports whether Mismatch runs the AVX-512 kernel: AVX-512 F, BW,
// VL and VPOPCNTDQ (cpu.AVX512), and BMI2 for the tail mask (implied by
// cpu.AVX2), unless IBRESERVOIR_GENERIC=1.
func FastPath() bool { return haveAVX512 && cpu.AVX512 && cpu.AVX2 }

// The assembly kernel and the reference implement one contract.
func _() { f := mismatchAVX512; f = mismatchGeneric; _ = f }

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
