// SPDX-License-Identifier: Apache-2.0

package topo

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ibreservoir/refmodel"
)

func mustBuild(t *testing.T, c Clos3) *Topology {
	t.Helper()
	tp, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// TestTable31 checks the two networks of the thesis's Table 3.1.
func TestTable31(t *testing.T) {
	for _, c := range []struct {
		spec                  Clos3
		nodes, switches, leaf int
		maxPort               int
	}{
		{Full, 3564, 504, 198, 36},
		{Tapered, 4608, 288, 144, 48},
	} {
		tp := mustBuild(t, c.spec)
		if tp.Nodes() != c.nodes || len(tp.Switches) != c.switches || len(tp.Leaves) != c.leaf {
			t.Errorf("%s: %d nodes, %d switches, %d leaves; want %d, %d, %d", c.spec.Name, tp.Nodes(), len(tp.Switches), len(tp.Leaves), c.nodes, c.switches, c.leaf)
		}
		if got := tp.MaxPort(); got != c.maxPort {
			t.Errorf("%s: largest port %d, want %d", c.spec.Name, got, c.maxPort)
		}
		// Taper: a leaf's node ports against its up ports.
		leaf := &tp.Switches[tp.Leaves[0]]
		if got, want := len(leaf.UpPorts()), c.spec.AggsPerPod; got != want {
			t.Errorf("%s: leaf has %d up ports, want %d", c.spec.Name, got, want)
		}
	}
}

func hopCounts(cs refmodel.CandidateSet) []int {
	n := make([]int, cs.PathLen)
	for _, h := range cs.Hops {
		n[h-1]++
	}
	return n
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSection53Example reconciles the tapered tree with section 5.3's 5-hop
// example (1, 8, 24, 8, 1 switches; about 400 links; over 1500 paths). Between
// pods the candidate set is two copies of that example, one per core group,
// sharing the receiver's link: 801 links and 3072 paths; each group alone is
// the thesis's 401 links and 1536 paths.
func TestSection53Example(t *testing.T) {
	tp := mustBuild(t, Tapered)
	src, dst := 0, tp.Nodes()-1 // pod 0 and pod 5
	cs, err := tp.Candidates(tp.LID(src), tp.LID(dst))
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := hopCounts(cs), []int{16, 384, 384, 16, 1}; !equalInts(got, want) {
		t.Fatalf("links per hop %v, want %v", got, want)
	}
	if n := tp.PathCount(tp.NodeLeaf[src], dst); n != 3072 {
		t.Errorf("%d paths, want 3072", n)
	}
	// One core group: the links that touch group 0's cores (IDs 240..263)
	// or come from aggregation switches 0-7 of a pod.
	group := map[uint16]bool{}
	for _, c := range tp.Level(2)[:24] {
		group[c] = true
	}
	var switches [5]map[uint16]bool
	for i := range switches {
		switches[i] = map[uint16]bool{}
	}
	links := 0
	for i, l := range cs.Links {
		h := cs.Hops[i]
		peer := tp.Peer(l)
		in := false
		switch h {
		case 1, 4: // leaf -> agg, agg -> leaf: the aggregation switch's block
			agg := l.Switch
			if h == 1 {
				agg = uint16(peer.Peer)
			}
			in = tp.Switches[agg].Index%16 < 8
		case 2:
			in = group[uint16(peer.Peer)]
		case 3:
			in = group[l.Switch]
		case 5:
			in = true
		}
		if in {
			links++
			switches[h-1][l.Switch] = true
		}
	}
	var per []int
	for _, s := range switches {
		per = append(per, len(s))
	}
	if links != 401 || !equalInts(per, []int{1, 8, 24, 8, 1}) {
		t.Errorf("one core group: %d links over switches %v per hop; want 401 over [1 8 24 8 1]", links, per)
	}
	if n := 8 * 24 * 8; n != 1536 {
		t.Fatal(n)
	}
}

func TestCandidateShapes(t *testing.T) {
	full := mustBuild(t, Full)
	tap := mustBuild(t, Tapered)
	for _, c := range []struct {
		tp       *Topology
		src, dst int
		perHop   []int
		paths    int64
	}{
		{full, 0, full.Nodes() - 1, []int{18, 324, 324, 18, 1}, 972},
		{full, 0, 17, []int{1}, 1},              // same leaf
		{full, 0, 18, []int{18, 18, 1}, 18},     // same pod, next leaf
		{tap, 0, 31, []int{1}, 1},               // same leaf
		{tap, 0, 32 * 23, []int{16, 16, 1}, 16}, // same pod
	} {
		cs, err := c.tp.Candidates(c.tp.LID(c.src), c.tp.LID(c.dst))
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Validate(); err != nil {
			t.Fatalf("%s %d->%d: %v", c.tp.Name, c.src, c.dst, err)
		}
		if got := hopCounts(cs); !equalInts(got, c.perHop) {
			t.Errorf("%s %d->%d: links per hop %v, want %v", c.tp.Name, c.src, c.dst, got, c.perHop)
		}
		if n := c.tp.PathCount(c.tp.NodeLeaf[c.src], c.dst); n != c.paths {
			t.Errorf("%s %d->%d: %d paths, want %d", c.tp.Name, c.src, c.dst, n, c.paths)
		}
		if pl := c.tp.PathLen(c.src, c.dst); pl != cs.PathLen {
			t.Errorf("%s %d->%d: PathLen %d, candidate set says %d", c.tp.Name, c.src, c.dst, pl, cs.PathLen)
		}
	}
}

func TestKaryNTree(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 3}, {4, 3}, {3, 4}} {
		tp, err := KaryNTree(c.k, c.n)
		if err != nil {
			t.Fatal(err)
		}
		per := 1
		for range c.n - 1 {
			per *= c.k
		}
		if tp.Nodes() != per*c.k || len(tp.Switches) != per*c.n {
			t.Fatalf("%s: %d nodes, %d switches; want %d, %d", tp.Name, tp.Nodes(), len(tp.Switches), per*c.k, per*c.n)
		}
		// Nodes whose leaves differ in their top digit climb to the top:
		// k^(n-1) paths of 2n-1 hops.
		if c.n > 1 {
			dst := tp.Nodes() - 1
			if got := tp.PathLen(0, dst); got != 2*c.n-1 {
				t.Errorf("%s: path length %d, want %d", tp.Name, got, 2*c.n-1)
			}
			if got := tp.PathCount(0, dst); got != int64(per) {
				t.Errorf("%s: %d paths, want %d", tp.Name, got, per)
			}
		}
		walkAll(t, tp, 200)
	}
}

