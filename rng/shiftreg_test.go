// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"math/big"
	"strings"
	"testing"
)

// TestShiftRegFigure56 follows the 3-bit register of Figure 5.6 under
// per-draw clocking: its 0 reaches the output once every 3 draws.
func TestShiftRegFigure56(t *testing.T) {
	g, _ := NewShiftReg(PerDraw, 1, 1, 0, 3)
	// Put r_3's 0 at position 2: outputs 1, 1, 0, 1, 1, 0, ...
	g.pos[3] = 2
	if err := g.SetState(g.State()); err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, true, false, false, true, false, false, true}
	for i, w := range want {
		if got := g.Draw(3); got != w {
			t.Fatalf("draw %d: %v, want %v", i, got, w)
		}
	}
	// Per-draw: drawing for l = 3 left the other registers where they were.
	h, _ := NewShiftReg(PerDraw, 1, 1, 0, 3)
	if g.pos[1] != h.pos[1] || g.pos[2] != h.pos[2] {
		t.Errorf("per-draw clocking moved registers not read")
	}
}

// TestShiftRegModels counts, for each model, the zeros over whole patterns
// and compares with P0, which for free-running clocks is enumerated.
func TestShiftRegModels(t *testing.T) {
	for _, c := range []struct {
		clock Clocking
		p, q  uint64
	}{
		{PerDraw, 1, 1}, {PerPacket, 1, 1},
		{FreeRunning, 7, 3}, {FreeRunning, 2, 1}, {FreeRunning, 3, 1}, {FreeRunning, 1, 2}, {FreeRunning, 1000, 7}, {FreeRunning, 6, 4},
	} {
		for seed := range uint64(5) {
			g, err := NewShiftReg(c.clock, c.p, c.q, seed, 12)
			if err != nil {
				t.Fatal(err)
			}
			for l := 1; l <= 12; l++ {
				// Draw(l) over q*l draws, from a copy, counts the zeros of
				// one whole pattern.
				d := g.Clone().(*ShiftReg)
				n := int64(c.q) * int64(l)
				var z int64
				for range n {
					if d.Draw(l) {
						z++
					}
				}
				if got, want := g.P0(l), big.NewRat(z, n); got.Cmp(want) != 0 {
					t.Errorf("%s seed %d l=%d: P0 %v, counted %v", g.Name(), seed, l, got, want)
				}
			}
		}
	}
	// 2:1 clocking never moves an even register's 0 relative to the reads.
	g, _ := NewShiftReg(FreeRunning, 2, 1, 0, 4)
	g.pos[2] = 0
	if g.P0(2).Cmp(big.NewRat(1, 1)) != 0 {
		t.Errorf("free 2:1, l=2, 0 at the output: P0 %v, want 1", g.P0(2))
	}
	g.pos[2] = 1
	if g.P0(2).Sign() != 0 {
		t.Errorf("free 2:1, l=2, 0 away from the output: P0 %v, want 0", g.P0(2))
	}
}

// TestShiftRegPerPacket: every register moves once per draw, whichever is read.
func TestShiftRegPerPacket(t *testing.T) {
	g, _ := NewShiftReg(PerPacket, 1, 1, 3, 8)
	before := append([]int(nil), g.pos...)
	g.Draw(5)
	for l := 1; l <= 8; l++ {
		if want := (before[l] + l - 1) % l; g.pos[l] != want {
			t.Errorf("r_%d: 0 at %d after a draw, want %d", l, g.pos[l], want)
		}
	}
}

// TestShiftRegFreeClocks checks floor((n+1)P/Q) - floor(nP/Q) for 7:3:
// 2, 2, 3, 2, 2, 3, ...
func TestShiftRegFreeClocks(t *testing.T) {
	g, _ := NewShiftReg(FreeRunning, 7, 3, 0, 1)
	want := []uint64{2, 2, 3}
	for n := range uint64(9) {
		if got := g.clocks(n % 3); got != want[n%3] {
			t.Errorf("clocks after draw %d: %d, want %d", n, got, want[n%3])
		}
	}
}

func TestShiftRegState(t *testing.T) {
	g, _ := NewShiftReg(FreeRunning, 7, 5, 11, 10)
	for range 7 {
		g.Draw(4)
	}
	if g.StateBits() != 55+3 {
		t.Fatalf("StateBits %d, want 55 register bits + 3 count bits", g.StateBits())
	}
	st := g.State()
	h, _ := NewShiftReg(FreeRunning, 7, 5, 0, 10)
	if err := h.SetState(st); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		l := i%10 + 1
		if a, b := g.Draw(l), h.Draw(l); a != b {
			t.Fatalf("after SetState, draw %d differs", i)
		}
	}
	// Refusals: two zeros in a register, none, count >= Q, stray bits.
	bad := g.State()
	bad[0] &^= 1 << 1 // r_2 (bits 1, 2): clear the 1, leaving two zeros or moving the zero
	bad[0] &^= 1 << 2
	if err := g.SetState(bad); err == nil || !strings.Contains(err.Error(), "l=2") {
		t.Errorf("register with two zeros accepted: %v", err)
	}
	bad = g.State()
	bad[0] |= 0b110 // r_2 all ones
	if err := g.SetState(bad); err == nil {
		t.Errorf("register with no zero accepted")
	}
	bad = g.State()
	bad[0] |= 7 << 55 // count 7 >= Q = 5
	if err := g.SetState(bad); err == nil || !strings.Contains(err.Error(), "Q = 5") {
		t.Errorf("count >= Q accepted: %v", err)
	}
	bad = g.State()
	bad[0] |= 1 << 60
	if err := g.SetState(bad); err == nil {
		t.Errorf("bit beyond the state accepted")
	}
}

func TestShiftRegErrors(t *testing.T) {
	if _, err := NewShiftReg(FreeRunning, 0, 3, 0, 4); err == nil {
		t.Errorf("P = 0 accepted")
	}
	if _, err := NewShiftReg(FreeRunning, 1, MaxClockRatio+1, 0, 4); err == nil {
		t.Errorf("Q above the limit accepted")
	}
	if _, err := NewShiftReg(PerDraw, 1, 1, 0, MaxShiftRegL+1); err == nil {
		t.Errorf("maxL above the limit accepted")
	}
}
