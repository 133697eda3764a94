// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// A rateMix is back-to-back traffic of one class of frame sizes: each packet
// is drawn from frame (local or global, and its frame length in bytes, 4k+2).
type rateMix struct {
	name  string
	n     int // packets
	frame func(r *rand.Rand) (lnh uint8, bytes int)
}

// local and global frame lengths: the headers (LRH, GRH, BTH), the ICRC and
// the VCRC, and 4-byte words of payload.
const (
	minLocalFrame  = header.LRHLen + header.BTHLen + header.ICRCLen + header.VCRCLen
	minGlobalFrame = minLocalFrame + header.GRHLen
	maxLegalFrame  = 4*refmodel.MaxLegalPktLen + header.VCRCLen
)

// between is a frame of lo..hi bytes (both 2 mod 4).
func between(r *rand.Rand, lo, hi int) int { return lo + 4*r.IntN((hi-lo)/4+1) }

// rateMixes are the size classes the rate table of docs/rtl.md measures:
// the shortest packet (26 bytes), the longest one-beat packet at 512 bits
// (62 bytes: frames are 4k+2 bytes, so none is 64), one-beat packets of
// every length, two-beat packets (66 to 126 bytes, local and global), the
// longest packets (4098 to 4194 bytes), and all of them mixed.
var rateMixes = []rateMix{
	{"26 B", 2000, func(r *rand.Rand) (uint8, int) { return header.LNHLocal, minLocalFrame }},
	{"62 B", 2000, func(r *rand.Rand) (uint8, int) { return header.LNHLocal, 62 }},
	{"26..62 B", 2000, func(r *rand.Rand) (uint8, int) { return header.LNHLocal, between(r, minLocalFrame, 62) }},
	{"66..126 B", 1000, func(r *rand.Rand) (uint8, int) {
		if r.IntN(4) == 0 {
			return header.LNHGlobal, between(r, minGlobalFrame, 126)
		}
		return header.LNHLocal, between(r, 66, 126)
	}},
	{"4098..4194 B", 40, func(r *rand.Rand) (uint8, int) { return header.LNHLocal, between(r, 4098, maxLegalFrame) }},
	{"26..4194 B", 1000, func(r *rand.Rand) (uint8, int) {
		switch r.IntN(8) {
		case 0:
			return header.LNHLocal, between(r, 4098, maxLegalFrame)
		case 1, 2:
			return header.LNHGlobal, between(r, minGlobalFrame, 254)
		default:
			return header.LNHLocal, between(r, minLocalFrame, 126)
		}
	}},
}

