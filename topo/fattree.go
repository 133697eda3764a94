// SPDX-License-Identifier: Apache-2.0

package topo

import "fmt"

// Clos3 describes a three-level folded Clos (fat tree) built from pods:
//
//   - Pods pods, each of LeavesPerPod leaf switches and AggsPerPod
//     aggregation switches; every leaf has NodesPerLeaf nodes on ports
//     1..NodesPerLeaf and one link to each aggregation switch of its pod, in
//     order (ports NodesPerLeaf+1 ...).
//   - CoreGroups groups of CoresPerGroup core switches. The aggregation
//     switches of every pod are split into CoreGroups contiguous blocks of
//     AggsPerPod/CoreGroups; block g connects to every core of group g, with
//     Parallel links per (aggregation, core) pair. Aggregation ports: the pod's
//     leaves first (1..LeavesPerPod), then the cores of its group in order.
//     Core ports: pod by pod, the block's aggregation switches in order.
//
// So a leaf has NodesPerLeaf down and AggsPerPod up ports (the taper is
// NodesPerLeaf:AggsPerPod), an aggregation switch LeavesPerPod down and
// Parallel*CoresPerGroup up, a core Parallel*Pods*AggsPerPod/CoreGroups down.
// Switch IDs: leaves (pod by pod), then aggregation switches (pod by pod),
// then cores (group by group).
type Clos3 struct {
	Name          string
	Radix         int
	NodesPerLeaf  int
	Pods          int
	LeavesPerPod  int
	AggsPerPod    int
	CoreGroups    int
	CoresPerGroup int
	Parallel      int
}

// Full is the thesis's Full network (Table 3.1): 3564 nodes, radix 36, 18
// nodes per leaf, 504 switches, full bisection bandwidth. 11 pods of 18 leaves
// and 18 aggregation switches (198 + 198) and 108 cores in 6 groups of 18:
// aggregation switches 3g..3g+2 of every pod connect to the 18 cores of group
// g, one link each, and each core has 3 aggregation switches in each of the 11
// pods (33 of its 36 ports). CODES's pruned fat tree, which the thesis
// modified (section 3.5), has the same switch counts with one aggregation
// switch per pod per core and 3 parallel links instead (Parallel 3, groups of
// 6 cores); both give 18 + 324 + 324 + 18 + 1 = 685 candidate links and 972
// or 2916 paths between pods.
var Full = Clos3{Name: "full", Radix: 36, NodesPerLeaf: 18, Pods: 11, LeavesPerPod: 18, AggsPerPod: 18, CoreGroups: 6, CoresPerGroup: 18, Parallel: 1}

// Tapered is the thesis's Tapered network (Table 3.1): 4608 nodes, radix 48,
// 32 nodes and 16 uplinks per leaf (2:1 taper at the leaves), 288 switches. 6
// pods of 24 leaves and 16 aggregation switches (144 + 96) and 48 cores in 2
// groups of 24: aggregation switches 0-7 of every pod connect to cores 0-23,
// 8-15 to cores 24-47, one link each; each core reaches 8 aggregation switches
// in each of the 6 pods (48 ports).
//
// Between pods each core group is exactly section 5.3's example, 1, 8, 24, 8
// and 1 switches at hops 1-5: 8 + 192 + 192 + 8 + 1 = 401 links and 8*24*8 =
// 1536 paths. A leaf's 16 uplinks reach both groups, so the candidate set is
// the two groups together, sharing the last link: 16 + 384 + 384 + 16 + 1 =
// 801 links and 3072 paths (TestSection53Example). No 288-switch radix-48 tree
// with 16 uplinks per leaf gives a leaf only 8 next hops.
var Tapered = Clos3{Name: "tapered", Radix: 48, NodesPerLeaf: 32, Pods: 6, LeavesPerPod: 24, AggsPerPod: 16, CoreGroups: 2, CoresPerGroup: 24, Parallel: 1}

// maxBuild bounds switches times leaves, the entries of the routing tables
// (one slice header each), at about 400 MB.
const maxBuild = 1 << 24

