// SPDX-License-Identifier: Apache-2.0

// Package rtl holds hash-only RTL of candidate hashes (ibr_hashonly.sv),
// checked against the Go model in Icarus Verilog and synthesized like for
// like: the same Yosys flow and ABC script (cosim's, the full one, for every
// hash, SipHash included) and OpenSTA against the OSU 0.18 um library (or
// ASAP7). It also checks and times the stage library's pipelined SipHash,
// ibr_siphash (siphash_pipe_test.go), at every latency.
package rtl

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/cosim"
	"ibreservoir/hash"
	"ibreservoir/rng"
	"ibreservoir/verilog"
)

// stageRTL is the stage's RTL, whose hash datapaths the modules instantiate.
const stageRTL = "../../verilog/rtl"

// sources are the files of the hash-only modules: the stage's package, hash
// and pipelined SipHash, then ibr_hashonly.sv.
func sources() []string {
	return []string{filepath.Join(stageRTL, "ibr_pkg.sv"), filepath.Join(stageRTL, "ibr_hash.sv"), filepath.Join(stageRTL, sipFile), "ibr_hashonly.sv"}
}

// TestHashOnlyMatchesModel simulates the four modules on 4096 random and
// edge inputs and requires the Go model's bits.
func TestHashOnlyMatchesModel(t *testing.T) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		t.Skip("iverilog is not installed")
	}
	simulateVectors(t, t.TempDir(), hashOnlyVectors(), append(sources(), "ibr_hashonly_tb.sv")...)
}

// hashOnlyVectors are the hash-only benches' 4096 cases, random and edge
// inputs with the Go model's bits: one line each, "id k d mult0 mxm siphash"
// in hex (k = 1846571429*d).
func hashOnlyVectors() string {
	var b strings.Builder
	g := rng.NewIdeal(0x4A5B, 2)
	sip := hash.New(hash.SipHash)
	m0 := hash.New(hash.Mult0)
	for i := range 4096 {
		id, d := g.Next(), g.Next()
		switch i {
		case 0:
			id, d = 0, 0
		case 1:
			id, d = 0xFFFFFFFF, 0xFFFFFFFF
		case 2:
			id, d = 1, 509
		}
		k := hash.Mult0Const * d
		fmt.Fprintf(&b, "%08x %08x %08x %08x %08x %08x\n", id, k, d, m0.Bit(id, d), hash.New(hash.MXM).Bit(id, d), sip.Bit(id, d))
	}
	return b.String()
}

// simulateVectors writes hex as dir/vectors.hex, runs the Icarus bench built
// from srcs (the stage library's directory on the include path) in dir, and
// requires it to report all 4096 cases agreeing with the model.
func simulateVectors(t *testing.T, dir, hex string, srcs ...string) {
	t.Helper()
	out, err := runVectors(dir, hex, srcs...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "CASES 4096 BAD 0") {
		t.Fatalf("the RTL disagrees with the model:\n%s", out)
	}
}

// runVectors writes hex as dir/vectors.hex, builds the Icarus bench from
// srcs (the stage library's directory on the include path; the bench's
// module, named as its file, last) in dir, runs it
// there and returns what it printed; the error is a bench that did not build
// or run.
func runVectors(dir, hex string, srcs ...string) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, "vectors.hex"), []byte(hex), 0o644); err != nil {
		return "", err
	}
	// The bench, the last file, is the one top (the files' other modules
	// not instantiated, such as the synthesis wrappers, are left out).
	top := strings.TrimSuffix(filepath.Base(srcs[len(srcs)-1]), ".sv")
	args := append([]string{"-g2012", "-I", stageRTL, "-s", top, "-o", filepath.Join(dir, "tb")}, srcs...)
	out, err := exec.Command("iverilog", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("iverilog: %v\n%s", err, out)
	}
	cmd := exec.Command("vvp", filepath.Join(dir, "tb"))
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("vvp: %v\n%s", err, out)
	}
	return string(out), nil
}

