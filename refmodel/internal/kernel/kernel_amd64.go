// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"fmt"

	"ibreservoir/internal/cpu"
)

// simdPaths are the vector paths of amd64, widest first; internal/cpu says
// which of them the CPU may run (AVX-512 F, BW, DQ, VL and VPOPCNTDQ, with
// AVX2 and BMI2; AVX2 and BMI2).
var simdPaths = []*Path{
	{cpu.KernelAVX512, parityAVX512, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
		sipAVX512(&k.init, ds, recs, o1, o2, swap)
	}, nil, nil},
	{cpu.KernelAVX2, parityAVX2, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
		sipAVX2(&k.init, ds, recs, o1, o2, swap)
	}, stepAVX2, countAVX2},
}

// Each assembly kernel and its reference implement one contract.
func _() {
	g := parityAVX512
	g = parityAVX2
	g = parityGeneric
	h := sipAVX512
	h = sipAVX2
	k := func(k SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) { h(&k.init, ds, recs, o1, o2, swap) }
	k = sipGeneric
	c := countAVX2
	c = countPortable
	_, _, _ = g, k, c
}

// stepAVX2 runs the AVX2 step kernel on the plan's layout of the least
// cost for the call's class (plan.go), and adds its sums to the outputs.
func stepAVX2(pl *Plan, recs []uint32, out1, out2 []int64, mask uint32) {
	two, sign := len(out2) != 0, mask == SignMask
	l := pl.bestLayout(stepBlocks(two, sign), two, sign)
	sums := pl.sums[:len(l.groups)/16*8*l.g*(1+b2i(two))]
	if !parityStepAVX2(l.groups, l.g, recs, sums, two, mask) {
		panic(fmt.Sprintf("kernel: the AVX2 step kernel takes no groups of %d blocks (two outputs %t, sign %t)", l.g, two, sign))
	}
	addSums(l, sums, out1, out2)
}

// countAVX2 runs the AVX2 count kernel on the plan's layout of the least
// cost (plan.go), and adds w times its counts to the output.
func countAVX2(pl *Plan, bs []uint32, out []int64, w int32, mask uint32) {
	l := pl.bestLayout(stepMaxBlocks, false, mask == SignMask)
	sums := pl.sums[:len(l.groups)/16*8*l.g]
	if !countStepAVX2(l.groups, l.g, bs, sums, mask) {
		panic(fmt.Sprintf("kernel: the AVX2 count kernel takes no groups of %d blocks", l.g))
	}
	addCounts(l, sums, out, w)
}