// Build builds the tree.
func (c Clos3) Build() (*Topology, error) {
	switch {
	case c.Radix < 2 || c.Radix > 63:
		return nil, fmt.Errorf("clos3 %s: radix %d, want 2..63 (ports below 64 keep the thesis's link encoding distinct)", c.Name, c.Radix)
	case c.NodesPerLeaf < 1 || c.Pods < 1 || c.LeavesPerPod < 1 || c.AggsPerPod < 1 || c.CoreGroups < 1 || c.CoresPerGroup < 1 || c.Parallel < 1:
		return nil, fmt.Errorf("clos3 %s: every count must be at least 1 (%+v)", c.Name, c)
	case c.AggsPerPod%c.CoreGroups != 0:
		return nil, fmt.Errorf("clos3 %s: %d aggregation switches per pod do not split into %d core groups", c.Name, c.AggsPerPod, c.CoreGroups)
	}
	nodes := c.Pods * c.LeavesPerPod * c.NodesPerLeaf
	if sw, lv := c.Pods*(c.LeavesPerPod+c.AggsPerPod)+c.CoreGroups*c.CoresPerGroup, c.Pods*c.LeavesPerPod; sw*lv > maxBuild {
		return nil, fmt.Errorf("clos3 %s: %d switches and %d leaves need %d routing-table entries, more than %d", c.Name, sw, lv, sw*lv, maxBuild)
	}
	if nodes > 0xBFFF {
		return nil, fmt.Errorf("clos3 %s: %d nodes exceed the %d unicast LIDs", c.Name, nodes, 0xBFFF)
	}
	b := newBuilder(c.Name, c.Radix, 3)
	leaves := make([][]uint16, c.Pods)
	aggs := make([][]uint16, c.Pods)
	for p := range c.Pods {
		for range c.LeavesPerPod {
			leaves[p] = append(leaves[p], b.addSwitch(0, p))
		}
	}
	for p := range c.Pods {
		for range c.AggsPerPod {
			aggs[p] = append(aggs[p], b.addSwitch(1, p))
		}
	}
	cores := make([][]uint16, c.CoreGroups)
	for g := range c.CoreGroups {
		for range c.CoresPerGroup {
			cores[g] = append(cores[g], b.addSwitch(2, -1))
		}
	}
	for p := range c.Pods {
		for _, l := range leaves[p] {
			for range c.NodesPerLeaf {
				if err := b.attach(l); err != nil {
					return nil, err
				}
			}
			for _, a := range aggs[p] {
				if err := b.connect(l, a); err != nil {
					return nil, err
				}
			}
		}
	}
	block := c.AggsPerPod / c.CoreGroups
	// Aggregation up ports in core order; core down ports pod by pod, so the
	// links are made core-major within each pod and block.
	for p := range c.Pods {
		for j, a := range aggs[p] {
			for _, k := range cores[j/block] {
				for range c.Parallel {
					if err := b.connect(a, k); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return b.finish()
}

// KaryNTree is Petrini and Vanneschi's k-ary n-tree: n levels of k^(n-1)
// switches with 2k ports (the top level uses k), k^n nodes. Switch x of level
// l (digits x_(n-2) .. x_0 in base k) connects, by up port k+1+u, to switch x'
// of level l+1 where x' is x with digit l set to u, arriving at x”s down port
// x_l+1. Node m hangs off leaf m/k, port m%k+1. The 4-ary 3-tree is the
// 64-node fat tree of the thesis's Figure 3.1.
func KaryNTree(k, n int) (*Topology, error) {
	if k < 2 || n < 1 || 2*k > 63 || n > 8 {
		return nil, fmt.Errorf("k-ary n-tree: k=%d n=%d; want k >= 2 with 2k < 64 ports, 1 <= n <= 8", k, n)
	}
	per := 1
	for range n - 1 {
		per *= k
	}
	if per*k > 0xBFFF {
		return nil, fmt.Errorf("k-ary n-tree: %d nodes exceed the unicast LIDs", per*k)
	}
	if per*n*per > maxBuild {
		return nil, fmt.Errorf("k-ary n-tree: %d switches and %d leaves need more than %d routing-table entries", per*n, per, maxBuild)
	}
	b := newBuilder(fmt.Sprintf("%d-ary-%d-tree", k, n), 2*k, n)
	ids := make([][]uint16, n)
	pow := func(e int) int {
		r := 1
		for range e {
			r *= k
		}
		return r
	}
	for l := range n {
		for x := range per {
			pod := -1
			if n >= 2 {
				pod = x / pow(max(l, 1))
				if l == n-1 {
					pod = -1
				}
			}
			ids[l] = append(ids[l], b.addSwitch(l, pod))
		}
	}
	// Ports in order: leaves get their nodes first, then every switch's down
	// ports (from the level below) before its up ports.
	for x := range per {
		for range k {
			if err := b.attach(ids[0][x]); err != nil {
				return nil, err
			}
		}
	}
	for l := 0; l < n-1; l++ {
		// Down ports of level l+1 switch x' must be in digit order: connect in
		// order of the upper switch, then of the digit.
		type pair struct{ lo, hi int }
		var ps []pair
		for xp := range per {
			for v := range k {
				d := xp / pow(l) % k
				lo := xp + (v-d)*pow(l)
				ps = append(ps, pair{lo, xp})
			}
		}
		// Each lower switch's up ports must come in digit order too; connecting
		// by upper switch gives lower switch x its up links in increasing
		// x' order, which is increasing digit u. Fine for both ends.
		for _, p := range ps {
			if err := b.connect(ids[l][p.lo], ids[l+1][p.hi]); err != nil {
				return nil, err
			}
		}
	}
	return b.finish()
}
