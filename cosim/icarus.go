// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math/bits"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"ibreservoir/internal/license"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

//go:embed tb/example_tb_body.sv
var exampleBody string

// reSegmented is the example testbench's count, with segmented beats, of the
// beats it drove and of those holding two packets.
var reSegmented = regexp.MustCompile(`(?m)^SEGMENTED beats=(\d+) shared=(\d+)$`)

// ExampleTB is the file name of the example testbench.
const ExampleTB = "ibr_example_tb.sv"

// hexLayout is what the example testbench knows of the stage.hex format
// (vectors/format.go): its first line, and the flag bits, as localparams.
func hexLayout() []string {
	ps := []string{
		fmt.Sprintf("localparam int HexVersion = %d;", vectors.HexVersion),
		fmt.Sprintf("localparam int HexMagicLen = %d;", len(vectors.HexMagic)),
		fmt.Sprintf("localparam logic [8*HexMagicLen-1:0] HexMagic = %q;", vectors.HexMagic),
	}
	for _, f := range []struct {
		name string
		flag int
	}{{"FlagLoadBit", vectors.FlagLoad}, {"FlagCongestedBit", vectors.FlagCongested}, {"FlagReplaceBit", vectors.FlagReplace},
		{"FlagSaturatedBit", vectors.FlagSaturated}, {"FlagHashBit", vectors.FlagHash}, {"FlagRawBit", vectors.FlagRaw}} {
		ps = append(ps, fmt.Sprintf("localparam int %s = %d;", f.name, bits.TrailingZeros(uint(f.flag))))
	}
	return ps
}

// Example returns ibr_example_tb.sv, the self-checking example testbench of
// configuration c in plain SystemVerilog: it reads a stage.hex file of
// `ibreservoir vectors` (+hex=FILE; streamed, so memory stays flat),
// drives c's wrapper with every packet, cut into beats of c's width (its
// DataW; the file's 64-bit words packed DataW/64 to a beat; with
// c.Segmented, packed into shared beats by the segment rules), loading the
// generator state where a vector says so, holds out_ready_i low at random
// (+stall=N, +seed=N), and checks every output byte, status bit and
// generator state. It runs in Icarus
// Verilog and in Verilator (docs/rtl.md gives the one command of each), and
// is the harness of RunIcarus.
func Example(c verilog.Config) ([]byte, error) { return exampleOf(c, c.Module()) }

// exampleOf is Example driving module, which implements c (the library's
// wrapper, or a user's top).
func exampleOf(c verilog.Config, module string) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	layout := hexLayout()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n// %s\n//\n// ibr_example_tb: the self-checking example testbench of %s.\n", verilog.Header, license.Line, module)
	fmt.Fprintf(&b, "// Run it from the directory ibreservoir verilog wrote, on that configuration's\n")
	fmt.Fprintf(&b, "// vectors (ibreservoir vectors; here out/vectors/stage/%s/stage.hex):\n//\n", c.Name())
	for _, l := range strings.Split(ExampleCommands("out/vectors/stage/"+c.Name()+"/stage.hex"), "\n") {
		fmt.Fprintf(&b, "//   $ %s\n", l)
	}
	fmt.Fprintf(&b, "//\n// Each prints PASS (exit 0) or the mismatches by vector index and FAIL (non-zero exit).\n")
	b.WriteString("`default_nettype none\n\nmodule ibr_example_tb;\n")
	fmt.Fprintf(&b, "  // The configuration's widths: the beat (DataW), the generator state, the hop field.\n")
	fmt.Fprintf(&b, "  localparam int DataW = %d;\n  localparam int StateW = %d;\n  localparam int FieldW = %d;\n", c.DataW(), c.StateBits(), c.FieldBits())
	seg := 0
	if c.Segmented {
		seg = 1
	}
	fmt.Fprintf(&b, "  // Segmented beats (docs/rtl.md, \"Segmented beats\"): packets share beats; the sop segment's width.\n")
	fmt.Fprintf(&b, "  localparam bit Segmented = 1'b%d;\n  localparam int SegW = %d;\n", seg, c.SegBits())
	fmt.Fprintf(&b, "  // The stage.hex format (docs/rtl.md): 64-bit words, its first line, its flags.\n")
	fmt.Fprintf(&b, "  localparam int MaxStateBits = %d;\n  localparam int MaxPacket = %d;\n",
		vectors.MaxStateBits, vectors.MaxPacket)
	for _, l := range layout {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString("\n  // The stage's ports.\n")
	b.WriteString(verilog.Signals(c, "  ", func(p verilog.Port) string { return p.Name }))
	b.WriteString("\n")
	b.WriteString(exampleBody)
	fmt.Fprintf(&b, "\n  %s u_dut (\n%s  );\nendmodule\n\n`default_nettype wire\n", module,
		verilog.Connections("    ", func(p verilog.Port) string { return p.Name }))
	return b.Bytes(), nil
}

