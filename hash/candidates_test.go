// SPDX-License-Identifier: Apache-2.0

package hash

import "testing"

// TestMXMGolden pins MXM's definition to values computed apart from this
// package (Python's arbitrary-precision integers, reduced mod 2^32).
func TestMXMGolden(t *testing.T) {
	for _, c := range []struct{ id, d, want uint32 }{
		{0, 0, 0}, {1, 1, 0}, {2, 6, 1}, {44974351, 509, 1}, {0xFFFFFFFF, 0xFFFFFFFF, 0}, {3, 0x8001FD, 1},
	} {
		if got := MXM(c.id, c.d); got != c.want {
			t.Errorf("MXM(%d, %d) = %d, want %d", c.id, c.d, got, c.want)
		}
	}
}
