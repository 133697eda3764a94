// SPDX-License-Identifier: Apache-2.0

package rtl

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/rng"
)

// candidateBits are the Go models of ibr_hash_candidates.sv's modules, in
// the testbench's bit order.
var candidateBits = []func(id, d uint32) uint32{
	hash.Mult0Fmix, hash.Mult0CRC, hash.Mult0Salt, hash.FmixXor, hash.CRC32Xor, hash.CRC32K, hash.MXA,
	hash.FmixXor, // ibr_hashcand_fmix_xor2
}

// TestHashCandidatesMatchModel simulates the candidate modules on 4096
// random and edge inputs in Icarus Verilog and requires the Go model's bits.
func TestHashCandidatesMatchModel(t *testing.T) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		t.Skip("iverilog is not installed")
	}
	dir := t.TempDir()
	var b strings.Builder
	g := rng.NewIdeal(0x5C4D, 2)
	ones := make([]int, len(candidateBits))
	for i := range 4096 {
		id, d := g.Next(), g.Next()
		switch i {
		case 0:
			id, d = 0, 0
		case 1:
			id, d = 0xFFFFFFFF, 0xFFFFFFFF
		case 2:
			id, d = 1, 509
		}
		var e uint32
		for j, f := range candidateBits {
			e |= f(id, d) << j
			ones[j] += int(f(id, d))
		}
		fmt.Fprintf(&b, "%08x %08x %08x %08x %08x\n", id, hash.Mult0Const*d, hash.Fmix32(d), d, e)
	}
	for j, n := range ones {
		if n == 0 || n == 4096 {
			t.Fatalf("candidate %d is constant on the vectors: they check nothing", j)
		}
	}
	simulateVectors(t, dir, b.String(), "ibr_hash_candidates.sv", "ibr_hash_candidates_tb.sv")
}
