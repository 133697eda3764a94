package verilog

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// matrix is every configuration the default vectors cover (vectors.RTLMatrix,
// which imports this package), plus the id options, link encodings, depths,
// LFSR step counts and a SipHash key the defaults leave out.
func matrix() []Config {
	var cs []Config
	for _, k := range hash.Kinds() {
		for _, g := range Generators() {
			c := DefaultConfig()
			c.Hash, c.Generator = hash.New(k), g
			if g == "sender" {
				c.CountBits, c.SenderL = 0, 3
				cs = append(cs, c)
				continue
			}
			for _, b := range []int{3, 4} {
				c.CountBits = b
				cs = append(cs, c)
			}
		}
	}
	extra := func(f func(*Config)) {
		c := DefaultConfig()
		f(&c)
		cs = append(cs, c)
	}
	extra(func(c *Config) { c.ID = hash.IDPSNOdd })
	extra(func(c *Config) { c.ID = hash.IDPSNSLID; c.Link = hash.LinkWide })
	extra(func(c *Config) { c.ID = hash.IDPSNDestQP; c.Link = hash.LinkPacked; c.PipeDepth = 4 })
	extra(func(c *Config) { c.PipeDepth = 3; c.Generator = "lfsr-lut/b16/k16"; c.CountBits = 4 })
	extra(func(c *Config) { c.Generator = "lfsr-lut/b32"; c.CountBits = 2 })
	extra(func(c *Config) { c.Generator = "shiftreg/free/5:8"; c.CountBits = 1 })
	extra(func(c *Config) { c.Generator, c.CountBits, c.SenderL = "sender", 0, 1 })
	extra(func(c *Config) {
		c.Hash = hash.NewKeyed(hash.SipHash, [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	})
	return cs
}

// TestCRCMasks holds the RTL's VCRC masks to package header's VCRC: the
// bit-serial definition they are derived from equals header.CRC16, and the
// masks reproduce the bit-serial CRC on random registers and data.
func TestCRCMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 100 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if got, want := ^crc16Serial(0xFFFF, b), header.CRC16(b); got != want {
			t.Fatalf("%d bytes: bit-serial CRC %#04x, header.CRC16 %#04x", n, got, want)
		}
	}
	for _, n := range []int{4, 8} {
		m := crcMasks(n)
		for range 2000 {
			crc := uint16(r.Uint32())
			data := r.Uint64() & (1<<(8*n) - 1)
			if n == 8 {
				data = r.Uint64()
			}
			buf := make([]byte, n)
			for j := range n {
				buf[j] = byte(data >> (8 * (n - 1 - j)))
			}
			want := crc16Serial(crc, buf)
			var got uint16
			for i := range 16 {
				p := popParity(uint64(crc)&m[i][0]) ^ popParity(data&m[i][1])
				got |= uint16(p) << i
			}
			if got != want {
				t.Fatalf("%d bytes, register %#04x, data %#x: masks give %#04x, the CRC %#04x", n, crc, data, got, want)
			}
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

// TestGolden freezes the generated library and the default wrapper
// (testdata/*.sv); -update rewrites them, and the test regenerates to prove
// the output stable.
func TestGolden(t *testing.T) {
	gen := func() []File {
		fs, err := Files(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	files := gen()
	if *update {
		for _, f := range files {
			if err := os.WriteFile(filepath.Join("testdata", f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	again := gen()
	for i, f := range files {
		if !bytes.Equal(f.Data, again[i].Data) {
			t.Fatalf("%s: two generations differ", f.Name)
		}
		want, err := os.ReadFile(filepath.Join("testdata", f.Name))
		if err != nil {
			t.Fatalf("%v (go test ./verilog -run TestGolden -update)", err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from testdata (go test ./verilog -run TestGolden -update, then review the diff)", f.Name)
		}
		if !bytes.HasPrefix(f.Data, []byte(Header+"\n")) && f.Name != WaiverFile {
			t.Errorf("%s does not start with %q", f.Name, Header)
		}
		if strings.HasSuffix(f.Name, ".sv") && !bytes.Contains(f.Data, []byte("`default_nettype none")) {
			t.Errorf("%s lacks `default_nettype none", f.Name)
		}
	}
}

// TestNames: every configuration has a distinct, valid module name.
func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range matrix() {
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
		{func(c *Config) { c.Generator = "nonsense" }, "unknown generator"},
		{func(c *Config) { c.Generator, c.SenderL = "sender", 4 }, "sender draws L=4"},
		{func(c *Config) { c.PipeDepth = 5 }, "pipeline depth 5"},
		{func(c *Config) { c.SenderL = 2 }, "with generator ideal"},
	} {
		c := DefaultConfig()
		tc.f(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c, err, tc.want)
		}
		if _, err := Wrapper(c); err == nil {
			t.Errorf("%+v: Wrapper accepted it", c)
		}
	}
}

// TestLint runs `verilator --lint-only -Wall` on every configuration at once
// (a top instantiating each wrapper, its outputs folded into one) with the
// library's waiver file: the generated RTL must be warning-free.
func TestLint(t *testing.T) {
	needTool(t, "verilator")
	cs := matrix()
	files, err := Files(cs...)
	if err != nil {
		t.Fatal(err)
	}
	var top strings.Builder
	top.WriteString("`default_nettype none\nmodule lint_top (\n  input wire logic clk_i,\n  input wire logic rst_ni,\n  input wire logic [511:0] in_i,\n  output logic out_o\n);\n")
	var outs []string
	for i, c := range cs {
		sw, fw := c.StateBits(), c.FieldBits()
		fmt.Fprintf(&top, "  logic [%d:0] gs_%d; logic [63:0] od_%d; logic [2:0] oe_%d; logic [%d:0] sf_%d;\n", sw-1, i, i, i, fw-1, i)
		fmt.Fprintf(&top, "  logic ir_%d, ov_%d, os_%d, oo_%d, sv_%d, sr_%d, ss_%d, sc_%d, sh_%d, sm_%d;\n", i, i, i, i, i, i, i, i, i, i)
		fmt.Fprintf(&top, "  %s u_%d (.clk_i, .rst_ni, .cfg_we_i(in_i[0]), .cfg_switch_i(in_i[16:1]), .cfg_port_i(in_i[24:17]),\n", c.Module(), i)
		fmt.Fprintf(&top, "    .cong_i(in_i[25]), .gen_load_i(in_i[26]), .gen_state_i(in_i[%d:100]), .gen_state_o(gs_%d),\n", 99+sw, i)
		fmt.Fprintf(&top, "    .in_valid_i(in_i[27]), .in_ready_o(ir_%d), .in_data_i(in_i[91:28]), .in_sop_i(in_i[92]), .in_eop_i(in_i[93]),\n", i)
		fmt.Fprintf(&top, "    .in_empty_i(in_i[96:94]), .out_valid_o(ov_%d), .out_ready_i(in_i[97]), .out_data_o(od_%d), .out_sop_o(os_%d),\n", i, i, i)
		fmt.Fprintf(&top, "    .out_eop_o(oo_%d), .out_empty_o(oe_%d), .stat_valid_o(sv_%d), .stat_replace_o(sr_%d), .stat_saturated_o(ss_%d),\n", i, i, i, i, i)
		fmt.Fprintf(&top, "    .stat_cong_o(sc_%d), .stat_hash_o(sh_%d), .stat_field_o(sf_%d), .stat_malformed_o(sm_%d));\n", i, i, i, i)
		outs = append(outs, fmt.Sprintf("gs_%d, od_%d, oe_%d, sf_%d, ir_%d, ov_%d, os_%d, oo_%d, sv_%d, sr_%d, ss_%d, sc_%d, sh_%d, sm_%d", i, i, i, i, i, i, i, i, i, i, i, i, i, i))
	}
	fmt.Fprintf(&top, "  assign out_o = ^{%s};\n", strings.Join(outs, ",\n    "))
	top.WriteString("  logic unused_in;\n  assign unused_in = ^in_i;\nendmodule\n`default_nettype wire\n")
	files = append(files, File{"lint_top.sv", []byte(top.String())})
	dir := t.TempDir()
	paths, err := Write(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--lint-only", "-Wall", "--top-module", "lint_top"}
	args = append(args, paths...)
	out, err := exec.Command("verilator", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("verilator --lint-only -Wall on %d configurations: %v\n%s", len(cs), err, out)
	}
}

// TestParameterChecks: a parameter outside its range stops elaboration with
// the module's message, as every module's header promises.
func TestParameterChecks(t *testing.T) {
	needTool(t, "verilator")
	files, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	top := "`default_nettype none\nmodule bad_top (input wire logic clk_i, input wire logic rst_ni, output logic o);\n" +
		"  logic [127:0] gs; logic [63:0] od; logic [2:0] oe, sf;\n  logic a, b, c, d, e, f, g, h, i, j;\n" +
		"  ibr_switch_stage #(.PipeDepth(5)) u (.clk_i, .rst_ni, .cfg_we_i(1'b0), .cfg_switch_i(16'd0), .cfg_port_i(8'd0),\n" +
		"    .cong_i(1'b0), .gen_load_i(1'b0), .gen_state_i(128'd1), .gen_state_o(gs), .in_valid_i(1'b0), .in_ready_o(a),\n" +
		"    .in_data_i(64'd0), .in_sop_i(1'b0), .in_eop_i(1'b0), .in_empty_i(3'd0), .out_valid_o(b), .out_ready_i(1'b1),\n" +
		"    .out_data_o(od), .out_sop_o(c), .out_eop_o(d), .out_empty_o(oe), .stat_valid_o(e), .stat_replace_o(f),\n" +
		"    .stat_saturated_o(g), .stat_cong_o(h), .stat_hash_o(i), .stat_field_o(sf), .stat_malformed_o(j));\n" +
		"  assign o = ^{gs, od, oe, sf, a, b, c, d, e, f, g, h, i, j};\nendmodule\n"
	files = append(files, File{"bad_top.sv", []byte(top)})
	paths, err := Write(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("verilator", append([]string{"--lint-only", "--top-module", "bad_top"}, paths...)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PipeDepth must be 2..4") {
		t.Fatalf("PipeDepth 5 was not refused at elaboration: %v\n%s", err, out)
	}
}

// TestWrapperParameters: the wrapper carries package rng's LFSR table and
// package lfsr's taps, so the RTL's constants come from the model.
func TestWrapperParameters(t *testing.T) {
	c := DefaultConfig()
	c.Generator, c.CountBits = "lfsr-lut/b16", 3
	w, err := Wrapper(c)
	if err != nil {
		t.Fatal(err)
	}
	table := rng.LUT(16, 8)
	for l := 1; l <= 8; l++ {
		if !bytes.Contains(w, []byte(fmt.Sprintf("32'd%d", table[l]))) {
			t.Errorf("wrapper lacks T[%d] = %d", l, table[l])
		}
	}
	if !bytes.Contains(w, []byte(".StateW(16)")) || !bytes.Contains(w, []byte(".LfsrWidth(16)")) {
		t.Errorf("wrapper parameters:\n%s", w)
	}
}

func needTool(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; scripts/setup.sh installs it", tool)
		}
		t.Skipf("%s is not installed (run scripts/setup.sh)", tool)
	}
}
