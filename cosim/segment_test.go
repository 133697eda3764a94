// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// segConfigs are the segmented configurations (docs/rtl.md, "Segmented
// beats") the tests run at width w: the default; mxm (its pipelined hash)
// with the LFSR generator and the odd-PSN id at depth 3; CRC-32 with the
// DestQP id at depth 4, the combinational ready path; sender draws L=3 with
// the SLID id; and the default at depth 3 and mxm with the LFSR generator at
// depth 4, the depths at which they keep a beat a cycle (segRateConfigs).
// Between them every id (two a beat, the tail's and the head's) and every
// depth; the vectors mix local and global (LNH=3) packets, so every field
// falls in the sop beat and the next.
func segConfigs(w int) []verilog.Config {
	a := verilog.DefaultConfig()
	b := a
	b.Hash, b.Generator, b.PipeDepth, b.ID = hash.New(hash.MXM), "lfsr-lut/b16", 3, hash.IDPSNOdd
	c := a
	c.Hash, c.ID, c.PipeDepth, c.Ready = hash.New(hash.CRC32), hash.IDPSNDestQP, 4, verilog.ReadyComb
	d := a
	d.Generator, d.CountBits, d.SenderL, d.ID = refmodel.GeneratorSender, 0, 3, hash.IDPSNSLID
	e := a
	e.PipeDepth = 3
	f := b
	f.PipeDepth, f.ID = 4, hash.IDPSN
	cs := []verilog.Config{a, b, c, d, e, f}
	for i := range cs {
		cs[i].Width, cs[i].Segmented = w, true
	}
	return cs
}

// segRateConfigs are the indices into segConfigs of the configurations at
// their full-rate depth: a PSN may lie in the beat after its telemetry byte
// (a packet from a late segment), and a beat's second PSN waits a cycle for
// the one hash unit, so the segmented stage needs one register more than one
// packet a beat (the default depth 3, mxm depth 4).
var segRateConfigs = []int{4, 5}

