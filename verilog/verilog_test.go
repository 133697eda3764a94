// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"bytes"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/golden"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// allConfigs is the matrix and its variants.
func allConfigs() []Config { return append(append(Matrix(), Variants()...), wideConfigs()...) }

// wideConfigs are configurations at each beat width above 64 bits, covering
// each id (the fields the hash reads from a wide beat) and both ready paths.
func wideConfigs() []Config {
	var cs []Config
	for i, w := range Widths()[1:] {
		c := DefaultConfig()
		c.Width = w
		cs = append(cs, c)
		c.ID, c.PipeDepth = []hash.IDOption{hash.IDPSNSLID, hash.IDPSNDestQP, hash.IDPSNOdd}[i], 2+i
		c.Hash = hash.New([]hash.Kind{hash.CRC32, hash.MXM, hash.SipHash}[i])
		c.Ready = []ReadyPath{ReadyComb, ReadySkid, ReadyComb}[i]
		cs = append(cs, c)
	}
	s := DefaultConfig()
	s.Generator, s.CountBits, s.SenderL, s.Width = refmodel.GeneratorSender, 0, 3, 256
	cs = append(cs, s)
	// Segmented beats: the default at both widths, mxm with the LFSR
	// generator at depth 3, CRC-32 with the DestQP id at depth 4 and the
	// combinational ready path, sender draws.
	for _, w := range []int{256, 512} {
		a := DefaultConfig()
		a.Width, a.Segmented = w, true
		b := a
		b.Hash, b.Generator, b.PipeDepth = hash.New(hash.MXM), "lfsr-lut/b16", 3
		c := a
		c.Hash, c.ID, c.PipeDepth, c.Ready = hash.New(hash.CRC32), hash.IDPSNDestQP, 4, ReadyComb
		d := a
		d.Generator, d.CountBits, d.SenderL = refmodel.GeneratorSender, 0, 3
		cs = append(cs, a, b, c, d)
	}
	return cs
}

// TestVCRCMasks holds the RTL's VCRC masks to package header's VCRC: a
// streaming CRC built from the masks alone, 8 bytes a step and a last step
// of 4, reproduces header.CRC16 of random byte strings of every length the
// stage sees (multiples of 4).
func TestVCRCMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	step := func(m [16][2]uint64, crc uint16, data uint64) uint16 {
		var got uint16
		for i := range 16 {
			p := popParity(uint64(crc)&m[i][0]) ^ popParity(data&m[i][1])
			got |= uint16(p) << i
		}
		return got
	}
	m4, m8 := vcrcMasks(4), vcrcMasks(8)
	for n := 0; n <= 96; n += 4 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		crc := uint16(0xFFFF)
		i := 0
		for ; i+8 <= n; i += 8 {
			var w uint64
			for j := range 8 {
				w = w<<8 | uint64(b[i+j])
			}
			crc = step(m8, crc, w)
		}
		if i < n {
			var w uint64
			for j := range 4 {
				w = w<<8 | uint64(b[i+j])
			}
			crc = step(m4, crc, w)
		}
		if got, want := ^crc, header.CRC16(b); got != want {
			t.Fatalf("%d bytes: the masks' streaming CRC %#04x, header.CRC16 %#04x", n, got, want)
		}
	}
}

func popParity(x uint64) int {
	p := 0
	for ; x != 0; x &= x - 1 {
		p ^= 1
	}
	return p
}

// TestPackage: the checked-in rtl/ibr_pkg.sv is what Package generates from
// the model's packages now (go generate, or go test -update, rewrites it), and
// generating twice gives the same bytes.
func TestPackage(t *testing.T) {
	a, err := Package()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Package()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two generations of ibr_pkg.sv differ")
	}
	if !bytes.HasPrefix(a, []byte(PackageHeader+"\n")) {
		t.Errorf("ibr_pkg.sv does not start with %q", PackageHeader)
	}
	golden.Check(t, filepath.Join("rtl", PackageFile), a)
}

