// SPDX-License-Identifier: Apache-2.0

package dpi

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// wideConfig is the configuration the scoreboard runs at 512 bits in the
// suite: mxm (its pipelined hash) with the DestQP id, read from the
// telemetry beat, at depth 3 behind the combinational ready path, so one-beat
// packets keep several decisions pending at once.
func wideConfig() verilog.Config {
	c := verilog.DefaultConfig()
	c.Hash, c.ID, c.PipeDepth, c.Ready, c.Width = hash.New(hash.MXM), hash.IDPSNDestQP, 3, verilog.ReadyComb, 512
	return c
}

// TestScoreboardWide runs the DPI scoreboard at 512-bit beats: the same
// random packets (long ones, corrupt ones), gaps before any beat, stalls
// and cong_i changes as at 64 bits, every packet, status and state checked
// against the model.
func TestScoreboardWide(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := wideConfig()
	b, err := Build(context.Background(), workDir("scoreboard-w512"), []verilog.Config{c}, library(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Run(context.Background(), 0, RunOptions{Packets: 3000, Seed: 11, Chain: 50, Stall: 20, Gap: 10, Repro: repro})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.Print(&out)
	t.Log(strings.TrimSpace(out.String()))
	if r.Mismatches != 0 || r.Assertions != 0 || r.Packets != 3000 {
		t.Errorf("%s:\n%s", c.Name(), out.String())
	}
	for _, k := range CorruptKinds {
		if r.Corrupt[k] == 0 {
			t.Errorf("%s: no %s packet: %v", c.Name(), k, r.Corrupt)
		}
	}
	// A build holds one beat width.
	narrow := verilog.DefaultConfig()
	if _, err := Build(context.Background(), t.TempDir(), []verilog.Config{narrow, c}, library(t)); err == nil ||
		!strings.Contains(err.Error(), "64 and 512-bit beats in one build") {
		t.Errorf("a build of 64 and 512-bit configurations: %v", err)
	}
}

// widePlants are bugs only wide beats show (at 64 bits the code they change
// never runs: the PSN and BTH byte 4 are never in the sop beat), each one
// line of ibr_switch_stage.sv changed in a copy of the default
// configuration's RTL.
var widePlants = []struct{ name, old, bug string }{
	{"the PSN of a local packet read one lane late",
		", Psn2 = 8 + 9,", ", Psn2 = 8 + 10,"},
	{"the congested bit of a telemetry byte in the sop beat taken from the packet before",
		"          if (iw_sop) begin\n            e_cong_q[wr_q] <= iw_cong;",
		"          if (1'b0) begin\n            e_cong_q[wr_q] <= iw_cong;"},
}

// TestPlantedWide plants each of widePlants at 512 bits: the scoreboard must
// fail it by comparison with the model (mismatches of packets or statuses),
// not by an assertion inside the RTL alone. The unchanged RTL passes the
// same traffic (TestScoreboardWide runs it on another configuration;
// `scoreboard --width 512` on this one).
func TestPlantedWide(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := verilog.DefaultConfig()
	c.Width = 512
	for i, p := range widePlants {
		r := runPlanted(t, c, fmt.Sprintf("planted-wide-%d", i), p.name, "ibr_switch_stage.sv", p.old, p.bug, 12)
		if r.Mismatches == 0 {
			t.Errorf("%s: %d mismatches (%d RTL assertion errors): the comparison with the model missed it", p.name, r.Mismatches, r.Assertions)
		}
		for _, m := range r.First {
			if m.What != "packet" && m.What != "status" && m.What != "state" {
				t.Errorf("%s: a mismatch of kind %s, want a packet's, status's or state's:\n%s", p.name, m.What, m.Report)
			}
		}
	}
}

// runPlanted builds configuration c with one line of file changed (old to
// bug) in work directory dir and runs the scoreboard on it: 1,000 packets
// under stalls and gaps, the first lines of its report logged.
func runPlanted(t *testing.T, c verilog.Config, dir, name, file, old, bug string, lines int) *Result {
	t.Helper()
	files, err := Sources([]verilog.Config{c})
	if err != nil {
		t.Fatal(err)
	}
	if files, err = verilog.Patch(files, file, old, bug); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := BuildSources(context.Background(), workDir(dir), files, []verilog.Config{c}, library(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Run(context.Background(), 0, RunOptions{Packets: 1000, Seed: 5, Chain: 64, Stall: 10, Gap: 5, MaxFail: 5, Repro: repro})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out bytes.Buffer
	r.Print(&out)
	t.Logf("%s:\n%s", name, firstLines(out.String(), lines))
	return r
}
