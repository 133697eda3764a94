// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"math/bits"

	"ibreservoir/internal/seed"
	"ibreservoir/rng"
	"ibreservoir/topo"
)

// Seed kinds of the fabric's own random streams (docs/spec.md section 6);
// refmodel's port generators and sender NICs use kinds 1 and 2.
const (
	SeedTraffic   uint64 = 16 // then pattern number, node
	SeedPSN       uint64 = 17 // then source node, destination node: a QP's starting PSN
	SeedDetector  uint64 = 18 // then switch ID, port: a congestion detector's own stream
	SeedPlacement uint64 = 19 // then pattern number: node placement permutations
)

// A Message is one MPI-level send: Bytes to node Dst, not before Start.
type Message struct {
	Dst   int
	Bytes int
	Start int64 // picoseconds
	// After is the payload bytes the sending node must have received before
	// this message starts: MPI's exchange semantics (a rank moves to its next
	// neighbour once this phase's message has arrived).
	After int64
	App   uint8 // which application sent it (Workload.Apps)
	Phase uint8 // the pattern's phase (the stencil's +x, -x, +y, -y)
}

// A Workload is what every node sends, in order: a NIC sends its messages one
// after another, each as back-to-back packets of at most the MTU.
type Workload struct {
	Name    string
	Apps    []string    // application names, by Message.App
	Phases  []string    // phase names, by Message.Phase
	PerNode [][]Message // by source node
}

// Messages returns the number of messages and bytes in the workload.
func (w *Workload) Messages() (n int, bytes int64) {
	for _, ms := range w.PerNode {
		for _, m := range ms {
			n++
			bytes += int64(m.Bytes)
		}
	}
	return n, bytes
}

func newWorkload(name string, nodes int, apps ...string) *Workload {
	if len(apps) == 0 {
		apps = []string{name}
	}
	return &Workload{Name: name, Apps: apps, Phases: []string{"all"}, PerNode: make([][]Message, nodes)}
}

// picker draws uniform integers from a node's own stream.
type picker struct{ g *rng.Ideal }

func newPicker(run uint64, tags ...uint64) picker {
	return picker{rng.NewIdeal(seed.Derive(run, tags...), 1)}
}

// intn returns a uniform integer in [0, n) by rejection (no modulo bias).
func (p picker) intn(n int) int {
	lim := uint64(1) << 32 / uint64(n) * uint64(n)
	for {
		r := uint64(p.g.Next())
		if r < lim {
			return int(r % uint64(n))
		}
	}
}

// perm returns a uniform permutation of 0..n-1 (Fisher-Yates).
func (p picker) perm(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := p.intn(i + 1)
		s[i], s[j] = s[j], s[i]
	}
	return s
}

// Uniform is uniform random traffic among the nodes in Nodes (all nodes when
// empty): each sends Messages messages of Bytes, each to a destination drawn
// uniformly from the other participants (section 4.4's background traffic).
type Uniform struct {
	Nodes    []int
	Messages int
	Bytes    int
}

func (u Uniform) build(t *topo.Topology, run uint64, w *Workload, app uint8) error {
	nodes := u.Nodes
	if len(nodes) == 0 {
		nodes = allNodes(t.Nodes())
	}
	if len(nodes) < 2 || u.Messages < 1 || u.Bytes < 1 {
		return fmt.Errorf("uniform traffic: need 2 or more nodes (have %d), at least 1 message (%d) of at least 1 byte (%d)", len(nodes), u.Messages, u.Bytes)
	}
	for i, n := range nodes {
		p := newPicker(run, SeedTraffic, uint64(app), uint64(n))
		for range u.Messages {
			j := p.intn(len(nodes) - 1)
			if j >= i {
				j++
			}
			w.PerNode[n] = append(w.PerNode[n], Message{Dst: nodes[j], Bytes: u.Bytes, App: app})
		}
	}
	return nil
}

func allNodes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// UniformWorkload builds uniform random traffic over every node.
func UniformWorkload(t *topo.Topology, run uint64, messages, bytes int) (*Workload, error) {
	w := newWorkload("uniform", t.Nodes())
	return w, Uniform{Messages: messages, Bytes: bytes}.build(t, run, w, 0)
}

// NaiveReduction is section 4.3's reduction to one rank: ranks 0..Ranks-1 on
// nodes 0..Ranks-1, except that rank 0 is on node Root; every other rank sends
// Arrays messages of Bytes to rank 0 (the thesis: 1024 ranks, 50 arrays of
// 1024 integers, 4 KB).
func NaiveReduction(t *topo.Topology, ranks, arrays, bytes, root int) (*Workload, error) {
	if ranks < 2 || ranks > t.Nodes() || arrays < 1 || bytes < 1 {
		return nil, fmt.Errorf("naive reduction: %d ranks on %d nodes, %d arrays of %d bytes: want 2..%d ranks and positive sizes", ranks, t.Nodes(), arrays, bytes, t.Nodes())
	}
	if root < 0 || root >= t.Nodes() {
		return nil, fmt.Errorf("naive reduction: root node %d outside 0..%d", root, t.Nodes()-1)
	}
	w := newWorkload("naive-reduction", t.Nodes())
	// Rank r is on node r, except rank 0 on root and, if root < ranks, rank
	// root on node 0.
	node := func(r int) int {
		switch r {
		case 0:
			return root
		case root:
			return 0
		}
		return r
	}
	for r := 1; r < ranks; r++ {
		for range arrays {
			w.PerNode[node(r)] = append(w.PerNode[node(r)], Message{Dst: root, Bytes: bytes})
		}
	}
	return w, nil
}