// TestGolden freezes the default configuration's wrapper and file list
// (testdata); -update rewrites them, and a second generation must match.
func TestGolden(t *testing.T) {
	gen := func() []File {
		fs, err := Files(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	files, again := gen(), gen()
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if !bytes.Equal(f.Data, again[i].Data) {
			t.Fatalf("%s: two generations differ", f.Name)
		}
		if i < len(lib) {
			continue // the checked-in library itself
		}
		golden.Check(t, filepath.Join("testdata", f.Name), f.Data)
		if strings.HasSuffix(f.Name, ".sv") && !bytes.HasPrefix(f.Data, []byte(Header+"\n")) {
			t.Errorf("%s does not start with %q", f.Name, Header)
		}
	}
}

// TestLibrary: every module file holds the module it is named after,
// includes ibr_defs.svh and sets `default_nettype none; the file list names
// the sources in the library's compile order; the waivers name only files
// that exist.
func TestLibrary(t *testing.T) {
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range lib {
		names[f.Name] = true
		if !strings.HasSuffix(f.Name, ".sv") {
			continue
		}
		base := strings.TrimSuffix(f.Name, ".sv")
		kind := "module"
		if f.Name == PackageFile {
			kind = "package"
		}
		if !regexp.MustCompile(`(?m)^` + kind + ` ` + base + `\b`).Match(f.Data) {
			t.Errorf("%s does not declare %s %s", f.Name, kind, base)
		}
		if n := len(regexp.MustCompile(`(?m)^(module|package) `).FindAll(f.Data, -1)); n != 1 {
			t.Errorf("%s declares %d modules or packages, want one per file", f.Name, n)
		}
		if f.Name != PackageFile && (!bytes.Contains(f.Data, []byte("`include \""+DefsFile+"\"")) ||
			!bytes.Contains(f.Data, []byte("`default_nettype none"))) {
			t.Errorf("%s lacks `include \"%s\" or `default_nettype none", f.Name, DefsFile)
		}
	}
	files, err := Files(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, l := range strings.Split(string(files[len(files)-1].Data), "\n") {
		if l != "" && !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "+") {
			list = append(list, l)
		}
	}
	if got, want := strings.Join(list, " "), strings.Join(Sources(files), " "); got != want {
		t.Errorf("%s lists %s, want %s", FileList, got, want)
	}
	// The waivers' -file patterns name library files.
	for _, f := range lib {
		if f.Name != WaiverFile {
			continue
		}
		for _, m := range regexp.MustCompile(`-file "\*?([^"]+)"`).FindAllSubmatch(f.Data, -1) {
			if !names[string(m[1])] {
				t.Errorf("%s waives warnings in %s, which is not a library file", WaiverFile, m[1])
			}
		}
	}
}

// TestPorts: the port list read from ibr_switch_stage.sv is the stage's
// interface as docs/rtl.md documents it, and the parser refuses what it
// cannot read rather than dropping a port.
func TestPorts(t *testing.T) {
	var got []string
	for _, p := range Ports() {
		got = append(got, fmt.Sprintf("%s %s %d", p.Dir, p.Name, p.Bits(DefaultConfig())))
	}
	want := []string{"input clk_i 1", "input rst_ni 1", "input cfg_we_i 1", "input cfg_switch_i 16", "input cfg_port_i 8",
		"input cong_i 1", "input gen_load_i 1", "input gen_state_i 128", "output gen_state_o 128", "input in_valid_i 1",
		"output in_ready_o 1", "input in_data_i 64", "input in_sop_i 1", "input in_eop_i 1", "input in_empty_i 3",
		"input in_sop_seg_i 1", "output out_valid_o 1", "input out_ready_i 1", "output out_data_o 64", "output out_sop_o 1", "output out_eop_o 1",
		"output out_empty_o 3", "output out_sop_seg_o 1", "output stat_valid_o 1", "output stat_replace_o 1", "output stat_saturated_o 1",
		"output stat_cong_o 1", "output stat_hash_o 1", "output stat_field_o 3", "output stat_malformed_o 1"}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("ports:\n%s\nwant:\n%s", g, w)
	}
	for w, want := range map[int]int{64: 1, 128: 1, 256: 2, 512: 3} {
		c := DefaultConfig()
		c.Width = w
		if got := c.SegBits(); got != want {
			t.Errorf("SegBits at %d bits = %d, want %d (log2 of the 8-byte segments a beat, at least 1)", w, got, want)
		}
	}
	src := "x\nmodule ibr_switch_stage #(\n) (\n  input  wire logic a_i,\n%s\n);\n"
	for _, bad := range []string{"  input wire logic [W:0] b_i,", "  inout wire logic c_i,", "  input wire logic a_i", "  output logic d_i"} {
		if _, err := parsePorts(fmt.Sprintf(src, bad)); err == nil {
			t.Errorf("parsePorts accepted %q", bad)
		}
	}
}

