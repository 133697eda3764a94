// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSynthesisText(t *testing.T) {
	src := "module m;\n" +
		"`ifdef FORMAL\n  assert (a);\n  `ifdef IBR_PROP_A\n  assert (b);\n  `endif\n`else\n  wire w;\n`endif  // FORMAL\n" +
		"`ifndef SYNTHESIS\n  initial $display(\"x\");\n`endif\n" +
		"`ifdef SYNTHESIS\n  wire s;\n`else\n  wire sim;\n`endif\n" +
		"`ifdef IBR_X\n  wire x;\n`elsif FORMAL\n  wire y;\n`else\n  wire z;\n`endif\n" +
		"endmodule\n"
	want := "module m;\n" +
		"`ifdef FORMAL\n`else\n  wire w;\n`endif  // FORMAL\n" +
		"`ifndef SYNTHESIS\n`endif\n" +
		"`ifdef SYNTHESIS\n  wire s;\n`else\n`endif\n" +
		"`ifdef IBR_X\n  wire x;\n`elsif FORMAL\n  wire y;\n`else\n  wire z;\n`endif\n" +
		"endmodule\n"
	got, err := synthesisText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"`endif\n", "`ifdef X\n", "`ifdef\n", "`else\n", "`elsif X\n"} {
		if _, err := synthesisText([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestSynthesisView: the library's view keeps every module synthesis reads
// and none of the properties, lemmas or simulation checks; an edit to a
// property leaves it as it was, an edit to the logic does not.
func TestSynthesisView(t *testing.T) {
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	view, err := SynthesisView(lib)
	if err != nil {
		t.Fatal(err)
	}
	all := func(files []File) string {
		var b strings.Builder
		for _, f := range files {
			b.WriteString("// file " + f.Name + "\n")
			b.Write(f.Data)
		}
		return b.String()
	}
	v := all(view)
	for _, bad := range []string{"assert (", "assume (", "cover (", "else $fatal(", "anyconst"} {
		if strings.Contains(v, bad) {
			t.Errorf("the view holds %q", bad)
		}
	}
	for _, want := range []string{"module ibr_switch_stage", "module ibr_crc16_seg", "module ibr_gen_ideal", "package ibr_pkg", "always_ff"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q", want)
		}
	}
	for _, f := range view {
		if f.Name == SpecFile || f.Name == WaiverFile {
			t.Errorf("the view holds %s", f.Name)
		}
	}
	edit := func(old, new string) string {
		files, _ := Library()
		for i, f := range files {
			if f.Name == "ibr_switch_stage.sv" {
				if !bytes.Contains(f.Data, []byte(old)) {
					t.Fatalf("ibr_switch_stage.sv lacks %q", old)
				}
				files[i].Data = bytes.Replace(f.Data, []byte(old), []byte(new), 1)
			}
		}
		out, err := SynthesisView(files)
		if err != nil {
			t.Fatal(err)
		}
		return all(out)
	}
	if edit("assert (f_got);", "assert (!f_got);") != v {
		t.Errorf("an edit to a property changed the view")
	}
	if edit("f_in_word <= in_eop_i ? 11'd0 : f_in_word + 11'd1;", "f_in_word <= 11'd0;") != v {
		t.Errorf("an edit to a formal monitor changed the view")
	}
	if edit("always_ff @(posedge clk_i or negedge rst_ni) begin", "always_ff @(posedge clk_i) begin") == v {
		t.Errorf("an edit to the logic left the view as it was")
	}
}
