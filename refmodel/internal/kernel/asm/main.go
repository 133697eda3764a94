// SPDX-License-Identifier: Apache-2.0

// Command asm generates avx512_amd64.s and avx2_amd64.s, the AVX-512 and
// AVX2 forms of the decode kernels' contracts (see package kernel; -isa
// chooses the file, avx2.go in this directory describes the AVX2 forms):
// run by go generate in the package directory. It exits non-zero when
// generation fails.
//
// # parityAVX512 (every hash.Form)
//
// Up to four blocks of sixteen links (a group of 64) stay in registers while
// every record of the call streams past them: d in Z0-Z3, d*d in Z4-Z7 (used
// only when quad), the 32-bit sums in Z8-Z11 (out1) and Z12-Z15 (out2). Per
// record and block:
//
//	Z16 = B*d (+ A*d*d)         VPMULLD.BCST (x2 and VPADDD when quad)
//	K   = the charged lanes     sign: VPMOVD2M (mask 1<<31)
//	                            parity: VPANDD mask, VPOPCNTD, VPTESTMD 1
//	sums += w1 (w2) under K     VPADDD.BCST with merge masking
//
// that is one multiply, one sign extraction and one or two masked adds per
// sixteen (packet, link) pairs for the multiplicative and parity hashes (the
// caller shifts a one-bit mask to bit 31), three more instructions for a
// wider mask (the CRC hashes). After the records, each block's sums are
// sign-extended to 64 bits and added to out1 (out2) under the block's lane
// mask. The inner loop is written out for every number of live blocks (1-4),
// with and without d*d, with one output or two, for the sign and the parity:
// thirty-two loops, one per shape, so that no lane of a dead block and no
// unused output costs an instruction.
//
// # sipAVX512 (SipHash-2-4 over the 8 bytes LE(id) || LE(d))
//
// Eight 64-bit lanes per block, two blocks (sixteen links) per record: each
// lane's message word is id | d<<32 (or, exchanged, the lane's value in the
// low half), and the whole of SipHash-2-4 on one 8-byte block runs in the
// lanes: v3 ^= m, two rounds, v0 ^= m, v3 ^= 8<<56, two rounds, v0 ^= 8<<56,
// v2 ^= 0xff, four rounds, h = v0^v1^v2^v3 (VPTERNLOGQ). A lane mismatches
// when bit 0 of h differs from the record's x (VPTESTMQ of h ^ x against 1),
// and the record's weights are added under that mask to 32-bit sums (eight
// lanes of a Y register per block and output), widened to 64 bits and added
// to out1 (out2) once per call.
package main

