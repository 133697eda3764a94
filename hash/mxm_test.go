// SPDX-License-Identifier: Apache-2.0

package hash

import "testing"

// TestMXMGolden pins mxm's definition to values computed apart from this
// package (Python's arbitrary-precision integers, reduced mod 2^32).
func TestMXMGolden(t *testing.T) {
	f := New(MXM)
	for _, c := range []struct{ id, d, want uint32 }{
		{0, 0, 0}, {1, 1, 0}, {2, 6, 1}, {44974351, 509, 1}, {0xFFFFFFFF, 0xFFFFFFFF, 0}, {3, 0x8001FD, 1},
	} {
		if got := f.Bit(c.id, c.d); got != c.want {
			t.Errorf("mxm(%d, %d) = %d, want %d", c.id, c.d, got, c.want)
		}
		if got := MXMFromK(Mult0Const*c.d, c.id); got != c.want {
			t.Errorf("MXMFromK(1846571429*%d, %d) = %d, want %d", c.d, c.id, got, c.want)
		}
	}
}
