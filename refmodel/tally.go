// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"slices"
)

// NewCandidateSet returns an empty candidate set for paths of pathLen hops;
// Add fills it.
func NewCandidateSet(pathLen int) CandidateSet { return CandidateSet{PathLen: pathLen} }

// Add puts links into the set at hop position hop (1..PathLen), keeping Links
// and Hops parallel. It refuses a hop outside the path and a link already in
// the set.
func (s *CandidateSet) Add(hop int, links ...Link) error {
	if hop < 1 || hop > s.PathLen {
		return fmt.Errorf("candidate set: hop %d, outside 1..%d", hop, s.PathLen)
	}
	for i, l := range links {
		if slices.Contains(s.Links, l) || slices.Contains(links[:i], l) {
			return fmt.Errorf("candidate set: link %s listed twice", l)
		}
	}
	for _, l := range links {
		s.Links = append(s.Links, l)
		s.Hops = append(s.Hops, hop)
	}
	return nil
}

// Counts returns W_d and the congested counts of the candidate links, in the
// candidate set's order, over every packet added so far. The slices are the
// caller's.
func (t *Tally) Counts() (w, c []int64) {
	t.Flush()
	return slices.Clone(t.counts), slices.Clone(t.congested)
}

// Count returns W_d and the congested count of candidate link j (the set's
// j-th link) over every packet added so far.
func (t *Tally) Count(j int) (w, c int64) {
	t.Flush()
	return t.counts[j], t.congested[j]
}