// walkAll follows random adaptive choices from many sources to many
// destinations and checks every crossed link is a candidate at its position,
// and the walk ends at the destination after PathLen hops.
func walkAll(t *testing.T, tp *Topology, pairs int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(tp.Nodes())))
	for range pairs {
		src, dst := r.IntN(tp.Nodes()), r.IntN(tp.Nodes())
		if src == dst {
			continue
		}
		cs, err := tp.Candidates(tp.LID(src), tp.LID(dst))
		if err != nil {
			t.Fatal(err)
		}
		pos := map[Link]int{}
		for i, l := range cs.Links {
			pos[l] = cs.Hops[i]
		}
		s, _ := tp.LeafOf(src)
		for hop := 1; ; hop++ {
			if hop > cs.PathLen {
				t.Fatalf("%s %d->%d: no arrival after %d hops", tp.Name, src, dst, cs.PathLen)
			}
			ports, _ := tp.Route(s, dst)
			p := ports[r.IntN(len(ports))]
			l := Link{Switch: s, Port: p}
			if pos[l] != hop {
				t.Fatalf("%s %d->%d: hop %d crosses %s, a candidate at hop %d", tp.Name, src, dst, hop, l, pos[l])
			}
			pe := tp.Peer(l)
			if pe.Kind == ToNode {
				if pe.Peer != dst || hop != cs.PathLen {
					t.Fatalf("%s %d->%d: reached node %d at hop %d of %d", tp.Name, src, dst, pe.Peer, hop, cs.PathLen)
				}
				break
			}
			s = uint16(pe.Peer)
		}
	}
}

func TestWalks(t *testing.T) {
	walkAll(t, mustBuild(t, Full), 300)
	walkAll(t, mustBuild(t, Tapered), 300)
	small := Clos3{Name: "small", Radix: 12, NodesPerLeaf: 8, Pods: 3, LeavesPerPod: 4, AggsPerPod: 4, CoreGroups: 2, CoresPerGroup: 2, Parallel: 2}
	walkAll(t, mustBuild(t, small), 300)
}

func TestErrors(t *testing.T) {
	tp := mustBuild(t, Tapered)
	for _, c := range []struct {
		src, dst uint16
		want     string
	}{
		{0, 5, "LID 0 names no node"},
		{1, 4609, "LID 4609 names no node"},
		{7, 7, "both LID 7"},
	} {
		if _, err := tp.Candidates(c.src, c.dst); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Candidates(%d, %d) = %v, want %q", c.src, c.dst, err, c.want)
		}
	}
	bad := Tapered
	bad.Radix = 40
	if _, err := bad.Build(); err == nil || !strings.Contains(err.Error(), "more than its 40 ports") {
		t.Errorf("radix 40: %v", err)
	}
	bad = Tapered
	bad.CoreGroups = 3
	if _, err := bad.Build(); err == nil || !strings.Contains(err.Error(), "do not split") {
		t.Errorf("3 groups: %v", err)
	}
	if _, err := KaryNTree(40, 2); err == nil {
		t.Error("k=40 accepted")
	}
}

// TestOnMinimalPath holds the constant-time membership test equal to the
// candidate sets.
func TestOnMinimalPath(t *testing.T) {
	for _, tp := range []*Topology{mustBuild(t, Full), mustBuild(t, Tapered)} {
		r := rand.New(rand.NewPCG(3, 4))
		links := tp.Links()
		for range 60 {
			li, dst := r.IntN(len(tp.Leaves)), r.IntN(tp.Nodes())
			if tp.NodeLeaf[dst] == li && r.IntN(2) == 0 {
				continue
			}
			cs := tp.CandidatesFromLeaf(li, dst)
			in := map[Link]bool{}
			for _, l := range cs.Links {
				in[l] = true
			}
			for _, l := range links {
				if got := tp.OnMinimalPath(li, dst, l); got != in[l] {
					t.Fatalf("%s leaf %d -> node %d, link %s: OnMinimalPath %t, candidate %t", tp.Name, li, dst, l, got, in[l])
				}
			}
		}
	}
}
