// SPDX-License-Identifier: Apache-2.0

// Package kernel is the inner loop of the one-bit decode (thesis Alg. 7 lines
// 2-12 and Alg. 9 lines 2-10): for a batch of packets sharing one candidate
// set, evaluate H(id, d) for every candidate link d and charge each packet's
// weights against the links whose hash bit is set (or disagrees with the
// packet's bit).
//
// # The algebra
//
// Alg. 9 adds w to counts[d] when H(id, d) equals the packet's hop bit and
// subtracts it otherwise: w*(-1)^(H ^ bit). For every hash but SipHash,
// d -> H(id, d) with id fixed has the shape of hash.Form,
//
//	H(id, d) = parity((A*d*d + B*d) & Mask) ^ C       (mod 2^32)
//
// so with s = w*(-1)^(C ^ bit) and P = parity((A*d*d + B*d) & Mask), the
// packet adds s - 2*s*P to counts[d]: a constant, which the caller adds to
// every link once per batch, and a term that only P switches on. The mask is
// the same for every packet of a hash (1<<31 for the multiplicative hashes, a
// fixed mask of the product's bits for the CRCs); the parity hashes' one-bit
// mask id&1 is shifted to bit 31 by the caller: bit k of a product is bit 31
// of the product shifted left by 31-k, and the shift distributes over the
// polynomial.
//
// # The parity contract (Parity)
//
// Each packet is one record of four 32-bit words, B, A, w1 = -2*s1 and
// w2 = -2*s2; for every j < len(ds) and every record i:
//
//	if parity((A_i*ds[j]^2 + B_i*ds[j]) & mask) == 1 {
//		out1[j] += w1_i
//		out2[j] += w2_i            (only when out2 is given)
//	}
//
// With mask = 1<<31 the parity is the product's sign bit. The kernel sums
// each link's charges in 32-bit lanes over all the records of a call and
// widens the sums to 64 bits once per call, so the caller keeps the sum of
// |w1| and of |w2| over a call below 2^31 (Parity panics otherwise). quad
// says some record has A != 0 (the double hash); without it A is ignored and
// every record must have A = 0. On AVX-512: one multiply, a sign extraction
// and a masked add per sixteen (packet, link) pairs for a mask of bit 31; a
// mask, a popcount and a test more for a wider one.
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
// with the same 32-bit sums per call as the parity contract. A decode record
// is (id, hop bit, -2w, -2cw): the mismatching links lose 2w.
//
// # The paths
//
// parityGeneric and sipGeneric state the contracts in plain Go (sipGeneric
// through the same SipHash implementation as hash.Func.Bit): the reference,
// the oracle of the tests. parityPortable and sipPortable (portable.go) are
// plain Go written for speed, for every GOARCH: sums in registers for four
// links at a time while the records stream past. parityAVX512 and sipAVX512
// (avo-generated, avx512_amd64.s) do sixteen links at a time, parityAVX2 and
// sipAVX2 (avx2_amd64.s) eight (four for SipHash). Parity and Sip run the
// path internal/cpu chose (the widest the CPU has, or the one
// IBRESERVOIR_KERNEL forces); PathFor names any path the CPU has, for the
// benchmarks and cross-checks.
//
// Two more entries serve the decode's common case, a hash without d*d over
// a fixed set of links (plan.go): ParityPlan is the parity contract with
// quad false on a Plan, the links cut into arithmetic progressions so that
// B*d is a running sum (parityStepAVX2; the other paths run their parity
// kernel on the plan's links), and CountPlan the count contract, records
// of one weight counted per link (countStepAVX2, countPortable, and the
// reference countGeneric).
package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/dchest/siphash"

	"ibreservoir/internal/cpu"
)

//go:generate go run -C asm . -out ../avx512_amd64.s -stubs ../avx512_stub_amd64.go -pkg kernel
//go:generate go run -C asm . -isa avx2 -out ../avx2_amd64.s -stubs ../avx2_stub_amd64.go -pkg kernel

// RecWords is the number of uint32 words per record of either contract.
const RecWords = 4

// Rec packs one record: (B, A, w1, w2) for Parity, (a, x, w1, w2) for Sip.
func Rec(b, a uint32, w1, w2 int32) [RecWords]uint32 {
	return [RecWords]uint32{b, a, uint32(w1), uint32(w2)}
}

// MaxSum bounds the sum of |w1| (and of |w2|) over the records of one call:
// the kernels' 32-bit lanes hold it.
const MaxSum = math.MaxInt32

// SignMask is the mask whose parity is the product's sign bit.
const SignMask = 1 << 31

// A Path is one implementation of both contracts: "avx512", "avx2",
// "portable" or "reference" (the names of internal/cpu).
type Path struct {
	name   string
	parity func(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32)
	sip    func(key *SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool)
	// step is the path's step kernel (plan.go), nil for none: ParityPlan
	// then runs parity on the plan's links.
	step func(pl *Plan, recs []uint32, out1, out2 []int64, mask uint32)
	// count is the path's count kernel (plan.go), nil for none: CountPlan
	// then runs countGeneric.
	count func(pl *Plan, bs []uint32, out []int64, w int32, mask uint32)
}