// ExampleCommands are the one-line commands that run the example testbench
// in Icarus Verilog and in Verilator, from the directory holding the RTL and
// ibr_example_tb.sv, on the vector file hex.
func ExampleCommands(hex string) string {
	return fmt.Sprintf("iverilog -g2012 -o tb.vvp -f %s %s && vvp -n tb.vvp +hex=%s\n", verilog.FileList, ExampleTB, hex) +
		fmt.Sprintf("verilator --binary --timing -f %s %s --top-module ibr_example_tb -o tb && obj_dir/tb +hex=%s", verilog.FileList, ExampleTB, hex)
}

// RunIcarus compiles configuration c with its example testbench (Example)
// in Icarus Verilog and runs it on a hex vector file of n vectors, working in
// dir, with out_ready_i low one cycle in stall at random (0: never). Any
// compiler output fails the run: the RTL and the testbench compile without
// a warning.
func RunIcarus(ctx context.Context, dir string, c verilog.Config, hexFile string, n, stall int) (*Result, error) {
	files, err := verilog.Files(c)
	if err != nil {
		return nil, err
	}
	return runIcarusFiles(ctx, dir, c, files, hexFile, n, stall)
}

// RunIcarusRTL is RunIcarus on a user's stage (its sources, include
// directories and defines, its top in place of the wrapper). Unlike the
// library's, the user's RTL may compile with warnings; an error fails.
func RunIcarusRTL(ctx context.Context, dir string, u *UserRTL, hexFile string, n, stall int) (*Result, error) {
	return runIcarus(ctx, dir, u.Config, u.Top, u.Files, u.icarusArgs(), false, hexFile, n, stall)
}

// runIcarusFiles is RunIcarus on the given RTL sources (verilog.Files,
// possibly edited by a test).
func runIcarusFiles(ctx context.Context, dir string, c verilog.Config, files []verilog.File, hexFile string, n, stall int) (*Result, error) {
	return runIcarus(ctx, dir, c, c.Module(), files, nil, true, hexFile, n, stall)
}

// runIcarus compiles files and the example testbench driving module (which
// implements c) and runs it; strict: any compiler message fails the run.
func runIcarus(ctx context.Context, dir string, c verilog.Config, module string, files []verilog.File, extra []string, strict bool,
	hexFile string, n, stall int) (*Result, error) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		return nil, fmt.Errorf("cosim: iverilog is not installed (run scripts/setup.sh): %w", err)
	}
	tb, err := exampleOf(c, module)
	if err != nil {
		return nil, err
	}
	files = append(slices.Clone(files), verilog.File{Name: ExampleTB, Data: tb})
	src := filepath.Join(dir, "src")
	if _, err := verilog.Write(src, files); err != nil {
		return nil, err
	}
	args := []string{"-g2012", "-I", src, "-o", filepath.Join(dir, "tb.vvp"), "-s", "ibr_example_tb"}
	if strict {
		args = append(args, "-Wall")
	}
	args = append(args, extra...)
	for _, f := range files {
		if e := filepath.Ext(f.Name); e == ".sv" || e == ".v" {
			args = append(args, filepath.Join(src, f.Name))
		}
	}
	var out bytes.Buffer
	cmd := toolCommand(ctx, "iverilog", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || (strict && out.Len() > 0) {
		if err = interrupted(ctx, "iverilog", err); Interrupted(err) {
			return nil, err
		}
		if !strict {
			return nil, fmt.Errorf("cosim: iverilog of %s: %v\n%s", module, err, tail(out.String(), 40))
		}
		return nil, fmt.Errorf("cosim: iverilog of %s: %v (the RTL and testbench must compile without a message)\n%s", module, err, tail(out.String(), 40))
	}
	t0 := time.Now()
	out.Reset()
	cmd = toolCommand(ctx, "vvp", "-n", filepath.Join(dir, "tb.vvp"), "+hex="+hexFile, fmt.Sprintf("+stall=%d", stall))
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := interrupted(ctx, "vvp", cmd.Run())
	if Interrupted(runErr) {
		return nil, runErr
	}
	r, err := parseOutput("icarus", out.Bytes())
	if err != nil {
		if runErr != nil {
			err = fmt.Errorf("%w (exit: %v)", err, runErr)
		}
		return r, err
	}
	if c.Segmented && !reSegmented.MatchString(r.Output) {
		return r, fmt.Errorf("cosim: icarus: %s is segmented, but the example testbench printed no SEGMENTED line: it did not pack shared beats", c.Name())
	}
	if r.Vectors != n && r.Mismatches == 0 {
		r.Mismatches++
		r.First = append(r.First, Mismatch{Index: r.Vectors, What: "count", Got: fmt.Sprint(r.Vectors), Want: fmt.Sprint(n)})
	}
	r.Wall = time.Since(t0)
	r.SimTime = r.Wall
	return r, nil
}
