// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"ibreservoir/internal/golden"

	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

func TestNamesRoundTrip(t *testing.T) {
	for _, name := range Names() {
		g, err := New(name, 1, 16)
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if g.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, g.Name())
		}
		if _, ok := g.(Exact); !ok {
			t.Errorf("%s does not implement Exact", name)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct{ name, msg string }{
		{"", "unknown generator"},
		{"xorshift", "unknown generator"},
		{"ideal/2", "no parameters"},
		{"lfsr-lut", "needs a width"},
		{"lfsr-lut/16", "b<number>"},
		{"lfsr-lut/b016", "decimal"},
		{"lfsr-lut/b2", "width 2"},
		{"lfsr-lut/b16/16", "k<number>"},
		{"lfsr-lut/b16/k0", "0 LFSR steps"},
		{"lfsr-lut/b16/k1/x", "needs a width"},
		{"shiftreg", "clocking model"},
		{"shiftreg/per-cycle", "unknown clocking"},
		{"shiftreg/per-draw/2", "no parameters"},
		{"shiftreg/free", "clock ratio"},
		{"shiftreg/free/7", "not <P>:<Q>"},
		{"shiftreg/free/7:0", "P and Q"},
		{"shiftreg/free/+7:3", "decimal"},
		{"sender/8", "no parameters"},
	} {
		_, err := New(c.name, 1, 16)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("New(%q): error %v, want one mentioning %q", c.name, err, c.msg)
		}
	}
	if _, err := New("ideal", 1, 0); err == nil {
		t.Errorf("maxL 0 accepted")
	}
	if g, err := New("lfsr-lut/b3", 1, 16); err == nil || g != nil {
		t.Errorf("lfsr-lut/b3 with maxL 16: %v, %v; want a nil generator and an error", g, err)
	}
}

// TestStateRoundTrip: for every generator, a fresh generator given another's
// State draws the same from then on, and Clone is independent.
func TestStateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, name := range Names() {
		g, _ := New(name, 5, 12)
		for range 37 {
			g.Draw(r.IntN(12) + 1)
		}
		h, _ := New(name, 6, 12)
		if err := h.SetState(g.State()); err != nil {
			t.Fatalf("%s: SetState(State()): %v", name, err)
		}
		c := g.Clone()
		for i := range 500 {
			l := r.IntN(12) + 1
			a, b, d := g.Draw(l), h.Draw(l), c.Draw(l)
			if a != b || a != d {
				t.Fatalf("%s draw %d: original %v, restored %v, clone %v", name, i, a, b, d)
			}
		}
		if bits := g.StateBits(); bits > 64*len(g.State()) || bits <= 64*(len(g.State())-1) {
			t.Errorf("%s: %d state bits in %d words", name, bits, len(g.State()))
		}
	}
}

// TestDrawL1 checks the contract: l = 1 always answers true and still
// consumes a draw's worth of state.
func TestDrawL1(t *testing.T) {
	for _, name := range Names() {
		g, _ := New(name, 2, 8)
		for i := range 50 {
			if !g.Draw(1) {
				t.Fatalf("%s: Draw(1) false at draw %d", name, i)
			}
		}
	}
}

// drawPatterns are the l sequences the golden streams use: a path driven hop
// by hop, and l from a fixed PCG stream.
func drawPatterns(maxL int) map[string][]int {
	hops := make([]int, 0, 240)
	for len(hops) < 240 {
		for h := 1; h <= 8 && len(hops) < 240; h++ {
			hops = append(hops, h)
		}
	}
	r := rand.New(rand.NewPCG(2026, 53))
	mixed := make([]int, 240)
	for i := range mixed {
		mixed[i] = r.IntN(maxL) + 1
	}
	return map[string][]int{"hops": hops, "mixed": mixed}
}

// fixedStates are the starting states of the second half of the golden
// streams, for generators whose state a test vector would set directly.
func fixedStates(name string, g Generator) (State, bool) {
	switch {
	case name == "ideal":
		return State{1 | 2<<32, 3 | 4<<32}, true
	case strings.HasPrefix(name, "lfsr-lut/b8"):
		return State{0xA5}, true
	case strings.HasPrefix(name, "lfsr-lut/b16"):
		return State{0xACE1}, true
	case strings.HasPrefix(name, "lfsr-lut/b32"):
		return State{0xDEADBEEF}, true
	case name == "sender":
		return State{1 | 2<<32, 3 | 4<<32, 1 << 16}, true
	case strings.HasPrefix(name, "shiftreg/"):
		// Every register's 0 at its top position, count 0.
		st := make(State, len(g.State()))
		for l := 1; l <= g.MaxL(); l++ {
			off := l * (l - 1) / 2
			for i := range l - 1 {
				st[(off+i)/64] |= 1 << ((off + i) % 64)
			}
		}
		return st, true
	}
	return nil, false
}

func goldenStreams() []byte {
	const maxL = 16
	var b bytes.Buffer
	fmt.Fprintf(&b, "# generator start pattern: initial state (hex, MSB first) / answers (1 = draw was 0) / final state\n")
	pats := drawPatterns(maxL)
	for _, name := range Names() {
		for _, start := range []string{"seed1", "fixed"} {
			for _, pat := range []string{"hops", "mixed"} {
				g, err := New(name, 1, maxL)
				if err != nil {
					panic(err)
				}
				if start == "fixed" {
					st, ok := fixedStates(name, g)
					if !ok {
						continue
					}
					if err := g.SetState(st); err != nil {
						panic(fmt.Sprintf("%s: %v", name, err))
					}
				}
				fmt.Fprintf(&b, "%s %s %s:\n  %s\n  ", name, start, pat, g.State().Hex(g.StateBits()))
				for _, l := range pats[pat] {
					if g.Draw(l) {
						b.WriteByte('1')
					} else {
						b.WriteByte('0')
					}
				}
				fmt.Fprintf(&b, "\n  %s\n", g.State().Hex(g.StateBits()))
			}
		}
	}
	return b.Bytes()
}

func TestGoldenStreams(t *testing.T) {
	got := goldenStreams()
	if !bytes.Equal(got, goldenStreams()) {
		t.Fatal("two runs gave different streams")
	}
	golden.Check(t, filepath.Join("testdata", "streams.golden"), got)
}

// FuzzNew: any name either errors or builds a generator whose canonical name
// builds the same generator.
func FuzzNew(f *testing.F) {
	for _, n := range Names() {
		f.Add(n, 8)
	}
	f.Add("lfsr-lut/b32/k1024", 3)
	f.Add("shiftreg/free/1048576:1", 2)
	f.Add("shiftreg/free/:", 4)
	f.Fuzz(func(t *testing.T, name string, maxL int) {
		if maxL > 64 {
			maxL = 64 // keep construction cheap
		}
		g, err := New(name, 1, maxL)
		if err != nil {
			if g != nil {
				t.Fatalf("New(%q) returned a generator with error %v", name, err)
			}
			return
		}
		h, err := New(g.Name(), 1, maxL)
		if err != nil {
			t.Fatalf("New(%q) ok but its name %q fails: %v", name, g.Name(), err)
		}
		if h.Name() != g.Name() {
			t.Fatalf("name %q not canonical: %q", g.Name(), h.Name())
		}
		a, b := g.State(), h.State()
		if a.Hex(g.StateBits()) != b.Hex(h.StateBits()) {
			t.Fatalf("%q and %q start in different states", name, g.Name())
		}
	})
}
