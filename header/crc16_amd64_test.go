// SPDX-License-Identifier: Apache-2.0

package header

import (
	"math/rand/v2"
	"testing"
)

// TestCLMULMatchesSlicing runs the carry-less-multiply VCRC (vcrcCLMUL)
// and slicing-by-16 from the same registers (the initial one, zero, all
// ones and random) over random bytes of every length it takes from 64 to
// 1,040 and some longer, at every alignment mod 16, and holds both to the
// bitwise definition; skipped, visibly, where the CPU or the path has no
// carry-less multiply.
func TestCLMULMatchesSlicing(t *testing.T) {
	if !useCLMUL {
		t.Skip("no carry-less multiply on this CPU, or a plain-Go path forced")
	}
	r := rand.New(rand.NewPCG(25, 26))
	buf := make([]byte, 8300)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	lengths := []int{4096, 4112, 8192}
	for n := 64; n <= 1040; n += 16 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for off := range 16 {
			b := buf[off : off+n]
			for _, reg := range []uint16{0xFFFF, 0, uint16(r.Uint32())} {
				want := slicingUpdateCRC16(reg, b)
				if got := uint16(vcrcCLMUL(uint32(reg), b)); got != want {
					t.Fatalf("len %d off %d register %#04x: CLMUL %#04x, slicing-by-16 %#04x", n, off, reg, got, want)
				}
			}
			if got, want := CRC16(b), crc16Bitwise(b); got != want {
				t.Fatalf("len %d off %d: CRC16 %#04x, bitwise %#04x", n, off, got, want)
			}
		}
	}
}
