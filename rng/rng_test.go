// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestParseState reads back what Hex writes, for widths around every word
// and digit boundary, and refuses bad digits and bits beyond the width.
func TestParseState(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{0, 1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 136, 256} {
		st := make(State, (bits+63)/64)
		for i := range bits {
			st[i/64] |= uint64(r.IntN(2)) << (i % 64)
		}
		got, err := ParseState(st.Hex(bits), bits)
		if err != nil || !slices.Equal(got, st) {
			t.Errorf("%d bits: %s read back as %v (%v)", bits, st.Hex(bits), got, err)
		}
		if bits > 0 {
			if got, err := ParseState("1", bits); err != nil || got[0] != 1 {
				t.Errorf("%d bits: a short string: %v %v", bits, got, err)
			}
		}
		if _, err := ParseState("1"+strings.Repeat("0", (bits+3)/4), bits); err == nil {
			t.Errorf("%d bits: a bit beyond the width accepted", bits)
		}
	}
	if _, err := ParseState("12g4", 16); err == nil || !strings.Contains(err.Error(), "not a hex digit") {
		t.Errorf("a bad digit: %v", err)
	}
	if st, err := ParseState("ABCD", 16); err != nil || st[0] != 0xabcd {
		t.Errorf("upper case: %v %v", st, err)
	}
}
