// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"math/big"
	"math/bits"
	"strings"
	"testing"
)

// TestConsumeByHand walks an L = 4 field b0..b3 = 0 1 0 1 with its sentinel,
// 0b01011, across six hops.
func TestConsumeByHand(t *testing.T) {
	const L = 4
	field := uint64(0b01011)
	steps := []struct {
		zero bool
		next uint64
		hops int // hop count the receiver would read after this hop
	}{
		{true, 0b10110, 1},
		{false, 0b01100, 2},
		{true, 0b11000, 3},
		{false, 0b10000, 4}, // only the sentinel left: spent
		{false, 0b10000, 4}, // spent: "not zero", unchanged
		{false, 0b10000, 4},
	}
	if h, _ := Hops(field, L); h != 0 {
		t.Fatalf("fresh field: %d hops", h)
	}
	for i, s := range steps {
		zero, next, err := Consume(field, L)
		if err != nil {
			t.Fatal(err)
		}
		if zero != s.zero || next != s.next {
			t.Fatalf("hop %d: zero=%v next=%#b, want %v %#b", i+1, zero, next, s.zero, s.next)
		}
		field = next
		if h, _ := Hops(field, L); h != s.hops {
			t.Fatalf("after hop %d: Hops %d, want %d", i+1, h, s.hops)
		}
	}
}

func TestFieldErrors(t *testing.T) {
	if _, _, err := Consume(0, 4); err == nil || !strings.Contains(err.Error(), "sentinel") {
		t.Errorf("field 0: %v", err)
	}
	if _, err := Hops(1<<5, 4); err == nil || !strings.Contains(err.Error(), "wider") {
		t.Errorf("6-bit field with L = 4: %v", err)
	}
	if _, err := Hops(1, 0); err == nil {
		t.Errorf("L = 0 accepted")
	}
	if _, err := Fill(64, NewIdeal(1, 64)); err == nil {
		t.Errorf("L = 64 accepted")
	}
	if _, err := Fill(8, NewIdeal(1, 4)); err == nil || !strings.Contains(err.Error(), "serves l up to 4") {
		t.Errorf("Fill with a generator too short: %v", err)
	}
}

// TestFillUsesDraws restates Fill: bit L-i is 0 exactly when the generator's
// draw for i+1 is, in order.
func TestFillUsesDraws(t *testing.T) {
	for _, L := range []int{1, 2, 7, 63} {
		gen := NewIdeal(uint64(L), L)
		ref := gen.Clone()
		for range 50 {
			f, err := Fill(L, gen)
			if err != nil {
				t.Fatal(err)
			}
			if f&1 != 1 || f>>L&1 != 0 || bits.Len64(f) > L+1 {
				t.Fatalf("L=%d field %#b: sentinel, b0 = 0 or width wrong", L, f)
			}
			for i := range L {
				if z := ref.Draw(i + 1); z != (f>>(L-i)&1 == 0) {
					t.Fatalf("L=%d field %#b: b%d disagrees with the draw for l=%d", L, f, i, i+1)
				}
			}
		}
	}
}

func TestSenderP0(t *testing.T) {
	for h := 1; h <= 6; h++ {
		want := big.NewRat(1, int64(h))
		if h > 4 {
			want = new(big.Rat)
		}
		if got := SenderP0(h, 4); got.Cmp(want) != 0 {
			t.Errorf("SenderP0(%d, 4) = %v, want %v", h, got, want)
		}
	}
}

// TestSenderGenerator: hop-ordered draws read one packet's bits in order; a
// draw out of order starts a new packet that first crosses l-1 hops.
func TestSenderGenerator(t *testing.T) {
	const L = 8
	g, err := NewSender(3, L)
	if err != nil {
		t.Fatal(err)
	}
	nic := g.nic.Clone()
	field, _ := Fill(L, nic)
	for h := 1; h <= L; h++ {
		want := field>>(L-h+1)&1 == 0
		if got := g.Draw(h); got != want {
			t.Fatalf("hop %d: %v, want bit b%d of %#b", h, got, h-1, field)
		}
	}
	if hops, _ := Hops(g.Field(), L); hops != L {
		t.Fatalf("after %d hops the field reads %d hops", L, hops)
	}
	// Out of order: Draw(3) now fills a new packet, skips two hops.
	field, _ = Fill(L, nic)
	if got, want := g.Draw(3), field>>(L-2)&1 == 0; got != want {
		t.Fatalf("Draw(3) on a new packet: %v, want b2 of %#b", got, field)
	}
	if hops, _ := Hops(g.Field(), L); hops != 3 {
		t.Fatalf("the new packet has crossed %d hops, want 3", hops)
	}
	if g.P0(5).Cmp(big.NewRat(1, 5)) != 0 {
		t.Errorf("P0(5) = %v", g.P0(5))
	}
	if err := g.SetState(State{1, 0, 0}); err == nil {
		t.Errorf("field 0 accepted")
	}
	if err := g.SetState(State{0, 0, 1}); err == nil {
		t.Errorf("all-zero NIC state accepted")
	}
	if _, err := NewSender(1, 64); err == nil {
		t.Errorf("L = 64 accepted")
	}
}

// FuzzConsume: any field and L either errors or obeys the field invariants.
func FuzzConsume(f *testing.F) {
	f.Add(uint64(0b01011), 4)
	f.Add(uint64(1<<4), 4)
	f.Add(uint64(0), 4)
	f.Add(uint64(1<<63), 63)
	f.Add(uint64(3), 0)
	f.Fuzz(func(t *testing.T, field uint64, L int) {
		zero, next, err := Consume(field, L)
		h, herr := Hops(field, L)
		if (err == nil) != (herr == nil) {
			t.Fatalf("Consume and Hops disagree on validity: %v, %v", err, herr)
		}
		if err != nil {
			return
		}
		h2, err := Hops(next, L)
		if err != nil {
			t.Fatalf("Consume(%#x, %d) produced an invalid field %#x: %v", field, L, next, err)
		}
		if h2 != min(h+1, L) {
			t.Fatalf("hops %d -> %d after one switch", h, h2)
		}
		if h == L && (zero || next != field) {
			t.Fatalf("spent field %#x answered zero=%v next=%#x", field, zero, next)
		}
	})
}
