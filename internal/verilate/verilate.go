// SPDX-License-Identifier: Apache-2.0

// Package verilate builds Verilator models: the sources written to a build
// directory, one `verilator --build` run, and the result reused while
// nothing that went into it has changed (a stamp of the flags, the sources,
// the other inputs, Verilator's version and this CPU, since builds use
// -march=native). Packages cosim and dpi build with it.
package verilate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cpu"
	"ibreservoir/internal/proc"
	"ibreservoir/verilog"
)

// A Build is one Verilator build.
type Build struct {
	Dir    string         // the build directory: src/ (the files), obj/ (Verilator's), stamp
	Files  []verilog.File // written to src/ and given to verilator in order, headers (.h) excepted
	Flags  []string       // verilator's options, before the sources
	After  []string       // arguments after the sources (libraries to link)
	Inputs [][]byte       // what else the result depends on (a library's bytes)
}

// Src is the directory the files are written to (absolute once Run has run).
func (b *Build) Src() string { return filepath.Join(b.Dir, "src") }

// Binary is the built executable.
func (b *Build) Binary() string { return filepath.Join(b.Dir, "obj", "Vtb") }

// Run builds, or finds an identical build in Dir, and returns how long the
// build took (0 when it was reused). Dir is made absolute first: Verilator's
// makefile runs inside obj/. what names the build in errors.
func (b *Build) Run(ctx context.Context, what string) (time.Duration, error) {
	if _, err := exec.LookPath("verilator"); err != nil {
		return 0, fmt.Errorf("%s: verilator is not installed (run scripts/setup.sh): %w", what, err)
	}
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		return 0, err
	}
	b.Dir = dir
	h := sha256.New()
	p := cpu.Describe()
	fmt.Fprintln(h, strings.Join(b.Flags, " "), strings.Join(b.After, " "), Version(), p.Brand, p.Family, p.Model, p.Features)
	for _, f := range b.Files {
		fmt.Fprintln(h, f.Name, len(f.Data))
		h.Write(f.Data)
	}
	for _, in := range b.Inputs {
		fmt.Fprintln(h, len(in))
		h.Write(in)
	}
	stamp := hex.EncodeToString(h.Sum(nil))
	if s, err := os.ReadFile(filepath.Join(dir, "stamp")); err == nil && string(s) == stamp {
		if _, err := os.Stat(b.Binary()); err == nil {
			return 0, nil
		}
	}
	for _, d := range []string{b.Src(), filepath.Join(dir, "obj"), filepath.Join(dir, "stamp")} {
		if err := os.RemoveAll(d); err != nil {
			return 0, err
		}
	}
	if _, err := verilog.Write(b.Src(), b.Files); err != nil {
		return 0, err
	}
	args := append([]string{}, b.Flags...)
	args = append(args, "-j", strconv.Itoa(runtime.NumCPU()), "-Mdir", filepath.Join(dir, "obj"), "-o", filepath.Base(b.Binary()))
	// Headers (.h, .svh) are included from the source directory; the file
	// list (.f) is for other tools.
	args = append(args, "-I"+b.Src())
	for _, f := range b.Files {
		switch filepath.Ext(f.Name) {
		case ".h", ".svh", ".f":
		default:
			args = append(args, filepath.Join(b.Src(), f.Name))
		}
	}
	args = append(args, b.After...)
	t0 := time.Now()
	cmd := proc.Command(ctx, "verilator", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := proc.Stopped(ctx, what, cmd.Run()); err != nil {
		if proc.Interrupted(err) {
			return 0, err
		}
		return 0, fmt.Errorf("%s failed: %w\n%s", what, err, Tail(out.String(), 60))
	}
	took := time.Since(t0)
	if err := atomicfile.WriteFile(filepath.Join(dir, "stamp"), []byte(stamp)); err != nil {
		return 0, err
	}
	return took, nil
}

// Version is `verilator --version`, or "unknown".
func Version() string {
	out, err := exec.Command("verilator", "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// Tail is the last lines of s.
func Tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
