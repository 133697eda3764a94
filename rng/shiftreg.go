// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"fmt"
	"math/big"
	"math/bits"
)

// ShiftReg is the circulating shift registers of Figure 5.6 (thesis section
// 5.9): for each l = 1..MaxL an l-bit register r_l holding a single 0 among
// 1s. A draw for l answers "r_l's output bit is 0" and then clocks.
//
// Register layout: r_l has bits r_l[0..l-1]; r_l[0] is the output; one clock
// rotates it toward the output, r_l[i] <- r_l[(i+1) mod l], so the 0 at
// position p moves to p-1 mod l and reaches the output once every l clocks.
//
// The clocking model, which the thesis leaves open ("clocked at a different
// frequency ... sampled once per packet"), is explicit:
//
//	per-draw    only the register just read is clocked, once
//	per-packet  every register is clocked once after each draw
//	free P/Q    every register is clocked floor((n+1)P/Q) - floor(nP/Q) times
//	            between draws n and n+1 (n counted from 0): a free-running
//	            clock P/Q times the draw rate, sampled at each draw
//
// Whole state (State, StateBits): the registers r_1..r_MaxL as bits,
// r_l[i] at bit l(l-1)/2 + i, then, for the free-running model only, the
// draw count modulo Q in the next bits.Len(Q-1) bits. A state whose register
// holds anything but a single 0 is refused.
type ShiftReg struct {
	clock Clocking
	p, q  uint64 // free-running ratio P/Q
	maxL  int
	pos   []int  // pos[l]: position of r_l's 0; pos[0] unused
	phase uint64 // draws so far, modulo q (free-running only)
}

// Clocking selects a shift-register clocking model.
type Clocking uint8

const (
	PerDraw Clocking = iota
	PerPacket
	FreeRunning
)

func (c Clocking) String() string {
	switch c {
	case PerDraw:
		return "per-draw"
	case PerPacket:
		return "per-packet"
	case FreeRunning:
		return "free"
	}
	return fmt.Sprintf("Clocking(%d)", uint8(c))
}

// Limits of the shift-register model: MaxShiftRegL registers, and a
// free-running ratio P/Q with P, Q in 1..MaxClockRatio.
const (
	MaxShiftRegL  = 256
	MaxClockRatio = 1 << 20
)

// NewShiftReg returns the Figure 5.6 registers for l = 1..maxL under the given
// clocking (p and q are used by FreeRunning only). Each register's 0 starts at
// a position drawn from seed by SplitMix64 (output mod l, for l = 1, 2, ...
// in turn); the draw count starts at 0.
func NewShiftReg(c Clocking, p, q uint64, seed uint64, maxL int) (*ShiftReg, error) {
	if maxL < 1 || maxL > MaxShiftRegL {
		return nil, fmt.Errorf("shiftreg: maxL %d outside 1..%d", maxL, MaxShiftRegL)
	}
	switch c {
	case PerDraw, PerPacket:
		p, q = 1, 1
	case FreeRunning:
		if p < 1 || p > MaxClockRatio || q < 1 || q > MaxClockRatio {
			return nil, fmt.Errorf("shiftreg/free/%d:%d: P and Q must be 1..%d", p, q, MaxClockRatio)
		}
	default:
		return nil, fmt.Errorf("shiftreg: unknown clocking %d", c)
	}
	g := &ShiftReg{clock: c, p: p, q: q, maxL: maxL, pos: make([]int, maxL+1)}
	for l := 1; l <= maxL; l++ {
		g.pos[l] = int(splitMix64(&seed) % uint64(l))
	}
	return g, nil
}

func (g *ShiftReg) Name() string {
	if g.clock == FreeRunning {
		return fmt.Sprintf("shiftreg/free/%d:%d", g.p, g.q)
	}
	return "shiftreg/" + g.clock.String()
}

func (g *ShiftReg) MaxL() int { return g.maxL }

// Clocking returns the model and the free-running ratio P/Q (1/1 otherwise).
func (g *ShiftReg) Clocking() (c Clocking, p, q uint64) { return g.clock, g.p, g.q }

// Position returns the position of r_l's 0 (0: at the output), and Phase the
// free-running model's draw count modulo Q (0 under the other models): what a
// draw for l compares, for test vectors aimed at the register's wrap.
func (g *ShiftReg) Position(l int) int { checkL(g, l); return g.pos[l] }
func (g *ShiftReg) Phase() uint64      { return g.phase }

func (g *ShiftReg) regBits() int   { return g.maxL * (g.maxL + 1) / 2 }
func (g *ShiftReg) phaseBits() int { return bits.Len64(g.q - 1) }

