// SPDX-License-Identifier: Apache-2.0

package topo

import (
	"fmt"
	"slices"

	"ibreservoir/refmodel"
)

var _ refmodel.Topology = (*Topology)(nil)

// Candidates implements refmodel.Topology: the links a packet from the node
// with LID src to the node with LID dst might have crossed on a minimal path
// (thesis section 5.2's "foreach d in D where packet might have passed through
// d"), each with its hop position, and the path length.
//
// With u levels climbed the set is: at hop i (1..u) every up port of every
// switch the packet can reach at level i-1; at hop u+1 .. 2u every down port
// toward the destination's leaf of every switch on a minimal path; at hop 2u+1
// the destination's leaf port. The sender's injection link is not a switch
// output and is not a hop. The set depends only on the source's leaf and the
// destination node, and is cached on that key.
func (t *Topology) Candidates(src, dst uint16) (refmodel.CandidateSet, error) {
	sn, err := t.Node(src)
	if err != nil {
		return refmodel.CandidateSet{}, fmt.Errorf("candidate set: source: %w", err)
	}
	dn, err := t.Node(dst)
	if err != nil {
		return refmodel.CandidateSet{}, fmt.Errorf("candidate set: destination: %w", err)
	}
	if sn == dn {
		return refmodel.CandidateSet{}, fmt.Errorf("candidate set: source and destination are both LID %d: a packet to itself crosses no switch", src)
	}
	return t.CandidatesFromLeaf(t.NodeLeaf[sn], dn), nil
}

// CandidatesFromLeaf is Candidates for packets entering at leaf index li.
// Recent sets are cached (at most maxCached; the cache is emptied when full),
// which changes no result.
func (t *Topology) CandidatesFromLeaf(li, dst int) refmodel.CandidateSet {
	key := uint64(li)<<32 | uint64(dst)
	t.mu.Lock()
	if cs, ok := t.cache[key]; ok {
		t.mu.Unlock()
		return cs
	}
	t.mu.Unlock()
	cs := t.candidates(li, dst)
	t.mu.Lock()
	if t.cache == nil || len(t.cache) >= maxCached {
		t.cache = map[uint64]refmodel.CandidateSet{}
	}
	t.cache[key] = cs
	t.mu.Unlock()
	return cs
}

// maxCached bounds the candidate-set cache: uniform traffic on Tapered has
// 144*4608 (leaf, destination) pairs of up to 801 links each.
const maxCached = 4096

func (t *Topology) candidates(li, dst int) refmodel.CandidateSet {
	var cs refmodel.CandidateSet
	add := func(s uint16, p uint8, hop int) {
		cs.Links = append(cs.Links, Link{Switch: s, Port: p})
		cs.Hops = append(cs.Hops, hop)
	}
	seen := make([]bool, len(t.Switches))
	// next returns the distinct peers of layer's ports, ascending.
	next := func(layer []uint16, ports func(s uint16) []uint8, hop int) []uint16 {
		var out []uint16
		for _, s := range layer {
			for _, p := range ports(s) {
				add(s, p, hop)
				peer := uint16(t.Switches[s].Ports[p-1].Peer)
				if !seen[peer] {
					seen[peer] = true
					out = append(out, peer)
				}
			}
		}
		for _, s := range out {
			seen[s] = false
		}
		sortIDs(out)
		return out
	}
	// Up phase: the switches reachable at each level until one covers dst.
	layer := []uint16{t.Leaves[li]}
	u := 0
	for !t.Covers(layer[0], dst) {
		layer = next(layer, func(s uint16) []uint8 { return t.Switches[s].up }, u+1)
		u++
	}
	cs.PathLen = 2*u + 1
	// Down phase: from every covering switch at the top, toward dst's leaf.
	dl := t.NodeLeaf[dst]
	for hop := u + 1; hop <= 2*u; hop++ {
		layer = next(layer, func(s uint16) []uint8 { return t.Switches[s].down[dl] }, hop)
	}
	add(t.Leaves[dl], t.NodePort[dst], 2*u+1)
	return cs
}

func sortIDs(s []uint16) { slices.Sort(s) }

// PathCount returns the number of distinct minimal paths (sequences of output
// ports) from a packet entering at leaf index li to node dst.
func (t *Topology) PathCount(li, dst int) int64 {
	dl := t.NodeLeaf[dst]
	memo := map[uint16]int64{}
	var down func(s uint16) int64
	down = func(s uint16) int64 {
		if t.Switches[s].Level == 0 {
			return 1 // the leaf's port to dst
		}
		if v, ok := memo[s]; ok {
			return v
		}
		var n int64
		for _, p := range t.Switches[s].down[dl] {
			n += down(uint16(t.Switches[s].Ports[p-1].Peer))
		}
		memo[s] = n
		return n
	}
	var up func(s uint16) int64
	up = func(s uint16) int64 {
		if t.Covers(s, dst) {
			return down(s)
		}
		var n int64
		for _, p := range t.Switches[s].up {
			n += up(uint16(t.Switches[s].Ports[p-1].Peer))
		}
		return n
	}
	return up(t.Leaves[li])
}

// OnMinimalPath reports whether link l is in the candidate set of packets
// entering at leaf index li for node dst, in constant time: an up link of a
// switch above the source that does not cover dst, or a down link toward dst
// of a switch covering it at or below the level where the paths turn.
func (t *Topology) OnMinimalPath(li, dst int, l Link) bool {
	sw := &t.Switches[l.Switch]
	pt := sw.Ports[l.Port-1]
	srcNode := t.firstNode(li)
	if pt.Kind == ToSwitch && pt.Up {
		return t.Covers(l.Switch, srcNode) && !t.Covers(l.Switch, dst)
	}
	if !t.Covers(l.Switch, dst) || sw.Level > t.Climb(srcNode, dst) {
		return false
	}
	ports, _ := t.Route(l.Switch, dst)
	for _, p := range ports {
		if p == l.Port {
			return true
		}
	}
	return false
}

// firstNode returns a node of leaf index li.
func (t *Topology) firstNode(li int) int {
	leaf := &t.Switches[t.Leaves[li]]
	for _, pt := range leaf.Ports {
		if pt.Kind == ToNode {
			return pt.Peer
		}
	}
	return -1
}
