// SPDX-License-Identifier: Apache-2.0

package main

// # parityAVX2 (every hash.Form)
//
// Eight 32-bit lanes per Y register. A group of G blocks of eight links stays
// in registers while every record of the call streams past it: d, and the
// 32-bit sums of out1 (and out2). Per record, B, w1 (w2, A) are broadcast
// once (VPBROADCASTD from the record), then per block:
//
//	T = B*d (+ (A*d)*d)        VPMULLD (x3 and VPADDD when quad)
//	parity only: T &= mask, then the parity in bit 31 (parityFold)
//	sums += bit 31 of T ? w1 (w2) : 0     VBLENDVPS (against a zero Z), VPADDD
//
// that is three instructions per eight (packet, link) pairs for the sign
// (the multiplicative and parity hashes), two more for a second output.
// AVX2 has sixteen Y registers: G is the most blocks (up to six, 48 links)
// whose d, sums, T (and U, a second temporary for quad, parity and two
// outputs), Z and broadcasts fit. Each of the eight classes (quad, two
// outputs, sign) has its own group loop, and inside it a record loop for
// every number of live blocks.
// The ds past the end load as zero (VPMASKMOVD under a lane mask: a zero
// product charges nothing), and the sums are widened to 64 bits and added
// to out1 (out2) under the lane masks (VPMASKMOVQ) once per group and call.
//
// # sipAVX2 (SipHash-2-4 over the 8 bytes LE(id) || LE(d))
//
// Four 64-bit lanes per Y register, two blocks (eight links) per record,
// interleaved: each lane's message word m is id | d<<32 (or, exchanged, the
// lane's value in the low half), and SipHash-2-4 on one 8-byte block runs in
// the lanes as in sipAVX512. AVX2 has no 64-bit rotate: a rotation by 32 is
// VPSHUFD, by 16 a VPSHUFB, the others a shift left, a shift right and an
// or. A lane mismatches when bit 0 of h = v0^v1^v2^v3 differs from the
// record's x; the record's weights, sign-extended, are added under that mask
// (VPAND with VPCMPEQQ's all-ones) to 64-bit sums held in registers, added to
// out1 (out2) under the lane masks once per group and call.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

// avx2Iota is the lane numbers 0..7 as dwords (offset 0) and 0..3 as
// qwords (offset 32), for the lane masks; avx2Rot16 the VPSHUFB control of a
// 64-bit rotation left by 16; avx2Sip the SipHash constants 8<<56 (offset
// 0), 0xff (32) and 1 (64), four qwords each.
var avx2Iota, avx2Rot16, avx2Sip, avx2Fold Mem

func avx2Data() {
	avx2Iota = GLOBL("avx2iota", RODATA|NOPTR)
	for i := range 8 {
		DATA(4*i, U32(i))
	}
	for i := range 4 {
		DATA(32+8*i, U64(i))
	}
	avx2Rot16 = GLOBL("avx2rot16", RODATA|NOPTR)
	for i := range 32 {
		// byte i of a rotated qword is byte (i-2) mod 8 of the qword
		q := i / 8 * 8
		DATA(i, U8(q%16+(i-q+6)%8))
	}
	avx2Fold = GLOBL("avx2fold", RODATA|NOPTR)
	for c, v := range []uint32{0x11111111, 0x88888888} {
		for i := range 8 {
			DATA(32*c+4*i, U32(v))
		}
	}
	avx2Sip = GLOBL("avx2sip", RODATA|NOPTR)
	for c, v := range []uint64{8 << 56, 0xff, 1} {
		for i := range 4 {
			DATA(32*c+8*i, U64(v))
		}
	}
}

// parityFold sets bit 31 of each lane of x to the parity of src & mask
// (the lane's other bits are left undefined), t a temporary: after x =
// src & mask, x ^= x>>1 and x ^= x>>2 leave in bit 4i the parity of nibble
// i; masked to those bits (0x11111111) and multiplied by 0x88888888, the
// lane's bits 31.. hold their sum (at most 8: no nibble's column carries),
// whose low bit is the parity. Two shifts and a multiply instead of five
// shifts (the shifts share one port).
func parityFold(mask Mem, src, x, t Op) {
	VPAND(mask, src, x)
	VPSRLD(U8(1), x, t)
	VPXOR(t, x, x)
	VPSRLD(U8(2), x, t)
	VPXOR(t, x, x)
	VPAND(avx2Fold, x, x)
	VPMULLD(avx2Fold.Offset(32), x, x)
}

