// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"sort"
	"strings"

	"ibreservoir/topo"
)

// A Preset is a named experiment: a topology, a workload and the parameters
// that differ from DefaultParams.
type Preset struct {
	Name        string
	Description string
	Topology    func() (*topo.Topology, error)
	Workload    func(t *topo.Topology, seed uint64) (*Workload, error)
	Adjust      func(p *Params)
}

func clos(c topo.Clos3) func() (*topo.Topology, error) { return c.Build }

// Presets lists the experiments of the thesis's chapter 4 and GPCNeT, by name.
var Presets = map[string]Preset{}

func addPreset(p Preset) { Presets[p.Name] = p }

func init() {
	reduction := func(root int) func(t *topo.Topology, _ uint64) (*Workload, error) {
		return func(t *topo.Topology, _ uint64) (*Workload, error) {
			return NaiveReduction(t, min(1024, t.Nodes()), 50, 4096, root)
		}
	}
	smallMTU := func(p *Params) { p.MTU, p.Windows = 256, 5 } // Fig. 4.11's five windows
	addPreset(Preset{Name: "reduction-full", Description: "section 4.3: 1024 ranks on nodes 0-1023 of Full, ranks 1-1023 each sending 50 arrays of 4 KB to rank 0 (256-byte MTU)",
		Topology: clos(topo.Full), Workload: reduction(0), Adjust: smallMTU})
	addPreset(Preset{Name: "reduction-full-388", Description: "section 4.3, Fig. 4.13: the naive reduction with its root moved to node 388",
		Topology: clos(topo.Full), Workload: reduction(388), Adjust: smallMTU})
	addPreset(Preset{Name: "reduction-tapered", Description: "the naive reduction of section 4.3 on Tapered: 1024 ranks on nodes 0-1023 of its 4608 (256-byte MTU)",
		Topology: clos(topo.Tapered), Workload: reduction(0), Adjust: smallMTU})
	addPreset(Preset{Name: "reduction-small", Description: "the naive reduction on the 64-node 4-ary 3-tree of Fig. 3.1",
		Topology: func() (*topo.Topology, error) { return topo.KaryNTree(4, 3) }, Workload: reduction(0), Adjust: smallMTU})
	stencil := func(m StencilMapping) func(t *topo.Topology, _ uint64) (*Workload, error) {
		return func(t *topo.Topology, _ uint64) (*Workload, error) {
			return Stencil2D{X: 64, Y: 72, TileX: 8, TileY: 4, Bytes: 256 << 10, Mapping: m}.Build(t)
		}
	}
	addPreset(Preset{Name: "stencil-row-major", Description: "section 4.2: a 64 x 72 2-D stencil, 256 KB per neighbour, row-major on Tapered",
		Topology: clos(topo.Tapered), Workload: stencil(RowMajor)})
	addPreset(Preset{Name: "stencil-tiled", Description: "section 4.2.3: the stencil with one 8 x 4 tile per leaf on Tapered",
		Topology: clos(topo.Tapered), Workload: stencil(Tiled)})
	smallStencil := func(m StencilMapping) func(t *topo.Topology, _ uint64) (*Workload, error) {
		return func(t *topo.Topology, _ uint64) (*Workload, error) {
			return Stencil2D{X: 16, Y: 8, TileX: 4, TileY: 2, Bytes: 256 << 10, Mapping: m}.Build(t)
		}
	}
	addPreset(Preset{Name: "stencil-small-row-major", Description: "a 16 x 8 stencil, row-major, on the 128-node small-tapered tree",
		Topology: clos(topo.SmallTapered), Workload: smallStencil(RowMajor), Adjust: func(p *Params) { p.MTU = 1024 }})
	addPreset(Preset{Name: "stencil-small-tiled", Description: "the 16 x 8 stencil with 4 x 2 tiles per leaf on small-tapered",
		Topology: clos(topo.SmallTapered), Workload: smallStencil(Tiled), Adjust: func(p *Params) { p.MTU = 1024 }})
	addPreset(Preset{Name: "ring-background", Description: "section 4.4: ring exchange on 2172 nodes beside uniform background traffic on 2436, 128 KB messages, decoded from the ring's packets only (Fig. 4.16)",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return RingWithBackground(t, s, 3, 128<<10, 8) },
		Adjust:   func(p *Params) { p.Perspective = 0 }})
	addPreset(Preset{Name: "ring-background-admin", Description: "section 4.4, Fig. 4.17: the same run decoded from every packet (the administrator's view)",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return RingWithBackground(t, s, 3, 128<<10, 8) }})
	addPreset(Preset{Name: "ring-alone", Description: "section 4.4, Fig. 4.14: the ring exchange in isolation",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return RingWithBackground(t, s, 3, 128<<10, 0) }})
	addPreset(Preset{Name: "uniform-tapered", Description: "uniform random traffic, every node 8 messages of 64 KB, on Tapered",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return UniformWorkload(t, s, 8, 64<<10) }})
	addPreset(Preset{Name: "gpcnet-tapered", Description: "GPCNeT: 20% canaries (random ring, 2 x 128 KB each way), the rest incast, all-to-all and broadcast congestors with 4 KB messages, on Tapered",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return DefaultGPCNeT.Build(t, s, true) }})
	addPreset(Preset{Name: "gpcnet-tapered-isolated", Description: "GPCNeT's canaries alone on Tapered",
		Topology: clos(topo.Tapered),
		Workload: func(t *topo.Topology, s uint64) (*Workload, error) { return DefaultGPCNeT.Build(t, s, false) }})
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	var ns []string
	for n := range Presets {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// LookupPreset returns the named preset, or an error listing them all.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		return Preset{}, fmt.Errorf("unknown preset %q; the presets are: %s", name, strings.Join(PresetNames(), ", "))
	}
	return p, nil
}
