// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"strings"
	"testing"
)

// TestGapNullIsTheDrawingGenerator: the gap test's null is the P0 of the
// generator instance that draws its stream. A free-running shift register's
// P0 depends on its state. With hop counts up to 4 bits, at seed 7 the
// generator the plan once asked had P0 = 0 for l = 7 while the instance that
// drew answered 0 a third of the time, and that null left no cell to test and
// panicked the report; at seed 1 the drawing instance for l = 14 has P0 = 0
// itself. Every gap result must state its own instance's P0, or, where that
// P0 puts every gap in one cell, be INVALID and say so.
func TestGapNullIsTheDrawingGenerator(t *testing.T) {
	const gen = "shiftreg/free/7:3"
	oneCell := 0
	for _, seed := range []uint64{1, 7} {
		c := smallConfig(nil, []string{gen})
		c.CountBits = []int{4}
		c.Seed = seed
		b, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		gs := builtinGenerators()[gen]
		L := b.maxL()
		r := run(t, c)
		seen := 0
		for _, x := range r.Results {
			if x.Test != "generator/gap" || x.Subject.Generator != gen {
				continue
			}
			seen++
			l := x.Subject.L
			spec := &testSpec{name: "gap", group: "generator", subject: x.Subject, chunks: 1}
			p0, ok := p0Of(b.newGen(gs, spec, 0, L), l)
			if !ok {
				t.Fatalf("%s states no exact P0", gen)
			}
			p, _ := p0.Float64()
			if p == 0 || p == 1 {
				oneCell++
				if x.Verdict != Invalid || !strings.Contains(x.Detail, "one cell") {
					t.Errorf("seed %d, l=%d: the drawing instance's P0 is %v, so the gap test has one cell; got %s: %s", seed, l, p0, x.Verdict, x.Detail)
				}
				continue
			}
			if x.Verdict == Invalid {
				continue // too little data for this l (the detail says so)
			}
			if want := fmt.Sprintf("l=%d, P0=%.6g:", l, p); !strings.HasPrefix(x.Detail, want) {
				t.Errorf("seed %d, l=%d: the gap test's null is not its instance's P0 %v: %s", seed, l, p0, x.Detail)
			}
		}
		if seen != L-1 {
			t.Errorf("seed %d: %d gap results, want %d (l = 2..%d)", seed, seen, L-1, L)
		}
	}
	if oneCell == 0 {
		t.Error("no gap test with a one-cell null (seed 1 has one at l = 14)")
	}
}
