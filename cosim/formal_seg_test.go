// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"ibreservoir/verilog"
)

// formalSegPlants are planted bugs of the segmented datapath (Segmented = 1),
// each with the property that must catch it and the width it is checked at:
// the bugs only beats shared by two packets, or packets from a late segment,
// can show.
var formalSegPlants = []struct {
	name, id string
	width    int
	old, new string
}{
	// The head's telemetry byte written a segment (8 lanes) off: read at its
	// lane, the decision written 8 lanes on.
	{"head-tel-segment-off", "e", 256,
		"assign seg_lane0  = t_tel ? t_tel_lane : h_tel_lane;",
		"assign seg_lane0  = t_tel ? t_tel_lane : h_tel_lane + EmptyW'(8);"},
	// An eop beat's sop segment dropped (0): a shared beat's second packet
	// leaves from segment 0.
	{"sop-seg-dropped", "e", 256,
		"sseg_q[SegW-1:0]    <= iw_seg;",
		"sseg_q[SegW-1:0]    <= iw_eop ? '0 : iw_seg;"},
	// A beat holding a sop and an eop that waited in the skid buffer stays
	// there after slot 0 takes it, and is taken again (duplicated).
	{"sop-eop-beat-duplicated", "e", 256,
		"skid_v_q <= 1'b0;",
		"skid_v_q <= skid_sop_q && skid_eop_q;"},
	// The eop packet's VCRC written into the first lanes of the packet
	// starting at a later segment of the beat (the tail's VCRC over the
	// head's LRH).
	{"tail-vcrc-in-head-lanes", "e", 256,
		"assign out_data_o[Hi -: 16] = (head_vcrc && 32'(head_j) == 32'(NB / 4 - 1 - g)) ?\n" +
			"                                    {vcrc[7:0], vcrc[15:8]} : edited[Hi -: 16];\n" +
			"      assign out_data_o[Hi-16 -: 16] = edited[Hi-16 -: 16];\n    end\n    logic unused_seg_egress;",
		"assign out_data_o[Hi -: 16] = (head_vcrc && (head_sop && head_seg != '0 ? 32'(head_seg) * 2 == g :\n" +
			"                                    32'(head_j) == 32'(NB / 4 - 1 - g))) ?\n" +
			"                                    {vcrc[7:0], vcrc[15:8]} : edited[Hi -: 16];\n" +
			"      assign out_data_o[Hi-16 -: 16] = edited[Hi-16 -: 16];\n    end\n    logic unused_seg_egress;"},
	// The head's congested bit taken from the tail's sop beat (sop_cong_q),
	// not from its own (this beat's cong_i): (a)'s congested-bit check.
	{"head-cong-from-tail", "a", 256,
		"assign tel_cong   = t_tel ? sop_cong_q : iw_cong;",
		"assign tel_cong   = sop_cong_q;"},
}

// testFormalSeg is the reduced check of the segmented tests at 256 bits:
// reset, a packet from a late segment and the shared beat that ends it and
// starts the next, through the stage, with stalls.
var testFormalSeg = FormalOptions{Depth: 7, Induction: 4}

// testFormalSegPlant is the plants' depth, one clock more: a beat taken twice
// from the skid buffer leaves a second time at step 7 (three beats in, the
// third into the skid buffer behind a stall, then out at a beat a cycle).
var testFormalSegPlant = FormalOptions{Depth: 8, Induction: 4}

func segFormalConfig(p Property, width int) verilog.Config {
	c := testFormalConfig(p)
	c.Width, c.Segmented = width, true
	return c
}

// TestFormalSegmented: (e) holds on segmented 256-bit beats to the test
// depth (bounded: ABC's bmc3; its covers, a shared beat passing with its sop
// segment, reached), and the sop segment dropped from an eop beat fails it
// with a counterexample that replays in Yosys's simulator. The other plants
// and the 512-bit check are TestFormalSegmentedPlants and `verify --formal
// --width W --segmented` (docs/rtl.md).
func TestFormalSegmented(t *testing.T) {
	needFormal(t)
	dir := workDir(t, "formal")
	p, _ := PropertyByID("e")
	c := segFormalConfig(p, 256)
	t.Run("e", func(t *testing.T) {
		lib, err := verilog.Library()
		if err != nil {
			t.Fatal(err)
		}
		r, err := CheckProperty(context.Background(), filepath.Join(dir, "seg", "ok-e"), lib, c, p, testFormalSeg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%s): %s, %d covers, %s, %.1f s", r.Config, p.ID, r.Status(), r.Covers, r.Phases(), r.Time.Seconds())
		if r.Failed || r.Proved || r.NoInduction == "" || r.Depth != testFormalSeg.Depth {
			t.Errorf("%s (%s): %s; want it bounded only, %d clocks, no counterexample", r.Config, p.ID, r.Status(), testFormalSeg.Depth)
		}
	})
	t.Run("planted-sop-seg-dropped", func(t *testing.T) {
		runSegPlant(t, dir, formalSegPlants[1].name)
	})
}

// TestFormalSegmentedPlants: each segmented plant fails its property with a
// counterexample. Several minutes of solver time on a loaded machine (see
// docs/rtl.md), so it runs when IBR_FORMAL_SEG_PLANTS is set; CI runs one
// of them (TestFormalSegmented).
func TestFormalSegmentedPlants(t *testing.T) {
	if os.Getenv("IBR_FORMAL_SEG_PLANTS") == "" {
		t.Skip("set IBR_FORMAL_SEG_PLANTS=1 to check every segmented plant (minutes of ABC's bmc3)")
	}
	needFormal(t)
	dir := workDir(t, "formal")
	for _, pl := range formalSegPlants {
		t.Run(pl.name, func(t *testing.T) { runSegPlant(t, dir, pl.name) })
	}
}

func runSegPlant(t *testing.T, dir, name string) {
	t.Helper()
	for _, pl := range formalSegPlants {
		if pl.name != name {
			continue
		}
		p, _ := PropertyByID(pl.id)
		checkPlanted(t, filepath.Join(dir, "seg", "planted-"+name), segFormalConfig(p, pl.width), p, testFormalSegPlant, name, pl.old, pl.new)
		return
	}
	t.Fatalf("no segmented plant %s", name)
}
