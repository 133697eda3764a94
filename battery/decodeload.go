// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"ibreservoir/hash"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// The workloads of the decode family: a candidate set from a fat tree of
// package topo, the traffic each candidate link carries under adaptive
// routing, a switch numbering, and the flows whose packets the receiver
// decodes.

// A decodeTopology names a candidate set and the routing of its traffic.
type decodeTopology struct {
	name string
	doc  string
	tree topo.Clos3
	// inSet and carries say which top-level switches (cores) the candidate
	// set's paths, and the traffic's, may turn at: core index g*perGroup+k
	// of group g.
	inSet, carries func(group, k int) bool
}

// decodeTopologies are the candidate sets the decode family runs on.
//
//   - tapered-5.3: section 5.3's example on the thesis's Tapered tree (Table
//     3.1): the 401 links one core group gives a packet between two pods (8,
//     192, 192, 8 and 1 at hops 1-5), with adaptive routing over 12 of the
//     group's 24 cores, so that 96 + 96 of the 401 links carry nothing.
//   - full: the thesis's Full tree between two pods, all 685 candidate links
//     (18, 324, 324, 18, 1), adaptive routing over half the cores of each of
//     its 6 groups: 162 + 162 links carry nothing.
var decodeTopologies = []decodeTopology{
	{name: "tapered-5.3", doc: "section 5.3's 401 links on Tapered, traffic over 12 of 24 cores", tree: topo.Tapered,
		inSet: func(g, k int) bool { return g == 0 }, carries: func(g, k int) bool { return g == 0 && k%2 == 0 }},
	{name: "full", doc: "685 links on Full, traffic over half the cores of each group", tree: topo.Full,
		inSet: func(g, k int) bool { return true }, carries: func(g, k int) bool { return k%2 == 0 }},
}

// DecodeTopologies lists the names of the decode family's candidate sets.
func DecodeTopologies() []string {
	var ns []string
	for _, t := range decodeTopologies {
		ns = append(ns, t.name)
	}
	return ns
}

// DecodeNumberings lists the switch numberings the decode family tries:
// topo's own (leaves, then aggregation switches, then cores, from 0), the
// reverse (cores first), and a random permutation drawn from the run seed.
func DecodeNumberings() []string { return []string{"topo", "reverse", "random"} }

// A workload is one candidate set with its traffic, numbered.
type workload struct {
	name    string
	set     refmodel.CandidateSet // links under the numbering
	units   []int64               // D * P(link j is the held hop), an integer; 0: no traffic
	denom   int64                 // D
	pathLen int                   // every path's length l (the decode weight w = l)
	diam    int                   // the tree's diameter, L of the threshold
	src     []int                 // the flows' source nodes (LID = node+1), all on one leaf
	dst     int                   // their destination node
	maxSw   int                   // the largest switch ID under the numbering
	maxPort int
	// single: the single-path routing's links (one per hop), by index in set.
	single []int
	peer   []uint16 // the switch each link leads to (numbered), 0 for a node
	// numbering and flows name the workload's variant; long: it runs as
	// many streams as its longest windows need (power.go).
	numbering string
	flows     int
	long      bool
}

// peerOf returns the switch link j leads to.
func (w *workload) peerOf(j int) uint16 { return w.peer[j] }

