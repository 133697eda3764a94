// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// writeLib writes the library and c's wrapper with its file list into dir,
// with edit applied to the wrapper, and returns the list's path.
func writeLib(t *testing.T, dir string, c verilog.Config, edit func(string) string) string {
	t.Helper()
	files, err := verilog.Files(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if f.Name == c.Module()+".sv" && edit != nil {
			files[i].Data = []byte(edit(string(f.Data)))
		}
	}
	if _, err := verilog.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, verilog.FileList)
}

// TestLoadUserRTL: a file list's sources resolve against its directory,
// comments and include directories are read, and every bad list is an error
// naming the line and what is wrong.
func TestLoadUserRTL(t *testing.T) {
	c := verilog.DefaultConfig()
	dir := t.TempDir()
	list := writeLib(t, filepath.Join(dir, "lib"), c, nil)
	u, err := LoadUserRTL(list, c.Module(), c)
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := verilog.Library()
	if want := len(verilog.Sources(lib)) + 1; len(u.Files) != want {
		t.Errorf("%d sources read, want %d (the library's and the wrapper)", len(u.Files), want)
	}
	if len(u.IncDirs) != 1 || u.IncDirs[0] != filepath.Join(dir, "lib") {
		t.Errorf("include directories %q, want the list's own (+incdir+.)", u.IncDirs)
	}
	// From another directory, a nested list, with comments and a define.
	outer := filepath.Join(dir, "outer.f")
	os.WriteFile(outer, []byte("# the stage\n-f lib/ibr_stage.f  // nested\n+define+FOO=1\n"), 0o644)
	u, err = LoadUserRTL(outer, c.Module(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Defines) != 1 || u.Defines[0] != "FOO=1" {
		t.Errorf("defines %q", u.Defines)
	}
	for _, tc := range []struct{ list, want string }{
		{"missing.sv\n", "bad.f:1: missing.sv: no such file"},
		{"+incdir+nodir\n", "include directory"},
		{"-y lib\n", "option -y is not supported"},
		{"lib/ibr_stage.f\n", "not a source"},
		{"lib/ibr_pkg.sv\n\nlib/ibr_pkg.sv\n", "bad.f:3: " + filepath.Join(dir, "lib", "ibr_pkg.sv") + " and"},
		{"// nothing\n", "names no source"},
		{"-I\n", "-I without its argument"},
	} {
		bad := filepath.Join(dir, "bad.f")
		os.WriteFile(bad, []byte(tc.list), 0o644)
		_, err := LoadUserRTL(bad, "top", c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("list %q: error %v, want one containing %q", tc.list, err, tc.want)
		}
	}
	if _, err := LoadUserRTL(list, "bad name", c); err == nil {
		t.Error("a --top that is not a module name was accepted")
	}
}

// TestCheckPorts plants each kind of port-contract break in a copy of the
// wrapper and checks that Verilator's elaboration finds it, naming the port,
// and that the wrapper as written passes.
func TestCheckPorts(t *testing.T) {
	testtool.Need(t, "verilator")
	c := verilog.DefaultConfig()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(string) string
		top  string
		want []string // "" : passes
	}{
		{"wrapper", nil, c.Module(), nil},
		{"missing", func(s string) string {
			s = strings.Replace(s, "  input  wire logic         cong_i,\n", "", 1)
			return strings.Replace(s, ".cong_i(cong_i)", ".cong_i(1'b0)", 1)
		}, c.Module(), []string{"port cong_i is missing: want input  wire logic         cong_i"}},
		{"narrow", func(s string) string {
			return strings.Replace(s, "[15:0]  cfg_switch_i", "[14:0]  cfg_switch_i", 1)
		}, c.Module(), []string{"port cfg_switch_i is 15 bits: want 16"}},
		{"extra", func(s string) string {
			return strings.Replace(s, "  input  wire logic         cong_i,\n", "  input  wire logic         cong_i,\n  input  wire logic         spare_i,\n", 1)
		}, c.Module(), []string{"port spare_i (input, 1 bits) is not in the contract"}},
		{"direction", func(s string) string {
			s = strings.Replace(s, "  output      logic         stat_hash_o,\n", "  input  wire logic         stat_hash_o,\n", 1)
			return strings.Replace(s, ".stat_hash_o(stat_hash_o)", ".stat_hash_o()", 1)
		}, c.Module(), []string{"port stat_hash_o is an input"}},
		{"no-top", nil, "ibr_nosuch", []string{"no module ibr_nosuch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			list := writeLib(t, filepath.Join(dir, "lib"), c, tc.edit)
			u, err := LoadUserRTL(list, tc.top, c)
			if err != nil {
				t.Fatal(err)
			}
			err = u.CheckPorts(ctx, filepath.Join(dir, "ports"))
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("the break was not found")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
			var pe *PortError
			if tc.name != "no-top" && !errors.As(err, &pe) {
				t.Errorf("error %T, want a *PortError", err)
			}
		})
	}
	// Another configuration's widths: the wrapper of c4 checked as c3.
	c4 := c
	c4.CountBits = 4
	dir := t.TempDir()
	list := writeLib(t, dir, c4, nil)
	u, err := LoadUserRTL(list, c4.Module(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.CheckPorts(ctx, filepath.Join(dir, "ports")); err == nil || !strings.Contains(err.Error(), "port stat_field_o is 4 bits: want 3") {
		t.Errorf("a c4 stage checked as c3: %v", err)
	}
	// Another beat width: the data and empty ports follow DataW and EmptyW.
	// The 64-bit wrapper checked as a 512-bit stage names each of the four;
	// the 512-bit wrapper passes.
	w512 := c
	w512.Width = 512
	dir = t.TempDir()
	list = writeLib(t, dir, c, nil)
	if u, err = LoadUserRTL(list, c.Module(), w512); err != nil {
		t.Fatal(err)
	}
	err = u.CheckPorts(ctx, filepath.Join(dir, "ports"))
	for _, want := range []string{"port in_data_i is 64 bits: want 512", "port out_data_o is 64 bits: want 512",
		"port in_empty_i is 3 bits: want 6", "port out_empty_o is 3 bits: want 6"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a 64-bit stage checked as a 512-bit one: %v, want %q", err, want)
		}
	}
	dir = t.TempDir()
	list = writeLib(t, dir, w512, nil)
	if u, err = LoadUserRTL(list, w512.Module(), w512); err != nil {
		t.Fatal(err)
	}
	if err := u.CheckPorts(ctx, filepath.Join(dir, "ports")); err != nil {
		t.Errorf("the 512-bit wrapper checked as itself: %v", err)
	}
}

// TestVerifyUserRTL co-simulates a copy of the library as a user's stage,
// then the copy with a planted bug, which the comparison with the model (not
// an assertion) must find; and an assertion error the RTL reports is counted
// apart from the comparison in both simulators.
func TestVerifyUserRTL(t *testing.T) {
	testtool.Need(t, "verilator", "iverilog", "vvp")
	c := verilog.DefaultConfig()
	ctx := context.Background()
	// run co-simulates the library, patched, as a user's stage: in Verilator
	// (which runs past the RTL's errors to the end, comparing every vector)
	// and, with icarus, in Icarus Verilog too (where the RTL's $fatal ends
	// the run: a Stopped error).
	run := func(name string, icarus bool, patch func(*verilog.File)) (*Report, error) {
		t.Helper()
		dir := filepath.Join(workDir(t, "user-rtl"), name)
		files, err := verilog.Files(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range files {
			if files[i].Name == "ibr_switch_stage.sv" && patch != nil {
				patch(&files[i])
			}
		}
		os.RemoveAll(filepath.Join(dir, "lib"))
		if _, err := verilog.Write(filepath.Join(dir, "lib"), files); err != nil {
			t.Fatal(err)
		}
		u, err := LoadUserRTL(filepath.Join(dir, "lib", verilog.FileList), c.Module(), c)
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		o := Options{Configs: []verilog.Config{c}, RTL: u, Seed: vectors.DefaultSeed,
			Random: 200, IcarusRandom: 50, WorkDir: dir, Lanes: 1, Parts: 1, Stall: 7, Gap: 5, Log: &log}
		if icarus {
			o.Icarus = []verilog.Config{c}
		}
		rep, err := Verify(ctx, o)
		t.Logf("%s (icarus %t):\n%s", name, icarus, log.String())
		return rep, err
	}
	if rep, err := run("clean", true, nil); err != nil || !rep.OK() {
		t.Fatalf("the library as a user's stage: %v, %+v", err, rep)
	}
	countWraps := func(f *verilog.File) {
		f.Data = bytes.Replace(f.Data, []byte("assign field_new = saturated ? field_in : field_in + FieldW'(1);"), []byte("assign field_new = field_in + FieldW'(1);"), 1)
	}
	if rep, err := run("count-wraps", false, countWraps); err != nil || rep.Mismatches == 0 {
		t.Errorf("a hop count that wraps was not found by the comparison: %v, %+v", err, rep)
	}
	// An assertion that fires on every telemetry word, outputs untouched.
	assertion := func(f *verilog.File) {
		f.Data = bytes.Replace(f.Data, []byte("assert (!tel_seen_q || tel_done)"), []byte("assert (1'b0)"), 1)
	}
	rep, err := run("assertion", false, assertion)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches != 0 || rep.OK() {
		t.Errorf("an assertion firing alone: %d mismatches (want 0), OK %t (want false)", rep.Mismatches, rep.OK())
	}
	for _, cr := range rep.Configs {
		if r := cr.Verilator; r == nil || r.Assertions == 0 {
			t.Errorf("%v: Verilator's count of the RTL's assertion errors is 0", r)
		}
	}
	// In Icarus the assertion's $fatal ends the run: a Stopped error that
	// counts it and holds no mismatch.
	_, err = run("assertion", true, assertion)
	var st *Stopped
	if !errors.As(err, &st) || st.Result.Assertions == 0 || len(st.Result.First) != 0 {
		t.Errorf("Icarus on an assertion firing alone: %v (%+v), want a Stopped error counting it, no mismatch", err, st)
	}
}

// TestRTLErrorLines: the errors the RTL reports in either simulator are
// counted; a testbench's own verdict and Verilator's notes are not.
func TestRTLErrorLines(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"[7] %Error: ibr_gen_ideal.sv:120: Assertion failed in TOP.ibr_cosim_top.u: ibr_gen_ideal: state 0", true},
		{"%Error: ibr_switch_stage.sv:599: Assertion failed in TOP.x: a telemetry word entered", true},
		{"%Fatal: mine.sv:3: bad", true},
		{"ERROR: ibr_switch_stage.sv:594: ibr_switch_stage: byte 4 12, Alg. 8 reference 13", true},
		{"FATAL: mine.sv:9: stop", true},
		{"FATAL: out/cosim/icarus/x/src/" + ExampleTB + ":290: ibr_example_tb: FAIL, 380 mismatches", false},
		{"%Error: t.sv:7: Verilog $stop", false},
		{"-Info: t.sv:7: Verilog $stop, ignored due to +verilator+error+limit", false},
		{"       Time: 7 Scope: t", false},
		{"MISMATCH index=3 what=stat got=1 want=2", false},
	} {
		if got := IsRTLError(tc.line, ExampleTB, TopModule+".sv"); got != tc.want {
			t.Errorf("%q: %t, want %t", tc.line, got, tc.want)
		}
	}
	r, err := parseOutput("icarus", []byte("ERROR: a.sv:1: one\n       Time: 1 Scope: t\nERROR: a.sv:1: two\nRESULT vectors=4 mismatches=0 cycles=9 seconds=0.1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Assertions != 2 || r.FirstAssertion != "ERROR: a.sv:1: one" || r.Mismatches != 0 {
		t.Errorf("assertions %d (first %q), mismatches %d; want 2, the first line, 0", r.Assertions, r.FirstAssertion, r.Mismatches)
	}
	// A $fatal of the RTL ends the run before its RESULT line: a Stopped
	// error holding the mismatches printed before it; without an RTL error,
	// a missing RESULT line is a plain failure.
	_, err = parseOutput("verilator", []byte("MISMATCH index=3 what=stat got=1 want=2\n[90] %Fatal: ibr_switch_stage.sv:615: Assertion failed in TOP.t.u: byte 4\n%Error: ibr_switch_stage.sv:615: Verilog $stop\n"))
	var st *Stopped
	if !errors.As(err, &st) || st.Result.Assertions != 1 || len(st.Result.First) != 1 || st.Result.First[0].Index != 3 {
		t.Errorf("a run a $fatal ended: %v (%+v), want a Stopped error with 1 assertion and the mismatch at 3", err, st)
	}
	if _, err := parseOutput("verilator", []byte("MISMATCH index=3 what=stat got=1 want=2\n")); err == nil || errors.As(err, &st) {
		t.Errorf("a run with no RESULT line and no RTL error: %v, want a plain error", err)
	}
}
