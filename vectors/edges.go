// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"fmt"
	"math/bits"
	"sort"

	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// Comparator edges. A generator's draw compares a value with a bound (docs/spec.md
// section 4); an RTL comparator that is off by one (< for <=, a bound one too
// high or too low) differs from the model only when the compared value sits
// at the bound. Random vectors almost never put it there, so the directed
// cases put it there for every l and every bound, and every set counts how
// many of its vectors sit on each edge (manifest.json "edges"; verify's
// coverage).
//
//	ideal      l<l>/z-1, z, a-1, a    an output r of the draw equals Z(l)-1, Z(l), A(l)-1 or A(l)
//	                                  (rng.IdealBounds; z and a only when below 2^32, a-1 when not Z-1)
//	lfsr-lut   l<l>/t-1, t, t+1       the LFSR state equals T[l]-1, T[l] or T[l]+1 (rng.LUT)
//	shiftreg   l<l>/pos0, pos1,       register l's 0 at the output (the clock wraps it to l-1),
//	           pos-last, phase-wrap   at 1, at l-1; free-running: the draw count at Q-1 (it wraps)
//	sender     spent, to-spent/zero,  the field spent (1 0..0: left alone); the last draw it holds,
//	           to-spent/one           answering 0 (01 0..0) or not (11 0..0)

// An Edge is one comparator edge of a configuration's generator.
type Edge struct {
	L    int    // the draw's l; 0 for sender draws
	Kind string // z-1, t+1, pos0, spent, ...
}

func (e Edge) String() string {
	if e.L == 0 {
		return e.Kind
	}
	return fmt.Sprintf("l%d/%s", e.L, e.Kind)
}

var (
	idealKinds  = []string{"z-1", "z", "a-1", "a"}
	lfsrKinds   = []string{"t-1", "t", "t+1"}
	shiftKinds  = []string{"pos0", "pos1", "pos-last", "phase-wrap"}
	senderKinds = []string{"spent", "to-spent/zero", "to-spent/one"}
)

// edgeSet is the edges of one configuration, each a bit of a StageVector's
// Edges mask.
type edgeSet struct {
	gen   string // ideal, lfsr-lut, shiftreg, sender
	list  []Edge
	bit   [][]int8 // bit[l][kind]: the edge's bit, or -1 where it cannot occur
	a, z  []uint64 // ideal: the bounds per l
	t     []uint32 // lfsr-lut: T[l]
	width int      // lfsr-lut: the register width B
	q     uint64   // shiftreg: the free-running Q (1 for the other clockings)
	field int      // sender: hop_rand's width
}

// newEdgeSet lists the comparator edges of mc's generator.
func newEdgeSet(mc refmodel.Config, fieldBits int) (*edgeSet, error) {
	e := &edgeSet{field: fieldBits}
	maxL := mc.MaxL()
	e.bit = make([][]int8, maxL+1)
	for l := range e.bit {
		e.bit[l] = []int8{-1, -1, -1, -1}
	}
	add := func(l, kind int, names []string) {
		e.bit[l][kind] = int8(len(e.list))
		e.list = append(e.list, Edge{L: l, Kind: names[kind]})
	}
	if mc.SenderMode() {
		e.gen = "sender"
		for k := range senderKinds {
			add(0, k, senderKinds)
		}
		return e, nil
	}
	g, err := mc.NewPortGenerator(0, 1)
	if err != nil {
		return nil, err
	}
	switch g := g.(type) {
	case *rng.Ideal:
		e.gen = "ideal"
		e.a, e.z = make([]uint64, maxL+1), make([]uint64, maxL+1)
		for l := 1; l <= maxL; l++ {
			a, z := rng.IdealBounds(l)
			e.a[l], e.z[l] = a, z
			add(l, 0, idealKinds)
			if z < 1<<32 {
				add(l, 1, idealKinds)
			}
			if a-1 != z-1 {
				add(l, 2, idealKinds)
			}
			if a < 1<<32 {
				add(l, 3, idealKinds)
			}
		}
	case *rng.LFSRLUT:
		e.gen = "lfsr-lut"
		e.t, e.width = g.Table(), g.Width()
		top := uint64(1)<<e.width - 1
		for l := 1; l <= maxL; l++ {
			t := uint64(e.t[l])
			for k, s := range []uint64{t - 1, t, t + 1} {
				if s >= 1 && s <= top {
					add(l, k, lfsrKinds)
				}
			}
		}
	case *rng.ShiftReg:
		e.gen = "shiftreg"
		clk, _, q := g.Clocking()
		e.q = q
		for l := 1; l <= maxL; l++ {
			add(l, 0, shiftKinds)
			if l >= 2 {
				add(l, 1, shiftKinds)
			}
			if l >= 3 {
				add(l, 2, shiftKinds)
			}
			if clk == rng.FreeRunning && q > 1 {
				add(l, 3, shiftKinds)
			}
		}
	default:
		return nil, fmt.Errorf("vectors: generator %s: no comparator edges defined", g.Name())
	}
	if len(e.list) > 64 {
		return nil, fmt.Errorf("vectors: generator %s has %d comparator edges, more than the 64 a vector's mask holds", g.Name(), len(e.list))
	}
	return e, nil
}