// buildWorkload builds topology tp's candidate set and traffic for flows
// from the first nodes of pod 0's first leaf to the first node of pod 1, and
// renumbers its switches.
func buildWorkload(tp decodeTopology, numbering string, flows int, run uint64) (*workload, error) {
	t, err := tp.tree.Build()
	if err != nil {
		return nil, err
	}
	if flows < 1 || flows > tp.tree.NodesPerLeaf {
		return nil, fmt.Errorf("decode workload %s: %d flows from one leaf of %d nodes", tp.name, flows, tp.tree.NodesPerLeaf)
	}
	dst := tp.tree.LeavesPerPod * tp.tree.NodesPerLeaf // pod 1's first node
	core := func(s uint16) (int, int) {
		i := t.Switches[s].Index
		return i / tp.tree.CoresPerGroup, i % tp.tree.CoresPerGroup
	}
	top := t.Levels - 1
	allow := func(pred func(g, k int) bool) func(s uint16) bool {
		return func(s uint16) bool {
			if t.Switches[s].Level != top {
				return true
			}
			return pred(core(s))
		}
	}
	li := t.NodeLeaf[0]
	inSet := marginals(t, li, dst, allow(tp.inSet))
	traffic := marginals(t, li, dst, allow(tp.carries))
	cs := t.CandidatesFromLeaf(li, dst)
	w := &workload{pathLen: cs.PathLen, diam: t.Diameter(), dst: dst, maxPort: t.MaxPort(), numbering: numbering, flows: flows}
	for i := range flows {
		w.src = append(w.src, i)
	}
	perm := numberSwitches(len(t.Switches), numbering, run)
	if perm == nil {
		return nil, fmt.Errorf("unknown switch numbering %q (want one of %s)", numbering, strings.Join(DecodeNumberings(), ", "))
	}
	w.set.PathLen = cs.PathLen
	var probs []*big.Rat
	for i, l := range cs.Links {
		if inSet[l] == nil {
			continue
		}
		w.set.Links = append(w.set.Links, refmodel.Link{Switch: perm[l.Switch], Port: l.Port})
		w.set.Hops = append(w.set.Hops, cs.Hops[i])
		var peer uint16
		if pt := t.Peer(l); pt.Kind == topo.ToSwitch {
			peer = perm[pt.Peer]
		}
		w.peer = append(w.peer, peer)
		p := traffic[l]
		if p == nil {
			p = new(big.Rat)
		}
		probs = append(probs, p)
		w.maxSw = max(w.maxSw, int(perm[l.Switch]))
	}
	if err := w.set.Validate(); err != nil {
		return nil, fmt.Errorf("decode workload %s: %w", tp.name, err)
	}
	// D = l * lcm of the denominators: every link's share of the held hop,
	// P(hop) * P(link | hop) = 1/l * traffic, is then a whole number of 1/D.
	lcm := big.NewInt(1)
	for _, p := range probs {
		g := new(big.Int).GCD(nil, nil, lcm, p.Denom())
		lcm.Mul(lcm, new(big.Int).Quo(p.Denom(), g))
	}
	lcm.Mul(lcm, big.NewInt(int64(cs.PathLen)))
	if !lcm.IsInt64() || lcm.Int64() > 1<<20 {
		return nil, fmt.Errorf("decode workload %s: the routing's common denominator %s is too large", tp.name, lcm)
	}
	w.denom = lcm.Int64()
	for _, p := range probs {
		u := new(big.Rat).Mul(p, new(big.Rat).SetFrac(lcm, big.NewInt(int64(cs.PathLen))))
		w.units = append(w.units, u.Num().Int64())
	}
	// The single path: at every hop the first traffic link leaving the
	// switch the previous hop reached.
	at := t.Leaves[li]
	for h := 1; h <= cs.PathLen; h++ {
		for j, l := range cs.Links {
			if cs.Hops[j] == h && l.Switch == at && traffic[l] != nil {
				idx := slices.Index(w.set.Links, refmodel.Link{Switch: perm[l.Switch], Port: l.Port})
				w.single = append(w.single, idx)
				if pt := t.Peer(l); pt.Kind == topo.ToSwitch {
					at = uint16(pt.Peer)
				}
				break
			}
		}
	}
	if len(w.single) != cs.PathLen {
		return nil, fmt.Errorf("decode workload %s: no single path found", tp.name)
	}
	w.name = fmt.Sprintf("%s numbering=%s flows=%d", tp.name, numbering, flows)
	return w, nil
}

