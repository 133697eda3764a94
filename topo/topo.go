// SPDX-License-Identifier: Apache-2.0

// Package topo builds the fat-tree topologies the simulator runs on and
// answers the routing questions about them: which output ports lead a packet
// toward a destination on a minimal path, and which links a packet between two
// endpoints might have crossed (the candidate-link sets of thesis section 5.2,
// through the refmodel.Topology interface).
//
// Every link a switch transmits on is named by (switch ID, output port), the
// (switch ID, outport) tuple of Alg. 3 line 4, node-facing links included, so
// the link encodings of package hash apply to all of them. Switch IDs are
// 0..N-1, leaves first, then each higher level; ports are numbered from 1 as
// IBA numbers physical switch ports (port 0 is the switch's management port).
// Every switch here has fewer than 64 ports, so the thesis's link encoding
// (d = switch*2^15 + port*2^9 + 509, section 5.4) keeps every link distinct.
//
// Nodes are numbered 0..Nodes-1, left to right under the leaves (node n hangs
// off leaf n/h for h nodes per leaf), and node n's port has LID n+1 (LID 0 is
// reserved in IBA).
//
// Two families are built:
//
//   - Clos3: a three-level folded Clos with pods (leaf, aggregation, core),
//     the form of the thesis's Table 3.1 networks (Full and Tapered);
//   - KaryNTree: Petrini and Vanneschi's k-ary n-tree, for any k and n.
//
// Routing is generic over any such tree: a packet goes up (any up port) until
// it reaches a switch that has the destination below it, then down. All
// minimal paths between two nodes have the same length 2u+1 hops, u being the
// number of levels climbed (section 3.3's footnote: the sender's link to the
// first switch is not a hop, the last switch's link to the receiver is).
package topo

import (
	"fmt"
	"sync"

	"ibreservoir/refmodel"
)

// PeerKind says what is at the far end of a port.
type PeerKind uint8

const (
	Unconnected PeerKind = iota
	ToSwitch
	ToNode
)

// A Port is one physical switch port.
type Port struct {
	Kind     PeerKind
	Up       bool  // leads to a switch one level higher
	Peer     int   // switch ID (ToSwitch) or node number (ToNode)
	PeerPort uint8 // the port at the far end (ToSwitch)
}

// A Switch is one switch of the tree.
type Switch struct {
	ID    uint16
	Level int    // 0 for leaves
	Pod   int    // the pod of leaves and aggregation switches; -1 where none applies
	Index int    // position within its level, left to right
	Ports []Port // Ports[i] is port i+1

	up   []uint8   // up ports, ascending
	down [][]uint8 // down[leafIndex]: the down ports toward that leaf; nil when it is not below
}

// UpPorts returns the switch's up ports, ascending.
func (s *Switch) UpPorts() []uint8 { return s.up }

// Port returns port p (1-based).
func (s *Switch) Port(p uint8) Port { return s.Ports[p-1] }

// A Topology is a built tree. It is immutable once built, and safe for
// concurrent use.
type Topology struct {
	Name     string
	Radix    int      // ports per switch
	Levels   int      // switch levels; leaves are level 0
	Switches []Switch // by ID
	Leaves   []uint16 // leaf switch IDs, by leaf index
	NodeLeaf []int    // leaf index of each node
	NodePort []uint8  // leaf port of each node

	leafIndex []int // switch ID -> leaf index, -1 for non-leaves
	byLevel   [][]uint16

	mu    sync.Mutex
	cache map[uint64]refmodel.CandidateSet
}

// Nodes returns the number of compute nodes.
func (t *Topology) Nodes() int { return len(t.NodeLeaf) }

// LID returns the LID of node n's port.
func (t *Topology) LID(n int) uint16 { return uint16(n + 1) }

// Node returns the node whose port has LID lid.
func (t *Topology) Node(lid uint16) (int, error) {
	n := int(lid) - 1
	if n < 0 || n >= t.Nodes() {
		return 0, fmt.Errorf("LID %d names no node of %s (LIDs 1..%d)", lid, t.Name, t.Nodes())
	}
	return n, nil
}

// LeafOf returns the leaf switch ID of node n and the port it hangs off.
func (t *Topology) LeafOf(n int) (uint16, uint8) { return t.Leaves[t.NodeLeaf[n]], t.NodePort[n] }

// Level returns the IDs of the switches at level l, by index.
func (t *Topology) Level(l int) []uint16 { return t.byLevel[l] }

// MaxPort is the largest port number in use.
func (t *Topology) MaxPort() int {
	m := 0
	for i := range t.Switches {
		for p := range t.Switches[i].Ports {
			if t.Switches[i].Ports[p].Kind != Unconnected {
				m = max(m, p+1)
			}
		}
	}
	return m
}

// A Link is a switch output port; it is refmodel's link type, so estimates and
// ground truth share keys.
type Link = refmodel.Link

// Peer returns what link l leads to.
func (t *Topology) Peer(l Link) Port { return t.Switches[l.Switch].Ports[l.Port-1] }

// Links returns every connected switch output port, by switch then port.
func (t *Topology) Links() []Link {
	var ls []Link
	for i := range t.Switches {
		for p, pt := range t.Switches[i].Ports {
			if pt.Kind != Unconnected {
				ls = append(ls, Link{Switch: uint16(i), Port: uint8(p + 1)})
			}
		}
	}
	return ls
}

// Covers reports whether node dst is below switch s (reachable going only down).
func (t *Topology) Covers(s uint16, dst int) bool {
	sw := &t.Switches[s]
	li := t.NodeLeaf[dst]
	if sw.Level == 0 {
		return t.leafIndex[s] == li
	}
	return sw.down[li] != nil
}

// Route returns the output ports of switch s on the minimal paths toward node
// dst, and whether they go up. Adaptive routing chooses among them (section
// 3.5: both networks "employ adaptive routing"); there is exactly one port
// when the packet has reached its leaf.
func (t *Topology) Route(s uint16, dst int) (ports []uint8, up bool) {
	sw := &t.Switches[s]
	li := t.NodeLeaf[dst]
	if sw.Level == 0 && t.leafIndex[s] == li {
		return t.NodePort[dst : dst+1], false
	}
	if sw.Level > 0 && sw.down[li] != nil {
		return sw.down[li], false
	}
	return sw.up, true
}

// Climb returns u, the number of levels a packet from node src to node dst
// climbs: 0 when they share a leaf. The path length is 2u+1 hops.
func (t *Topology) Climb(src, dst int) int {
	s := t.Leaves[t.NodeLeaf[src]]
	for u := 0; ; u++ {
		if t.Covers(s, dst) {
			return u
		}
		// Every up neighbour sits at the same depth above the common
		// ancestor level in these symmetric trees (Validate checks it).
		s = uint16(t.Switches[s].Ports[t.Switches[s].up[0]-1].Peer)
	}
}

// PathLen returns the hop count of every minimal path from src to dst.
func (t *Topology) PathLen(src, dst int) int { return 2*t.Climb(src, dst) + 1 }

// Diameter is the longest path length, L of the threshold of section 5.3.
func (t *Topology) Diameter() int { return 2*(t.Levels-1) + 1 }
