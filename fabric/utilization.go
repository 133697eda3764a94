// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"slices"

	"ibreservoir/header"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// rootUtilization estimates, from what scheme i's receivers read, the
// fraction of line rate link l carried while it was congested: the check of
// Theorem 4.2 ("the bandwidth of the oversubscribed edges ... is fully
// utilized"), done as section 4.2 does it, with packet arrival times standing
// for the times packets crossed the link.
//
// The window is the 5th to 95th percentile of the arrival times of the
// packets that might have crossed l and carry a congestion mark (full-ID: the
// packets whose congested reservoir holds l). The receivers' decode is then
// run again over the packets arriving in the window, and the estimated
// packets on l, times their mean size, over the window is the utilization.
func (s *Sim) rootUtilization(i int, groups [][]int, l topo.Link) float64 {
	m := s.models[i]
	k := len(s.models)
	full := m.Config().Telemetry.Scheme == header.FullID
	var mine []int // groups whose packets might have crossed l
	for gi, g := range groups {
		smp := s.samples[g[0]]
		if s.t.OnMinimalPath(s.t.NodeLeaf[smp.src], int(smp.dst), l) {
			mine = append(mine, gi)
		}
	}
	var times []int64
	for _, gi := range mine {
		for _, si := range groups[gi] {
			r := s.reads[si*k+i]
			marked := r.CongBit == 1 || r.CongCount > 0
			if full {
				marked = r.CongCount > 0 && r.CongLink == l
			}
			if marked {
				times = append(times, s.samples[si].at)
			}
		}
	}
	if len(times) < 2 {
		return 0
	}
	slices.Sort(times)
	lo, hi := times[len(times)*5/100], times[(len(times)-1)*95/100]
	if hi <= lo {
		return 0
	}
	var bytes, n int64
	fullCounts := refmodel.NewFullIDCounts()
	merge := refmodel.NewMerge()
	for _, gi := range mine {
		g := groups[gi]
		var tally *refmodel.Tally
		if !full {
			first := s.samples[g[0]]
			var err error
			if tally, err = m.NewTally(s.t.CandidatesFromLeaf(s.t.NodeLeaf[first.src], int(first.dst))); err != nil {
				continue
			}
		}
		for _, si := range g {
			smp := s.samples[si]
			if smp.at < lo || smp.at > hi {
				continue
			}
			bytes += int64(smp.size)
			n++
			if full {
				fullCounts.Add(s.reads[si*k+i])
			} else {
				tally.Add(s.reads[si*k+i])
			}
		}
		if tally != nil {
			merge.Add(tally)
		}
	}
	w := fullCounts.Counts[l]
	if !full {
		w = merge.Sum(l).W
	}
	if n == 0 || w <= 0 {
		return 0
	}
	mean := float64(bytes) / float64(n)
	return float64(w) * mean * 8000 / float64(s.p.LinkGbps) / float64(hi-lo)
}