// TestHashOnlySynthesis synthesizes each module with cosim's flow and the
// same ABC script (the full one cosim uses for every hash but SipHash in the
// stage) and times it; IBR_HASH_SYNTH=mult0,mxm,siphash runs it (SipHash's
// logic optimization takes minutes).
func TestHashOnlySynthesis(t *testing.T) {
	names := os.Getenv("IBR_HASH_SYNTH")
	if names == "" {
		t.Skip("IBR_HASH_SYNTH=<modules> runs the synthesis")
	}
	// IBR_HASH_LIB=asap7 maps to ASAP7 instead of OSU 0.18 um.
	cl := cosim.OSU018
	if s := os.Getenv("IBR_HASH_LIB"); s != "" {
		ls, err := cosim.SelectLibraries(s)
		if err != nil || len(ls) != 1 {
			t.Fatalf("IBR_HASH_LIB=%q: want one library's name", s)
		}
		cl = ls[0]
	}
	lib, err := cl.Load(t.TempDir())
	if err != nil {
		t.Skip(err)
	}
	// Yosys's read_verilog takes the include directory among the files; the
	// candidates' modules (ibr_hash_candidates.sv) are named in full:
	// IBR_HASH_SYNTH=mult0,ibr_hashcand_mxa; sip1..sip8 are ibr_siphash at
	// latencies 1 to 8 (IBR_HASH_ABC=light maps them as the stage maps
	// SipHash).
	inc, _ := filepath.Abs(stageRTL)
	srcs := []string{"-I" + inc}
	for _, f := range append(sources(), "ibr_hash_candidates.sv") {
		p, _ := filepath.Abs(f)
		srcs = append(srcs, p)
	}
	// One script for every hash: cosim's full one (logic optimization, then
	// delay mapping), or with IBR_HASH_ABC=light its light one (delay
	// mapping alone, what cosim gives SipHash's stages).
	abc := cosim.MappingScript(verilog.Config{Hash: hash.New(hash.Mult0)}, cl)
	if os.Getenv("IBR_HASH_ABC") == "light" {
		abc = cosim.MappingScript(verilog.Config{Hash: hash.New(hash.SipHash)}, cl)
	}
	for _, name := range strings.Split(names, ",") {
		top := "ibr_hashonly_" + name
		if strings.HasPrefix(name, "ibr_") {
			top = name
		}
		dir := t.TempDir()
		constr := ""
		if cl.Drive != "" { // the boundary cosim gives the library
			constr = filepath.Join(dir, "abc.constr")
			if err := os.WriteFile(constr, []byte(fmt.Sprintf("set_driving_cell %s\nset_load %g\n", cl.Drive, cl.LoadCap)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		script := cosim.SynthesisScript(srcs, top, lib.Path, constr, dir, abc)
		out, err := exec.Command("yosys", "-q", "-p", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: yosys: %v\n%s", name, err, out)
		}
		area, cells := mappedArea(t, filepath.Join(dir, "cells.json"), lib)
		crit := criticalPath(t, dir, filepath.Join(dir, "netlist.v"), top, lib, cl.UnitNS)
		t.Logf("SYNTH %s %s (%s script): %d cells, area %.1f um^2, critical path %.3f ns, fmax %.1f MHz", name, cl.Name, map[bool]string{true: "light", false: "full"}[os.Getenv("IBR_HASH_ABC") == "light"], cells, area, crit, 1000/crit)
	}
}

// mappedArea reads Yosys's statistics of the mapped netlist: the area from
// the library's cell areas, and the number of cells.
func mappedArea(t *testing.T, path string, lib *cosim.Library) (float64, int) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Modules map[string]struct {
			NumCells       int            `json:"num_cells"`
			NumCellsByType map[string]int `json:"num_cells_by_type"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	var area float64
	var cells int
	for _, m := range st.Modules {
		cells += m.NumCells
		for ty, n := range m.NumCellsByType {
			a, ok := lib.Area[ty]
			if !ok {
				t.Fatalf("cell %s is not in %s", ty, lib.Path)
			}
			area += a * float64(n)
		}
	}
	return area, cells
}

// criticalPath times the netlist with OpenSTA as cosim.TimeNetlist does (a
// 100 ns clock on clk_i, inputs and outputs at its edge) and returns the
// register-to-register critical path in ns (unitNS: the library's time
// unit in ns).
func criticalPath(t *testing.T, dir, netlist, top string, lib *cosim.Library, unitNS float64) float64 {
	period := 100.0 / unitNS // in the library's time unit
	script := fmt.Sprintf(`read_liberty %s
read_verilog %s
link_design %s
create_clock -name clk -period %g [get_ports clk_i]
set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk_i]]
set_output_delay 0 -clock clk [all_outputs]
report_checks -path_delay max -digits 4
exit
`, lib.Path, netlist, top, period)
	path := filepath.Join(dir, "timing.tcl")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sta", "-no_splash", "-exit", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "Error") {
		t.Fatalf("sta: %v\n%s", err, out)
	}
	// One report per path group: the clock's, and with asynchronous resets
	// their recovery checks (from the reset input, slack above the period).
	// The critical path is the least slack.
	ms := regexp.MustCompile(`(?m)^\s*(-?[0-9.]+)\s+slack \((MET|VIOLATED)\)`).FindAllStringSubmatch(string(out), -1)
	if ms == nil {
		t.Fatalf("sta reported no slack:\n%s", out)
	}
	slack := math.Inf(1)
	for _, m := range ms {
		v, _ := strconv.ParseFloat(m[1], 64)
		slack = min(slack, v)
	}
	return (period - slack) * unitNS
}
