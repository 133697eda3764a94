// SPDX-License-Identifier: Apache-2.0

// Command asmgen generates the AVX-512 and AVX2 sweep kernels of package hash
// (sweep_amd64.s) and the Go table that declares and describes them
// (sweep_kernels_amd64.go). It is run by `go generate ./hash` and exits
// non-zero if anything fails.
//
// It lives in its own module so that avo and its dependencies stay out of the
// ibreservoir build; the generated files are committed.
//
// # What a kernel computes
//
// A kernel evaluates one Form h(x) = parity((A*x*x + B*x) & Mask) ^ C, or two
// (f and g), over consecutive x without a single multiply. The algebra (all
// mod 2^32, which is exact because x -> x mod 2^32 is a ring homomorphism):
//
//	p(x)         = A*x^2 + B*x
//	p(x+S)-p(x)  = A*(2*x*S + S^2) + B*S  =: D(x)      first difference, stride S
//	D(x+S)-D(x)  = 2*A*S^2                =: E         second difference, a constant
//
// Lane k of the kernel (k = 0 .. S-1, S = U*W for U unrolled vectors of W
// 32-bit lanes) starts at x = x0+k holding p(x0+k) and D(x0+k); package hash
// computes those with multiplies, once. Each iteration then visits S new
// values with, per vector, p += D and (only when A != 0, the "Quad" kernels)
// D += E. The "Lin" kernels skip the second add; they serve every pair of
// forms whose A are both 0 (every hash but double with the id fixed).
//
// Per vector the kernel counts the x with parity(p(x) & Mask) = 1 (CountOnes)
// or with parity((f(x) & Mf) ^ (g(x) & Mg)) = 1 (CountAgree counts the
// disagreements; the constants C are applied by package hash):
//
//   - "Sign" kernels, both masks 1<<31 (single, double, mult0): the parity is
//     bit 31, so the count is the sum of t>>31 with t = p or t = f^g.
//   - "Par" kernels, any mask: AVX-512 takes VPOPCNTD(t) & 1; AVX2 folds the
//     32 bits to 4 (t ^= t>>16; t ^= t>>8; t ^= t>>4; t &= 15) and looks the
//     parity of that nibble up with VPSHUFB in the 16-entry table 0x6996.
//
// Each of the U vectors has its own 32-bit accumulator per lane. A call runs n
// iterations, so a lane counts at most n <= 2^32/S; the U accumulators are
// summed lane-wise (at most 2^32/W) and stored, and package hash adds the W
// lanes in 64 bits.
//
// The state block the kernels read (package hash's kstate) is
//
//	offset    0  f[64]    p_f(x0+k)
//	offset  256  df[64]   D_f(x0+k)
//	offset  512  g[64]    p_g(x0+k)
//	offset  768  dg[64]   D_g(x0+k)
//	offset 1024  ddf, ddg, mf, mg (uint32 each): E_f, E_g, Mask_f, Mask_g
//	offset 1088  out[16]  per-lane counts, written by the kernel
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// parityTable holds parity(i) in bit i, for i = 0..15.
const parityTable = 0x6996

const (
	offF   = 0
	offDF  = 256
	offG   = 512
	offDG  = 768
	offDDF = 1024
	offDDG = 1028
	offMF  = 1032
	offMG  = 1036
	offOut = 1088
)

type isa struct {
	name string // Zmm or Ymm, part of every kernel name
	cpu  string // the kernel set's name in package hash
	w    int    // 32-bit lanes per vector
	nreg int    // vector registers
	vec  func() reg.VecVirtual
}

var (
	avx512 = isa{"Zmm", "avx512", 16, 32, ZMM}
	avx2   = isa{"Ymm", "avx2", 8, 16, YMM}
)

type variant struct {
	pair bool // two forms (CountAgree) or one (CountOnes)
	sign bool // both masks are 1<<31
	quad bool // A != 0 somewhere: keep second differences
}

func (v variant) name() string {
	s := "Ones"
	if v.pair {
		s = "Agree"
	}
	if v.sign {
		s += "Sign"
	} else {
		s += "Par"
	}
	if v.quad {
		s += "Quad"
	} else {
		s += "Lin"
	}
	return s
}