// rateSet is one generator chain through one port of c: mix's packets, the
// model's stage on each from the state the previous one left (the first
// loads the port's seeded state), with random telemetry fields, PSNs,
// DestQPs, SLIDs and congested bits. With sender draws (no generator state)
// each packet leaves by a random switch and port instead: the harness writes
// the port configuration (cfg_we_i) with every sop beat, so it changes while
// the packets ahead are still inside.
func rateSet(t *testing.T, c verilog.Config, mix rateMix, seed uint64) *vectors.StageSet {
	t.Helper()
	mc := c.ModelConfig(header.LNHLocal, seed)
	set, err := vectors.NewStageSet(vectors.StageConfig{Model: mc, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	sw, port := uint16(0x1234), uint8(7)
	g, err := mc.NewPortGenerator(sw, port)
	if err != nil {
		t.Fatal(err)
	}
	var state rng.State
	if g != nil {
		state = g.State()
	}
	footer := set.Layout().FooterBytes
	r := rand.New(rand.NewPCG(seed, 0x7261746573))
	for i := range mix.n {
		lnh, n := mix.frame(r)
		if mc.SenderMode() {
			sw, port = uint16(r.Uint32()), uint8(1+r.IntN(int(mc.MaxPort)))
		}
		var h header.Headers
		h.LRH = header.LRH{VL: 1, LNH: lnh, DLID: uint16(r.Uint32()), SLID: uint16(r.Uint32())}
		if lnh == header.LNHGlobal {
			h.GRH = header.GRH{IPVer: 6, NxtHdr: header.NxtHdrBTH, HopLmt: 64}
			for j := range 16 {
				h.GRH.SGID[j], h.GRH.DGID[j] = byte(r.Uint32()), byte(r.Uint32())
			}
		}
		h.BTH = header.BTH{OpCode: 4, PKey: 0xffff, Resv6: uint8(r.Uint32() & 63), DestQP: r.Uint32() & 0xffffff, PSN: r.Uint32() & 0xffffff}
		if m := uint8(1)<<(c.SenderL+1) - 1; mc.SenderMode() && h.BTH.Resv6&m == 0 {
			// hop_rand 0 is malformed: the model refuses it as a vector.
			h.BTH.Resv6 |= 1 + uint8(r.IntN(int(m)))
		}
		hdr := h.Len()
		data := make([]byte, n-hdr-header.ICRCLen-footer-header.VCRCLen)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		pkt, err := header.Build(h, data, footer)
		if err != nil {
			t.Fatal(err)
		}
		if len(pkt) != n {
			t.Fatalf("%s: a %d-byte frame, want %d", mix.name, len(pkt), n)
		}
		v, err := set.Append(fmt.Sprintf("rate/%s/%d", mix.name, i), pkt, sw, port, r.IntN(2) == 1, state)
		if err != nil {
			t.Fatal(err)
		}
		// One chain: only the first packet loads the generator.
		v.Load = i == 0
		state = v.StateOut
	}
	return set
}

// rateRow is one measured run: beats and packets the stage took, the cycles
// it took them in, and the fewest and most cycles a beat took through it.
type rateRow struct {
	config, mix            string
	packets, beats, cycles int64
	latMin, latMax         int
}

// measuredRow is the row of a back-to-back run with the egress always
// ready, its latency held to the configuration's (latencyErr).
func measuredRow(t *testing.T, c verilog.Config, mix string, res *Result) rateRow {
	t.Helper()
	lo, hi, err := latencyErr(c, res)
	if err != nil {
		t.Errorf("%s: %v", mix, err)
	}
	return rateRow{c.Name(), mix, int64(res.Vectors), res.Beats, res.Cycles, lo, hi}
}

// latencyErr holds a run's measured latency (Result.Latency: back-to-back
// beats, the egress always ready) to configuration c's stated one,
// verilog.Config.Latency. No beat may leave sooner than PipeDepth cycles
// after it entered. A configuration whose depth hides its decisions
// (PipeDepth >= DecisionCycles: a beat a cycle) must pass every beat in
// exactly Latency cycles, its depth, but for the ideal generator, whose
// rejections hold a decision a cycle now and then: under 1% of beats may
// take longer. A shallower one keeps beats waiting behind late decisions,
// so its beats queue and take a varying number of cycles, which is
// measured, not held. It returns the fewest and most cycles a beat took.
func latencyErr(c verilog.Config, res *Result) (lo, hi int, err error) {
	rejects := c.Generator == (*rng.Ideal)(nil).Name() // the ideal generator
	var n, over int64
	lo = math.MaxInt
	for l, k := range res.Latency {
		lo, hi, n = min(lo, l), max(hi, l), n+k
		if l > c.Latency() {
			over += k
		}
	}
	switch {
	case n == 0:
		return 0, 0, fmt.Errorf("%s: no beat's latency measured", c.Name())
	case n != res.Beats:
		return lo, hi, fmt.Errorf("%s: latency measured for %d beats of %d taken", c.Name(), n, res.Beats)
	case lo < c.PipeDepth:
		return lo, hi, fmt.Errorf("%s: a beat left %d cycles after it entered, sooner than the pipeline's depth %d (%v)", c.Name(), lo, c.PipeDepth, res.Latency)
	case c.PipeDepth < c.DecisionCycles():
		// Beats queue behind late decisions.
	case rejects && over*100 >= n:
		return lo, hi, fmt.Errorf("%s: %d of %d beats took longer than the stated latency %d (%v); the ideal generator's rejections may hold under 1%%", c.Name(), over, n, c.Latency(), res.Latency)
	case !rejects && hi != c.Latency():
		return lo, hi, fmt.Errorf("%s: the slowest beat took %d cycles, the stated latency is %d (%v)", c.Name(), hi, c.Latency(), res.Latency)
	}
	return lo, hi, nil
}

func (r rateRow) String() string {
	return fmt.Sprintf("%-40s %-13s %6d packets %7d beats %7d cycles  %.3f beats/cycle  %.3f packets/cycle  latency %d..%d cycles",
		r.config, r.mix, r.packets, r.beats, r.cycles, float64(r.beats)/float64(r.cycles), float64(r.packets)/float64(r.cycles), r.latMin, r.latMax)
}

// TestWidthRate co-simulates back-to-back traffic (no idle input cycle, Dense)
// of each of rateMixes through widthConfigs at 512 and 64 bits, with the egress
// always ready and with it stalled one cycle in 3: the output must match the
// model's, and with the egress always ready the stage must take a beat on
// nearly every cycle (at least 0.98 of them; the rest are filling and
// draining the pipeline, and the ideal generator's rare rejections) at every
// size, one-beat packets included, at every depth: each packet's decision is
// kept with its own beat, and the ingress never waits for one. It prints the
// table docs/rtl.md's "Rate" gives (beats and packets per cycle).
func TestWidthRate(t *testing.T) {
	testtool.Need(t, "verilator")
	var rows []rateRow
	for _, w := range []int{512, 64} {
		cfgs := widthConfigs(w)
		m, err := BuildVerilator(context.Background(), filepath.Join(workDir(t, fmt.Sprintf("width-%d", w)), "verilator"), cfgs, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cfgs {
			for k, mix := range rateMixes {
				path, _ := writeSet(t, rateSet(t, c, mix, uint64(31+k)))
				for _, stall := range []int{0, 3} {
					res, err := m.Run(context.Background(), i, path, RunOptions{MaxFail: 3, Stall: stall, Dense: true})
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s, %s, stall %d", c.Name(), mix.name, stall)
					if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != mix.n {
						t.Errorf("%s: %d of %d packets checked, %d mismatches, %d RTL assertions (%s)",
							what, res.Vectors, mix.n, res.Mismatches, res.Assertions, res.FirstAssertion)
						for _, f := range res.First {
							t.Logf("  %s at %d: got %.80s want %.80s", f.What, f.Index, f.Got, f.Want)
						}
						continue
					}
					if stall != 0 {
						continue
					}
					row := measuredRow(t, c, mix.name, res)
					rows = append(rows, row)
					if rate := float64(res.Beats) / float64(res.Cycles); rate < 0.98 {
						t.Errorf("%s: %.3f beats a cycle, want at least 0.98", what, rate)
					}
				}
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.String() + "\n")
	}
	t.Logf("back-to-back traffic, egress always ready:\n%s", b.String())
}

// TestLatencyPlanted plants a cycle of latency the data does not show: at
// 512 bits the head entry's draw counted only from its register, a cycle
// after the generator answers, not as it answers. Every packet still leaves
// as the model says (no mismatch); latencyErr must catch the slower stage,
// the stated latency 2 against 3 measured.
func TestLatencyPlanted(t *testing.T) {
	testtool.Need(t, "verilator")
	c := verilog.DefaultConfig()
	c.Generator, c.Width = "lfsr-lut/b16", 512
	m := buildPlanted(t, "latency-plant", c, "ibr_switch_stage.sv",
		"assign head_drawn   = e_drawn_q[rd_q] || (gen_done && dn_q == rd_q);",
		"assign head_drawn   = e_drawn_q[rd_q] || (gen_done && dn_q == rd_q && 1'b0);")
	mix := rateMixes[2]
	path, _ := writeSet(t, rateSet(t, c, mix, 31))
	res, err := m.Run(context.Background(), 0, path, RunOptions{MaxFail: 3, Dense: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != mix.n {
		t.Fatalf("%d of %d packets checked, %d mismatches, %d RTL assertions: the plant should change only the timing", res.Vectors, mix.n, res.Mismatches, res.Assertions)
	}
	_, _, err = latencyErr(c, res)
	if err == nil {
		t.Fatalf("a stage a cycle slower than stated passed the latency check (%v)", res.Latency)
	}
	t.Logf("caught: %v", err)
}