func (g *ShiftReg) StateBits() int {
	if g.clock == FreeRunning {
		return g.regBits() + g.phaseBits()
	}
	return g.regBits()
}

// Draw answers "r_l[0] is 0", then clocks as the model says.
func (g *ShiftReg) Draw(l int) bool {
	checkL(g, l)
	z := g.pos[l] == 0
	switch g.clock {
	case PerDraw:
		g.rotate(l, 1)
	case PerPacket:
		for i := 1; i <= g.maxL; i++ {
			g.rotate(i, 1)
		}
	case FreeRunning:
		m := g.clocks(g.phase)
		g.phase = (g.phase + 1) % g.q
		for i := 1; i <= g.maxL; i++ {
			g.rotate(i, m)
		}
	}
	return z
}

// clocks returns floor((n+1)P/Q) - floor(nP/Q) for n = phase (mod Q): the
// clocks between draw n and draw n+1.
func (g *ShiftReg) clocks(phase uint64) uint64 {
	return ((phase+1)*g.p)/g.q - (phase*g.p)/g.q
}

// rotate clocks r_l m times.
func (g *ShiftReg) rotate(l int, m uint64) {
	g.pos[l] = int((uint64(g.pos[l]) + uint64(l) - m%uint64(l)) % uint64(l))
}

func (g *ShiftReg) State() State {
	st := make(State, (g.StateBits()+63)/64)
	set := func(i int) { st[i/64] |= 1 << (i % 64) }
	for l := 1; l <= g.maxL; l++ {
		off := l * (l - 1) / 2
		for i := range l {
			if i != g.pos[l] {
				set(off + i)
			}
		}
	}
	if g.clock == FreeRunning {
		for i := range g.phaseBits() {
			if g.phase>>i&1 != 0 {
				set(g.regBits() + i)
			}
		}
	}
	return st
}

func (g *ShiftReg) SetState(st State) error {
	if want := (g.StateBits() + 63) / 64; len(st) != want {
		return fmt.Errorf("%s: state is %d words, want %d (%d bits)", g.Name(), len(st), want, g.StateBits())
	}
	bit := func(i int) uint64 { return st[i/64] >> (i % 64) & 1 }
	for i := g.StateBits(); i < 64*len(st); i++ {
		if bit(i) != 0 {
			return fmt.Errorf("%s: state bit %d set, beyond its %d bits", g.Name(), i, g.StateBits())
		}
	}
	pos := make([]int, g.maxL+1)
	for l := 1; l <= g.maxL; l++ {
		off := l * (l - 1) / 2
		zeros := 0
		for i := range l {
			if bit(off+i) == 0 {
				zeros++
				pos[l] = i
			}
		}
		if zeros != 1 {
			return fmt.Errorf("%s: register for l=%d (state bits %d..%d) holds %d zeros; it circulates exactly one", g.Name(), l, off, off+l-1, zeros)
		}
	}
	var phase uint64
	if g.clock == FreeRunning {
		for i := range g.phaseBits() {
			phase |= bit(g.regBits()+i) << i
		}
		if phase >= g.q {
			return fmt.Errorf("%s: draw count %d is not below Q = %d", g.Name(), phase, g.q)
		}
	}
	g.pos, g.phase = pos, phase
	return nil
}

func (g *ShiftReg) Clone() Generator {
	c := *g
	c.pos = append([]int(nil), g.pos...)
	return &c
}

// P0 is the exact long-run probability that draws for l answer 0, from the
// current state. Per-draw and per-packet clocking step r_l through all l
// positions, one per draw, so it is 1/l. A free-running clock advances r_l by
// R(n) = floor((c+n)P/Q) - floor(cP/Q) after n more draws (c the current
// count mod Q); R(n + Q*l) = R(n) + P*l, so the pattern repeats every Q*l draws
// and P0 is the fraction of n in [0, Q*l) with R(n) = pos_l mod l, counted
// exactly. It is 1/l only when the clock ratio lets r_l's 0 reach the output
// evenly: P = 2, Q = 1 and l = 2, for one, never moves the 0 (P0 is 0 or 1).
func (g *ShiftReg) P0(l int) *big.Rat {
	checkL(g, l)
	if g.clock != FreeRunning {
		return big.NewRat(1, int64(l))
	}
	ul := uint64(l)
	base := (g.phase * g.p) / g.q
	var hits uint64
	period := g.q * ul
	for n := range period {
		// draws n steps ahead: the phase wraps every Q draws, adding P clocks.
		c := g.phase + n
		r := (c/g.q)*g.p + ((c%g.q)*g.p)/g.q - base
		if (r % ul) == uint64(g.pos[l]) {
			hits++
		}
	}
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(hits), new(big.Int).SetUint64(period))
}