// marginals returns, for every link a packet from leaf index li to node dst
// may cross under adaptive routing restricted by allowed, the probability
// that it does: at every switch the packet takes each admissible output port
// with equal probability (section 3.5: adaptive routing), an up port being
// admissible when an allowed switch can be reached through it on a minimal
// path.
func marginals(t *topo.Topology, li, dst int, allowed func(uint16) bool) map[topo.Link]*big.Rat {
	memo := map[uint16]bool{}
	var admissible func(s uint16) bool
	admissible = func(s uint16) bool {
		if v, ok := memo[s]; ok {
			return v
		}
		v := false
		if t.Covers(s, dst) {
			v = allowed(s)
		} else {
			for _, p := range t.Switches[s].UpPorts() {
				if admissible(uint16(t.Switches[s].Port(p).Peer)) {
					v = true
					break
				}
			}
		}
		memo[s] = v
		return v
	}
	out := map[topo.Link]*big.Rat{}
	cur := map[uint16]*big.Rat{t.Leaves[li]: big.NewRat(1, 1)}
	for len(cur) > 0 {
		next := map[uint16]*big.Rat{}
		for s, p := range cur {
			ports, up := t.Route(s, dst)
			if up {
				ports = slices.DeleteFunc(slices.Clone(ports), func(q uint8) bool {
					return !admissible(uint16(t.Switches[s].Port(q).Peer))
				})
			}
			if len(ports) == 0 {
				continue
			}
			share := new(big.Rat).Quo(p, big.NewRat(int64(len(ports)), 1))
			for _, q := range ports {
				l := topo.Link{Switch: s, Port: q}
				if out[l] == nil {
					out[l] = new(big.Rat)
				}
				out[l].Add(out[l], share)
				if pt := t.Switches[s].Port(q); pt.Kind == topo.ToSwitch {
					peer := uint16(pt.Peer)
					if next[peer] == nil {
						next[peer] = new(big.Rat)
					}
					next[peer].Add(next[peer], share)
				}
			}
		}
		cur = next
	}
	return out
}

// numberSwitches returns the switch IDs of n switches under a numbering, nil
// for an unknown one.
func numberSwitches(n int, numbering string, run uint64) []uint16 {
	perm := make([]uint16, n)
	for i := range perm {
		perm[i] = uint16(i)
	}
	switch numbering {
	case "topo":
	case "reverse":
		slices.Reverse(perm)
	case "random":
		sm := newSampler(run, tagNumbering)
		for i := n - 1; i > 0; i-- {
			j := sm.below(uint64(i + 1))
			perm[i], perm[j] = perm[j], perm[i]
		}
	default:
		return nil
	}
	return perm
}

// A flowSet is the flows of a workload: flow f is the source node src[f]'s
// queue pair destQP[f], starting at PSN start[f]. Packet i of the decoded
// stream is flow i mod F's (i/F)-th packet: a window of n consecutive packets
// holds n/F consecutive PSNs of every flow.
type flowSet struct {
	slid   []uint16
	destQP []uint32
	start  []uint32
}

func newFlowSet(src []int, sm sampler) flowSet {
	var fs flowSet
	for _, n := range src {
		fs.slid = append(fs.slid, uint16(n+1))
		fs.destQP = append(fs.destQP, uint32(2+sm.below(1<<24-2)))
		fs.start = append(fs.start, uint32(sm.below(1<<24)))
	}
	return fs
}

// decodeFlows returns a hash test's flows, drawn from its run seed. Its
// streams are consecutive parts of the one stream of these flows: stream r's
// base window b is packets (r*nb+b)*2^base on. A flow's ids are then
// distinct over every stream as long as its packets span at most 2^24 PSNs
// (maxStreams).
func decodeFlows(w *workload, run uint64) flowSet {
	return newFlowSet(w.src, newSampler(run, tagFlows))
}

// maxStreams is the most streams of 2^runBits packets that workload w's
// flows carry without a PSN, so a packet id, repeating within a flow:
// each flow's share of the packets within the 24-bit PSN space.
func (w *workload) maxStreams(runBits int) int {
	return max(1, len(w.src)<<24>>runBits)
}

// packet returns the SLID, DestQP and PSN of packet i of the stream.
func (fs flowSet) packet(i int) (slid uint16, destQP, psn uint32) {
	f := i % len(fs.slid)
	return fs.slid[f], fs.destQP[f], (fs.start[f] + uint32(i/len(fs.slid))) & 0xFFFFFF
}

// ids fills ids with the packet ids of packets first, first+1, ... under
// option o.
func (fs flowSet) ids(o hash.IDOption, first int, ids []uint32) {
	// packet(first+k), its flow and step counted on instead of divided out.
	n := len(fs.slid)
	f, q := first%n, uint32(first/n)
	for k := range ids {
		ids[k] = o.ID(fs.slid[f], fs.destQP[f], (fs.start[f]+q)&0xFFFFFF)
		if f++; f == n {
			f, q = 0, q+1
		}
	}
}
