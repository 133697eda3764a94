// SPDX-License-Identifier: Apache-2.0

package rng

// Resetter is implemented by the switch-side generators, whose hardware
// (package verilog) has a reset state: the state the RTL's rst_ni gives the
// port's generator, which it draws from until a state is loaded
// (docs/spec.md section 4, "Reset state"). The sender NIC's generator has no
// switch-side state and no reset.
type Resetter interface {
	// Reset puts the generator in its reset state.
	Reset()
}

// Reset is the ideal generator's reset state: s0 = 1, s1 = s2 = s3 = 0
// (ibr_gen_ideal's 128'd1), the smallest state that is not xoshiro128**'s
// all-zero fixed point.
func (g *Ideal) Reset() { g.s = [4]uint32{1, 0, 0, 0} }

// Reset is the LFSR's reset state: the register holds 1 (ibr_gen_lfsr_lut's
// Width'(1)), the smallest state that is not the all-zero lock-up state.
func (g *LFSRLUT) Reset() {
	if err := g.reg.SetState(1); err != nil {
		panic("rng: an LFSR refuses the state 1: " + err.Error()) // every LFSR holds 1
	}
}

// Reset is the shift registers' reset state: every register's 0 at its
// output (r_l[0] = 0, every other bit 1; ibr_gen_shiftreg's RegReset), and
// the free-running draw count 0.
func (g *ShiftReg) Reset() {
	for l := range g.pos {
		g.pos[l] = 0
	}
	g.phase = 0
}
