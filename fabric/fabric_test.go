// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"ibreservoir/internal/golden"

	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ibreservoir/congestion"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// testSchemes are the schemes of the end-to-end tests below: the full-ID scheme
// (64-bit layout) and the one-reservoir scheme in 5 bits (b = 3) and in 6
// bits (b = 4), both in BTH Resv6.
func testSchemes() []refmodel.Config {
	full := refmodel.DefaultConfig()
	full.Telemetry.Scheme = header.FullID
	full.Telemetry.CountBits = 8
	five := refmodel.DefaultConfig()
	six := refmodel.DefaultConfig()
	six.Telemetry.CountBits = 4
	return []refmodel.Config{full, five, six}
}

type run struct {
	once sync.Once
	r    *Result
	s    *Sim
	err  error
}

var runs sync.Map // name -> *run

// cached runs a simulation once per test binary.
func cached(t *testing.T, name string, build func() (*topo.Topology, *Workload, Params)) (*Result, *Sim) {
	t.Helper()
	v, _ := runs.LoadOrStore(name, &run{})
	rn := v.(*run)
	rn.once.Do(func() {
		tp, w, p := build()
		s, err := New(tp, w, p)
		if err != nil {
			rn.err = err
			return
		}
		rn.s = s
		rn.r, rn.err = s.Run(context.Background())
	})
	if rn.err != nil {
		t.Fatal(rn.err)
	}
	return rn.r, rn.s
}

