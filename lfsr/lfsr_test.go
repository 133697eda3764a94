// SPDX-License-Identifier: Apache-2.0

package lfsr

import (
	"ibreservoir/internal/golden"

	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryWidthPrimitive proves every tap table entry maximal-length by the
// order-of-x test (see primitive.go).
func TestEveryWidthPrimitive(t *testing.T) {
	for n := MinWidth; n <= MaxWidth; n++ {
		p, err := Poly(n)
		if err != nil {
			t.Fatal(err)
		}
		if !IsPrimitive(p) {
			t.Errorf("width %d: p = %#x (taps %v) is not primitive", n, p, taps[n])
		}
		// The reciprocal polynomial is primitive too (the other reading of XAPP052).
		if r := reverse(p, n); !IsPrimitive(r) {
			t.Errorf("width %d: reciprocal %#x of p is not primitive", n, r)
		}
	}
}

func reverse(p uint64, n int) uint64 {
	var r uint64
	for i := 0; i <= n; i++ {
		r |= (p >> i & 1) << (n - i)
	}
	return r
}

// TestIsPrimitiveControls shows the test can say no: irreducible polynomials
// whose x has a smaller order, reducible ones, and malformed masks.
func TestIsPrimitiveControls(t *testing.T) {
	for _, c := range []struct {
		p    uint64
		want bool
		why  string
	}{
		{0b1011, true, "x^3+x+1"},
		{0b11111, false, "x^4+x^3+x^2+x+1: irreducible, x has order 5"},
		{0x11B, false, "x^8+x^4+x^3+x+1 (AES): irreducible, x has order 51"},
		{0x11D, true, "x^8+x^4+x^3+x^2+1"},
		{0b10001, false, "x^4+1 = (x+1)^4"},
		{0b1010, false, "no constant term"},
		{1 << 33, false, "degree 33"},
		{0x1_0000_0001, false, "x^32+1 = (x+1)^32"},
		{0x1_0000_0003, false, "x^32+x+1: divisible by x^2+x+1"},
		{0x1_0040_0007, true, "x^32+x^22+x^2+x+1 (XAPP052)"},
	} {
		if got := IsPrimitive(c.p); got != c.want {
			t.Errorf("IsPrimitive(%#x) = %v, want %v (%s)", c.p, got, c.want, c.why)
		}
	}
}

// TestPeriodBruteForce steps each register of width up to 22 around its whole
// cycle from state 1: it must come back after exactly 2^n - 1 steps (never
// passing through 0), which with the states distinct proves maximal length
// independently of the algebra. Up to width 16 it also checks every non-zero
// state was visited.
func TestPeriodBruteForce(t *testing.T) {
	maxN := 22
	if testing.Short() {
		maxN = 16
	}
	for n := MinWidth; n <= maxN; n++ {
		fib, _ := NewFibonacci(n, 1)
		gal, _ := NewGalois(n, 1)
		for _, r := range []interface {
			Step() uint32
			State() uint32
		}{fib, gal} {
			var seen []bool
			if n <= 16 {
				seen = make([]bool, 1<<n)
			}
			var steps uint64
			for {
				r.Step()
				steps++
				s := r.State()
				if s == 0 || steps > Period(n) {
					t.Fatalf("width %d %T: state %#x after %d steps", n, r, s, steps)
				}
				if seen != nil {
					if seen[s] {
						t.Fatalf("width %d %T: state %#x repeats before the period ends", n, r, s)
					}
					seen[s] = true
				}
				if s == 1 {
					break
				}
			}
			if steps != Period(n) {
				t.Errorf("width %d %T: period %d, want %d", n, r, steps, Period(n))
			}
		}
	}
}

// TestFibonacciGaloisRelation checks the documented relation: a Fibonacci
// register loaded with Galois.FibonacciState emits the Galois stream, and the
// state map is linear and one-to-one.
func TestFibonacciGaloisRelation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	for n := MinWidth; n <= MaxWidth; n++ {
		for range 20 {
			s := r.Uint32()
			if n < 32 {
				s &= 1<<n - 1
			}
			if s == 0 {
				s = 1
			}
			gal, _ := NewGalois(n, s)
			fib, err := NewFibonacci(n, gal.FibonacciState())
			if err != nil {
				t.Fatalf("width %d: FibonacciState of %#x: %v", n, s, err)
			}
			for i := range 4*n + 300 {
				if a, b := gal.Step(), fib.Step(); a != b {
					t.Fatalf("width %d from Galois state %#x: output %d differs (Galois %d, Fibonacci %d)", n, s, i, a, b)
				}
			}
		}
	}
	for n := MinWidth; n <= 14; n++ {
		img := make([]bool, 1<<n)
		phi := func(s uint32) uint32 {
			g := &Galois{n: n, mask: feedback(n), s: s}
			return g.FibonacciState()
		}
		for s := uint32(1); s < 1<<n; s++ {
			f := phi(s)
			if f == 0 || img[f] {
				t.Fatalf("width %d: Galois state %#x maps to %#x, zero or already taken", n, s, f)
			}
			img[f] = true
			// Linear: phi(s ^ a) = phi(s) ^ phi(a) for a fixed non-zero a.
			if a := uint32(0b101); s != a && phi(s^a) != phi(s)^phi(a) {
				t.Fatalf("width %d: state map not linear at %#x, %#x", n, s, a)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, n := range []int{0, 2, 33} {
		if _, err := NewFibonacci(n, 1); err == nil {
			t.Errorf("NewFibonacci(%d) accepted", n)
		}
		if _, err := NewGalois(n, 1); err == nil {
			t.Errorf("NewGalois(%d) accepted", n)
		}
		if _, err := Taps(n); err == nil {
			t.Errorf("Taps(%d) accepted", n)
		}
	}
	if _, err := NewFibonacci(8, 0); err == nil || !strings.Contains(err.Error(), "all-zero") {
		t.Errorf("state 0 accepted or unclear: %v", err)
	}
	if _, err := NewGalois(8, 0x100); err == nil || !strings.Contains(err.Error(), "bit 8") {
		t.Errorf("state 0x100 in width 8 accepted or unclear: %v", err)
	}
	if _, err := NewGalois(32, 1<<31); err != nil {
		t.Errorf("width 32 refused its top bit: %v", err)
	}
}

// streams renders, for every width and form, the first 96 outputs from
// state 1 and from state 2^(n-1) + 1 (as hex, output 0 first), and the states
// after 96 and 10000 steps.
func streams() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# width form start: outputs 0..95 (hex digits of 4 outputs, output 0 the low bit of the first) | state after 96 | state after 10000\n")
	type reg interface {
		Step() uint32
		State() uint32
	}
	for n := MinWidth; n <= MaxWidth; n++ {
		for _, start := range []uint32{1, 1<<(n-1) + 1} {
			fib, _ := NewFibonacci(n, start)
			gal, _ := NewGalois(n, start)
			for _, x := range []struct {
				name string
				r    reg
			}{{"fibonacci", fib}, {"galois", gal}} {
				fmt.Fprintf(&b, "%d %s %#x: ", n, x.name, start)
				for range 24 {
					var d uint32
					for j := range 4 {
						d |= x.r.Step() << j
					}
					fmt.Fprintf(&b, "%x", d)
				}
				fmt.Fprintf(&b, " | %#x", x.r.State())
				for range 10000 - 96 {
					x.r.Step()
				}
				fmt.Fprintf(&b, " | %#x\n", x.r.State())
			}
		}
	}
	return b.Bytes()
}

func TestGoldenStreams(t *testing.T) {
	got := streams()
	if !bytes.Equal(got, streams()) {
		t.Fatal("two runs gave different streams")
	}
	golden.Check(t, filepath.Join("testdata", "streams.golden"), got)
}

// TestKnownSequence pins width 3 by hand: p = x^3 + x^2 + 1, Fibonacci mask
// 0b101. From state 0b001 the outputs are the m-sequence 1,0,0,1,1,1,0 and
// the states 100, 110, 111, 011, 101, 010, 001.
func TestKnownSequence(t *testing.T) {
	fib, _ := NewFibonacci(3, 1)
	if fib.Mask() != 0b101 {
		t.Fatalf("width 3 mask %#b, want 0b101", fib.Mask())
	}
	wantOut := []uint32{1, 0, 0, 1, 1, 1, 0}
	wantState := []uint32{0b100, 0b110, 0b111, 0b011, 0b101, 0b010, 0b001}
	for i := range 7 {
		if o := fib.Step(); o != wantOut[i] || fib.State() != wantState[i] {
			t.Fatalf("step %d: output %d state %#b, want %d %#b", i, o, fib.State(), wantOut[i], wantState[i])
		}
	}
	// Galois width 3 from 001: multiply by x mod x^3+x^2+1.
	gal, _ := NewGalois(3, 1)
	wantG := []uint32{0b010, 0b100, 0b101, 0b111, 0b011, 0b110, 0b001}
	for i := range 7 {
		gal.Step()
		if gal.State() != wantG[i] {
			t.Fatalf("Galois step %d: state %#b, want %#b", i, gal.State(), wantG[i])
		}
	}
}
