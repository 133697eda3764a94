// SPDX-License-Identifier: Apache-2.0

package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// SmallTapered is a scaled-down Tapered for quick runs and tests: 4 pods of 4
// leaves and 4 aggregation switches, 8 nodes and 4 uplinks per leaf (2:1
// taper at the leaves), 2 core groups of 4 cores: 128 nodes, 40 switches.
var SmallTapered = Clos3{Name: "small-tapered", Radix: 12, NodesPerLeaf: 8, Pods: 4, LeavesPerPod: 4, AggsPerPod: 4, CoreGroups: 2, CoresPerGroup: 4, Parallel: 1}

// Names lists the forms Parse accepts.
var Names = []string{
	"full", "tapered", "small-tapered",
	"kary:k=K,n=N",
	"clos3:radix=R,h=NODES_PER_LEAF,pods=P,leaves=L,aggs=A,groups=G,cores=C,parallel=X",
}

// Parse builds the topology a specification names: a preset (full, tapered,
// small-tapered), a k-ary n-tree ("kary:k=4,n=3") or a three-level Clos
// ("clos3:radix=12,h=8,pods=4,leaves=4,aggs=4,groups=2,cores=4", parallel 1
// unless given).
func Parse(spec string) (*Topology, error) {
	switch spec {
	case "full":
		return Full.Build()
	case "tapered":
		return Tapered.Build()
	case "small-tapered":
		return SmallTapered.Build()
	}
	kind, args, ok := strings.Cut(spec, ":")
	if !ok || (kind != "kary" && kind != "clos3") {
		return nil, fmt.Errorf("topology %q: want one of %s", spec, strings.Join(Names, ", "))
	}
	vals := map[string]int{}
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("topology %q: %q is not key=value", spec, kv)
		}
		if _, dup := vals[k]; dup {
			return nil, fmt.Errorf("topology %q: %s given twice", spec, k)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<16 {
			return nil, fmt.Errorf("topology %q: %s=%q is not a count", spec, k, v)
		}
		vals[k] = n
	}
	need := func(keys ...string) error {
		for k := range vals {
			found := false
			for _, want := range keys {
				found = found || k == want
			}
			if !found {
				return fmt.Errorf("topology %q: unknown parameter %q (want %s)", spec, k, strings.Join(keys, ", "))
			}
		}
		return nil
	}
	if kind == "kary" {
		if err := need("k", "n"); err != nil {
			return nil, err
		}
		k, n := vals["k"], vals["n"]
		if n > 6 {
			return nil, fmt.Errorf("topology %q: n=%d levels; want at most 6", spec, n)
		}
		if k >= 2 && n >= 1 {
			per := 1
			for range n - 1 {
				per = min(per*k, 1<<20)
			}
			if err := checkSize(spec, per*n, per); err != nil {
				return nil, err
			}
		}
		return KaryNTree(k, n)
	}
	if err := need("radix", "h", "pods", "leaves", "aggs", "groups", "cores", "parallel"); err != nil {
		return nil, err
	}
	par := 1
	if v, ok := vals["parallel"]; ok {
		par = v
	}
	c := Clos3{Name: spec, Radix: vals["radix"], NodesPerLeaf: vals["h"], Pods: vals["pods"], LeavesPerPod: vals["leaves"],
		AggsPerPod: vals["aggs"], CoreGroups: vals["groups"], CoresPerGroup: vals["cores"], Parallel: par}
	if c.Pods*c.LeavesPerPod > 4096 || c.Pods*c.AggsPerPod > 4096 || c.CoreGroups*c.CoresPerGroup > 4096 {
		return nil, fmt.Errorf("topology %q: more than 4096 switches in a level", spec)
	}
	if err := checkSize(spec, c.Pods*(c.LeavesPerPod+c.AggsPerPod)+c.CoreGroups*c.CoresPerGroup, c.Pods*c.LeavesPerPod); err != nil {
		return nil, err
	}
	return c.Build()
}

// maxTable bounds switches times leaves for a parsed specification: the
// routing tables hold one entry per (switch, leaf) and Validate's minimality
// check grows as leaves squared times switches. Full is 504 x 198, Tapered
// 288 x 144.
const maxTable = 1 << 18

func checkSize(spec string, switches, leaves int) error {
	if switches*leaves > maxTable {
		return fmt.Errorf("topology %q: %d switches and %d leaves exceed the %d routing-table entries a specification may ask for; build it with the topo package's API", spec, switches, leaves, maxTable)
	}
	return nil
}