import (
	"flag"
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// isa selects the file to generate: avx512 (avx512_amd64.s) or avx2
// (avx2_amd64.s, avx2.go).
var isa = flag.String("isa", "avx512", "the kernels to generate: avx512 or avx2")

func main() {
	flag.Parse()
	ConstraintExpr("amd64")
	switch *isa {
	case "avx512":
		parity()
		sip()
	case "avx2":
		parityAVX2()
		sipAVX2()
		parityStepAVX2()
		countStepAVX2()
	default:
		fmt.Fprintf(os.Stderr, "asm: -isa %q: want avx512 or avx2\n", *isa)
		os.Exit(2)
	}
	Generate()
}

// Registers of parityAVX512, by block b = 0..3.
var (
	zD   = []VecPhysical{Z0, Z1, Z2, Z3}
	zDD  = []VecPhysical{Z4, Z5, Z6, Z7}
	zO1  = []VecPhysical{Z8, Z9, Z10, Z11}
	zO2  = []VecPhysical{Z12, Z13, Z14, Z15}
	zT   = []VecPhysical{Z16, Z17, Z18, Z19}
	zU   = []VecPhysical{Z20, Z21, Z22, Z23}
	kSgn = []Op{K1, K2, K3, K4}
)

func parity() {
	TEXT("parityAVX512", NOSPLIT, "func(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32)")
	Doc("parityAVX512 is the AVX-512 kernel of the parity contract (kernel.go).",
		"It needs AVX-512 F, VL, BW, DQ and VPOPCNTDQ, and BMI2.")
	dsPtr := Load(Param("ds").Base(), GP64())
	nd := Load(Param("ds").Len(), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	o1 := Load(Param("out1").Base(), GP64())
	o2 := Load(Param("out2").Base(), GP64())
	n2 := Load(Param("out2").Len(), GP64())
	quad := Load(Param("quad"), GP8())
	mask := Load(Param("mask"), GP32())

	Comment("recEnd = recs + 4*len(recs); the mask in Z29, 1 in Z30; sgn = 1 when the mask is bit 31 alone")
	recEnd := GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	VPBROADCASTD(mask, Z29)
	one := GP32()
	MOVL(U32(1), one)
	VPBROADCASTD(one, Z30)
	sgn := GP64()
	XORQ(sgn, sgn)
	CMPL(mask, U32(1<<31))
	SETEQ(sgn.As8())

	j := GP64()
	XORQ(j, j)
	Label("group")
	CMPQ(j, nd)
	JAE(LabelRef("done"))

	Comment("rem = len(ds) - j: the group's live links (more than 48: four blocks)")
	rem := GP64()
	MOVQ(nd, rem)
	SUBQ(j, rem)

	Comment("Load the group's d (zero past the end: a zero product has no sign bit) and clear the sums")
	for b := range 4 {
		k := GP32()
		lanes(rem, k, b)
		KMOVW(k, K5)
		VMOVDQU32_Z(Mem{Base: dsPtr, Index: j, Scale: 4, Disp: 64 * b}, K5, zD[b])
		VPMULLD(zD[b], zD[b], zDD[b])
		VPXORD(zO1[b], zO1[b], zO1[b])
		VPXORD(zO2[b], zO2[b], zO2[b])
	}

	Comment("Dispatch on the shape: live blocks (1-4), quad, two outputs")
	nb := GP64()
	MOVQ(rem, nb)
	ADDQ(U8(15), nb)
	SHRQ(U8(4), nb)
	CMPQ(nb, U8(4))
	JBE(LabelRef("nbok"))
	MOVQ(U32(4), nb)
	Label("nbok")
	Comment("shape = (nb-1) | quad<<2 | (len(out2) > 0)<<3 | sign<<4")
	shape := GP64()
	LEAQ(Mem{Base: nb, Disp: -1}, shape)
	q := GP64()
	MOVBQZX(quad, q)
	SHLQ(U8(2), q)
	ORQ(q, shape)
	two := GP64()
	XORQ(two, two)
	TESTQ(n2, n2)
	SETNE(two.As8())
	SHLQ(U8(3), two)
	ORQ(two, shape)
	sg := GP64()
	MOVQ(sgn, sg)
	SHLQ(U8(4), sg)
	ORQ(sg, shape)

	p := GP64()
	for s := range 32 {
		CMPQ(shape, U8(s))
		JE(LabelRef(fmt.Sprintf("shape%d", s)))
	}
	for s := range 32 {
		blocks, isQuad, isTwo, isSign := s&3+1, s&4 != 0, s&8 != 0, s&16 != 0
		Label(fmt.Sprintf("shape%d", s))
		Comment(fmt.Sprintf("%d blocks, quad %t, two outputs %t, sign %t", blocks, isQuad, isTwo, isSign))
		MOVQ(recs, p)
		loop := fmt.Sprintf("rec%d", s)
		Label(loop)
		CMPQ(p, recEnd)
		JAE(LabelRef("store"))
		for b := range blocks {
			VPMULLD_BCST(Mem{Base: p, Disp: 0}, zD[b], zT[b]) // B*d
			if isQuad {
				VPMULLD_BCST(Mem{Base: p, Disp: 4}, zDD[b], zU[b]) // A*d*d
				VPADDD(zU[b], zT[b], zT[b])
			}
			if isSign {
				VPMOVD2M(zT[b], kSgn[b])
			} else {
				VPANDD(Z29, zT[b], zT[b])
				VPOPCNTD(zT[b], zT[b])
				VPTESTMD(Z30, zT[b], kSgn[b])
			}
			VPADDD_BCST(Mem{Base: p, Disp: 8}, zO1[b], kSgn[b], zO1[b])
			if isTwo {
				VPADDD_BCST(Mem{Base: p, Disp: 12}, zO2[b], kSgn[b], zO2[b])
			}
		}
		ADDQ(U8(16), p)
		JMP(LabelRef(loop))
	}

	Label("store")
	Comment("out[j:j+64] += the sums widened to 64 bits, live lanes only; out2 only when given")
	for b := range 4 {
		k := GP32()
		lanes(rem, k, b)
		KMOVW(k, K5)
		KSHIFTRW(U8(8), K5, K6)
		widenAdd(o1, j, b, zO1[b])
		skip := fmt.Sprintf("skip2_%d", b)
		TESTQ(n2, n2)
		JE(LabelRef(skip))
		widenAdd(o2, j, b, zO2[b])
		Label(skip)
	}
	ADDQ(U8(64), j)
	JMP(LabelRef("group"))

	Label("done")
	VZEROUPPER()
	RET()
}

// lanes sets k to the live-lane mask of block b of sixteen lanes of a group
// whose live links number rem: the low min(max(rem-16b, 0), 16) bits.
func lanes(rem, k GPVirtual, b int) { laneMask(rem, k, b, 16) }

// laneMask sets k to the live-lane mask of block b of a group of blocks of
// width lanes: the low min(max(rem-width*b, 0), width) bits.
func laneMask(rem, k GPVirtual, b, width int) {
	r := GP64()
	MOVQ(rem, r)
	XORL(k, k)
	skip := fmt.Sprintf("lanes_%d_%d_%d", width, b, labelN)
	labelN++
	SUBQ(U32(width*b), r)
	JLE(LabelRef(skip))
	MOVL(U32(1<<width-1), k)
	CMPQ(r, U8(width))
	JAE(LabelRef(skip))
	BZHIL(r.As32(), k, k)
	Label(skip)
}

var labelN int

// widenAdd adds the sixteen 32-bit sums in z to out[j+16b .. j+16b+16] as
// 64-bit values, under K5 (lanes 0-7) and K6 (lanes 8-15).
func widenAdd(out, j Register, b int, z VecPhysical) {
	lo, hi := Z24, Z25
	VPMOVSXDQ(z.AsY(), lo)
	VEXTRACTI32X8(U8(1), z, Y26)
	VPMOVSXDQ(Y26, hi)
	VMOVDQU64_Z(Mem{Base: out, Index: j, Scale: 8, Disp: 128 * b}, K5, Z27)
	VPADDQ(lo, Z27, Z27)
	VMOVDQU64(Z27, K5, Mem{Base: out, Index: j, Scale: 8, Disp: 128 * b})
	VMOVDQU64_Z(Mem{Base: out, Index: j, Scale: 8, Disp: 128*b + 64}, K6, Z28)
	VPADDQ(hi, Z28, Z28)
	VMOVDQU64(Z28, K6, Mem{Base: out, Index: j, Scale: 8, Disp: 128*b + 64})
}

// sipRound is one SipRound on the four state registers of a block.
func sipRound(v0, v1, v2, v3 VecPhysical) {
	VPADDQ(v1, v0, v0)
	VPROLQ(U8(13), v1, v1)
	VPXORQ(v0, v1, v1)
	VPROLQ(U8(32), v0, v0)
	VPADDQ(v3, v2, v2)
	VPROLQ(U8(16), v3, v3)
	VPXORQ(v2, v3, v3)
	VPADDQ(v3, v0, v0)
	VPROLQ(U8(21), v3, v3)
	VPXORQ(v0, v3, v3)
	VPADDQ(v1, v2, v2)
	VPROLQ(U8(17), v1, v1)
	VPXORQ(v2, v1, v1)
	VPROLQ(U8(32), v2, v2)
}

func sip() {
	TEXT("sipAVX512", NOSPLIT, "func(init *[4]uint64, ds []uint32, recs []uint32, out1, out2 []int64, swap bool)")
	Doc("sipAVX512 is the AVX-512 kernel of the SipHash contract (kernel.go).",
		"It needs AVX-512 F, VL, BW and DQ, and BMI2.")
	ip := Load(Param("init"), GP64())
	dsPtr := Load(Param("ds").Base(), GP64())
	nd := Load(Param("ds").Len(), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	o1 := Load(Param("out1").Base(), GP64())
	o2 := Load(Param("out2").Base(), GP64())
	n2 := Load(Param("out2").Len(), GP64())
	swap := Load(Param("swap"), GP8())

	Comment("The initial state v0..v3 in Z0-Z3; 8<<56 in Z4, 0xff in Z5, 1 in Z6")
	for i, z := range []VecPhysical{Z0, Z1, Z2, Z3} {
		VPBROADCASTQ(Mem{Base: ip, Disp: 8 * i}, z)
	}
	c := GP64()
	MOVQ(U64(8<<56), c)
	VPBROADCASTQ(c, Z4)
	MOVQ(U64(0xff), c)
	VPBROADCASTQ(c, Z5)
	MOVQ(U64(1), c)
	VPBROADCASTQ(c, Z6)

	Comment("recEnd = recs + 4*len(recs); sh = 32 when the lanes hold the high half (d), 0 when exchanged")
	recEnd := GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	laneSh, recSh := GP64(), GP64()
	MOVQ(U64(32), laneSh)
	XORQ(recSh, recSh)
	TESTB(swap, swap)
	JE(LabelRef("sipnoswap"))
	XCHGQ(laneSh, recSh)
	Label("sipnoswap")
	VPBROADCASTQ(laneSh, Z7)

	j := GP64()
	XORQ(j, j)
	Label("sipgroup")
	CMPQ(j, nd)
	JAE(LabelRef("sipdone"))
	rem := GP64()
	MOVQ(nd, rem)
	SUBQ(j, rem)

	Comment("Two blocks of eight lanes: the lanes' values shifted into place (zero past the end), sums cleared")
	lanesZ := []VecPhysical{Z8, Z9}
	acc1 := []VecPhysical{Y10, Y11}
	acc2 := []VecPhysical{Y12, Y13}
	for b := range 2 {
		k := GP32()
		laneMask(rem, k, b, 8)
		KMOVB(k, K1)
		VPMOVZXDQ_Z(Mem{Base: dsPtr, Index: j, Scale: 4, Disp: 32 * b}, K1, lanesZ[b])
		VPSLLVQ(Z7, lanesZ[b], lanesZ[b])
		VPXORD(acc1[b], acc1[b], acc1[b])
		VPXORD(acc2[b], acc2[b], acc2[b])
	}

	p := GP64()
	MOVQ(recs, p)
	Label("siprec")
	CMPQ(p, recEnd)
	JAE(LabelRef("sipstore"))
	Comment("m = lanes | a<<recSh; x broadcast")
	a := GP64()
	MOVL(Mem{Base: p}, a.As32())
	SHLXQ(recSh, a, a)
	VPBROADCASTQ(a, Z14)
	x := GP64()
	MOVL(Mem{Base: p, Disp: 4}, x.As32())
	VPBROADCASTQ(x, Z15)
	st := [][4]VecPhysical{{Z16, Z17, Z18, Z19}, {Z20, Z21, Z22, Z23}}
	ms := []VecPhysical{Z24, Z25}
	for b := range 2 {
		VPORQ(Z14, lanesZ[b], ms[b])
		VMOVDQA64(Z0, st[b][0])
		VMOVDQA64(Z1, st[b][1])
		VMOVDQA64(Z2, st[b][2])
		VPXORQ(Z3, ms[b], st[b][3])
	}
	for range 2 {
		for b := range 2 {
			sipRound(st[b][0], st[b][1], st[b][2], st[b][3])
		}
	}
	for b := range 2 {
		VPXORQ(ms[b], st[b][0], st[b][0])
		VPXORQ(Z4, st[b][3], st[b][3])
	}
	for range 2 {
		for b := range 2 {
			sipRound(st[b][0], st[b][1], st[b][2], st[b][3])
		}
	}
	for b := range 2 {
		VPXORQ(Z4, st[b][0], st[b][0])
		VPXORQ(Z5, st[b][2], st[b][2])
	}
	for range 4 {
		for b := range 2 {
			sipRound(st[b][0], st[b][1], st[b][2], st[b][3])
		}
	}
	kb := []Op{K2, K3}
	for b := range 2 {
		Comment("h = v0^v1^v2^v3 ^ x; a lane charges when bit 0 is set")
		VPTERNLOGQ(U8(0x96), st[b][2], st[b][1], st[b][0])
		VPTERNLOGQ(U8(0x96), Z15, st[b][3], st[b][0])
		VPTESTMQ(Z6, st[b][0], kb[b])
		VPADDD_BCST(Mem{Base: p, Disp: 8}, acc1[b], kb[b], acc1[b])
		VPADDD_BCST(Mem{Base: p, Disp: 12}, acc2[b], kb[b], acc2[b])
	}
	ADDQ(U8(16), p)
	JMP(LabelRef("siprec"))

	Label("sipstore")
	Comment("out[j:j+16] += the sums widened to 64 bits, live lanes only; out2 only when given")
	for b := range 2 {
		k := GP32()
		laneMask(rem, k, b, 8)
		KMOVB(k, K1)
		for o, acc := range [][]VecPhysical{acc1, acc2} {
			base := []Register{o1, o2}[o]
			skip := fmt.Sprintf("sipskip_%d_%d", b, o)
			if o == 1 {
				TESTQ(n2, n2)
				JE(LabelRef(skip))
			}
			VPMOVSXDQ(acc[b], Z26)
			VMOVDQU64_Z(Mem{Base: base, Index: j, Scale: 8, Disp: 64 * b}, K1, Z27)
			VPADDQ(Z26, Z27, Z27)
			VMOVDQU64(Z27, K1, Mem{Base: base, Index: j, Scale: 8, Disp: 64 * b})
			if o == 1 {
				Label(skip)
			}
		}
	}
	ADDQ(U8(16), j)
	JMP(LabelRef("sipgroup"))

	Label("sipdone")
	VZEROUPPER()
	RET()
}
