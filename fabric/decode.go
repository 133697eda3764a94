// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"

	"ibreservoir/header"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// decoded is the receivers' decode of a set of packet groups, by link index.
type decoded struct {
	// q is Q, the packets that might have crossed the link, and qByLen the
	// same by path length (for the analytic variances): properties of the
	// groups' candidate sets, the same for every scheme.
	q       []int64
	qByLen  [][maxPathLen + 1]int64
	schemes []schemeDecoded // by scheme index
}

// schemeDecoded is one scheme's estimate of every link.
type schemeDecoded struct {
	w, c     []int64 // weighted and weighted congested counts
	reported []bool  // full-ID: sampled at all; one-bit schemes: W_d at the threshold
}

func (s *Sim) linkIndex() map[topo.Link]int {
	m := make(map[topo.Link]int, len(s.links))
	for i, l := range s.links {
		m[l] = i
	}
	return m
}

// decode runs every scheme's receivers over every packet: Alg. 4 for full-ID,
// and for the one-bit schemes Alg. 7 or 9 over each (source leaf,
// destination) group's candidate set (section 5.2), pooled per link by a
// refmodel.Merge (the counts of all receivers summed, section 5.3's threshold
// with L the diameter and Q the packets that might have crossed the link).
// Each group's tally is dropped once merged, so memory does not grow with
// the number of groups.
func (s *Sim) decode(groups [][]int, idx map[topo.Link]int) (*decoded, error) {
	n := len(s.links)
	k := len(s.models)
	d := &decoded{q: make([]int64, n), qByLen: make([][maxPathLen + 1]int64, n), schemes: make([]schemeDecoded, k)}
	fulls := make([]*refmodel.FullIDCounts, k)
	merges := make([]*refmodel.Merge, k)
	for i, m := range s.models {
		d.schemes[i] = schemeDecoded{w: make([]int64, n), c: make([]int64, n), reported: make([]bool, n)}
		if m.Config().Telemetry.Scheme == header.FullID {
			fulls[i] = refmodel.NewFullIDCounts()
		} else {
			merges[i] = refmodel.NewMerge()
		}
	}
	for _, g := range groups {
		first := s.samples[g[0]]
		cs := s.t.CandidatesFromLeaf(s.t.NodeLeaf[first.src], int(first.dst))
		for _, l := range cs.Links {
			li := idx[l]
			d.q[li] += int64(len(g))
			d.qByLen[li][cs.PathLen] += int64(len(g))
		}
		for i, m := range s.models {
			if fulls[i] != nil {
				for _, si := range g {
					fulls[i].Add(s.reads[si*k+i])
				}
				continue
			}
			tally, err := m.NewTally(cs)
			if err != nil {
				return nil, fmt.Errorf("decode %s (%s): %w", SchemeName(m.Config()), m.Layout().Name, err)
			}
			for _, si := range g {
				tally.Add(s.reads[si*k+i])
			}
			merges[i].Add(tally)
		}
	}
	diam := s.t.Diameter()
	for i := range d.schemes {
		sd := &d.schemes[i]
		if fulls[i] != nil {
			for li, l := range s.links {
				sd.w[li], sd.c[li] = fulls[i].Counts[l], fulls[i].Congested[l]
				sd.reported[li] = sd.w[li] > 0
			}
			continue
		}
		for _, e := range merges[i].Estimates(diam, s.p.P) {
			li := idx[e.Link]
			sd.w[li], sd.c[li], sd.reported[li] = e.W, e.C, e.Passed
		}
	}
	return d, nil
}
