// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeMatchesPerTallySums pools random tallies over overlapping
// candidate sets and holds each link's merged W, C and Q to the sums of the
// tallies' own estimates, the threshold to Threshold of the summed Q, the
// order to link order, and Hop to the first tally that listed the link. The
// merge is read halfway and must go on accumulating afterwards.
func TestMergeMatchesPerTallySums(t *testing.T) {
	m := mustModel(t, DefaultConfig())
	r := rand.New(rand.NewPCG(7, 8))
	const L, p = 5, 0.9
	type sum struct {
		w, c, q int64
		hop     int
	}
	want := map[Link]*sum{}
	merge := NewMerge()
	for k := range 40 {
		n := 1 + r.IntN(12)
		perm := r.Perm(30)[:n]
		set := CandidateSet{PathLen: n}
		for j, x := range perm {
			set.Links = append(set.Links, Link{Switch: uint16(x % 10), Port: uint8(1 + x/10)})
			set.Hops = append(set.Hops, j+1)
		}
		tl, err := m.NewTally(set)
		must(t, err)
		for range 1 + r.IntN(60) {
			tl.Add(Sample{ID: r.Uint32(), HopBit: uint8(r.IntN(2)), CongBit: uint8(r.IntN(2)), HopCount: r.IntN(n + 1)})
		}
		for _, e := range tl.Estimates(L, p) {
			s := want[e.Link]
			if s == nil {
				s = &sum{hop: e.Hop}
				want[e.Link] = s
			}
			s.w += e.W
			s.c += e.C
			s.q += e.Q
		}
		merge.Add(tl)
		if k == 20 {
			if got := merge.Estimates(L, p); len(got) != len(want) {
				t.Fatalf("after %d tallies: %d merged links, want %d", k+1, len(got), len(want))
			}
		}
	}
	es := merge.Estimates(L, p)
	if len(es) != len(want) || merge.Links() != len(want) {
		t.Fatalf("%d merged links (Links %d), want %d", len(es), merge.Links(), len(want))
	}
	if !slices.IsSortedFunc(es, func(a, b LinkEstimate) int { return cmpLink(a.Link, b.Link) }) {
		t.Error("estimates not in link order")
	}
	passed := 0
	for _, e := range es {
		s := want[e.Link]
		th := Threshold(L, s.q, p)
		if e.W != s.w || e.C != s.c || e.Q != s.q || e.Hop != s.hop || e.Threshold != th || e.Passed != (float64(s.w) >= th) {
			t.Fatalf("link %s: merged %+v, want W=%d C=%d Q=%d hop %d threshold %v", e.Link, e, s.w, s.c, s.q, s.hop, th)
		}
		if e.Passed {
			passed++
			if e.Fraction != CongestedFraction(s.w, s.c) {
				t.Errorf("link %s: fraction %v", e.Link, e.Fraction)
			}
		} else if e.Fraction != 0 {
			t.Errorf("link %s: hidden, but fraction %v", e.Link, e.Fraction)
		}
		if got := merge.Sum(e.Link); got.W != s.w || got.C != s.c || got.Q != s.q || got.Passed {
			t.Errorf("Sum(%s) = %+v", e.Link, got)
		}
	}
	if passed == 0 || passed == len(es) {
		t.Errorf("%d of %d links passed: the threshold was not exercised both ways", passed, len(es))
	}
	if got := merge.Sum(Link{Switch: 99, Port: 9}); got.W != 0 || got.Q != 0 {
		t.Errorf("Sum of a link never added: %+v", got)
	}
}