// parityClass is one of the eight shapes of parityAVX2's group loop.
type parityClass struct{ quad, two, sign bool }

func (c parityClass) id() int { return b2i(c.quad) | b2i(c.two)<<1 | b2i(c.sign)<<2 }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// regs is the number of Y registers the class's record loop needs with g
// blocks: d and the sums per block, T, U (quad, parity or two outputs),
// zero, and the broadcasts of B, w1, A (quad) and w2 (two outputs).
func (c parityClass) regs(g int) int {
	return g*(2+b2i(c.two)) + 1 + b2i(c.quad || !c.sign || c.two) + 1 + 2 + b2i(c.quad) + b2i(c.two)
}

// maxBlocks bounds G: past six blocks a group's fixed costs are well
// amortized.
const maxBlocks = 6

// blocks is the class's G: the most blocks whose registers fit in sixteen.
func (c parityClass) blocks() int {
	for g := maxBlocks; g >= 1; g-- {
		if c.regs(g) <= 16 {
			return g
		}
	}
	panic(fmt.Sprintf("class %+v needs %d registers with one block", c, c.regs(1)))
}

// broadcastGP sets the Y register y to eight (32-bit) or four (64-bit)
// copies of the GP register r, through the X register of y.
func broadcastGP(r GPVirtual, y VecPhysical, q bool) {
	if q {
		VMOVQ(r, y.AsX())
		VPBROADCASTQ(y.AsX(), y)
	} else {
		VMOVD(r.As32(), y.AsX())
		VPBROADCASTD(y.AsX(), y)
	}
}