// index is package hash's kernelIndex(pair, sign, quad).
func (v variant) index() int {
	i := 0
	if v.pair {
		i |= 4
	}
	if v.sign {
		i |= 2
	}
	if v.quad {
		i |= 1
	}
	return i
}

func variants() []variant {
	var vs []variant
	for _, pair := range []bool{false, true} {
		for _, sign := range []bool{true, false} {
			for _, quad := range []bool{false, true} {
				vs = append(vs, variant{pair, sign, quad})
			}
		}
	}
	return vs
}

// unroll picks the number of vectors per iteration: the largest of 4, 2, 1
// whose registers (per vector: p, D, and for pairs g, Dg, plus an accumulator;
// then the constants, and two temporaries) fit the register file.
func unroll(a isa, v variant) int {
	per := 3
	if v.pair {
		per = 5
	}
	consts := 0
	if v.quad {
		consts++
		if v.pair {
			consts++
		}
	}
	if !v.sign {
		consts++ // mf
		if v.pair {
			consts++ // mg
		}
		if a.w == 16 {
			consts++ // ones
		} else {
			consts += 2 // nibble mask and table
		}
	}
	for _, u := range []int{4, 2, 1} {
		if u*per+consts+2 <= a.nreg {
			return u
		}
	}
	panic("asmgen: no unroll fits")
}

type kernel struct {
	name  string
	isa   isa
	v     variant
	u     int
	lanes int
}

func kernels() []kernel {
	var ks []kernel
	for _, a := range []isa{avx512, avx2} {
		for _, v := range variants() {
			u := unroll(a, v)
			ks = append(ks, kernel{name: "sweep" + a.name + v.name(), isa: a, v: v, u: u, lanes: u * a.w})
		}
	}
	return ks
}

func main() {
	table := flag.String("table", "", "write the Go kernel table to this file")
	flag.Parse()
	if *table == "" {
		fmt.Fprintln(os.Stderr, "asmgen: -table is required")
		os.Exit(2)
	}
	ConstraintExpr("amd64")
	nib := GLOBL("parityNibbles", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		DATA(i, U8(uint8(uint16(parityTable)>>(i%16)&1)))
	}
	ks := kernels()
	for _, k := range ks {
		gen(k, nib)
	}
	if err := writeTable(*table, ks); err != nil {
		fmt.Fprintln(os.Stderr, "asmgen:", err)
		os.Exit(1)
	}
	Generate()
}

