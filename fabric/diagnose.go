// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"slices"

	"ibreservoir/topo"
)

// Diagnosis thresholds. A link is congested when its estimated congested
// fraction is at least CongestedFraction; a root link is saturated at
// SaturatedUtilization of line rate or more and "well under line rate" below
// UnderUtilization (Theorem 4.2).
const (
	MinorShare           = 0.01
	CongestedFraction    = 0.5
	SaturatedUtilization = 0.8
	UnderUtilization     = 0.5
)

// Causes of congestion (section 4.1).
const (
	CausePattern    = "communication pattern"
	CauseMapping    = "mapping"
	CauseBackground = "background traffic"
	CauseNone       = "no congestion"
	CauseUnknown    = "undetermined"
)

// A Root is the root of a congestion tree as one scheme's estimates show it:
// a congested link none of whose onward links is congested.
type Root struct {
	Switch      uint16  `json:"switch"`
	Port        uint8   `json:"port"`
	Endpoint    bool    `json:"endpoint"` // the link leads to a compute node (Definition 4.1)
	Node        int     `json:"node"`     // that node, or -1
	Fraction    float64 `json:"fraction"`
	W           int64   `json:"w"`
	Utilization float64 `json:"utilization"`
	Cause       string  `json:"cause"`
	XmitWaitPS  int64   `json:"xmit_wait_ps"` // what PortXmitWait shows on the same port
}

// A Diagnosis applies the rules of section 4.1 to one scheme's estimates.
type Diagnosis struct {
	Scheme         string `json:"scheme"`
	CongestedLinks int    `json:"congested_links"`
	Roots          []Root `json:"roots"`
	// MinorRoots counts roots left out of Roots because they carry under
	// MinorShare of the largest root's congested packets (victims at the
	// edge of a big tree, or sampling noise on lightly used links).
	MinorRoots int    `json:"minor_roots"`
	Cause      string `json:"cause"`
	Reason     string `json:"reason"`
	// CounterView contrasts the roots with what the port counters show.
	CounterView string `json:"counter_view"`
}