// TestNames: every configuration has a distinct, valid module name.
func TestNames(t *testing.T) {
	seen := map[string]bool{}
	if n := len(Matrix()); n != 99 {
		t.Errorf("the matrix has %d configurations, want 9 hashes x (5 generators x 2 widths + sender) = 99", n)
	}
	for _, c := range allConfigs() {
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		m := c.Module()
		if seen[m] {
			t.Fatalf("module %s twice", m)
		}
		seen[m] = true
		for _, r := range m {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				t.Fatalf("module name %q has %q", m, r)
			}
		}
	}
}

// TestValidate refuses what the RTL cannot build, naming the problem.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		f    func(*Config)
		want string
	}{
		{func(c *Config) { c.CountBits = 5 }, "count width 5"},
		{func(c *Config) { c.Generator = "lfsr-lut/b2" }, "lfsr-lut"},
		{func(c *Config) { c.Generator = "lfsr-lut/b16/k33" }, "at most 32 times"},
		{func(c *Config) { c.Generator = "shiftreg/free/1:65" }, "at most 64"},
		{func(c *Config) { c.Generator = "nonsense" }, "unknown generator"},
		{func(c *Config) { c.Generator, c.SenderL = "sender", 4 }, "sender draws L=4"},
		{func(c *Config) { c.PipeDepth = 5 }, "pipeline depth 5"},
		{func(c *Config) { c.SenderL = 2 }, "with generator ideal"},
		{func(c *Config) { c.Ready = 2 }, "ready path 2"},
		{func(c *Config) { c.Width, c.PipeDepth = 512, 17 }, "pipeline depth 17: want 2..16 at 512-bit beats"},
		{func(c *Config) { c.HashLatency = 3 }, "only SipHash's rounds are pipelined"},
		{func(c *Config) { c.Segmented = true }, "segmented beats at 64-bit beats: a beat shared by two packets needs 256 or 512 bits"},
		{func(c *Config) { c.Width, c.Segmented = 128, true }, "segmented beats at 128-bit beats"},
		{func(c *Config) { c.Hash, c.HashLatency = hash.New(hash.SipHash), 9 }, "hash latency 9"},
	} {
		c := DefaultConfig()
		tc.f(&c)
		err := c.Validate()
		if strings.HasPrefix(tc.want, "pipeline depth 5") && !strings.Contains(err.Error(), "wider beats take up to 16") {
			t.Errorf("depth 5 at 64 bits: %v, want it to say wider beats take up to 16", err)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c, err, tc.want)
		}
		if _, err := Wrapper(c); err == nil {
			t.Errorf("%+v: Wrapper accepted it", c)
		}
	}
}

// TestPipelinedSipHashConfig: a SipHash stage whose rounds take 8 cycles at
// 512 bits, with the ring of 10 decisions that hides them, is valid, named
// for both, and its wrapper passes both parameters.
func TestPipelinedSipHashConfig(t *testing.T) {
	c := DefaultConfig()
	c.Hash, c.HashLatency, c.PipeDepth, c.Width = hash.New(hash.SipHash), 8, 10, 512
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Name(), "siphash_ideal_c3_hl8_d10_w512"; got != want {
		t.Errorf("name %s, want %s", got, want)
	}
	w, err := Wrapper(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".HashLatency(8)", ".PipeDepth(10)", ".DataW(512)"} {
		if !bytes.Contains(w, []byte(p)) {
			t.Errorf("the wrapper lacks %s", p)
		}
	}
}

// lintTop is a module instantiating every configuration's wrapper, its
// inputs from one wide input and its outputs folded into one bit.
func lintTop(cs []Config) File {
	var top strings.Builder
	top.WriteString("`default_nettype none\nmodule lint_top (\n  input wire logic [1023:0] in_i,\n  output logic out_o\n);\n")
	var outs []string
	for i, c := range cs {
		top.WriteString(Signals(c, "  ", func(p Port) string { return fmt.Sprintf("%s_%d", p.Name, i) }))
		bit := 0
		for _, p := range Ports() {
			if p.Input() {
				fmt.Fprintf(&top, "  assign %s_%d = in_i[%d +: %d];\n", p.Name, i, bit, p.Bits(c))
				bit += p.Bits(c)
			} else {
				outs = append(outs, fmt.Sprintf("%s_%d", p.Name, i))
			}
		}
		fmt.Fprintf(&top, "  %s u_%d (\n%s  );\n", c.Module(), i, Connections("    ", func(p Port) string { return fmt.Sprintf("%s_%d", p.Name, i) }))
	}
	fmt.Fprintf(&top, "  assign out_o = ^{%s};\n", strings.Join(outs, ",\n    "))
	top.WriteString("  logic unused_in;\n  assign unused_in = ^in_i;\nendmodule\n`default_nettype wire\n")
	return File{"lint_top.sv", []byte(top.String())}
}

