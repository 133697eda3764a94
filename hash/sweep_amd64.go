// SPDX-License-Identifier: Apache-2.0

package hash

import "ibreservoir/internal/cpu"

func init() {
	switch {
	case cpu.AVX512:
		fastKernels = &kernelsZmm
	case cpu.AVX2:
		fastKernels = &kernelsYmm
	}
}

// availableKernels lists every kernel set this CPU can run, widest first,
// for the cross-checks (which run each against the reference).
func availableKernels() []*kernelSet {
	var ks []*kernelSet
	if cpu.AVX512 {
		ks = append(ks, &kernelsZmm)
	}
	if cpu.AVX2 {
		ks = append(ks, &kernelsYmm)
	}
	return ks
}