// diagnose finds the congestion roots in scheme i's estimates and names the
// likely cause of each (section 4.1):
//
//   - a root at a compute node is endpoint congestion, which no mapping can
//     remove (Theorem 4.1): the communication pattern;
//   - a root inside the network whose link is saturated is a bottleneck
//     between switches that a better mapping can relieve (section 4.2);
//   - a root whose link carries well under line rate by the application's
//     own estimate must be congested by traffic the estimate does not see
//     (Theorem 4.2): background traffic.
//
// The overall cause is the one whose roots carry the most estimated
// congested packets.
func diagnose(t *topo.Topology, r *Result, i int, util func(topo.Link) float64) Diagnosis {
	dg := Diagnosis{Scheme: r.Schemes[i].Name}
	congested := map[topo.Link]*LinkResult{}
	reported := map[topo.Link]bool{}
	for k := range r.Links {
		l := &r.Links[k]
		e := l.Estimates[i]
		reported[topo.Link{Switch: l.Switch, Port: l.Port}] = e.Reported
		if e.Reported && e.Fraction >= CongestedFraction {
			congested[topo.Link{Switch: l.Switch, Port: l.Port}] = l
		}
	}
	dg.CongestedLinks = len(congested)
	for k := range r.Links {
		l := &r.Links[k]
		lk := topo.Link{Switch: l.Switch, Port: l.Port}
		if congested[lk] == nil {
			continue
		}
		peer := t.Peer(lk)
		root := Root{Switch: l.Switch, Port: l.Port, Node: -1, Fraction: l.Estimates[i].Fraction, W: l.Estimates[i].W, XmitWaitPS: l.XmitWaitPS}
		if peer.Kind == topo.ToNode {
			root.Endpoint, root.Node, root.Cause = true, peer.Peer, CausePattern
			root.Utilization = util(lk)
		} else {
			// The root of a congestion tree forwards its traffic onward
			// without congestion: some onward link of the next switch
			// carries reported traffic, and none is congested. A switch
			// whose onward links the estimate does not show (below the
			// threshold) cannot be judged.
			onward, seen := false, false
			next := &t.Switches[peer.Peer]
			for p := range next.Ports {
				if uint8(p+1) == peer.PeerPort {
					continue // the reverse direction
				}
				nl := topo.Link{Switch: next.ID, Port: uint8(p + 1)}
				if congested[nl] != nil {
					onward = true
					break
				}
				if reported[nl] {
					seen = true
				}
			}
			if onward || !seen {
				continue
			}
			root.Utilization = util(lk)
			switch {
			case root.Utilization >= SaturatedUtilization:
				root.Cause = CauseMapping
			case root.Utilization < UnderUtilization:
				root.Cause = CauseBackground
			default:
				root.Cause = CauseUnknown
			}
		}
		dg.Roots = append(dg.Roots, root)
	}
	slices.SortStableFunc(dg.Roots, func(a, b Root) int {
		return int(b.W - a.W)
	})
	var top float64
	for _, rt := range dg.Roots {
		top = max(top, float64(rt.W)*rt.Fraction)
	}
	kept := dg.Roots[:0]
	for _, rt := range dg.Roots {
		if float64(rt.W)*rt.Fraction < MinorShare*top {
			dg.MinorRoots++
			continue
		}
		kept = append(kept, rt)
	}
	dg.Roots = kept
	if len(dg.Roots) == 0 {
		dg.Cause = CauseNone
		dg.Reason = "no link has an estimated congested fraction of 0.5 or more"
		return dg
	}
	// Each cause is weighed by the congested packets its roots carry (W
	// times the congested fraction), so a handful of lightly used roots
	// (a congestion tree's victims, or noise) do not outvote the root that
	// carries the congestion.
	weight := map[string]float64{}
	votes := map[string]int{}
	var rootWait, stalledRoots int64
	for _, rt := range dg.Roots {
		votes[rt.Cause]++
		weight[rt.Cause] += max(float64(rt.W)*rt.Fraction, 0)
		rootWait += rt.XmitWaitPS
		if rt.XmitWaitPS > 0 {
			stalledRoots++
		}
	}
	var total float64
	best := CauseUnknown
	for _, c := range []string{CausePattern, CauseMapping, CauseBackground, CauseUnknown} {
		total += weight[c]
		if weight[c] > weight[best] {
			best = c
		}
	}
	dg.Cause = best
	share := 0.0
	if total > 0 {
		share = weight[best] / total
	}
	switch best {
	case CausePattern:
		dg.Reason = fmt.Sprintf("%d of %d congestion roots, with %.0f%% of the roots' congested packets, are compute nodes (endpoint congestion, Definition 4.1), which no mapping can remove (Theorem 4.1)", votes[best], len(dg.Roots), 100*share)
	case CauseMapping:
		dg.Reason = fmt.Sprintf("%d of %d roots, with %.0f%% of the roots' congested packets, are inside the network on links the application saturates (at least %.0f%% of line rate): the traffic needs more bandwidth between switches than the tree has there, which a mapping with more locality relieves (section 4.2)", votes[best], len(dg.Roots), 100*share, 100*SaturatedUtilization)
	case CauseBackground:
		dg.Reason = fmt.Sprintf("%d of %d roots, with %.0f%% of the roots' congested packets, are inside the network on links the application uses at under %.0f%% of line rate: by Theorem 4.2 a congested root link is fully utilized, so traffic the application does not see shares it", votes[best], len(dg.Roots), 100*share, 100*UnderUtilization)
	default:
		dg.Reason = "the roots' utilization is between the saturated and the lightly used thresholds"
	}
	dg.CounterView = fmt.Sprintf("PortXmitWait is nonzero on %d of the %d root ports; a root's port stalls only when its downstream buffer is full, so the counters see the victims upstream of a congestion tree rather than its root, and cannot tell which application's packets suffered", stalledRoots, len(dg.Roots))
	return dg
}