// TestLint: `verilator --lint-only -Wall` on every configuration at once (a
// top instantiating each wrapper) with the library's waiver file, and Icarus
// Verilog on the same: the RTL must be warning-free in both.
func TestLint(t *testing.T) {
	testtool.Need(t, "verilator")
	testtool.Need(t, "iverilog")
	cs := allConfigs()
	files, err := Files(cs...)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, lintTop(cs))
	dir := t.TempDir()
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	srcs := Sources(files)
	args := append([]string{"--lint-only", "-Wall", "--top-module", "lint_top", "-I" + dir, filepath.Join(dir, WaiverFile)}, paths(dir, srcs)...)
	out, err := exec.Command("verilator", args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("verilator --lint-only -Wall on %d configurations: %v\n%s", len(cs), err, out)
	}
	args = append([]string{"-g2012", "-Wall", "-I", dir, "-o", filepath.Join(dir, "lint.vvp"), "-s", "lint_top"}, paths(dir, srcs)...)
	out, err = exec.Command("iverilog", args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("iverilog -Wall on %d configurations: %v\n%s", len(cs), err, out)
	}
}

func paths(dir string, names []string) []string {
	var ps []string
	for _, n := range names {
		ps = append(ps, filepath.Join(dir, n))
	}
	return ps
}

