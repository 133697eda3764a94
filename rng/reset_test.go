// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"slices"
	"testing"
)

// TestReset holds each switch-side generator's reset state to the RTL's
// (ibr_gen_ideal 128'd1, ibr_gen_lfsr_lut Width'(1), ibr_gen_shiftreg
// RegReset with phase 0), written out as rng.State bits, and checks that
// Reset leaves a generator that draws from there.
func TestReset(t *testing.T) {
	for _, tc := range []struct {
		name string
		want State
	}{
		{"ideal", State{1, 0}},
		{"lfsr-lut/b16", State{1}},
		{"lfsr-lut/b5/k3", State{1}},
		// l = 1..8: r_l[0] at bit l(l-1)/2 is 0, the other 35 of 36 bits 1.
		{"shiftreg/per-draw", State{(1<<36 - 1) &^ (1<<0 | 1<<1 | 1<<3 | 1<<6 | 1<<10 | 1<<15 | 1<<21 | 1<<28)}},
		// The free-running draw count (Q = 3: 2 bits above the registers) is 0.
		{"shiftreg/free/2:3", State{(1<<36 - 1) &^ (1<<0 | 1<<1 | 1<<3 | 1<<6 | 1<<10 | 1<<15 | 1<<21 | 1<<28)}},
	} {
		g, err := New(tc.name, 12345, 8)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if slices.Equal(g.State(), tc.want) {
			t.Fatalf("%s: seed 12345 gives the reset state already; the test checks nothing", tc.name)
		}
		r, ok := g.(Resetter)
		if !ok {
			t.Fatalf("%s: not a Resetter", tc.name)
		}
		r.Reset()
		if got := g.State(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: reset state %s, want %s", tc.name, got.Hex(g.StateBits()), tc.want.Hex(g.StateBits()))
		}
		// The reset state is one the generator accepts and draws from.
		h := g.Clone()
		if err := h.SetState(tc.want); err != nil {
			t.Errorf("%s: SetState(reset state): %v", tc.name, err)
		}
		if g.Draw(2) != h.Draw(2) || !slices.Equal(g.State(), h.State()) {
			t.Errorf("%s: a draw from Reset differs from one from the loaded reset state", tc.name)
		}
	}
	if _, ok := Generator(&Sender{}).(Resetter); ok {
		t.Error("the sender's generator has a reset state; the switch has none of its state")
	}
}