// StencilMapping maps the stencil's logical grid onto nodes.
type StencilMapping uint8

const (
	// RowMajor: (x, y) -> y*X + x (section 4.2).
	RowMajor StencilMapping = iota
	// Tiled: one TileX x TileY block of the grid per leaf switch (section
	// 4.2.3: 8 x 4 tiles on the tapered tree's 32-node leaves).
	Tiled
)

// Stencil2D is section 4.2's two-dimensional stencil: an X x Y grid, one rank
// per node; every rank sends Bytes to each existing neighbour in turn, +x,
// -x, +y, -y (ranks on the edge skip the missing neighbour).
type Stencil2D struct {
	X, Y         int
	TileX, TileY int
	Bytes        int
	Mapping      StencilMapping
}

// Node returns the node of grid point (x, y).
func (s Stencil2D) Node(x, y int) int {
	if s.Mapping == RowMajor {
		return y*s.X + x
	}
	tilesX := s.X / s.TileX
	leaf := (y/s.TileY)*tilesX + x/s.TileX
	return leaf*s.TileX*s.TileY + (y%s.TileY)*s.TileX + x%s.TileX
}

// Build builds the stencil's workload.
func (s Stencil2D) Build(t *topo.Topology) (*Workload, error) {
	if s.X < 2 || s.Y < 2 || s.X*s.Y > t.Nodes() || s.Bytes < 1 {
		return nil, fmt.Errorf("stencil: %dx%d grid on %d nodes with %d-byte messages: want at least 2x2, no more ranks than nodes", s.X, s.Y, t.Nodes(), s.Bytes)
	}
	name := "stencil-row-major"
	if s.Mapping == Tiled {
		name = "stencil-tiled"
		per := t.Nodes() / len(t.Leaves)
		if s.TileX < 1 || s.TileY < 1 || s.X%s.TileX != 0 || s.Y%s.TileY != 0 || s.TileX*s.TileY != per {
			return nil, fmt.Errorf("stencil: %dx%d tiles must divide the %dx%d grid and hold one leaf's %d nodes", s.TileX, s.TileY, s.X, s.Y, per)
		}
	}
	w := newWorkload(name, t.Nodes())
	w.Phases = []string{"+x", "-x", "+y", "-y"}
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	in := func(x, y int) bool { return x >= 0 && y >= 0 && x < s.X && y < s.Y }
	for y := range s.Y {
		for x := range s.X {
			src := s.Node(x, y)
			// A rank starts phase k once it has received phases 0..k-1
			// (from the neighbour in the opposite direction, if any).
			var after int64
			for ph, d := range dirs {
				if nx, ny := x+d[0], y+d[1]; in(nx, ny) {
					w.PerNode[src] = append(w.PerNode[src], Message{Dst: s.Node(nx, ny), Bytes: s.Bytes, Phase: uint8(ph), After: after})
				}
				if in(x-d[0], y-d[1]) {
					after += int64(s.Bytes)
				}
			}
		}
	}
	return w, nil
}

// PrimaryNode is section 4.4's node split: node i runs the primary application
// when (i+1)^2 has an even number of 1 bits in binary, the background traffic
// otherwise. The thesis's text reads "(i + 1)2"; the square is what gives its
// count, 2172 of the tapered tree's 4608 nodes (the parity of i+1 itself
// would give 2304).
func PrimaryNode(i int) bool { return bits.OnesCount64(uint64(i+1)*uint64(i+1))%2 == 0 }

// RingWithBackground is section 4.4's experiment: the primary application's
// ranks (PrimaryNode) in a ring, rank i sending Rounds messages of Bytes to
// rank i-1 mod R, beside uniform random background traffic among the other
// nodes (BackgroundMessages messages of Bytes each). Background 0 runs the
// ring alone.
func RingWithBackground(t *topo.Topology, run uint64, rounds, bytes, backgroundMessages int) (*Workload, error) {
	w := newWorkload("ring-background", t.Nodes(), "ring", "background")
	var prim, back []int
	for i := range t.Nodes() {
		if PrimaryNode(i) {
			prim = append(prim, i)
		} else {
			back = append(back, i)
		}
	}
	if len(prim) < 2 || rounds < 1 || bytes < 1 {
		return nil, fmt.Errorf("ring: %d primary nodes, %d rounds of %d bytes: want 2 or more nodes and positive sizes", len(prim), rounds, bytes)
	}
	for i, n := range prim {
		to := prim[(i-1+len(prim))%len(prim)]
		for range rounds {
			w.PerNode[n] = append(w.PerNode[n], Message{Dst: to, Bytes: bytes, App: 0})
		}
	}
	if backgroundMessages > 0 {
		if err := (Uniform{Nodes: back, Messages: backgroundMessages, Bytes: bytes}).build(t, run, w, 1); err != nil {
			return nil, fmt.Errorf("background: %w", err)
		}
	}
	return w, nil
}

