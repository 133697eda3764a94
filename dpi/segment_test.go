// SPDX-License-Identifier: Apache-2.0

package dpi

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// segConfig is wideConfig with segmented beats at width w: mxm with the
// DestQP id at depth 3 behind the combinational ready path, so a beat's two
// decisions and two PSNs are pending with others.
func segConfig(w int) verilog.Config {
	c := wideConfig()
	c.Width, c.Segmented = w, true
	return c
}

// TestScoreboardSegmented runs the DPI scoreboard with segmented beats at
// 512 bits: the same random packets, corrupt ones, gaps, stalls and cong_i
// changes as one packet a beat, packed into shared beats (docs/rtl.md,
// "Segmented beats"), every packet, status and state checked against the
// model and every egress beat against the rules. A run that shared no beat
// would have checked nothing new: it fails. (At 256 bits the same run is
// `scoreboard --width 256 --segmented`; its build costs another minute.)
func TestScoreboardSegmented(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := segConfig(512)
	b, err := Build(context.Background(), workDir("scoreboard-w512-seg"), []verilog.Config{c}, library(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Run(context.Background(), 0, RunOptions{Packets: 3000, Seed: 13, Chain: 50, Stall: 20, Gap: 10, Repro: repro})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.Print(&out)
	t.Log(strings.TrimSpace(out.String()))
	if r.Mismatches != 0 || r.Assertions != 0 || r.Packets != 3000 {
		t.Errorf("%s:\n%s", c.Name(), out.String())
	}
	if r.SharedBeats == 0 {
		t.Errorf("%s: no beat held two packets in %d beats", c.Name(), r.Beats)
	}
	for _, k := range CorruptKinds {
		if r.Corrupt[k] == 0 {
			t.Errorf("%s: no %s packet: %v", c.Name(), k, r.Corrupt)
		}
	}
	checkPacking(t, b)
	// A build packs beats one way.
	flat := c
	flat.Segmented = false
	if _, err := Build(context.Background(), t.TempDir(), []verilog.Config{c, flat}, library(t)); err == nil ||
		!strings.Contains(err.Error(), "segmented and unsegmented configurations") {
		t.Errorf("a build of segmented and unsegmented configurations: %v", err)
	}
}

// segPlants are bugs only segmented beats show, each one line of the
// library changed in a copy, with the kinds of mismatch the scoreboard must
// report: the head's telemetry byte read a segment off (a shared beat's
// second packet gets the wrong decision), and the egress's sop segment
// forced to 0 (each packet from a later segment leaves at the wrong one).
var segPlants = []struct {
	name, file, old, bug string
	kinds                []string
}{
	{"the head's telemetry byte read a segment off", "ibr_switch_stage.sv",
		"assign h_b4   = iw_beat[DataW-1-8*32'(h_tel_lane) -: 8];", "assign h_b4   = iw_beat[DataW-65-8*32'(h_tel_lane) -: 8];",
		[]string{"packet", "status", "state"}},
	{"the egress's sop segment forced to 0", "ibr_switch_stage.sv",
		"assign out_sop_seg_o = head_seg;", "assign out_sop_seg_o = '0;",
		[]string{"sop-seg", "segment-rule"}},
}

// TestPlantedSegmented plants each of segPlants at 512 bits, segmented: the
// scoreboard must fail it by its comparison with the model or the rules
// (mismatches of the plant's kinds), not by an RTL assertion alone.
func TestPlantedSegmented(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := verilog.DefaultConfig()
	c.Width, c.Segmented = 512, true
	for i, p := range segPlants {
		r := runPlanted(t, c, fmt.Sprintf("planted-seg-%d", i), p.name, p.file, p.old, p.bug, 16)
		if r.Mismatches == 0 {
			t.Errorf("%s: %d mismatches (%d RTL assertion errors): the scoreboard missed it", p.name, r.Mismatches, r.Assertions)
		}
		for _, m := range r.First {
			if !slices.Contains(p.kinds, m.What) {
				t.Errorf("%s: a mismatch of kind %s, want one of %v:\n%s", p.name, m.What, p.kinds, m.Report)
			}
		}
	}
}

// checkPacking holds the testbench's packing to verilog.PackSegments: a run
// with +packlog=1 logs each packet's length and idle segments (the ones
// drawn, or those to the next beat for a chain's first packet) and each
// ingress beat's sop, sop segment, eop and empty; PackSegments must pack the
// same lengths and idle segments into the same beats.
func checkPacking(t *testing.T, b *Bench) {
	t.Helper()
	w := b.Configs[0].DataW()
	o := RunOptions{Packets: 600, Seed: 17, Chain: 20, Stall: 20, Gap: 10, MaxFail: 5}
	out, err := exec.Command(b.Binary, append(b.args(0, o), "+packlog=1")...).Output()
	if err != nil {
		t.Fatalf("+packlog: %v", err)
	}
	var frames [][]byte
	var idles []int
	var got []verilog.SegBeat
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		n := make([]int, len(f))
		for i := 1; i < len(f); i++ {
			n[i], _ = strconv.Atoi(f[i])
		}
		switch {
		case len(f) == 3 && f[0] == "SEGPLACE":
			frames, idles = append(frames, make([]byte, n[1])), append(idles, n[2])
		case len(f) == 5 && f[0] == "SEGBEAT":
			got = append(got, verilog.SegBeat{Sop: n[1] == 1, SopSeg: n[2], Eop: n[3] == 1, Empty: n[4]})
		case strings.HasPrefix(l, "RESULT") && !strings.Contains(l, " mismatches=0 "):
			t.Errorf("+packlog run: %s", l)
		}
	}
	if len(frames) != o.Packets {
		t.Fatalf("+packlog: %d packets placed, want %d", len(frames), o.Packets)
	}
	want, err := verilog.PackSegments(w, frames, func(i int) int { return idles[i] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("the testbench drove %d beats, PackSegments packs %d", len(got), len(want))
	}
	shared := 0
	for i, x := range want {
		if !x.Sop {
			x.SopSeg = 0
		}
		if !x.Eop {
			x.Empty = 0
		}
		g := got[i]
		if g.Sop != x.Sop || g.SopSeg != x.SopSeg || g.Eop != x.Eop || g.Empty != x.Empty {
			t.Fatalf("beat %d: the testbench drove sop %v seg %d eop %v empty %d, PackSegments packs sop %v seg %d eop %v empty %d",
				i, g.Sop, g.SopSeg, g.Eop, g.Empty, x.Sop, x.SopSeg, x.Eop, x.Empty)
		}
		if x.Sop && x.Eop && 8*x.SopSeg > len(x.Data)-1-x.Empty {
			shared++
		}
	}
	t.Logf("packing: %d packets in %d beats as PackSegments packs them, %d beats holding two packets", len(frames), len(want), shared)
	if shared == 0 {
		t.Error("packing: no beat held two packets")
	}
}