// TestParameterChecks: a parameter outside its range stops elaboration with
// the module's message, as every module's header promises, in Verilator and
// in Icarus Verilog.
func TestParameterChecks(t *testing.T) {
	testtool.Need(t, "verilator")
	testtool.Need(t, "iverilog")
	files, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	top := "`default_nettype none\nmodule bad_top (input wire logic [255:0] in_i, output logic o);\n" +
		Signals(c, "  ", func(p Port) string { return p.Name })
	var outs []string
	bit := 0
	for _, p := range Ports() {
		if p.Input() {
			top += fmt.Sprintf("  assign %s = in_i[%d +: %d];\n", p.Name, bit, p.Bits(c))
			bit += p.Bits(c)
		} else {
			outs = append(outs, p.Name)
		}
	}
	top += "  ibr_switch_stage #(.PipeDepth(5)) u (\n" + Connections("    ", func(p Port) string { return p.Name }) +
		"  );\n  assign o = ^{" + strings.Join(outs, ", ") + "};\nendmodule\n"
	files = append(files, File{"bad_top.sv", []byte(top)})
	dir := t.TempDir()
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	srcs := paths(dir, Sources(files))
	out, err := exec.Command("verilator", append([]string{"--lint-only", "-I" + dir, "--top-module", "bad_top"}, srcs...)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PipeDepth must be 2..4") {
		t.Errorf("Verilator: PipeDepth 5 was not refused at elaboration: %v\n%s", err, out)
	}
	vvp := filepath.Join(dir, "bad.vvp")
	if out, err := exec.Command("iverilog", append([]string{"-g2012", "-I", dir, "-o", vvp, "-s", "bad_top"}, srcs...)...).CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err = exec.Command("vvp", "-n", vvp).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PipeDepth must be 2..4") {
		t.Errorf("Icarus: PipeDepth 5 was not refused at time 0: %v\n%s", err, out)
	}
	// A beat width the stage does not take (the ports keep 64 bits: the
	// width check, not a port mismatch, must stop it).
	bad := strings.Replace(top, "ibr_switch_stage #(.PipeDepth(5))", "ibr_switch_stage #(.DataW(96))", 1)
	if err := os.WriteFile(filepath.Join(dir, "bad_top.sv"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("verilator", append([]string{"--lint-only", "-Wno-WIDTH", "-I" + dir, "--top-module", "bad_top"}, srcs...)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "DataW must be 64, 128, 256 or 512") {
		t.Errorf("Verilator: DataW 96 was not refused at elaboration: %v\n%s", err, out)
	}
	// Segmented beats: only at 256 and 512 bits.
	for params, want := range map[string]string{
		".Segmented(1)":              "Segmented needs DataW 256 or 512",
		".Segmented(1), .DataW(128)": "Segmented needs DataW 256 or 512",
	} {
		bad := strings.Replace(top, "ibr_switch_stage #(.PipeDepth(5))", "ibr_switch_stage #("+params+")", 1)
		if err := os.WriteFile(filepath.Join(dir, "bad_top.sv"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err = exec.Command("verilator", append([]string{"--lint-only", "-Wno-WIDTH", "-I" + dir, "--top-module", "bad_top"}, srcs...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("Verilator: #(%s) was not refused at elaboration (want %q): %v\n%s", params, want, err, out)
		}
	}
}

// TestWrapperParameters: wrappers pass enum names for every kind, never bare
// numbers, and the generator's own parameters.
func TestWrapperParameters(t *testing.T) {
	for _, tc := range []struct {
		f    func(*Config)
		want []string
	}{
		{func(c *Config) {}, []string{".HashKind(ibr_pkg::HashMult0)", ".GenKind(ibr_pkg::GenIdeal)", ".IdOpt(ibr_pkg::IdPsn)",
			".LinkEnc(ibr_pkg::LinkThesis)", ".ReadyPath(ibr_pkg::ReadySkid)"}},
		{func(c *Config) { c.Generator, c.Hash = "lfsr-lut/b32/k3", hash.New(hash.CRC16) },
			[]string{".HashKind(ibr_pkg::HashCrc16)", ".GenKind(ibr_pkg::GenLfsrLut)", ".LfsrWidth(32)", ".LfsrSteps(3)"}},
		{func(c *Config) { c.Generator, c.ID, c.Link = "shiftreg/free/5:8", hash.IDPSNDestQP, hash.LinkPacked },
			[]string{".GenKind(ibr_pkg::GenShiftreg)", ".ShiftClock(ibr_pkg::ClockFree)", ".ShiftP(5)", ".ShiftQ(8)",
				".IdOpt(ibr_pkg::IdPsnDestqp)", ".LinkEnc(ibr_pkg::LinkPacked)"}},
		{func(c *Config) { c.Width = 512 }, []string{".DataW(512)"}},
		{func(c *Config) { c.Generator, c.CountBits, c.SenderL, c.Ready = "sender", 0, 2, ReadyComb },
			[]string{".GenKind(ibr_pkg::GenSender)", ".SenderL(2)", ".ReadyPath(ibr_pkg::ReadyComb)"}},
	} {
		c := DefaultConfig()
		tc.f(&c)
		w, err := Wrapper(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.want {
			if !bytes.Contains(w, []byte(s)) {
				t.Errorf("%s: the wrapper lacks %s", c.Name(), s)
			}
		}
		for _, p := range []string{"HashKind", "GenKind", "IdOpt", "LinkEnc", "ReadyPath", "ShiftClock"} {
			if regexp.MustCompile(`\.` + p + `\(\d`).Match(w) {
				t.Errorf("%s: the wrapper passes %s a bare number", c.Name(), p)
			}
		}
	}
}

// TestPackageFunctions holds ibr_pkg's constant functions to package rng in
// each tool that evaluates them: Icarus Verilog and Verilator print them from
// a simulation, Yosys folds them into a netlist's constants. lfsr_threshold
// must give rng.LUT for every width and l; shift_rot must give the turn of
// each register that rng's free-running ShiftReg makes between two draws.
func TestPackageFunctions(t *testing.T) {
	type rotCase struct{ p, q int }
	rots := []rotCase{{7, 3}, {5, 8}, {1, 1}, {3, 64}, {1 << 20, 7}, {1000, 29}}
	var want []string
	for w := 3; w <= 32; w++ {
		lut := rng.LUT(w, 16)
		for l := 1; l <= 16; l++ {
			want = append(want, fmt.Sprintf("thr %d %d %d", w, l, lut[l]))
		}
	}
	for _, rc := range rots {
		g, err := rng.NewShiftReg(rng.FreeRunning, uint64(rc.p), uint64(rc.q), 1, 16)
		if err != nil {
			t.Fatal(err)
		}
		for n := range rc.q {
			before := zeroPositions(g.State())
			g.Draw(1)
			after := zeroPositions(g.State())
			for l := 1; l <= 16; l++ {
				turn := (before[l] - after[l] + l) % l // clocks move the 0 toward index 0
				want = append(want, fmt.Sprintf("rot %d %d %d %d %d", rc.p, rc.q, n, l, turn))
			}
		}
	}
	var tb strings.Builder
	tb.WriteString("module fn_tb;\n  initial begin\n")
	for w := 3; w <= 32; w++ {
		for l := 1; l <= 16; l++ {
			fmt.Fprintf(&tb, "    $display(\"thr %d %d %%0d\", ibr_pkg::lfsr_threshold(%d, %d));\n", w, l, w, l)
		}
	}
	for _, rc := range rots {
		for n := range rc.q {
			for l := 1; l <= 16; l++ {
				fmt.Fprintf(&tb, "    $display(\"rot %d %d %d %d %%0d\", ibr_pkg::shift_rot(%d, %d, %d, %d));\n", rc.p, rc.q, n, l, rc.p, rc.q, n, l)
			}
		}
	}
	tb.WriteString("    $finish;\n  end\nendmodule\n")
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := []File{lib[0], {"fn_tb.sv", []byte(tb.String())}}
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	check := func(tool string, out []byte) {
		t.Helper()
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				g := "nothing"
				if i < len(got) {
					g = got[i]
				}
				t.Errorf("%s: line %d: %s, want %s", tool, i+1, g, want[i])
				return
			}
		}
	}
	if testtool.Have(t, "iverilog") {
		vvp := filepath.Join(dir, "fn.vvp")
		if out, err := exec.Command("iverilog", "-g2012", "-o", vvp, filepath.Join(dir, PackageFile), filepath.Join(dir, "fn_tb.sv")).CombinedOutput(); err != nil {
			t.Fatalf("iverilog: %v\n%s", err, out)
		}
		out, err := exec.Command("vvp", "-n", vvp).Output()
		if err != nil {
			t.Fatalf("vvp: %v", err)
		}
		check("icarus", out)
	}
	if testtool.Have(t, "yosys") {
		// Yosys folds the functions into the constant of one wide output.
		var m strings.Builder
		fmt.Fprintf(&m, "module fn_y (output logic [%d:0] o);\n", 32*len(want)-1)
		for i, w := range want {
			f := strings.Fields(w)
			if f[0] == "thr" {
				fmt.Fprintf(&m, "  assign o[%d +: 32] = ibr_pkg::lfsr_threshold(%s, %s);\n", 32*i, f[1], f[2])
			} else {
				fmt.Fprintf(&m, "  assign o[%d +: 32] = 32'(ibr_pkg::shift_rot(%s, %s, %s, %s));\n", 32*i, f[1], f[2], f[3], f[4])
			}
		}
		m.WriteString("endmodule\n")
		if err := os.WriteFile(filepath.Join(dir, "fn_y.sv"), []byte(m.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		netlist := filepath.Join(dir, "fn_y.v")
		script := fmt.Sprintf("read_verilog -sv %s %s; hierarchy -top fn_y; proc; opt; write_verilog -noattr %s",
			filepath.Join(dir, PackageFile), filepath.Join(dir, "fn_y.sv"), netlist)
		if out, err := exec.Command("yosys", "-q", "-p", script).CombinedOutput(); err != nil {
			t.Fatalf("yosys: %v\n%s", err, out)
		}
		b, err := os.ReadFile(netlist)
		if err != nil {
			t.Fatal(err)
		}
		check("yosys", yosysConstants(t, b, want))
	}
}

// zeroPositions returns, for l = 1..16, the index of the 0 in shift register
// r_l of a ShiftReg state (rng's layout: r_l[i] at bit l(l-1)/2 + i).
func zeroPositions(st rng.State) []int {
	pos := make([]int, 17)
	for l := 1; l <= 16; l++ {
		for i := range l {
			b := l*(l-1)/2 + i
			if st[b/64]>>(b%64)&1 == 0 {
				pos[l] = i
			}
		}
	}
	return pos
}

// yosysConstants reads the constant Yosys assigns to fn_y's output and
// prints its 32-bit fields as the simulators print want's lines.
func yosysConstants(t *testing.T, netlist []byte, want []string) []byte {
	t.Helper()
	m := regexp.MustCompile(`assign o = (\d+)'h([0-9a-fA-F]+);`).FindSubmatch(netlist)
	if m == nil {
		t.Fatalf("no constant output in Yosys's netlist:\n%.2000s", netlist)
	}
	v, ok := new(big.Int).SetString(string(m[2]), 16)
	if !ok {
		t.Fatalf("Yosys's constant %.100s...", m[2])
	}
	var b strings.Builder
	mask := big.NewInt(0xFFFFFFFF)
	for i, w := range want {
		f := strings.Fields(w)
		x := new(big.Int).And(new(big.Int).Rsh(v, uint(32*i)), mask)
		fmt.Fprintf(&b, "%s %s\n", strings.Join(f[:len(f)-1], " "), x)
	}
	return []byte(b.String())
}

// TestCSD: the signed digits ibr_pkg's mxm_mul sums give the constant back
// mod 2^32, no two are adjacent (the canonical form), and they are fewer
// than the constant's one bits; on random constants too.
func TestCSD(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	cs := []uint32{hash.MXMConst, 0, 1, 3, 0xFFFFFFFF, 0x80000000, 0xAAAAAAAB}
	for range 1000 {
		cs = append(cs, r.Uint32())
	}
	for _, c := range cs {
		var sum uint32
		last := -2
		for _, d := range csdDigits(c) {
			sum += uint32(int64(d[1]) << d[0])
			if d[0] == last+1 {
				t.Fatalf("%#x: adjacent digits at %d and %d", c, last, d[0])
			}
			last = d[0]
		}
		if sum != c {
			t.Fatalf("%#x: the digits sum to %#x", c, sum)
		}
	}
	if n := len(csdDigits(hash.MXMConst)); n != 11 {
		t.Errorf("mxm's constant has %d signed digits, want 11", n)
	}
}

// TestVCRCWide holds the wide-beat VCRC tables to package header's VCRC: the
// 8-byte wide masks equal the 8-byte masks; for every beat size and every
// eop position a CRC built from the masks alone (one full-width step per
// beat; at the last beat its trailing m bytes zeroed and the step rewound by
// m, as ibr_crc16_bytes_end does) reproduces header.CRC16 of random frames;
// and each rewind undoes the update over its zero bytes.
func TestVCRCWide(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w8, m8 := vcrcMasksWide(8), vcrcMasks(8)
	for i := range 16 {
		var d uint64
		for _, b := range w8[i].data {
			d = d<<8 | uint64(b)
		}
		if uint64(w8[i].reg) != m8[i][0] || d != m8[i][1] {
			t.Fatalf("bit %d: wide 8-byte mask %04x/%016x, 8-byte mask %04x/%016x", i, w8[i].reg, d, m8[i][0], m8[i][1])
		}
	}
	for m := 4; m <= maxBeatBytes; m += 4 {
		rows, err := vcrcRewind(m)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			s := uint16(r.Uint32())
			if got := vcrcUpdate(applyRows(rows, s), make([]byte, m)); got != s {
				t.Fatalf("rewind %d: update(rewind(%04x)) = %04x", m, s, got)
			}
		}
	}
	for _, nb := range BeatBytes[1:] {
		masks := vcrcMasksWide(nb)
		step := func(crc uint16, beat []byte) uint16 {
			var o uint16
			for i := range 16 {
				p := bits.OnesCount16(crc&masks[i].reg) & 1
				for b := range beat {
					p ^= bits.OnesCount8(beat[b]&masks[i].data[b]) & 1
				}
				o |= uint16(p) << i
			}
			return o
		}
		for flen := 26; flen <= 3*nb+2; flen += 4 {
			frame := make([]byte, flen)
			for i := range frame {
				frame[i] = byte(r.Uint32())
			}
			want := header.CRC16(frame[:flen-2])
			crc := uint16(0xffff)
			for off := 0; off < flen; off += nb {
				beat := make([]byte, nb)
				copy(beat, frame[off:])
				if off+nb < flen {
					crc = step(crc, beat)
					continue
				}
				m := off + nb - (flen - 2) // the VCRC and the unused bytes
				clear(beat[nb-m:])
				rows, _ := vcrcRewind(m)
				crc = applyRows(rows, step(crc, beat))
			}
			if ^crc != want {
				t.Fatalf("%d-byte beats, %d-byte frame: %04x, header.CRC16 %04x", nb, flen, ^crc, want)
			}
		}
	}
}