// TestSegmented co-simulates segConfigs at 512 and 256 bits against the
// model: packets placed at random segments (now and then idle segments
// before one), under backpressure and input gaps, with zero mismatches and
// every reachable coverage bin hit; and each configuration's back-to-back
// small packets (26..62 and 66..126 bytes), densely packed, with the egress
// always ready and stalled one cycle in 3.
func TestSegmented(t *testing.T) {
	testtool.Need(t, "verilator")
	for _, w := range []int{512, 256} {
		t0 := time.Now()
		var log bytes.Buffer
		dir := workDir(t, fmt.Sprintf("segmented-%d", w))
		rep, err := Verify(context.Background(), Options{
			Configs: segConfigs(w), Seed: 23, Random: 300, WorkDir: dir,
			Lanes: 1, Parts: 1, Stall: 5, Gap: 3, Log: &log,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d bits: %.1f s (build %.1f s, 0 when reused)\n%s", w, time.Since(t0).Seconds(), rep.Build.Seconds(), log.String())
		for _, cr := range rep.Configs {
			for _, e := range cr.Explained {
				t.Error(e)
			}
			for _, b := range cr.Missing {
				t.Errorf("%s: coverage bin %s never hit", cr.Config.Name(), b)
			}
		}
		if !rep.OK() {
			t.Fatalf("%d bits: %d mismatches, %d RTL assertions, %d coverage holes", w, rep.Mismatches, rep.Assertions, rep.Uncovered)
		}
		m, err := BuildVerilator(context.Background(), filepath.Join(dir, "verilator"), segConfigs(w), 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range segConfigs(w) {
			for _, k := range []int{2, 3} {
				path, _ := writeSet(t, rateSet(t, c, rateMixes[k], uint64(41+k)))
				for _, stall := range []int{0, 3} {
					res, err := m.Run(context.Background(), i, path, RunOptions{MaxFail: 3, Stall: stall, Dense: true})
					if err != nil {
						t.Fatal(err)
					}
					if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != rateMixes[k].n {
						t.Errorf("%s, %s, stall %d: %d of %d packets checked, %d mismatches, %d RTL assertions (%s)",
							c.Name(), rateMixes[k].name, stall, res.Vectors, rateMixes[k].n, res.Mismatches, res.Assertions, res.FirstAssertion)
						for _, f := range res.First {
							t.Logf("  %s at %d: got %.80s want %.80s", f.What, f.Index, f.Got, f.Want)
						}
					}
				}
			}
		}
	}
}

// TestSegmentedPacking holds the testbench's packing of a segmented stream
// (tb.cpp's SegPacker, run with +packcheck) to verilog.PackSegments on the
// same frame lengths and idle segments: the same beats with the same sop,
// sop segment, eop and empty.
func TestSegmentedPacking(t *testing.T) {
	testtool.Need(t, "verilator")
	for _, w := range []int{512, 256} {
		m, err := BuildVerilator(context.Background(), filepath.Join(workDir(t, fmt.Sprintf("segmented-%d", w)), "verilator"), segConfigs(w), 1)
		if err != nil {
			t.Fatal(err)
		}
		var lens, idles []int
		var list strings.Builder
		x := uint64(w)
		for i := range 3000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			n := 6 + 4*int(x%40)
			if i%97 == 0 {
				n = 6 + 4*int(x%1100)
			}
			idle := 0
			if x>>20%5 == 0 {
				idle = int(x >> 30 % 20)
			}
			lens, idles = append(lens, n), append(idles, idle)
			fmt.Fprintf(&list, "%d %d\n", n, idle)
		}
		path := filepath.Join(t.TempDir(), "frames.txt")
		if err := os.WriteFile(path, []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(m.Binary, "+packcheck="+path).Output()
		if err != nil {
			t.Fatalf("%d bits: %v", w, err)
		}
		frames := make([][]byte, len(lens))
		for i, n := range lens {
			frames[i] = make([]byte, n)
		}
		want, err := verilog.PackSegments(w, frames, func(i int) int { return idles[i] }, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(got) != len(want) {
			t.Fatalf("%d bits: the testbench packs %d beats, PackSegments %d", w, len(got), len(want))
		}
		shared := 0
		for b, bt := range want {
			var e string
			b2i := func(v bool) int {
				if v {
					return 1
				}
				return 0
			}
			seg, empty := 0, 0
			if bt.Sop {
				seg = bt.SopSeg
			}
			if bt.Eop {
				empty = bt.Empty
			}
			e = fmt.Sprintf("SEGBEAT %d %d %d %d", b2i(bt.Sop), seg, b2i(bt.Eop), empty)
			if got[b] != e {
				t.Fatalf("%d bits, beat %d: the testbench packs %q, PackSegments %q", w, b, got[b], e)
			}
			if bt.Sop && bt.Eop && 8*bt.SopSeg > w/8-1-bt.Empty {
				shared++
			}
		}
		if shared == 0 {
			t.Fatalf("%d bits: no beat shared by two packets: the check compared nothing that matters", w)
		}
		t.Logf("%d bits: %d beats, %d shared by two packets, the same in both", w, len(want), shared)
	}
}

// TestSegmentedRate co-simulates back-to-back packets of each of rateMixes
// (rateSet) through each of segConfigs, densely packed in segmented beats
// with the egress always ready, and logs packets and bytes a cycle measured
// from the co-simulation (the vectors checked, their bytes, the cycles the
// run took). The configurations of segRateConfigs must take a beat a cycle
// (0.98 at least: the first load and the pipeline's fill and drain aside),
// and at 512 bits move at least 0.9 x 64 bytes a cycle in the 66..126-byte
// class.
func TestSegmentedRate(t *testing.T) {
	testtool.Need(t, "verilator")
	for _, w := range []int{512, 256} {
		cfgs := segConfigs(w)
		m, err := BuildVerilator(context.Background(), filepath.Join(workDir(t, fmt.Sprintf("segmented-%d", w)), "verilator"), cfgs, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cfgs {
			full := slices.Contains(segRateConfigs, i)
			for k, mix := range rateMixes {
				set := rateSet(t, c, mix, uint64(31+k))
				total := 0
				for _, v := range set.Vectors {
					total += len(v.In)
				}
				path, _ := writeSet(t, set)
				res, err := m.Run(context.Background(), i, path, RunOptions{MaxFail: 3, Dense: true})
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s %s", c.Name(), mix.name)
				if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != mix.n {
					t.Errorf("%s: %d of %d packets checked, %d mismatches, %d RTL assertions (%s)",
						what, res.Vectors, mix.n, res.Mismatches, res.Assertions, res.FirstAssertion)
					continue
				}
				lo, hi, err := latencyErr(c, res)
				if err != nil {
					t.Errorf("%s: %v", what, err)
				}
				perCycle := float64(total) / float64(res.Cycles)
				t.Logf("%-50s %5d packets, %6d beats in %6d cycles: %.3f beats/cycle, %.3f packets/cycle, %.1f bytes/cycle (%.3f of the line rate, %3.0f Gb/s at 923 MHz), latency %d..%d cycles",
					what, res.Vectors, res.Beats, res.Cycles, float64(res.Beats)/float64(res.Cycles),
					float64(res.Vectors)/float64(res.Cycles), perCycle, perCycle/float64(w/8), perCycle*8*0.923, lo, hi)
				if !full {
					continue
				}
				if rate := float64(res.Beats) / float64(res.Cycles); rate < 0.98 {
					t.Errorf("%s: %.3f beats a cycle, want at least 0.98", what, rate)
				}
				if w == 512 && mix.name == "66..126 B" && perCycle < 0.9*64 {
					t.Errorf("%s: %.1f bytes a cycle, want at least %.1f", what, perCycle, 0.9*64)
				}
			}
		}
	}
}

// segPlants are bugs only beats shared by two packets show, each one line
// of a copy of the library changed; TestSegmentedPlanted must see each fail
// the comparison with the model (mismatches, not an RTL assertion alone).
var segPlants = []struct {
	name, file, old, bug string
}{
	{"the head's telemetry byte read a segment off", "ibr_switch_stage.sv",
		"assign h_b4   = iw_beat[DataW-1-8*32'(h_tel_lane) -: 8];", "assign h_b4   = iw_beat[DataW-65-8*32'(h_tel_lane) -: 8];"},
	{"the tail's VCRC over the head's bytes", "ibr_crc16_seg.sv",
		"(^(t[NS*i +: NS] & before_vcrc & (one ? from_sop : {NS{1'b1}})));",
		"(^(t[NS*i +: NS] & (one ? before_vcrc & from_sop : before_vcrc | (sop_i ? from_sop : '0))));"},
	{"a beat's second decision taken from the head entry's byte 4", "ibr_switch_stage.sv",
		"assign byte4_2     = e_byte4_q[8*rd2 +: 8];", "assign byte4_2     = e_byte4_q[8*rd_q +: 8];"},
}

// TestSegmentedPlanted plants each of segPlants in a copy of the library
// (the default configuration at 512 bits) and runs the 26..62- and
// 66..126-byte back-to-back packets, densely packed, and 300 random vectors
// under stalls and gaps: each must give mismatches against the model.
func TestSegmentedPlanted(t *testing.T) {
	testtool.Need(t, "verilator")
	c := segConfigs(512)[0]
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 23), Seed: 23, Random: 300})
	if err != nil {
		t.Fatal(err)
	}
	random, _ := writeSet(t, set)
	small, _ := writeSet(t, rateSet(t, c, rateMixes[2], 43))
	mid, _ := writeSet(t, rateSet(t, c, rateMixes[3], 44))
	for i, p := range segPlants {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := buildPlanted(t, fmt.Sprintf("seg-plant-%d", i), c, p.file, p.old, p.bug)
			mismatches, assertions := 0, 0
			for _, run := range []struct {
				path string
				o    RunOptions
			}{{random, RunOptions{MaxFail: 3, Stall: 5, Gap: 3}}, {small, RunOptions{MaxFail: 3, Dense: true}}, {mid, RunOptions{MaxFail: 3, Dense: true}}} {
				res, err := m.Run(context.Background(), 0, run.path, run.o)
				if err != nil {
					t.Fatal(err)
				}
				mismatches, assertions = mismatches+res.Mismatches, assertions+res.Assertions
			}
			if mismatches == 0 {
				t.Fatalf("%s: no mismatch against the model (%d RTL assertions)", p.name, assertions)
			}
			t.Logf("%s: %d mismatches, %d RTL assertions", p.name, mismatches, assertions)
		})
	}
}
