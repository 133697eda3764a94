// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/cosim/liberty/asap7"
)

const libA = `/* notice */
library (a) {
  comment : "one";
  default_max_transition : 320;
  time_unit : "1ps";
  capacitive_load_unit (1,ff);
  lu_table_template (t1) {
    variable_1 : input_net_transition;
    index_1 ("1, 2");
  }
  cell (INV) {
    area : 1;
    pin (A) { direction : input; }
    pin (Y) { direction : output; function : "!A"; }
  }
}
`

const libB = `/* notice */
library (b) {
  comment : "two"
  default_max_transition : 4000;
  time_unit : "1ps";
  capacitive_load_unit (1,ff);
  lu_table_template (t1) {
     variable_1 : input_net_transition;
     index_1 ("1, 2");
  }
  power_lut_template (p1) {
    variable_1 : input_transition;
  }
  cell (NAND2) {
area : 2
    pin (Y) { function : "!(A&B)"; /* a { brace } in a comment */ }
    pin (A) { direction : input; }
  }
}
`

// TestMergeLiberty merges two small libraries: one header, the union of the
// templates, every cell; and refuses files that disagree.
func TestMergeLiberty(t *testing.T) {
	m, err := MergeLiberty("ab", []byte(libA), []byte(libB))
	if err != nil {
		t.Fatal(err)
	}
	got := string(m)
	for _, want := range []string{"/* notice */\nlibrary (ab) {", `comment : "one";`, "lu_table_template (t1)", "power_lut_template (p1)",
		"cell (INV)", "cell (NAND2)", "a { brace } in a comment"} {
		if !strings.Contains(got, want) {
			t.Errorf("merged library lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "default_max_transition : 320;") {
		t.Errorf("merged library does not keep the smaller default_max_transition:\n%s", got)
	}
	for _, once := range []string{"lu_table_template (t1)", "time_unit", "library (", "default_max_transition"} {
		if n := strings.Count(got, once); n != 1 {
			t.Errorf("merged library has %q %d times:\n%s", once, n, got)
		}
	}
	if _, err := parseLibFile(m); err != nil {
		t.Errorf("the merged library does not parse: %v", err)
	}
	for name, bad := range map[string]string{
		"unit":     strings.Replace(libB, `"1ps"`, `"1ns"`, 1),
		"template": strings.Replace(libB, `index_1 ("1, 2")`, `index_1 ("1, 3")`, 1),
		"cell":     strings.Replace(libB, "cell (NAND2)", "cell (INV)", 1),
		"unclosed": strings.TrimSuffix(libB, "}\n"),
		"extra":    strings.Replace(libB, "time_unit", "voltage_unit : \"1V\";\n  time_unit", 1),
	} {
		if _, err := MergeLiberty("ab", []byte(libA), []byte(bad)); err == nil {
			t.Errorf("%s: merged files that disagree", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestMergeASAP7 merges the five ASAP7 files: every cell of every file,
// once, and the license notice first.
func TestMergeASAP7(t *testing.T) {
	files, names, err := asap7.Files()
	if err != nil {
		t.Fatal(err)
	}
	m, err := MergeLiberty(asap7.Name, files...)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i, f := range files {
		n := strings.Count(string(f), "\n  cell (")
		if n == 0 {
			t.Errorf("%s: no cells", names[i])
		}
		want += n
	}
	if got := strings.Count(string(m), "\n  cell ("); got != want {
		t.Errorf("merged ASAP7 library has %d cells, its files %d", got, want)
	}
	if !strings.HasPrefix(string(m), "/*\nBSD 3-Clause License") || !strings.Contains(string(m), strings.TrimSpace(asap7.License)) {
		t.Errorf("merged ASAP7 library does not begin with its license notice")
	}
	lib := filepath.Join(t.TempDir(), "asap7.lib")
	if err := os.WriteFile(lib, m, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadLibrary(ASAP7, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Area) != want {
		t.Errorf("LoadLibrary reads %d cells of the merged library, want %d", len(l.Area), want)
	}
}

// TestCellSources reads the RTL source of a netlist's cells from Yosys's src
// attributes, skipping the wrapper's own location.
func TestCellSources(t *testing.T) {
	nl := filepath.Join(t.TempDir(), "netlist.v")
	text := `module top (clk_i);
  (* src = "/w/ibr_stage_x.sv:50.5-79.4|/w/ibr_gen_ideal.sv:67.3-92.6|/w/ibr_switch_stage.sv:336.45-340.8" *)
  DFFASRHQNx1_ASAP7_75t_R _11602_ (
    .CLK(clk_i)
  );
  (* src = "/w/ibr_stage_x.sv:50.5-79.4|/w/ibr_switch_stage.sv:193.5-213.8" *)
  DFFASRHQNx1_ASAP7_75t_R _11858_ (
    .CLK(clk_i)
  );
endmodule
`
	if err := os.WriteFile(nl, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b, err := cellSources(nl, "ibr_stage_x", "_11602_", "_11858_")
	if err != nil || a != "ibr_gen_ideal.sv:67" || b != "ibr_switch_stage.sv:193" {
		t.Errorf("cellSources = %q, %q, %v", a, b, err)
	}
	if a, _, _ := cellSources(nl, "ibr_stage_x", "in_data_i", ""); a != "" {
		t.Errorf("a port's source %q, want none", a)
	}
}
