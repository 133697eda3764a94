// SPDX-License-Identifier: Apache-2.0

package refmodel

import "slices"

// A Merge pools the decode of tallies whose candidate sets share links
// (several sources sending to one receiver, or receivers pooling their
// counts): per link, W_d, the congested counts and Q add up. It keeps one
// entry per link and none per tally, so a caller can decode a group of
// packets into a Tally, Add it and drop it: memory stays flat however many
// groups pass through (a uniform-traffic run has hundreds of thousands).
// MergeEstimates is a Merge over a slice of tallies.
type Merge struct {
	at map[Link]int // index into es
	es []LinkEstimate
}

// NewMerge returns an empty merge.
func NewMerge() *Merge { return &Merge{at: map[Link]int{}} }

// Add flushes t and adds its counts and packets to each of its candidate
// links. Hop is the link's position in the first tally that has it.
func (m *Merge) Add(t *Tally) {
	t.Flush()
	for j, l := range t.Set.Links {
		i, ok := m.at[l]
		if !ok {
			i = len(m.es)
			m.at[l] = i
			m.es = append(m.es, LinkEstimate{Link: l, Hop: t.Set.Hops[j]})
		}
		e := &m.es[i]
		e.W += t.counts[j]
		e.C += t.congested[j]
		e.Q += t.Packets
	}
}

// Links is the number of distinct links added so far.
func (m *Merge) Links() int { return len(m.es) }

// Estimates applies the threshold of section 5.3 with longest path L and
// confidence p to the sums, per link, sorted by link. The merge is left as
// it was, so more tallies may follow.
func (m *Merge) Estimates(L int, p float64) []LinkEstimate {
	es := slices.Clone(m.es)
	for i := range es {
		es[i].judge(Threshold(L, es[i].Q, p))
	}
	slices.SortFunc(es, func(a, b LinkEstimate) int { return cmpLink(a.Link, b.Link) })
	return es
}

// judge applies threshold th to the estimate's W: Passed, and the congested
// fraction of a link that passed.
func (e *LinkEstimate) judge(th float64) {
	e.Threshold = th
	e.Passed = float64(e.W) >= th
	if e.Passed {
		e.Fraction = CongestedFraction(e.W, e.C)
	}
}

// Sum returns link l's sums so far (W, C, Q and Hop; no threshold applied),
// or a zero estimate for a link no tally has had.
func (m *Merge) Sum(l Link) LinkEstimate {
	if i, ok := m.at[l]; ok {
		return m.es[i]
	}
	return LinkEstimate{Link: l}
}
