// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerilogSegmented: --segmented writes the wrapper of the segmented
// stage (its name ends _seg, its instance sets Segmented) at 256 and 512
// bits, and is refused, naming the flag, at 64 and 128 bits before anything
// is written.
func TestVerilogSegmented(t *testing.T) {
	for _, w := range []int{64, 128} {
		dir := filepath.Join(t.TempDir(), "rtl")
		o := verilogOptions{Out: dir, Width: w, Segmented: true, Flags: defaultRTLFlags()}
		err := runVerilog(&bytes.Buffer{}, o)
		if !mentions(err, "--segmented at --width") {
			t.Errorf("verilog --width %d --segmented: %v, want the flag refused", w, err)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("verilog --width %d --segmented: wrote %s", w, dir)
		}
	}
	dir := filepath.Join(t.TempDir(), "rtl")
	o := verilogOptions{Out: dir, Width: 512, Segmented: true, Flags: defaultRTLFlags()}
	if err := runVerilog(&bytes.Buffer{}, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ibr_stage_mult0_ideal_c3_w512_seg.sv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), ".Segmented(1'b1)") {
		t.Errorf("the segmented wrapper does not set Segmented:\n%s", b)
	}
}
