// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/cosim"
	"ibreservoir/dpi"
	"ibreservoir/internal/lock"
	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// TestVerifyWidth runs verify --rtl, scoreboard --rtl and verify --vectors
// at 512-bit beats: the library at 512 bits, given as a team's stage, passes
// verify, and the same stage with the PSN read one lane late (a bug only wide
// beats show) fails verify and the scoreboard by comparison with the model;
// checked as a 256-bit stage, its ports are refused, each named, before any
// build; a vector set of the model's packets co-simulates on the 512-bit RTL.
func TestVerifyWidth(t *testing.T) {
	testtool.Need(t, "verilator")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	work := filepath.Join(cache, "ibreservoir-test", "cmd-verify-width")
	os.MkdirAll(filepath.Dir(work), 0o755)
	unlock, err := lock.File(work+".wait", work, true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	c := verilog.DefaultConfig()
	c.Width = 512
	files, err := verilog.Files(c)
	if err != nil {
		t.Fatal(err)
	}
	planted, err := verilog.Patch(files, "ibr_switch_stage.sv", ", Psn2 = 8 + 9,", ", Psn2 = 8 + 10,")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, fs := range map[string][]verilog.File{"clean": files, "planted": planted} {
		if _, err := verilog.Write(filepath.Join(dir, name), fs); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, error) {
		t.Helper()
		o := verifyOpts
		fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		bindVerifyFlags(fs, &o)
		if err := fs.Parse(append(args, "--work", work)); err != nil {
			t.Fatal(err)
		}
		o.given = givenFlags(fs)
		var out bytes.Buffer
		err := runVerify(context.Background(), &out, o)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		t.Logf("verify %s: ...\n%s", strings.Join(args, " "), strings.Join(lines[max(0, len(lines)-2):], "\n"))
		return out.String(), err
	}
	list := func(name string) string { return filepath.Join(dir, name, verilog.FileList) }
	_, err = run("--rtl", list("clean"), "--top", c.Module(), "--width", "256", "--icarus", "none")
	var pe *cosim.PortError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "port in_data_i is 512 bits: want 256") ||
		!strings.Contains(err.Error(), "port in_empty_i is 6 bits: want 5") {
		t.Errorf("a 512-bit stage checked as a 256-bit one: %v", err)
	}
	if out, err := run("--rtl", list("clean"), "--top", c.Module(), "--width", "512", "--random", "20"); err != nil ||
		!strings.Contains(out, " 0 mismatches") {
		t.Errorf("the library at 512 bits as a team's stage: %v", err)
	}
	if _, err := run("--rtl", list("planted"), "--top", c.Module(), "--width", "512", "--random", "20"); err == nil ||
		!strings.Contains(err.Error(), "does not match the model") {
		t.Errorf("the PSN read a lane late at 512 bits: %v, want the comparison's failure", err)
	}
	// The scoreboard on the planted stage: refused as a 256-bit stage, the
	// ports named; at 512 bits the comparison with the model fails it.
	so := scoreboardOpts
	so.Work, so.RTL, so.Top, so.Packets, so.Width = filepath.Join(work, "scoreboard"), list("planted"), c.Module(), 1000, 256
	var sb bytes.Buffer
	if err := runScoreboard(context.Background(), &sb, so); !errors.As(err, &pe) || !strings.Contains(err.Error(), "port out_data_o is 512 bits: want 256") {
		t.Errorf("scoreboard --rtl of a 512-bit stage as a 256-bit one: %v", err)
	}
	so.Width = 512
	err = runScoreboard(context.Background(), &sb, so)
	t.Logf("scoreboard --rtl --width 512 (planted): %v\n%s", err, firstLinesOf(sb.String(), 4))
	if !errors.Is(err, dpi.ErrMismatch) {
		t.Errorf("scoreboard --rtl --width 512 on the PSN read a lane late: %v, want mismatches", err)
	}
	vo := parseVectors(t, "--only", "stage/mult0_ideal_c3", "--random", "50", "--out", filepath.Join(dir, "v"))
	if err := runVectors(context.Background(), &bytes.Buffer{}, vo); err != nil {
		t.Fatal(err)
	}
	out, err := run("--vectors", filepath.Join(dir, "v", "stage", "mult0_ideal_c3", "stage.bin"), "--width", "512")
	if err != nil || !strings.Contains(out, "verilator mult0_ideal_c3_w512: 272 of 272 vectors, 0 mismatches") {
		t.Errorf("verify --vectors --width 512: %v", err)
	}
}

// firstLinesOf is the first n lines of s.
func firstLinesOf(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
