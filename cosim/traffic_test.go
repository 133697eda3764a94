// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// trafficPlants are bugs an adopting team could write that only realistic
// traffic shows: long packets, corrupt ones, ingress gaps inside a packet,
// cong_i changing after sop, an assertion inside the RTL. Each is one line of
// the library changed.
var trafficPlants = []struct {
	name, file, old, bug string
}{
	{"the congested bit taken from cong_i on every word, not with the sop word", "ibr_switch_stage.sv",
		"        sop_cong_q <= iw_cong;\n      end", "      end\n      sop_cong_q <= iw_cong;"},
	{"a word counter that saturates at 511 words", "ibr_switch_stage.sv",
		"widx == 11'h7ff ? widx", "widx == 11'h1ff ? widx"},
	{"the hash latched on a word without its valid qualifier", "ibr_switch_stage.sv",
		"assign psn_take = iw_fire && is_psn_in;", "assign psn_take = is_psn_in;"},
	{"a corrupt packet whose VCRC is in lanes 4-5 laundered with a fresh VCRC", "ibr_switch_stage.sv",
		"(head_bad ? 16'h0000 : 16'hffff)", "(head_bad && !head_lane4 ? 16'h0000 : 16'hffff)"},
	{"a PktLen that disagrees with the frame not checked", "ibr_switch_stage.sv",
		"assign vcrc_bad  = v_q[0] && vcrc_q[0] && (ivcrc_got != ivcrc || len_bad_q);",
		"assign vcrc_bad  = v_q[0] && vcrc_q[0] && ivcrc_got != ivcrc;"},
	{"the ideal generator reset to all zeros (an assertion inside the RTL fires)", "ibr_gen_ideal.sv",
		"{s3_q, s2_q, s1_q, s0_q} <= 128'd1;", "{s3_q, s2_q, s1_q, s0_q} <= 128'd0;"},
}

// TestPlantedTrafficBugs plants each of trafficPlants in the default
// configuration's RTL and requires the example testbench in Icarus Verilog
// (its default ingress gaps inside packets, stalls on any word and cong_i
// random off the sop word), on the directed vectors and 128 random ones, to
// fail: with mismatches, or with a non-zero exit and no PASS when an
// assertion inside the RTL fires. The unchanged RTL passes the same run.
func TestPlantedTrafficBugs(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	c := verilog.DefaultConfig()
	set, hexFile, files := icarusInputs(t, c, 23, 128)
	res, err := runIcarusFiles(context.Background(), t.TempDir(), c, files, hexFile, len(set.Vectors), 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatches != 0 || res.Vectors != len(set.Vectors) {
		t.Fatalf("the unchanged RTL: %d mismatches over %d of %d vectors", res.Mismatches, res.Vectors, len(set.Vectors))
	}
	for _, p := range trafficPlants {
		planted, err := verilog.Patch(files, p.file, p.old, p.bug)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		res, err := runIcarusFiles(context.Background(), t.TempDir(), c, planted, hexFile, len(set.Vectors), 5)
		switch {
		case err != nil && strings.Contains(err.Error(), "PASS"):
			t.Errorf("%s: the run printed PASS: %v", p.name, err)
		case err != nil && strings.Contains(err.Error(), "FATAL: ") && strings.Contains(err.Error(), "exit status 1"):
			// An assertion inside the RTL ($fatal) ended the run, non-zero, with no PASS.
			t.Logf("%s: an assertion ended the run: %.200s", p.name, err)
		case err != nil:
			t.Errorf("%s: the run could not be made: %v", p.name, err)
		case res.Mismatches == 0:
			t.Errorf("%s: passes all %d vectors", p.name, len(set.Vectors))
		default:
			var caught []string
			for _, m := range res.First {
				if m.Index >= 0 && m.Index < len(set.Vectors) {
					caught = append(caught, set.Vectors[m.Index].Case)
				}
			}
			t.Logf("%s: %d mismatches, first at %s", p.name, res.Mismatches, strings.Join(caught, ", "))
		}
	}
}

// TestFormalCongPlant: property (a), which ties the written congested bit to
// cong_i of the cycle the packet's sop word was taken, fails on the RTL with
// cong_i taken on every word (trafficPlants[0]); the unchanged RTL passes (a)
// in TestFormalProofs.
func TestFormalCongPlant(t *testing.T) {
	needFormal(t)
	p, ok := PropertyByID("a")
	if !ok {
		t.Fatal("no property (a)")
	}
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	plant := trafficPlants[0]
	if lib, err = verilog.Patch(lib, plant.file, plant.old, plant.bug); err != nil {
		t.Fatal(err)
	}
	r, err := CheckProperty(context.Background(), filepath.Join(workDir(t, "formal"), "cong-plant"), lib, testFormalConfig(p), p, testFormalOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (a) with %s: %s, %.1f s", r.Config, plant.name, r.Status(), r.Time.Seconds())
	if !r.Failed || r.Step == 0 {
		t.Errorf("%s: (a) passed: %s", plant.name, r.Status())
	}
}
