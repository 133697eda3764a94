// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"math/big"
	"testing"
)

// TestXoshiroReference checks xoshiro128** against the reference C
// implementation's outputs from state {1, 2, 3, 4} (Blackman and Vigna,
// xoshiro128starstar.c; the values the rand_xoshiro crate's reference test
// also uses).
func TestXoshiroReference(t *testing.T) {
	g := NewIdeal(0, 4)
	if err := g.SetState(State{1 | 2<<32, 3 | 4<<32}); err != nil {
		t.Fatal(err)
	}
	want := []uint32{11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597, 4258142804}
	for i, w := range want {
		if got := g.Next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

// TestSplitMix64Seeding pins the seeding: SplitMix64 from seed 0 gives
// 0xe220a8397b1dcdaf then 0x6e789e6aa1b965f4 (Vigna's splitmix64.c), whose
// low and high halves are s0..s3.
func TestSplitMix64Seeding(t *testing.T) {
	x := uint64(0)
	if a, b := splitMix64(&x), splitMix64(&x); a != 0xe220a8397b1dcdaf || b != 0x6e789e6aa1b965f4 {
		t.Fatalf("SplitMix64(0) = %#x, %#x", a, b)
	}
	g := NewIdeal(0, 4)
	want := State{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4}
	if st := g.State(); st[0] != want[0] || st[1] != want[1] {
		t.Errorf("NewIdeal(0) state %x, want %x", st, want)
	}
}

// TestIdealDrawRule restates the rejection rule on the raw output stream: a
// draw takes outputs until r < A(l) and answers r < Z(l).
func TestIdealDrawRule(t *testing.T) {
	g := NewIdeal(42, 1<<20)
	raw := g.Clone().(*Ideal)
	ls := []int{1, 2, 3, 5, 7, 1000, 1 << 20, 65537, 3, 1 << 19}
	for i := range 20000 {
		l := ls[i%len(ls)]
		a, z := IdealBounds(l)
		var want bool
		for {
			r := uint64(raw.Next())
			if r < a {
				want = r < z
				break
			}
		}
		if got := g.Draw(l); got != want {
			t.Fatalf("draw %d (l=%d): %v, rule gives %v", i, l, got, want)
		}
	}
	if g.State()[0] != raw.State()[0] || g.State()[1] != raw.State()[1] {
		t.Fatalf("draws and the rule consumed different numbers of outputs")
	}
}

func TestIdealBounds(t *testing.T) {
	for _, c := range []struct {
		l    int
		a, z uint64
	}{
		{1, 1 << 32, 1 << 32},
		{2, 1 << 32, 1 << 31},
		{3, 4294967295, 1431655765},
		{7, 4294967292, 613566756},
	} {
		a, z := IdealBounds(c.l)
		if a != c.a || z != c.z {
			t.Errorf("IdealBounds(%d) = %d, %d; want %d, %d", c.l, a, z, c.a, c.z)
		}
		// Exactness: z accepted values of a answer true, and z/a = 1/l.
		if big.NewRat(int64(z), int64(a)).Cmp(big.NewRat(1, int64(c.l))) != 0 {
			t.Errorf("l=%d: Z/A = %d/%d is not 1/l", c.l, z, a)
		}
	}
}

// TestIdealRejects shows a rejected output is consumed and the draw takes
// another: with l = 3*2^30 + 1, A(l) = l leaves about a quarter of the
// outputs rejected.
func TestIdealRejects(t *testing.T) {
	l := 3<<30 + 1
	g := NewIdeal(7, l)
	a, _ := IdealBounds(l)
	for range 100 {
		c := g.Clone().(*Ideal)
		r := uint64(c.Next())
		before := c.State()
		g.Draw(l)
		if r >= a {
			// The draw went past the rejected output.
			if st := g.State(); st[0] == before[0] && st[1] == before[1] {
				t.Fatalf("a rejected output did not make the draw take another")
			}
			return
		}
	}
	t.Fatalf("no rejection in 100 draws with a quarter of outputs rejected")
}

func TestIdealSetStateErrors(t *testing.T) {
	g := NewIdeal(1, 4)
	if err := g.SetState(State{0, 0}); err == nil {
		t.Errorf("all-zero state accepted")
	}
	if err := g.SetState(State{1}); err == nil {
		t.Errorf("one-word state accepted")
	}
}