func gen(k kernel, nib Mem) {
	a, v := k.isa, k.v
	// The Go declaration (in the table file) types st as *kstate; the frame
	// layout is the same for any pointer.
	TEXT(k.name, NOSPLIT, "func(st *byte, n uint64)")
	Doc(fmt.Sprintf("%s runs n iterations of %d values (%d vectors of %d lanes) from the state at st.", k.name, k.lanes, k.u, a.w))
	st := Load(Param("st"), GP64())
	n := Load(Param("n"), GP64())

	z512 := a.w == 16
	load := func(off int) reg.VecVirtual {
		r := a.vec()
		if z512 {
			VMOVDQU32(Mem{Base: st, Disp: off}, r)
		} else {
			VMOVDQU(Mem{Base: st, Disp: off}, r)
		}
		return r
	}
	bcast := func(off int) reg.VecVirtual {
		r := a.vec()
		VPBROADCASTD(Mem{Base: st, Disp: off}, r)
		return r
	}
	add := func(x, y, dst reg.VecVirtual) {
		if z512 {
			VPADDD(x, y, dst)
		} else {
			VPADDD(x, y, dst)
		}
	}
	xor := func(x, y, dst reg.VecVirtual) {
		if z512 {
			VPXORD(x, y, dst)
		} else {
			VPXOR(x, y, dst)
		}
	}
	and := func(x, y, dst reg.VecVirtual) {
		if z512 {
			VPANDD(x, y, dst)
		} else {
			VPAND(x, y, dst)
		}
	}

	Comment("Lane state: p and D for each vector (and for g when counting agreement).")
	f := make([]reg.VecVirtual, k.u)
	df := make([]reg.VecVirtual, k.u)
	g := make([]reg.VecVirtual, k.u)
	dg := make([]reg.VecVirtual, k.u)
	acc := make([]reg.VecVirtual, k.u)
	for u := 0; u < k.u; u++ {
		f[u] = load(offF + 4*a.w*u)
		df[u] = load(offDF + 4*a.w*u)
		if v.pair {
			g[u] = load(offG + 4*a.w*u)
			dg[u] = load(offDG + 4*a.w*u)
		}
		acc[u] = a.vec()
		xor(acc[u], acc[u], acc[u])
	}
	var ddf, ddg, mf, mg, one, nibMask, tbl reg.VecVirtual
	if v.quad {
		ddf = bcast(offDDF)
		if v.pair {
			ddg = bcast(offDDG)
		}
	}
	if !v.sign {
		mf = bcast(offMF)
		if v.pair {
			mg = bcast(offMG)
		}
		if z512 {
			one = a.vec()
			VPTERNLOGD(U8(0xFF), one, one, one) // all ones
			VPSRLD(U8(31), one, one)
		} else {
			nibMask = a.vec()
			VPCMPEQD(nibMask, nibMask, nibMask)
			VPSRLD(U8(28), nibMask, nibMask)
			tbl = a.vec()
			VMOVDQU(nib, tbl)
		}
	}

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	for u := 0; u < k.u; u++ {
		t := a.vec()
		switch {
		case v.pair && v.sign:
			xor(g[u], f[u], t)
			VPSRLD(U8(31), t, t)
		case !v.pair && v.sign:
			VPSRLD(U8(31), f[u], t)
		default:
			and(mf, f[u], t)
			if v.pair {
				if z512 {
					VPTERNLOGD(U8(0x78), mg, g[u], t) // t ^= g & mg
				} else {
					t2 := a.vec()
					VPAND(mg, g[u], t2)
					VPXOR(t2, t, t)
				}
			}
			if z512 {
				VPOPCNTD(t, t)
				VPANDD(one, t, t)
			} else {
				for _, s := range []uint8{16, 8, 4} {
					t2 := a.vec()
					VPSRLD(U8(s), t, t2)
					VPXOR(t2, t, t)
				}
				VPAND(nibMask, t, t)
				VPSHUFB(t, tbl, t)
			}
		}
		add(t, acc[u], acc[u])
		add(df[u], f[u], f[u])
		if v.quad {
			add(ddf, df[u], df[u])
		}
		if v.pair {
			add(dg[u], g[u], g[u])
			if v.quad {
				add(ddg, dg[u], dg[u])
			}
		}
	}
	DECQ(n)
	JNZ(LabelRef("loop"))

	Label("done")
	for u := 1; u < k.u; u++ {
		add(acc[u], acc[0], acc[0])
	}
	if z512 {
		VMOVDQU32(acc[0], Mem{Base: st, Disp: offOut})
	} else {
		VMOVDQU(acc[0], Mem{Base: st, Disp: offOut})
	}
	VZEROUPPER()
	RET()
}

func writeTable(path string, ks []kernel) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by command: go run ./internal/asmgen (hash/internal/asmgen). DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "//go:build amd64\n\npackage hash\n\n")
	for _, k := range ks {
		fmt.Fprintf(&b, "//go:noescape\nfunc %s(st *kstate, n uint64)\n\n", k.name)
	}
	for _, a := range []isa{avx512, avx2} {
		fmt.Fprintf(&b, "// kernels%s lists the %s kernels, indexed by kernelIndex(pair, sign, quad).\n", a.name, a.name)
		fmt.Fprintf(&b, "var kernels%s = kernelSet{name: %q, k: [8]kernel{\n", a.name, a.cpu)
		for _, k := range ks {
			if k.isa.name != a.name {
				continue
			}
			fmt.Fprintf(&b, "\t%d: {fn: %s, lanes: %d, w: %d}, // kernelIndex(%v, %v, %v)\n", k.v.index(), k.name, k.lanes, a.w, k.v.pair, k.v.sign, k.v.quad)
		}
		fmt.Fprintf(&b, "}}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("format table: %w", err)
	}
	return os.WriteFile(path, src, 0o644)
}