func reductionRun(t *testing.T) (*Result, *Sim) {
	return cached(t, "reduction", func() (*topo.Topology, *Workload, Params) {
		tp, err := topo.KaryNTree(4, 3)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NaiveReduction(tp, 64, 50, 4096, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := DefaultParams()
		p.MTU = 256
		p.Schemes = testSchemes()
		return tp, w, p
	})
}

func stencilRun(t *testing.T, m StencilMapping) (*Result, *Sim) {
	return cached(t, "stencil"+string(rune('0'+m)), func() (*topo.Topology, *Workload, Params) {
		tp, err := topo.SmallTapered.Build()
		if err != nil {
			t.Fatal(err)
		}
		w, err := Stencil2D{X: 16, Y: 8, TileX: 4, TileY: 2, Bytes: 256 << 10, Mapping: m}.Build(tp)
		if err != nil {
			t.Fatal(err)
		}
		p := DefaultParams()
		p.MTU = 1024
		p.Schemes = testSchemes()
		return tp, w, p
	})
}

// TestNaiveReductionRoot checks the diagnosis end to end on the 64-node
// 4-ary 3-tree of Fig. 3.1: every other node sends 50 arrays of 4 KB to node
// 0 (section 4.3). For the full-ID and the 5- and 6-bit schemes, the
// diagnosis puts a congestion root at node 0's link with an estimated
// congested fraction above 0.99, and names the communication pattern.
func TestNaiveReductionRoot(t *testing.T) {
	r, s := reductionRun(t)
	leaf, port := s.t.LeafOf(0)
	for i, d := range r.Diagnoses {
		var root *Root
		for k := range d.Roots {
			if d.Roots[k].Endpoint && d.Roots[k].Node == 0 {
				root = &d.Roots[k]
			}
		}
		if root == nil {
			t.Errorf("%s: no congestion root at node 0: %+v", d.Scheme, d.Roots)
			continue
		}
		if root.Switch != leaf || root.Port != port || root.Fraction <= 0.99 {
			t.Errorf("%s: root %+v, want link %d:%d with congested fraction above 0.99", d.Scheme, *root, leaf, port)
		}
		if d.Cause != CausePattern {
			t.Errorf("%s: cause %q, want %q", d.Scheme, d.Cause, CausePattern)
		}
		// The root carries the most estimated congested packets.
		var best, rootC int64
		for _, l := range r.Links {
			best = max(best, l.Estimates[i].C)
			if l.Switch == leaf && l.Port == port {
				rootC = l.Estimates[i].C
			}
		}
		if rootC < best {
			t.Errorf("%s: root C=%d, but a link has C=%d", d.Scheme, rootC, best)
		}
		t.Logf("%s: root %d:%d fraction %.4f utilization %.3f, %d congested links", d.Scheme, root.Switch, root.Port, root.Fraction, root.Utilization, d.CongestedLinks)
	}
	// Ground truth agrees, and the counters miss the root: the HCA drains
	// its link, so the root port never waits for credit.
	for _, l := range r.Links {
		if l.Switch == leaf && l.Port == port {
			if l.Fraction <= 0.99 {
				t.Errorf("true congested fraction at the root %.4f, want above 0.99", l.Fraction)
			}
			if l.XmitWaitPS != 0 {
				t.Errorf("PortXmitWait at the root is %d ps, want 0", l.XmitWaitPS)
			}
		}
	}
	if r.Counters.Stalled == 0 {
		t.Error("no port stalled for credit anywhere: the congestion tree did not spread")
	}
}

// congestedShare returns the share of scheme i's estimated congested
// packets, over the links it reports congested, that lies on leaf up links.
func congestedShare(r *Result, i int) (share float64, total int64) {
	var up int64
	for _, l := range r.Links {
		e := l.Estimates[i]
		if !e.Reported || e.Fraction < CongestedFraction {
			continue
		}
		total += e.C
		if l.Level == 0 && l.Dir == "up" {
			up += e.C
		}
	}
	if total == 0 {
		return 0, 0
	}
	return float64(up) / float64(total), total
}

// TestStencilLeafBottleneck checks the diagnosis of a mapping problem on a
// scaled-down tapered tree (8 nodes and 4 uplinks per leaf): the 2-D stencil
// of section 4.2 with a row-major mapping shows its congestion on the leaf to
// aggregation links, for the full-ID and the 5- and 6-bit schemes, and the
// diagnosis names the mapping; one tile per leaf removes most of it and runs
// faster (section 4.2.3).
func TestStencilLeafBottleneck(t *testing.T) {
	row, _ := stencilRun(t, RowMajor)
	tiled, _ := stencilRun(t, Tiled)
	for i, d := range row.Diagnoses {
		share, total := congestedShare(row, i)
		_, tiledTotal := congestedShare(tiled, i)
		t.Logf("%s: %.3f of %d estimated congested packets on leaf up links (tiled: %d in all); cause %q, %d roots",
			d.Scheme, share, total, tiledTotal, d.Cause, len(d.Roots))
		if share < 0.7 {
			t.Errorf("%s: only %.3f of the congestion is on leaf-to-aggregation links, want at least 0.7", d.Scheme, share)
		}
		// And most congestion roots are leaf-to-aggregation links.
		up := 0
		for _, rt := range d.Roots {
			if row.topo.Switches[rt.Switch].Level == 0 && row.topo.Switches[rt.Switch].Port(rt.Port).Up {
				up++
			}
		}
		if 2*up <= len(d.Roots) {
			t.Errorf("%s: %d of %d roots are leaf up links, want most", d.Scheme, up, len(d.Roots))
		}
		if d.Cause != CauseMapping {
			t.Errorf("%s: cause %q, want %q", d.Scheme, d.Cause, CauseMapping)
		}
		if 4*tiledTotal > total {
			t.Errorf("%s: the tiled mapping keeps %d of the row-major's %d congested packets, want under a quarter", d.Scheme, tiledTotal, total)
		}
	}
	if tiled.Stats.SimTimePS >= row.Stats.SimTimePS {
		t.Errorf("tiled stencil took %d ps, row-major %d: the tiled mapping should be faster", tiled.Stats.SimTimePS, row.Stats.SimTimePS)
	}
}

// TestErrorMatchesAnalyticVariance holds the estimates to their analytic
// variance: over all links, the standardized errors z = (W - N)/sqrt(Var) of
// every scheme, with refmodel's analytic variance (section 3.3: sum N_l(l-1)
// for full-ID; section 5.3: sum Q_l l^2 - N_l for the one-bit schemes), have
// mean about 0 and mean square about 1. The bound is three standard errors of independent
// standard normals, |mean| <= 3/sqrt(n) and |mean square - 1| <= 3 sqrt(2/n)
// for n links; the links of one run share packets, so this is a check of
// scale, not an exact test.
func TestErrorMatchesAnalyticVariance(t *testing.T) {
	for _, name := range []string{"reduction", "stencil-row", "stencil-tiled"} {
		var r *Result
		switch name {
		case "reduction":
			r, _ = reductionRun(t)
		case "stencil-row":
			r, _ = stencilRun(t, RowMajor)
		default:
			r, _ = stencilRun(t, Tiled)
		}
		for _, sc := range r.Schemes {
			n := float64(sc.ZLinks)
			if n < 50 {
				t.Fatalf("%s %s: only %d links with a variance", name, sc.Name, sc.ZLinks)
			}
			t.Logf("%s %s: %d links, mean z %.3f, mean z^2 %.3f", name, sc.Name, sc.ZLinks, sc.ZMean, sc.ZMeanSquare)
			if math.Abs(sc.ZMean) > 3/math.Sqrt(n) || math.Abs(sc.ZMeanSquare-1) > 3*math.Sqrt(2/n) {
				t.Errorf("%s %s: mean z %.3f (bound %.3f), mean z^2 %.3f (bound 1 +- %.3f)", name, sc.Name, sc.ZMean, 3/math.Sqrt(n), sc.ZMeanSquare, 3*math.Sqrt(2/n))
			}
		}
	}
}

// TestPacketsAsHCAsSendThem: every packet the receivers read came from its
// source's LID to its destination's, and each QP's PSNs count up by one.
func TestPacketsAsHCAsSendThem(t *testing.T) {
	_, s := reductionRun(t)
	k := len(s.models)
	psns := map[int32][]uint32{}
	for i, smp := range s.samples {
		r := s.reads[i*k]
		if r.SLID != s.t.LID(int(smp.src)) || r.DLID != s.t.LID(int(smp.dst)) {
			t.Fatalf("packet %d: SLID %d DLID %d, want %d %d", i, r.SLID, r.DLID, s.t.LID(int(smp.src)), s.t.LID(int(smp.dst)))
		}
		psns[smp.src] = append(psns[smp.src], r.ID)
		if smp.pathLen != int8(s.t.PathLen(int(smp.src), int(smp.dst))) {
			t.Fatalf("packet %d: path length %d", i, smp.pathLen)
		}
	}
	// Adaptive routing reorders packets; as a set, each QP's PSNs are
	// consecutive from its first (modulo 2^24).
	for src, ps := range psns {
		first := uint32(seed.Derive(s.p.Seed, SeedPSN, uint64(src), 0)) & 0xFFFFFF
		seen := map[uint32]bool{}
		for _, p := range ps {
			seen[p] = true
		}
		for j := range uint32(len(ps)) {
			if !seen[(first+j)&0xFFFFFF] {
				t.Fatalf("node %d: PSN %d missing from its %d packets", src, (first+j)&0xFFFFFF, len(ps))
			}
		}
	}
}

func tinyResult(t *testing.T, seed uint64) []byte {
	t.Helper()
	tp, err := topo.KaryNTree(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	w, err := UniformWorkload(tp, seed, 6, 3000)
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.MTU = 256
	p.Seed = seed
	p.Schemes = DefaultSchemes(seed)
	p.CounterInterval = 1_000_000
	s, err := New(tp, w, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestGolden freezes a whole small run (every estimate, truth and counter of
// uniform traffic on the 2-ary 3-tree) and checks that running it again gives
// the same bytes. -update rewrites testdata/tiny.golden.
func TestGolden(t *testing.T) {
	golden.CheckStable(t, filepath.Join("testdata", "tiny.golden"), func() []byte { return tinyResult(t, 7) })
	if bytes.Equal(tinyResult(t, 7), tinyResult(t, 8)) {
		t.Error("seeds 7 and 8 give the same run")
	}
}

func TestValidation(t *testing.T) {
	p := DefaultParams()
	p.MTU = 300
	p.LinkGbps = 0
	p.InputBuffer = 100
	p.Congestion = congestion.Threshold{}
	p.P = 0.4
	err := p.Validate()
	for _, want := range []string{"MTU 300", "link rate 0", "whole", "threshold: set bytes", "confidence 0.4"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %q", err, want)
		}
	}
	tp, _ := topo.KaryNTree(2, 2)
	if _, err := NaiveReduction(tp, 9, 1, 1, 0); err == nil {
		t.Error("9 ranks on 4 nodes accepted")
	}
	if _, err := (Stencil2D{X: 2, Y: 2, TileX: 1, TileY: 1, Bytes: 1, Mapping: Tiled}).Build(tp); err == nil || !strings.Contains(err.Error(), "tiles") {
		t.Errorf("tiles of 1 node on 2-node leaves: %v", err)
	}
	w := &Workload{Name: "bad", PerNode: make([][]Message, tp.Nodes())}
	w.PerNode[1] = []Message{{Dst: 1, Bytes: 10}}
	if _, err := New(tp, w, DefaultParams()); err == nil || !strings.Contains(err.Error(), "node 1 sends to node 1") {
		t.Errorf("a message to itself: %v", err)
	}
	if _, err := LookupPreset("nope"); err == nil || !strings.Contains(err.Error(), "reduction-tapered") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestPrimarySplit: section 4.4 assigns 2172 of the 4608 nodes to the
// primary application.
func TestPrimarySplit(t *testing.T) {
	n := 0
	for i := range 4608 {
		if PrimaryNode(i) {
			n++
		}
	}
	if n != 2172 {
		t.Errorf("%d primary nodes, want 2172", n)
	}
}

// TestStencilMappings: both mappings are bijections, and the tiled one puts
// one 8 x 4 tile on each 32-node leaf.
func TestStencilMappings(t *testing.T) {
	for _, m := range []StencilMapping{RowMajor, Tiled} {
		s := Stencil2D{X: 64, Y: 72, TileX: 8, TileY: 4, Mapping: m}
		seen := map[int]bool{}
		for y := range 72 {
			for x := range 64 {
				n := s.Node(x, y)
				if n < 0 || n >= 4608 || seen[n] {
					t.Fatalf("mapping %d: (%d,%d) -> %d", m, x, y, n)
				}
				seen[n] = true
				if m == Tiled && n/32 != s.Node(x/8*8, y/4*4)/32 {
					t.Fatalf("tile of (%d,%d) spans leaves", x, y)
				}
			}
		}
	}
}

// TestPresetsBuild builds every preset's topology and workload.
func TestPresetsBuild(t *testing.T) {
	for _, name := range PresetNames() {
		pr := Presets[name]
		tp, err := pr.Topology()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w, err := pr.Workload(tp, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := DefaultParams()
		if pr.Adjust != nil {
			pr.Adjust(&p)
		}
		if _, err := New(tp, w, p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// BenchmarkPreset runs a full-size preset once: go test -bench Preset
// -benchtime 1x ./fabric (PRESET selects it; the default is
// reduction-tapered, the run the simulator must finish in under 10 minutes).
func BenchmarkPreset(b *testing.B) {
	name := os.Getenv("PRESET")
	if name == "" {
		name = "reduction-tapered"
	}
	pr, err := LookupPreset(name)
	if err != nil {
		b.Fatal(err)
	}
	tp, err := pr.Topology()
	if err != nil {
		b.Fatal(err)
	}
	p := DefaultParams()
	if pr.Adjust != nil {
		pr.Adjust(&p)
	}
	w, err := pr.Workload(tp, p.Seed)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := New(tp, w, p)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Stats.Packets), "packets")
		b.ReportMetric(float64(r.Stats.Hops), "hops")
		b.ReportMetric(float64(r.Stats.SimTimePS)/1e6, "sim-us")
	}
}

// TestRandomRuns runs small random fabrics (trees, traffic, MTUs, buffer
// sizes, congestion definitions) and checks what must hold in every run:
// every packet arrives after exactly its minimal path's hops, the links'
// ground truth adds up to those hops, the full-ID scheme's weighted counts
// add up to the packets' hop counts, and a rerun is identical.
func TestRandomRuns(t *testing.T) {
	defs := []congestion.Definition{
		congestion.QueueOverCredits{},
		congestion.Threshold{Bytes: 8 << 10},
		congestion.Probabilistic{Min: 4 << 10, Max: 64 << 10},
		congestion.IBCC{Weight: 8, Hysteresis: 12 << 10, VictimMask: true},
	}
	trees := []func() (*topo.Topology, error){
		func() (*topo.Topology, error) { return topo.KaryNTree(2, 3) },
		func() (*topo.Topology, error) { return topo.KaryNTree(3, 2) },
		topo.SmallTapered.Build,
		func() (*topo.Topology, error) {
			return topo.Parse("clos3:radix=8,h=4,pods=2,leaves=2,aggs=4,groups=2,cores=1,parallel=2")
		},
	}
	for trial := range 8 {
		seed := uint64(100 + trial)
		tp, err := trees[trial%len(trees)]()
		if err != nil {
			t.Fatal(err)
		}
		pick := newPicker(seed, 99)
		w, err := UniformWorkload(tp, seed, 1+pick.intn(6), 1+pick.intn(20000))
		if err != nil {
			t.Fatal(err)
		}
		p := DefaultParams()
		p.Seed = seed
		p.Schemes = DefaultSchemes(seed)
		if trial%2 == 1 { // and the sender-generated draws of section 5.9
			snd := refmodel.DefaultConfig()
			snd.Telemetry.SenderL, snd.Generator, snd.Seed = 5, refmodel.GeneratorSender, seed
			p.Schemes = append(p.Schemes, snd)
		}
		p.MTU = []int{256, 512, 1024, 2048, 4096}[pick.intn(5)]
		p.InputBuffer = p.MTU + 128 + pick.intn(32<<10)
		p.OutputBuffer = p.MTU + 128 + pick.intn(128<<10)
		p.NICBuffer = p.MTU + 128 + pick.intn(64<<10)
		p.Congestion = defs[trial%len(defs)]
		p.CounterInterval = 1_000_000
		var first []byte
		for rep := range 2 {
			s, err := New(tp, w, p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run(context.Background())
			if err != nil {
				t.Fatalf("trial %d (%s, MTU %d, buffers %d/%d/%d, %s): %v", trial, tp.Name, p.MTU, p.InputBuffer, p.OutputBuffer, p.NICBuffer, p.Congestion.Name(), err)
			}
			var hops int64
			for _, smp := range s.samples {
				hops += int64(smp.pathLen)
			}
			if hops != r.Stats.Hops {
				t.Fatalf("trial %d: packets crossed %d hops, the links counted %d", trial, hops, r.Stats.Hops)
			}
			var wsum int64
			for _, l := range r.Links {
				wsum += l.Estimates[0].W
			}
			var want int64
			for i := range s.samples {
				want += int64(s.reads[i*len(s.models)].HopCount)
			}
			if wsum != want {
				t.Fatalf("trial %d: full-ID counts add to %d, the packets' hop counts to %d", trial, wsum, want)
			}
			b, _ := json.Marshal(r)
			if rep == 0 {
				first = b
			} else if !bytes.Equal(first, b) {
				t.Fatalf("trial %d: a rerun differs", trial)
			}
		}
	}
}

// TestWindowsFollowTheTree: decoding by windows of arrival time (Fig. 4.11)
// partitions the packets, finds the root congested in every window, and sees
// the congestion tree spread: the full-ID scheme reports more congested links
// in the last window than in the first.
func TestWindowsFollowTheTree(t *testing.T) {
	r, _ := cached(t, "reduction-windows", func() (*topo.Topology, *Workload, Params) {
		tp, err := topo.KaryNTree(4, 3)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NaiveReduction(tp, 64, 20, 4096, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := DefaultParams()
		p.MTU, p.Windows = 256, 5
		p.Schemes = testSchemes()[:1]
		return tp, w, p
	})
	if len(r.Windows) != 5 {
		t.Fatalf("%d windows", len(r.Windows))
	}
	total := 0
	congested := make([]int, len(r.Windows))
	for k, w := range r.Windows {
		total += w.Packets
		root := -1.0
		for _, l := range w.Schemes[0] {
			if l.Switch == 0 && l.Port == 1 {
				root = l.Fraction
			}
			if l.Fraction >= CongestedFraction {
				congested[k]++
			}
		}
		if root < 0.9 {
			t.Errorf("window %d: root congested fraction %.3f", k, root)
		}
	}
	if int64(total) != r.Stats.Packets {
		t.Errorf("windows hold %d packets of %d", total, r.Stats.Packets)
	}
	t.Logf("congested links per window: %v", congested)
	if congested[len(congested)-1] <= congested[0] {
		t.Errorf("congested links per window %v: the tree does not spread", congested)
	}
}
