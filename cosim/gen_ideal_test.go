// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// s1x5Plants are bugs of ibr_gen_ideal's register s1x5_q, which holds 5 * s1
// beside the state so that the draw has one adder: each the line as it is
// and the line with the bug.
var s1x5Plants = []struct{ name, old, bug string }{
	{"s1x5_q not reloaded when gen_load_i seeds the state",
		"s1x5_q <= state_i[63:32] * 32'd5;", "s1x5_q <= s1x5_q;"},
	{"s1x5_q reloaded from the state before the seeding",
		"s1x5_q <= state_i[63:32] * 32'd5;", "s1x5_q <= s1_q * 32'd5;"},
	{"s1x5_q steps only on an accepted output (a rejection leaves it a step behind)",
		"s1x5_q <= s1_d * 32'd5;", "s1x5_q <= (accept ? s1_d : s1_q) * 32'd5;"},
}

// s1x5Assert is the line of ibr_gen_ideal's simulation check that s1x5_q is
// 5 * s1_q, and s1x5Off that line with the check taken out.
const (
	s1x5Assert = "assert (s1x5_q == s1_q * 32'd5)"
	s1x5Off    = "assert (1'b1)"
)

// TestPlantedS1x5 plants each of s1x5Plants in the default configuration's
// RTL and requires Icarus Verilog on its directed vectors to catch it twice:
// by the RTL's own assertion (the run stops), and, with that assertion taken
// out, by the vectors (mismatches). The unchanged RTL passes the vectors.
func TestPlantedS1x5(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	c := verilog.DefaultConfig()
	set, hexFile, files := icarusInputs(t, c, 21, 0)
	run := func(files []verilog.File) (*Result, error) {
		return runIcarusFiles(context.Background(), t.TempDir(), c, files, hexFile, len(set.Vectors), 0)
	}
	if res, err := run(files); err != nil || res.Mismatches != 0 || res.Vectors != len(set.Vectors) {
		t.Fatalf("the unchanged RTL: %v, %+v", err, res)
	}
	for _, p := range s1x5Plants {
		bug, err := verilog.Patch(files, "ibr_gen_ideal.sv", p.old, p.bug)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if _, err := run(bug); err == nil || !strings.Contains(err.Error(), "s1x5_q") {
			t.Errorf("%s: the RTL's assertion did not stop the run: %v", p.name, err)
		}
		quiet, err := verilog.Patch(bug, "ibr_gen_ideal.sv", s1x5Assert, s1x5Off)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		res, err := run(quiet)
		switch {
		case err != nil:
			t.Errorf("%s, the assertion out: %v", p.name, err)
		case res.Mismatches == 0:
			t.Errorf("%s, the assertion out: %s passes all %d directed vectors", p.name, c.Name(), len(set.Vectors))
		default:
			t.Logf("%s: the assertion stops the run; without it, %d mismatches over %d vectors", p.name, res.Mismatches, len(set.Vectors))
		}
	}
}
