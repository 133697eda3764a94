// SPDX-License-Identifier: Apache-2.0

package kernel

import "ibreservoir/internal/cpu"

// simdPaths are the vector paths of amd64, widest first; internal/cpu says
// which of them the CPU may run (AVX-512 F, BW, DQ, VL and VPOPCNTDQ, with
// AVX2 and BMI2; AVX2 and BMI2).
var simdPaths = []*Path{
	{cpu.KernelAVX512, parityAVX512, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
		sipAVX512(&k.init, ds, recs, o1, o2, swap)
	}},
	{cpu.KernelAVX2, parityAVX2, func(k *SipKey, ds, recs []uint32, o1, o2 []int64, swap bool) {
		sipAVX2(&k.init, ds, recs, o1, o2, swap)
	}},
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
	_, _ = g, k
}