// classify returns the edges a draw for l sits on, from g's state before the
// draw (st, as g.State() returns it); field is the incoming sender-draw field.
// It does not change g.
func (e *edgeSet) classify(g rng.Generator, st rng.State, l int, field uint64) uint64 {
	var m uint64
	on := func(l, kind int) {
		if b := e.bit[l][kind]; b >= 0 {
			m |= 1 << uint(b)
		}
	}
	switch e.gen {
	case "sender":
		spent := uint64(1) << (e.field - 1)
		switch field {
		case spent:
			on(0, 0)
		case spent >> 1:
			on(0, 1)
		case spent | spent>>1:
			on(0, 2)
		}
	case "ideal":
		c := *g.(*rng.Ideal) // a copy: the draw's outputs without advancing g
		a, z := e.a[l], e.z[l]
		for range 64 {
			r := uint64(c.Next())
			for k, v := range []uint64{z - 1, z, a - 1, a} {
				if r == v {
					on(l, k)
				}
			}
			if r < a {
				break
			}
		}
	case "lfsr-lut":
		s, t := st[0], uint64(e.t[l])
		for k, v := range []uint64{t - 1, t, t + 1} {
			if s == v {
				on(l, k)
			}
		}
	case "shiftreg":
		sr := g.(*rng.ShiftReg)
		switch p := sr.Position(l); {
		case p == 0:
			on(l, 0)
		case p == 1:
			on(l, 1)
		case p == l-1:
			on(l, 2)
		}
		if e.q > 1 && sr.Phase() == e.q-1 {
			on(l, 3)
		}
	}
	return m
}

// EdgeCoverage is a set's comparator-edge coverage (manifest.json "edges").
type EdgeCoverage struct {
	Total  int            `json:"total"`  // edges of the configuration's generator
	Hit    int            `json:"hit"`    // edges at least one vector sits on
	Missed []string       `json:"missed"` // edges no vector sits on
	Counts map[string]int `json:"counts"` // vectors per edge
}

// coverage summarizes per-edge vector counts.
func (e *edgeSet) coverage(counts [64]int) EdgeCoverage {
	c := EdgeCoverage{Total: len(e.list), Missed: []string{}, Counts: map[string]int{}}
	for i, x := range e.list {
		if counts[i] > 0 {
			c.Hit++
			c.Counts[x.String()] = counts[i]
		} else {
			c.Missed = append(c.Missed, x.String())
		}
	}
	sort.Strings(c.Missed)
	return c
}

// addEdges counts the edges of mask m.
func addEdges(counts *[64]int, m uint64) {
	for m != 0 {
		i := bits.TrailingZeros64(m)
		counts[i]++
		m &= m - 1
	}
}