func parityAVX2() {
	avx2Data()
	TEXT("parityAVX2", NOSPLIT, "func(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32)")
	Doc("parityAVX2 is the AVX2 kernel of the parity contract (kernel.go).",
		"It needs AVX2.")
	dsPtr := Load(Param("ds").Base(), GP64())
	nd := Load(Param("ds").Len(), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	o1 := Load(Param("out1").Base(), GP64())
	o2 := Load(Param("out2").Base(), GP64())
	n2 := Load(Param("out2").Len(), GP64())
	quad := Load(Param("quad"), GP8())
	mask := Load(Param("mask"), GP32())

	Comment("recEnd = recs + 4*len(recs); the mask, broadcast, on the stack")
	recEnd := GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	maskMem := AllocLocal(32)
	VMOVD(mask, X0)
	VPBROADCASTD(X0, Y0)
	VMOVDQU(Y0, maskMem)

	Comment("class = quad | (len(out2) > 0)<<1 | (mask == 1<<31)<<2")
	class := GP64()
	MOVBQZX(quad, class)
	t := GP64()
	XORQ(t, t)
	TESTQ(n2, n2)
	SETNE(t.As8())
	SHLQ(U8(1), t)
	ORQ(t, class)
	XORQ(t, t)
	CMPL(mask, U32(1<<31))
	SETEQ(t.As8())
	SHLQ(U8(2), t)
	ORQ(t, class)
	for id := range 8 {
		CMPQ(class, U8(id))
		JE(LabelRef(fmt.Sprintf("class%d", id)))
	}
	JMP(LabelRef("done")) // unreachable: the classes cover every value

	j, rem, p, r := GP64(), GP64(), GP64(), GP64()
	for id := range 8 {
		c := parityClass{quad: id&1 != 0, two: id&2 != 0, sign: id&4 != 0}
		g := c.blocks()
		free := ymm
		take := func(n int) []VecPhysical { v := free[:n]; free = free[n:]; return v }
		yD, yO1 := take(g), take(g)
		var yO2 []VecPhysical
		if c.two {
			yO2 = take(g)
		}
		yT := take(1)[0]
		var yU, yA, yW2 VecPhysical
		if c.quad || !c.sign || c.two {
			yU = take(1)[0]
		}
		yB, yW1, yZ := take(1)[0], take(1)[0], take(1)[0]
		if c.quad {
			yA = take(1)[0]
		}
		if c.two {
			yW2 = take(1)[0]
		}
		pfx := fmt.Sprintf("c%d", id)

		Label(fmt.Sprintf("class%d", id))
		Comment(fmt.Sprintf("quad %t, two outputs %t, sign %t: groups of %d blocks (%d links)", c.quad, c.two, c.sign, g, 8*g))
		XORQ(j, j)
		Label(pfx + "group")
		CMPQ(j, nd)
		JAE(LabelRef("done"))
		Comment("rem = min(len(ds) - j, 8G): the group's live links")
		MOVQ(nd, rem)
		SUBQ(j, rem)
		MOVQ(U32(8*g), t)
		CMPQ(rem, t)
		CMOVQGT(t, rem)

		Comment("Load each live block's d (zero past the end) and clear the sums and Z")
		VPXOR(yZ, yZ, yZ)
		for b := range g {
			VPXOR(yD[b], yD[b], yD[b])
			VPXOR(yO1[b], yO1[b], yO1[b])
			if c.two {
				VPXOR(yO2[b], yO2[b], yO2[b])
			}
			skip := fmt.Sprintf("%sld%d", pfx, b)
			MOVQ(rem, r)
			SUBQ(U8(8*b), r)
			JLE(LabelRef(skip))
			broadcastGP(r, yT, false)
			VPCMPGTD(avx2Iota, yT, yT) // lane i live when r > i
			VPMASKMOVD(Mem{Base: dsPtr, Index: j, Scale: 4, Disp: 32 * b}, yT, yD[b])
			Label(skip)
		}

		Comment("Dispatch on the live blocks, ceil(rem/8)")
		MOVQ(rem, r)
		ADDQ(U8(7), r)
		SHRQ(U8(3), r)
		for nb := 1; nb < g; nb++ {
			CMPQ(r, U8(nb))
			JE(LabelRef(fmt.Sprintf("%sblocks%d", pfx, nb)))
		}
		JMP(LabelRef(fmt.Sprintf("%sblocks%d", pfx, g)))

		for nb := 1; nb <= g; nb++ {
			Label(fmt.Sprintf("%sblocks%d", pfx, nb))
			MOVQ(recs, p)
			loop := fmt.Sprintf("%srec%d", pfx, nb)
			Label(loop)
			CMPQ(p, recEnd)
			JAE(LabelRef(pfx + "store"))
			VPBROADCASTD(Mem{Base: p, Disp: 0}, yB)
			if c.quad {
				VPBROADCASTD(Mem{Base: p, Disp: 4}, yA)
			}
			VPBROADCASTD(Mem{Base: p, Disp: 8}, yW1)
			if c.two {
				VPBROADCASTD(Mem{Base: p, Disp: 12}, yW2)
			}
			for b := range nb {
				VPMULLD(yD[b], yB, yT) // B*d
				if c.quad {
					VPMULLD(yD[b], yA, yU) // (A*d)*d
					VPMULLD(yD[b], yU, yU)
					VPADDD(yU, yT, yT)
				}
				if !c.sign {
					parityFold(maskMem, yT, yT, yU)
				}
				// w where bit 31 of T is set, else 0
				if c.two {
					VBLENDVPS(yT, yW1, yZ, yU)
					VPADDD(yU, yO1[b], yO1[b])
					VBLENDVPS(yT, yW2, yZ, yT)
					VPADDD(yT, yO2[b], yO2[b])
				} else {
					VBLENDVPS(yT, yW1, yZ, yT)
					VPADDD(yT, yO1[b], yO1[b])
				}
			}
			ADDQ(U8(16), p)
			JMP(LabelRef(loop))
		}

		Label(pfx + "store")
		Comment("out[j:j+8G] += the sums widened to 64 bits, live lanes only")
		outs := []struct {
			base Register
			sums []VecPhysical
		}{{o1, yO1}}
		if c.two {
			outs = append(outs, struct {
				base Register
				sums []VecPhysical
			}{o2, yO2})
		}
		lo, hi, m, v := yT, yB, yW1, yZ // free after the records
		for b := range g {
			skip := fmt.Sprintf("%sst%d", pfx, b)
			MOVQ(rem, r)
			SUBQ(U8(8*b), r)
			JLE(LabelRef(skip))
			for _, o := range outs {
				VPMOVSXDQ(o.sums[b].AsX(), lo)
				VEXTRACTI128(U8(1), o.sums[b], hi.AsX())
				VPMOVSXDQ(hi.AsX(), hi)
				for h, w := range []VecPhysical{lo, hi} {
					if h == 1 {
						SUBQ(U8(4), r)
					}
					broadcastGP(r, m, true)
					VPCMPGTQ(avx2Iota.Offset(32), m, m) // lane i live when r-4h > i
					at := Mem{Base: o.base, Index: j, Scale: 8, Disp: 64*b + 32*h}
					VPMASKMOVQ(at, m, v)
					VPADDQ(w, v, v)
					VPMASKMOVQ(v, m, at)
				}
				ADDQ(U8(4), r)
			}
			Label(skip)
		}
		ADDQ(U8(8*g), j)
		JMP(LabelRef(pfx + "group"))
	}

	Label("done")
	VZEROUPPER()
	RET()
}

// sipRoundAVX2 is one SipRound on the four state registers of a block, t a
// temporary.
func sipRoundAVX2(v0, v1, v2, v3, t VecPhysical) {
	rotl := func(v VecPhysical, n int) {
		VPSLLQ(U8(n), v, t)
		VPSRLQ(U8(64-n), v, v)
		VPOR(t, v, v)
	}
	VPADDQ(v1, v0, v0)
	VPADDQ(v3, v2, v2)
	rotl(v1, 13)
	VPSHUFB(avx2Rot16, v3, v3)
	VPXOR(v0, v1, v1)
	VPXOR(v2, v3, v3)
	VPSHUFD(U8(0xb1), v0, v0)
	VPADDQ(v1, v2, v2)
	VPADDQ(v3, v0, v0)
	rotl(v1, 17)
	rotl(v3, 21)
	VPXOR(v2, v1, v1)
	VPXOR(v0, v3, v3)
	VPSHUFD(U8(0xb1), v2, v2)
}

func sipAVX2() {
	TEXT("sipAVX2", NOSPLIT, "func(init *[4]uint64, ds []uint32, recs []uint32, out1, out2 []int64, swap bool)")
	Doc("sipAVX2 is the AVX2 kernel of the SipHash contract (kernel.go).",
		"It needs AVX2.")
	ip := Load(Param("init"), GP64())
	dsPtr := Load(Param("ds").Base(), GP64())
	nd := Load(Param("ds").Len(), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	o1 := Load(Param("out1").Base(), GP64())
	o2 := Load(Param("out2").Base(), GP64())
	n2 := Load(Param("out2").Len(), GP64())
	swap := Load(Param("swap"), GP8())

	Comment("recEnd = recs + 4*len(recs); laneSh = 32 when the lanes hold the high half (d), 0 when exchanged")
	recEnd := GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	laneSh, recSh := GP64(), GP64()
	MOVQ(U64(32), laneSh)
	XORQ(recSh, recSh)
	TESTB(swap, swap)
	JE(LabelRef("sipnoswap"))
	XCHGQ(laneSh, recSh)
	Label("sipnoswap")

	// The stack: the two blocks' lane values (shifted into place) and
	// message words, and laneSh broadcast.
	lanesMem := AllocLocal(64)
	msMem := AllocLocal(64)
	shMem := AllocLocal(32)
	broadcastGP(laneSh, Y13, true)
	VMOVDQU(Y13, shMem)
	at := func(m Mem, b int) Mem { m.Disp += 32 * b; return m }
	st := [2][4]VecPhysical{{Y0, Y1, Y2, Y3}, {Y4, Y5, Y6, Y7}}
	acc1, acc2 := []VecPhysical{Y8, Y9}, []VecPhysical{Y10, Y11}
	tmp := Y12

	j, rem, r, p := GP64(), GP64(), GP64(), GP64()
	XORQ(j, j)
	Label("sipgroup")
	CMPQ(j, nd)
	JAE(LabelRef("sipdone"))
	Comment("rem = min(len(ds) - j, 8)")
	MOVQ(nd, rem)
	SUBQ(j, rem)
	MOVQ(U32(8), r)
	CMPQ(rem, r)
	CMOVQGT(r, rem)

	Comment("Two blocks of four lanes: the lanes' values shifted into place (zero past the end), sums cleared")
	VMOVDQU(shMem, Y13)
	for b := range 2 {
		VPXOR(acc1[b], acc1[b], acc1[b])
		VPXOR(acc2[b], acc2[b], acc2[b])
		VPXOR(Y14, Y14, Y14)
		skip := fmt.Sprintf("sipld%d", b)
		MOVQ(rem, r)
		SUBQ(U8(4*b), r)
		JLE(LabelRef(skip))
		broadcastGP(r, Y15, false)
		VPCMPGTD(avx2Iota, Y15.AsX(), X15) // lane i live when r > i
		VPMASKMOVD(Mem{Base: dsPtr, Index: j, Scale: 4, Disp: 16 * b}, X15, X14)
		VPMOVZXDQ(X14, Y14)
		VPSLLVQ(Y13, Y14, Y14)
		Label(skip)
		VMOVDQU(Y14, at(lanesMem, b))
	}

	MOVQ(recs, p)
	Label("siprec")
	CMPQ(p, recEnd)
	JAE(LabelRef("sipstore"))
	Comment("m = lanes | a<<recSh, kept on the stack; v3 = init3 ^ m, v0-v2 = init0-2")
	a := r
	MOVL(Mem{Base: p}, a.As32())
	SHLXQ(recSh, a, a)
	broadcastGP(a, tmp, true)
	for b := range 2 {
		VPOR(at(lanesMem, b), tmp, st[b][0])
		VMOVDQU(st[b][0], at(msMem, b))
		VPBROADCASTQ(Mem{Base: ip, Disp: 24}, st[b][3])
		VPXOR(st[b][0], st[b][3], st[b][3])
		for i := range 3 {
			VPBROADCASTQ(Mem{Base: ip, Disp: 8 * i}, st[b][i])
		}
	}
	rounds := func(n int) {
		for range n {
			for b := range 2 {
				sipRoundAVX2(st[b][0], st[b][1], st[b][2], st[b][3], tmp)
			}
		}
	}
	rounds(2)
	for b := range 2 {
		VPXOR(at(msMem, b), st[b][0], st[b][0])
		VPXOR(avx2Sip, st[b][3], st[b][3])
	}
	rounds(2)
	for b := range 2 {
		VPXOR(avx2Sip, st[b][0], st[b][0])
		VPXOR(avx2Sip.Offset(32), st[b][2], st[b][2])
	}
	rounds(4)
	one := avx2Sip.Offset(64)
	Comment("h = v0^v1^v2^v3; x in bit 0 of the qword at p+4 (the high half is w1: only bit 0 is read)")
	for b := range 2 {
		VPXOR(st[b][1], st[b][0], st[b][0])
		VPXOR(st[b][3], st[b][2], st[b][2])
		VPXOR(st[b][2], st[b][0], st[b][0])
	}
	xb, w1, w2 := st[0][1], st[0][2], st[0][3]
	VPBROADCASTQ(Mem{Base: p, Disp: 4}, xb)
	MOVLQSX(Mem{Base: p, Disp: 8}, r)
	broadcastGP(r, w1, true)
	MOVLQSX(Mem{Base: p, Disp: 12}, r)
	broadcastGP(r, w2, true)
	Comment("a lane charges when bit 0 of h ^ x is set: all ones by VPCMPEQQ against 1")
	for b := range 2 {
		h := st[b][0]
		VPXOR(xb, h, h)
		VPAND(one, h, h)
		VPCMPEQQ(one, h, h)
		VPAND(w1, h, tmp)
		VPADDQ(tmp, acc1[b], acc1[b])
		VPAND(w2, h, h)
		VPADDQ(h, acc2[b], acc2[b])
	}
	ADDQ(U8(16), p)
	JMP(LabelRef("siprec"))

	Label("sipstore")
	Comment("out[j:j+8] += the sums, live lanes only; out2 only when given")
	for b := range 2 {
		skip := fmt.Sprintf("sipst%d", b)
		MOVQ(rem, r)
		SUBQ(U8(4*b), r)
		JLE(LabelRef(skip))
		broadcastGP(r, Y13, true)
		VPCMPGTQ(avx2Iota.Offset(32), Y13, Y13) // lane i live when r > i
		for o, acc := range [][]VecPhysical{acc1, acc2} {
			base := []Register{o1, o2}[o]
			skip2 := fmt.Sprintf("sipskip%d_%d", b, o)
			if o == 1 {
				TESTQ(n2, n2)
				JE(LabelRef(skip2))
			}
			m := Mem{Base: base, Index: j, Scale: 8, Disp: 32 * b}
			VPMASKMOVQ(m, Y13, Y14)
			VPADDQ(acc[b], Y14, Y14)
			VPMASKMOVQ(Y14, Y13, m)
			if o == 1 {
				Label(skip2)
			}
		}
		Label(skip)
	}
	ADDQ(U8(8), j)
	JMP(LabelRef("sipgroup"))

	Label("sipdone")
	VZEROUPPER()
	RET()
}

// # parityStepAVX2 (the parity contract without d*d, on a Plan's layout)
//
// The links come cut into chunks in arithmetic progression (kernel's
// plan.go), eight chunks to a group: per group, the lanes' first links d0
// and steps s (16 words). A group of g blocks keeps only its sums in
// registers; per record, B, w1 (w2) are broadcast, then
//
//	T = B*d0, U = B*s          two VPMULLD per group (d0 and s from memory)
//	per block: T += U (past the first), then as parityAVX2 from T (one
//	output and the sign: sums += w1 & (T >> 31), VPSRAD, VPAND, VPADDD,
//	which runs faster than VBLENDVPS on AMD's Zen 2)
//
// so a block costs an add where parityAVX2 multiplies. A lane past the
// last chunk (d0 = s = 0) charges nothing. The sums of a group (g blocks
// for out1, then g for out2) are stored to sums as 32-bit words; the caller
// adds them to its outputs. g is a parameter: each class (two outputs,
// sign) has a record loop for every g up to its widest (stepBlocks: the
// sums, T, U, Z, a temporary, the broadcasts of w1 (w2), and a second
// temporary for a parity mask, in sixteen registers); a wider g returns
// false.

// stepClass is one of the four shapes of parityStepAVX2.
type stepClass struct{ two, sign bool }

func (c stepClass) regs(g int) int {
	return g*(1+b2i(c.two)) + 5 + b2i(c.two) + b2i(!c.sign)
}

func (c stepClass) blocks() int {
	g := 1
	for c.regs(g+1) <= 16 {
		g++
	}
	return g
}

func parityStepAVX2() {
	TEXT("parityStepAVX2", NOSPLIT, "func(groups []uint32, blocks int, recs []uint32, sums []int32, two bool, mask uint32) bool")
	Doc("parityStepAVX2 is the AVX2 step kernel of the parity contract without d*d",
		"(kernel.go, plan.go), blocks to a group: false when blocks is beyond the",
		"class's widest group.",
		"It needs AVX2.")
	gp := Load(Param("groups").Base(), GP64())
	ngw := Load(Param("groups").Len(), GP64())
	g := Load(Param("blocks"), GP64())
	recs := Load(Param("recs").Base(), GP64())
	nw := Load(Param("recs").Len(), GP64())
	sp := Load(Param("sums").Base(), GP64())
	two := Load(Param("two"), GP8())
	mask := Load(Param("mask"), GP32())

	Comment("recEnd = recs + 4*len(recs), groupEnd = groups + 4*len(groups); the mask, broadcast, on the stack")
	recEnd, groupEnd := GP64(), GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	LEAQ(Mem{Base: gp, Index: ngw, Scale: 4}, groupEnd)
	maskMem := AllocLocal(32)
	VMOVD(mask, X0)
	VPBROADCASTD(X0, Y0)
	VMOVDQU(Y0, maskMem)

	Comment("class = two | (mask == 1<<31)<<1")
	class, t := GP64(), GP64()
	MOVBQZX(two, class)
	XORQ(t, t)
	CMPL(mask, U32(1<<31))
	SETEQ(t.As8())
	SHLQ(U8(1), t)
	ORQ(t, class)
	CMPQ(g, U8(1))
	JL(LabelRef("stepfail"))
	for id := range 4 {
		c := stepClass{two: id&1 != 0, sign: id&2 != 0}
		CMPQ(class, U8(id))
		JNE(LabelRef(fmt.Sprintf("stepnot%d", id)))
		CMPQ(g, U8(c.blocks()))
		JG(LabelRef("stepfail"))
		for nb := 1; nb <= c.blocks(); nb++ {
			CMPQ(g, U8(nb))
			JE(LabelRef(fmt.Sprintf("s%dg%d", id, nb)))
		}
		Label(fmt.Sprintf("stepnot%d", id))
	}
	Label("stepfail")
	VZEROUPPER()
	fail := GP8()
	XORB(fail, fail)
	Store(fail, ReturnIndex(0))
	RET()

	p := GP64()
	for id := range 4 {
		c := stepClass{two: id&1 != 0, sign: id&2 != 0}
		for nb := 1; nb <= c.blocks(); nb++ {
			free := ymm
			take := func(n int) []VecPhysical { v := free[:n]; free = free[n:]; return v }
			yS1 := take(nb)
			var yS2 []VecPhysical
			if c.two {
				yS2 = take(nb)
			}
			yT, yU, yW1, yZ, yX := take(1)[0], take(1)[0], take(1)[0], take(1)[0], take(1)[0]
			var yW2, yY VecPhysical
			if c.two {
				yW2 = take(1)[0]
			}
			if !c.sign {
				yY = take(1)[0]
			}
			pfx := fmt.Sprintf("s%dg%d", id, nb)
			Label(pfx)
			Comment(fmt.Sprintf("two outputs %t, sign %t: groups of %d blocks", c.two, c.sign, nb))
			Label(pfx + "group")
			CMPQ(gp, groupEnd)
			JAE(LabelRef("stepdone"))
			VPXOR(yZ, yZ, yZ)
			for b := range nb {
				VPXOR(yS1[b], yS1[b], yS1[b])
				if c.two {
					VPXOR(yS2[b], yS2[b], yS2[b])
				}
			}
			MOVQ(recs, p)
			Label(pfx + "rec")
			CMPQ(p, recEnd)
			JAE(LabelRef(pfx + "store"))
			VPBROADCASTD(Mem{Base: p, Disp: 0}, yX)
			VPBROADCASTD(Mem{Base: p, Disp: 8}, yW1)
			if c.two {
				VPBROADCASTD(Mem{Base: p, Disp: 12}, yW2)
			}
			VPMULLD(Mem{Base: gp, Disp: 32}, yX, yU) // U = B*s
			VPMULLD(Mem{Base: gp, Disp: 0}, yX, yT)  // T = B*d0
			for b := range nb {
				if b > 0 {
					VPADDD(yU, yT, yT) // T = B*(d0 + b*s)
				}
				v := yT
				if !c.sign {
					parityFold(maskMem, yT, yX, yY)
					v = yX
				}
				// w where bit 31 of v is set, else 0
				if c.two {
					tmp := yX
					if !c.sign {
						tmp = yY
					}
					VBLENDVPS(v, yW1, yZ, tmp)
					VPADDD(tmp, yS1[b], yS1[b])
					VBLENDVPS(v, yW2, yZ, yX)
					VPADDD(yX, yS2[b], yS2[b])
				} else if c.sign {
					// one output, the sign: w & (T >> 31, arithmetic),
					// faster here than the select
					VPSRAD(U8(31), v, yX)
					VPAND(yW1, yX, yX)
					VPADDD(yX, yS1[b], yS1[b])
				} else {
					VBLENDVPS(v, yW1, yZ, yX)
					VPADDD(yX, yS1[b], yS1[b])
				}
			}
			ADDQ(U8(16), p)
			JMP(LabelRef(pfx + "rec"))

			Label(pfx + "store")
			Comment("the group's sums: nb blocks for out1, then nb for out2")
			for b := range nb {
				VMOVDQU(yS1[b], Mem{Base: sp, Disp: 32 * b})
				if c.two {
					VMOVDQU(yS2[b], Mem{Base: sp, Disp: 32 * (nb + b)})
				}
			}
			ADDQ(U32(32*nb*(1+b2i(c.two))), sp)
			ADDQ(U8(64), gp)
			JMP(LabelRef(pfx + "group"))
		}
	}

	Label("stepdone")
	VZEROUPPER()
	ok := GP8()
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// # countStepAVX2 (the count contract on a Plan's layout)
//
// As parityStepAVX2 with one output, without weights: per record, B is
// broadcast, T = B*d0 and U = B*s, and per block T += U (past the first)
// and sums += T >> 31 (arithmetic: minus one per record whose bit is set;
// with a parity mask, after the fold). The caller multiplies by the
// weight. Up to stepMaxBlocks (11) blocks per group.
func countStepAVX2() {
	TEXT("countStepAVX2", NOSPLIT, "func(groups []uint32, blocks int, bs []uint32, sums []int32, mask uint32) bool")
	Doc("countStepAVX2 is the AVX2 kernel of the count contract (plan.go), blocks",
		"to a group: false when blocks is beyond 11.",
		"It needs AVX2.")
	gp := Load(Param("groups").Base(), GP64())
	ngw := Load(Param("groups").Len(), GP64())
	g := Load(Param("blocks"), GP64())
	recs := Load(Param("bs").Base(), GP64())
	nw := Load(Param("bs").Len(), GP64())
	sp := Load(Param("sums").Base(), GP64())
	mask := Load(Param("mask"), GP32())

	Comment("recEnd = bs + 4*len(bs), groupEnd = groups + 4*len(groups); the mask, broadcast, on the stack")
	recEnd, groupEnd := GP64(), GP64()
	LEAQ(Mem{Base: recs, Index: nw, Scale: 4}, recEnd)
	LEAQ(Mem{Base: gp, Index: ngw, Scale: 4}, groupEnd)
	maskMem := AllocLocal(32)
	VMOVD(mask, X0)
	VPBROADCASTD(X0, Y0)
	VMOVDQU(Y0, maskMem)

	const most = 11
	CMPQ(g, U8(1))
	JL(LabelRef("countfail"))
	CMPQ(g, U8(most))
	JG(LabelRef("countfail"))
	for id := range 2 {
		sign := id == 1
		CMPL(mask, U32(1<<31))
		if sign {
			JNE(LabelRef(fmt.Sprintf("countnot%d", id)))
		} else {
			JE(LabelRef(fmt.Sprintf("countnot%d", id)))
		}
		for nb := 1; nb <= most; nb++ {
			CMPQ(g, U8(nb))
			JE(LabelRef(fmt.Sprintf("c%dg%d", id, nb)))
		}
		Label(fmt.Sprintf("countnot%d", id))
	}
	Label("countfail")
	VZEROUPPER()
	fail := GP8()
	XORB(fail, fail)
	Store(fail, ReturnIndex(0))
	RET()

	p := GP64()
	for id := range 2 {
		sign := id == 1
		for nb := 1; nb <= most; nb++ {
			yS := ymm[:nb]
			yT, yU, yX, yY := ymm[nb], ymm[nb+1], ymm[nb+2], ymm[nb+3]
			pfx := fmt.Sprintf("c%dg%d", id, nb)
			Label(pfx)
			Comment(fmt.Sprintf("sign %t: groups of %d blocks", sign, nb))
			Label(pfx + "group")
			CMPQ(gp, groupEnd)
			JAE(LabelRef("countdone"))
			for b := range nb {
				VPXOR(yS[b], yS[b], yS[b])
			}
			MOVQ(recs, p)
			Label(pfx + "rec")
			CMPQ(p, recEnd)
			JAE(LabelRef(pfx + "store"))
			VPBROADCASTD(Mem{Base: p}, yX)
			VPMULLD(Mem{Base: gp, Disp: 32}, yX, yU) // U = B*s
			VPMULLD(Mem{Base: gp, Disp: 0}, yX, yT)  // T = B*d0
			for b := range nb {
				if b > 0 {
					VPADDD(yU, yT, yT) // T = B*(d0 + b*s)
				}
				if sign {
					VPSRAD(U8(31), yT, yX)
				} else {
					parityFold(maskMem, yT, yX, yY)
					VPSRAD(U8(31), yX, yX)
				}
				VPADDD(yX, yS[b], yS[b])
			}
			ADDQ(U8(4), p)
			JMP(LabelRef(pfx + "rec"))

			Label(pfx + "store")
			for b := range nb {
				VMOVDQU(yS[b], Mem{Base: sp, Disp: 32 * b})
			}
			ADDQ(U32(32*nb), sp)
			ADDQ(U8(64), gp)
			JMP(LabelRef(pfx + "group"))
		}
	}

	Label("countdone")
	VZEROUPPER()
	ok := GP8()
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
}
