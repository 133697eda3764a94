// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"strconv"
	"testing"
	"time"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// TestSegmentedIcarus runs the example testbench in Icarus Verilog on the
// default configuration's segmented stage at 512 bits: the first directed
// vectors (which need no generator load) and 60 random ones (one chain, 26
// to 4,194 bytes), packed into shared beats (docs/rtl.md, "Segmented
// beats") under gaps and stalls, every packet reassembled by the rules: zero
// mismatches, every vector checked, and beats shared (a run that shared none
// would have checked nothing new). Nearly every other directed vector loads
// the generator, so takes a beat of its own: the run leaves them to the
// Verilator co-simulation (TestSegmented), Icarus being slow at 512 bits.
// The egress's sop segment forced to 0 fails the run by sop-seg mismatches.
func TestSegmentedIcarus(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	c := segConfigs(512)[0]
	set, _, files := icarusInputs(t, c, 21, 60)
	first := 0
	for first < set.Directed && !set.Vectors[first].Load {
		first++
	}
	set.Vectors = append(set.Vectors[:first:first], set.Vectors[set.Directed:]...)
	set.Directed = first
	hexFile := writeHex(t, set)
	t0 := time.Now()
	res, err := runIcarusFiles(context.Background(), t.TempDir(), c, files, hexFile, len(set.Vectors), 5)
	if err != nil {
		t.Fatal(err)
	}
	m := reSegmented.FindStringSubmatch(res.Output)
	t.Logf("%s: %d vectors, %d mismatches, %.1f s (compile and run); %v", c.Name(), res.Vectors, res.Mismatches, time.Since(t0).Seconds(), m)
	if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != len(set.Vectors) {
		t.Fatalf("%s: %d mismatches, %d RTL assertions over %d of %d vectors: %v", c.Name(), res.Mismatches, res.Assertions, res.Vectors, len(set.Vectors), res.First)
	}
	if m == nil {
		t.Fatalf("%s: no SEGMENTED line: the bench did not pack segmented beats\n%s", c.Name(), res.Output)
	}
	if shared, _ := strconv.Atoi(m[2]); shared == 0 {
		t.Errorf("%s: no beat of %s held two packets", c.Name(), m[1])
	}
	planted, err := verilog.Patch(files, "ibr_switch_stage.sv", "assign out_sop_seg_o = head_seg;", "assign out_sop_seg_o = '0;")
	if err != nil {
		t.Fatal(err)
	}
	res, err = runIcarusFiles(context.Background(), t.TempDir(), c, planted, hexFile, len(set.Vectors), 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the egress's sop segment forced to 0: %d mismatches in %d vectors; first %v", res.Mismatches, len(set.Vectors), res.First)
	if res.Mismatches == 0 {
		t.Fatal("the egress's sop segment forced to 0: the Icarus bench passed it")
	}
	for _, f := range res.First {
		if f.What != "sop-seg" {
			t.Errorf("a mismatch of kind %s, want sop-seg: %+v", f.What, f)
		}
	}
}