// GPCNeT is the congestion benchmark of Chunduri et al. (SC'19): a random
// CanaryFraction of the nodes runs the canary (a random ring: each sends
// CanaryMessages messages of CanaryBytes to its left and its right neighbour,
// the P2P BW+Sync kernel's 128 KB messages by default), and the other nodes
// are split evenly, at random, among the congestors, each with 4 KB messages:
//
//	incast     every member sends Iterations messages to the group's first member
//	all-to-all pairwise exchange: in step s member i sends to member i+s, groups of A2AGroup
//	broadcast  a naive one-sided broadcast: every member sends a 64-byte read
//	           request to the root, which answers with the message (the
//	           requests are the incast of section 3.2.5)
//
// Canaries are application 0, congestors 1..3.
type GPCNeT struct {
	CanaryFraction float64
	CanaryMessages int
	CanaryBytes    int
	Iterations     int
	A2AGroup       int
	CongestorBytes int
}

// DefaultGPCNeT follows the paper's defaults scaled to a simulated run: 20%
// canaries, 4 KB congestor messages.
var DefaultGPCNeT = GPCNeT{CanaryFraction: 0.2, CanaryMessages: 2, CanaryBytes: 128 << 10, Iterations: 8, A2AGroup: 32, CongestorBytes: 4 << 10}

// Build builds the benchmark's workload; congestors false leaves only the
// canaries (GPCNeT's isolated run).
func (g GPCNeT) Build(t *topo.Topology, run uint64, congestors bool) (*Workload, error) {
	if g.CanaryFraction <= 0 || g.CanaryFraction >= 1 || g.CanaryMessages < 1 || g.CanaryBytes < 1 || g.Iterations < 1 || g.A2AGroup < 2 || g.CongestorBytes < 1 {
		return nil, fmt.Errorf("gpcnet: parameters %+v: want a canary fraction in (0,1) and positive sizes", g)
	}
	name := "gpcnet"
	if !congestors {
		name = "gpcnet-isolated"
	}
	w := newWorkload(name, t.Nodes(), "canary", "incast", "all-to-all", "broadcast")
	order := newPicker(run, SeedPlacement, 1).perm(t.Nodes())
	nc := int(float64(t.Nodes())*g.CanaryFraction + 0.5)
	if nc < 3 || t.Nodes()-nc < 6 {
		return nil, fmt.Errorf("gpcnet: %d nodes give %d canaries and %d congestors; want at least 3 and 6", t.Nodes(), nc, t.Nodes()-nc)
	}
	can := order[:nc]
	ring := newPicker(run, SeedPlacement, 2).perm(nc)
	for i := range nc {
		me := can[ring[i]]
		left, right := can[ring[(i+nc-1)%nc]], can[ring[(i+1)%nc]]
		for range g.CanaryMessages {
			w.PerNode[me] = append(w.PerNode[me],
				Message{Dst: left, Bytes: g.CanaryBytes, App: 0},
				Message{Dst: right, Bytes: g.CanaryBytes, App: 0})
		}
	}
	if !congestors {
		return w, nil
	}
	rest := order[nc:]
	third := len(rest) / 3
	incast, a2a, bcast := rest[:third], rest[third:2*third], rest[2*third:]
	for _, n := range incast[1:] {
		for range g.Iterations {
			w.PerNode[n] = append(w.PerNode[n], Message{Dst: incast[0], Bytes: g.CongestorBytes, App: 1})
		}
	}
	for lo := 0; lo < len(a2a); lo += g.A2AGroup {
		grp := a2a[lo:min(lo+g.A2AGroup, len(a2a))]
		for it := 0; it < g.Iterations && len(grp) > 1; it++ {
			for s := 1; s < len(grp); s++ {
				for i, n := range grp {
					w.PerNode[n] = append(w.PerNode[n], Message{Dst: grp[(i+s)%len(grp)], Bytes: g.CongestorBytes, App: 2})
				}
			}
		}
	}
	root := bcast[0]
	for it := 0; it < g.Iterations; it++ {
		for _, n := range bcast[1:] {
			w.PerNode[n] = append(w.PerNode[n], Message{Dst: root, Bytes: 64, App: 3})
			w.PerNode[root] = append(w.PerNode[root], Message{Dst: n, Bytes: g.CongestorBytes, App: 3})
		}
	}
	return w, nil
}