// Reference is the plain-Go statement of the contracts (parityGeneric,
// sipGeneric), the oracle every other path is tested against.
var Reference = &Path{cpu.KernelReference, parityGeneric, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
	sipGeneric(*k, ds, recs, o1, o2, swap)
}, nil, nil}

// Portable is plain Go written for speed (parityPortable, sipPortable), the
// path of every CPU without a vector one.
var Portable = &Path{cpu.KernelPortable, parityPortable, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
	sipPortable(*k, ds, recs, o1, o2, swap)
}, nil, countPortable}

// Default is the path internal/cpu chose for this process: the widest the
// CPU has, or the one IBRESERVOIR_KERNEL forces.
var Default = mustPath(cpu.Kernel())

func mustPath(name string) *Path {
	p, err := PathFor(name)
	if err != nil {
		panic(err) // internal/cpu chose a path it reports available
	}
	return p
}

// PathFor returns the named path, or an error when this CPU cannot run it
// (whatever the environment forces: benchmarks and tests compare every path
// the CPU has).
func PathFor(name string) (*Path, error) {
	for _, a := range cpu.Available() {
		if a != name {
			continue
		}
		for _, p := range append(simdPaths, Portable, Reference) {
			if p.name == name {
				return p, nil
			}
		}
	}
	return nil, fmt.Errorf("kernel: no %q path on this CPU; it has %v", name, cpu.Available())
}

// Name is the path's name.
func (p *Path) Name() string { return p.name }

// Parity applies the parity contract. recs holds len(recs)/RecWords
// records; out1 is at least len(ds) long, and out2 either as long or empty
// (one output).
func (p *Path) Parity(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	checkRecs(ds, recs, out1, out2, quad)
	if len(ds) == 0 || len(recs) == 0 {
		return
	}
	p.parity(ds, recs, out1, out2, quad, mask)
}

// Sip applies the SipHash contract. recs holds len(recs)/RecWords records;
// out1 is at least len(ds) long, and out2 either as long or empty.
func (p *Path) Sip(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	checkRecs(ds, recs, out1, out2, true)
	if len(ds) == 0 || len(recs) == 0 {
		return
	}
	p.sip(&key, ds, recs, out1, out2, swap)
}

// Parity applies the parity contract with the Default path.
func Parity(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	Default.Parity(ds, recs, out1, out2, quad, mask)
}

// ParityGeneric is the plain-Go reference of the parity contract.
func ParityGeneric(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	Reference.Parity(ds, recs, out1, out2, quad, mask)
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

// Sip applies the SipHash contract with the Default path.
func Sip(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	Default.Sip(key, ds, recs, out1, out2, swap)
}

// SipGeneric is the plain-Go reference of the SipHash contract.
func SipGeneric(key SipKey, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	Reference.Sip(key, ds, recs, out1, out2, swap)
}

// Kernel names the path Parity and Sip use: "avx512", "avx2", "portable" or
// "reference" (internal/cpu's Kernel).
func Kernel() string { return Default.name }

// Each kernel and its reference implement one contract.
func _() {
	g := parityPortable
	g = parityGeneric
	h := sipPortable
	h = sipGeneric
	_, _ = g, h
}

func checkRecs(ds []uint32, recs []uint32, out1, out2 []int64, quad bool) {
	if len(recs)%RecWords != 0 {
		panic(fmt.Sprintf("kernel: %d record words, not a multiple of %d", len(recs), RecWords))
	}
	if len(out1) < len(ds) || (len(out2) != 0 && len(out2) < len(ds)) {
		panic(fmt.Sprintf("kernel: %d links but outputs of %d and %d", len(ds), len(out1), len(out2)))
	}
	var s1, s2 int64
	for i := 0; i < len(recs); i += RecWords {
		if !quad && recs[i+1] != 0 {
			panic(fmt.Sprintf("kernel: record %d has A = %#x but quad is false", i/RecWords, recs[i+1]))
		}
		s1 += abs32(recs[i+2])
		s2 += abs32(recs[i+3])
	}
	if s1 > MaxSum || (len(out2) != 0 && s2 > MaxSum) {
		panic(fmt.Sprintf("kernel: the weights of %d records sum to %d and %d in magnitude, beyond the 32-bit lanes' %d", len(recs)/RecWords, s1, s2, MaxSum))
	}
}

// abs32 is |int32(w)|, without a branch (the weights' signs follow the
// packets' bits: a branch would be mispredicted half the time).
func abs32(w uint32) int64 {
	v := int64(int32(w))
	m := v >> 63
	return v ^ m - m
}

func parityGeneric(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	two := len(out2) != 0
	for i := 0; i+RecWords <= len(recs); i += RecWords {
		b, a := recs[i], recs[i+1]
		if !quad {
			a = 0
		}
		w1, w2 := int64(int32(recs[i+2])), int64(int32(recs[i+3]))
		for j, d := range ds {
			if bits.OnesCount32((a*d*d+b*d)&mask)&1 == 1 {
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
	for i := 0; i+RecWords <= len(recs); i += RecWords {
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
