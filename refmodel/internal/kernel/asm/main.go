// Command asm generates mismatch_amd64.s, the AVX-512 form of the decode
// kernel's contract (see package kernel): run by go generate in the package
// directory. It exits non-zero when generation fails.
//
// Registers: sixteen candidate links per block, d in Z0 and d*d in Z1 (32-bit
// lanes); the block's mismatch sums in Z2/Z3 (out1, links 0-7 and 8-15, 64-bit
// lanes) and Z4/Z5 (out2). Per packet record, with its words broadcast from
// memory:
//
//	Z6 = B*d + A*d*d            VPMULLD.BCST x2, VPADDD
//	Z6 = popcount(Z6 & Mask)    VPANDD.BCST, VPOPCNTD
//	K3 = (Z6 ^ X) & 1 != 0      VPXORD.BCST, VPTESTMD  (the mismatching links)
//	Z2..Z5 -= 2w under K3       VPSUBQ.BCST with merge masking (K4 = K3>>8 for links 8-15)
//
// The last block's lanes past len(ds) load d = 0 (zeroing-masked load) and are
// never stored (K1, K2); masked loads past the end of a slice do not fault.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64")
	TEXT("mismatchAVX512", NOSPLIT, "func(ds []uint32, recs []uint64, out1, out2 []int64)")
	Doc("mismatchAVX512 is the AVX-512 kernel of the decode contract (kernel.go).",
		"It needs AVX-512 F, VL, BW and VPOPCNTDQ, and BMI2.")
	dsPtr := Load(Param("ds").Base(), GP64())
	nd := Load(Param("ds").Len(), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	o1 := Load(Param("out1").Base(), GP64())
	o2 := Load(Param("out2").Base(), GP64())

	Comment("recEnd = recs + 8*len(recs)")
	recEnd := GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 8}, recEnd)
	Comment("Z31 = 1 in every lane, for the parity test")
	one := GP32()
	MOVL(U32(1), one)
	VPBROADCASTD(one, Z31)

	j := GP64()
	XORQ(j, j)
	Label("block")
	CMPQ(j, nd)
	JAE(LabelRef("done"))

	Comment("K1: the block's live lanes, min(len(ds)-j, 16) of them; K2 = K1>>8")
	rem, lanes := GP64(), GP32()
	MOVQ(nd, rem)
	SUBQ(j, rem)
	MOVL(U32(0xFFFF), lanes)
	CMPQ(rem, U8(16))
	JAE(LabelRef("full"))
	BZHIL(rem.As32(), lanes, lanes)
	Label("full")
	KMOVW(lanes, K1)
	KSHIFTRW(U8(8), K1, K2)

	VMOVDQU32_Z(Mem{Base: dsPtr, Index: j, Scale: 4}, K1, Z0)
	VPMULLD(Z0, Z0, Z1)
	VPXORQ(Z2, Z2, Z2)
	VPXORQ(Z3, Z3, Z3)
	VPXORQ(Z4, Z4, Z4)
	VPXORQ(Z5, Z5, Z5)

	p := GP64()
	MOVQ(recs, p)
	Label("packet")
	CMPQ(p, recEnd)
	JAE(LabelRef("store"))
	VPMULLD_BCST(Mem{Base: p, Disp: 4}, Z0, Z6) // B*d
	VPMULLD_BCST(Mem{Base: p, Disp: 0}, Z1, Z7) // A*d*d
	VPADDD(Z7, Z6, Z6)
	VPANDD_BCST(Mem{Base: p, Disp: 8}, Z6, Z6) // & Mask
	VPOPCNTD(Z6, Z6)
	VPXORD_BCST(Mem{Base: p, Disp: 12}, Z6, Z6) // ^ X
	VPTESTMD(Z31, Z6, K3)
	KSHIFTRW(U8(8), K3, K4)
	VPSUBQ_BCST(Mem{Base: p, Disp: 16}, Z2, K3, Z2)
	VPSUBQ_BCST(Mem{Base: p, Disp: 16}, Z3, K4, Z3)
	VPSUBQ_BCST(Mem{Base: p, Disp: 24}, Z4, K3, Z4)
	VPSUBQ_BCST(Mem{Base: p, Disp: 24}, Z5, K4, Z5)
	ADDQ(U8(32), p)
	JMP(LabelRef("packet"))

	Label("store")
	Comment("out[j:j+16] += the block's sums, live lanes only")
	for _, o := range []struct {
		base   Register
		lo, hi VecPhysical
	}{{o1, Z2, Z3}, {o2, Z4, Z5}} {
		VMOVDQU64_Z(Mem{Base: o.base, Index: j, Scale: 8}, K1, Z8)
		VPADDQ(o.lo, Z8, Z8)
		VMOVDQU64(Z8, K1, Mem{Base: o.base, Index: j, Scale: 8})
		VMOVDQU64_Z(Mem{Base: o.base, Index: j, Scale: 8, Disp: 64}, K2, Z9)
		VPADDQ(o.hi, Z9, Z9)
		VMOVDQU64(Z9, K2, Mem{Base: o.base, Index: j, Scale: 8, Disp: 64})
	}
	ADDQ(U8(16), j)
	JMP(LabelRef("block"))

	Label("done")
	VZEROUPPER()
	RET()
	Generate()
}
