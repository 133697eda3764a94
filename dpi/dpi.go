// SPDX-License-Identifier: Apache-2.0

// Package dpi builds and runs the DPI-C scoreboard of the RTL switch stage:
// ibr_dpi_pkg.sv (the model's SystemVerilog import package), ibr_dpi.cc (its
// DPI adapter over the C library of ./capi), and the example testbench
// (example/ibr_dpi_tb.sv, example/tb_main.cpp), which drives random packets,
// one in eight corrupt (CorruptKinds), with random stalls through the RTL of
// package verilog and checks every output packet, status and generator state
// against the model's cut-through stage called through DPI. One Verilator
// build holds every configuration asked for (the ibr_cosim_top of package
// cosim), all of one beat width (verilog.Config.Width: the testbench cuts
// each packet into beats of that width); each run picks one. It is what
// `ibreservoir scoreboard` runs; docs/testbench.md describes it.
package dpi

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"ibreservoir/capi/include"
	"ibreservoir/cosim"
	"ibreservoir/header"
	"ibreservoir/internal/verilate"
	"ibreservoir/verilog"
)

// The files of the DPI package and the example testbench.
var (
	//go:embed src/ibr_dpi_pkg.sv
	pkgSource []byte
	//go:embed src/ibr_dpi_pkg.vlt
	pkgWaivers []byte
	//go:embed src/ibr_dpi.cc
	adapterSource []byte
	//go:embed example/ibr_dpi_tb.sv
	tbSource []byte
	//go:embed example/tb_main.cpp
	mainSource []byte
	//go:embed example/ibr_dpi_tb.vlt
	tbWaivers []byte
)

// TopModule is the testbench's top module.
const TopModule = "ibr_dpi_tb"

// LibraryPackage is the Go package built as the C library.
const LibraryPackage = "ibreservoir/capi"

// Sources returns the files of a scoreboard build for cfgs: the RTL library
// and the configurations' wrappers (package verilog), the verification top
// holding them (cosim.Top, one lane: cosim.Sources without its testbench),
// the DPI package, its adapter, the C interface's header and the example
// testbench. A test may edit them before
// BuildSources.
func Sources(cfgs []verilog.Config) ([]verilog.File, error) {
	// cosim's sources for one lane, but its testbench: the RTL, the wrappers
	// and the top, each configuration once.
	all, err := cosim.Sources(cfgs, 1)
	if err != nil {
		return nil, err
	}
	return withTestbench(all), nil
}

// withTestbench replaces cosim's testbench in its sources with the DPI
// package, adapter and testbench.
func withTestbench(all []verilog.File) []verilog.File {
	files := slices.DeleteFunc(all, func(f verilog.File) bool { return strings.HasSuffix(f.Name, ".cpp") })
	return append(files,
		verilog.File{Name: "ibr_dpi_pkg.vlt", Data: pkgWaivers},
		verilog.File{Name: "ibr_dpi_pkg.sv", Data: pkgSource},
		verilog.File{Name: TopModule + ".vlt", Data: tbWaivers},
		verilog.File{Name: TopModule + ".sv", Data: tbSource},
		verilog.File{Name: "ibr_dpi.cc", Data: adapterSource},
		verilog.File{Name: "tb_main.cpp", Data: mainSource},
		verilog.File{Name: include.HeaderName, Data: include.Header},
	)
}

// BuildLibrary builds the C library (go build -buildmode=c-archive of
// LibraryPackage) as file out. It needs the Go toolchain and this module's
// source: run it inside a checkout.
func BuildLibrary(ctx context.Context, out string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Errorf("dpi: the C library is built with the go command, which is not on PATH: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-buildmode=c-archive", "-o", out, LibraryPackage)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("dpi: go build -buildmode=c-archive %s (run inside a checkout of ibreservoir, or give a built library): %w\n%s",
			LibraryPackage, err, b)
	}
	return nil
}

// A Bench is a built scoreboard: the testbench binary and the configurations
// it holds (index = sel).
type Bench struct {
	Dir       string
	Binary    string
	Configs   []verilog.Config
	BuildTime time.Duration // 0 when an identical build was reused
}

// verilatorFlags are the Verilator options of the scoreboard build.
// IBR_DPI_PROTOTYPES makes the compiler check the adapter against the DPI
// declarations Verilator made from ibr_dpi_pkg.sv.
var verilatorFlags = []string{
	"--cc", "--exe", "--build", "-Wall", "--assert", "-O3",
	"--x-assign", "fast", "--x-initial", "fast", "--top-module", TopModule,
	"-CFLAGS", "-O3 -march=native -std=c++17",
	"-CFLAGS", `-DIBR_DPI_PROTOTYPES='"V` + TopModule + `__Dpi.h"'`,
	"-LDFLAGS", "-lpthread",
}

// Build builds the scoreboard of cfgs in dir, with the C library lib (an
// archive from BuildLibrary; "" builds one into dir). Every configuration
// has one beat width, the testbench's. A build whose sources, library and
// flags are unchanged is reused.
func Build(ctx context.Context, dir string, cfgs []verilog.Config, lib string) (*Bench, error) {
	files, err := Sources(cfgs)
	if err != nil {
		return nil, err
	}
	return BuildSources(ctx, dir, files, cfgs, lib)
}

// SourcesRTL returns the files of a scoreboard build of a user's stage: its
// sources, the verification top instantiating its top, and the DPI package,
// adapter and testbench.
func SourcesRTL(u *cosim.UserRTL) ([]verilog.File, error) {
	all, err := cosim.SourcesRTL(u, 1)
	if err != nil {
		return nil, err
	}
	return withTestbench(all), nil
}

// BuildRTL builds the scoreboard of a user's stage in dir, after checking
// its ports (cosim.UserRTL.CheckPorts), with the C library lib as Build.
func BuildRTL(ctx context.Context, dir string, u *cosim.UserRTL, lib string) (*Bench, error) {
	if err := u.CheckPorts(ctx, filepath.Join(dir, "ports")); err != nil {
		return nil, err
	}
	files, err := SourcesRTL(u)
	if err != nil {
		return nil, err
	}
	return buildSources(ctx, dir, files, []verilog.Config{u.Config}, lib, u.UserFlags(), u.Inputs())
}

// widthFlags set the testbench's beat width (its DataW parameter) to the
// configurations' one width, and its Segmented parameter when they take
// segmented beats (docs/rtl.md, "Segmented beats": the testbench then packs
// packets into shared beats). Wide beats also turn off Verilator's
// data-flow-graph pass, as package cosim's builds do: it splits the wide CRC
// parities into bit-level temporaries, minutes of compiling at 512 bits.
func widthFlags(cfgs []verilog.Config) ([]string, error) {
	if len(cfgs) == 0 {
		return nil, errors.New("dpi: no configurations")
	}
	w, seg := cfgs[0].DataW(), cfgs[0].Segmented
	for _, c := range cfgs[1:] {
		if c.DataW() != w {
			return nil, fmt.Errorf("dpi: configurations of %d and %d-bit beats in one build; build each width apart", w, c.DataW())
		}
		if c.Segmented != seg {
			return nil, fmt.Errorf("dpi: segmented and unsegmented configurations (%s, %s) in one build; the testbench packs beats one way: build each apart",
				cfgs[0].Name(), c.Name())
		}
	}
	if err := verilog.CheckWidth(w); err != nil {
		return nil, fmt.Errorf("dpi: %w", err)
	}
	if seg && !verilog.Segmented(w) {
		return nil, fmt.Errorf("dpi: %s: segmented beats at %d bits; they are 256 or 512 bits", cfgs[0].Name(), w)
	}
	f := []string{fmt.Sprintf("-GDataW=%d", w)}
	if seg {
		f = append(f, "-GSegmented=1")
	}
	if w != verilog.DefaultWidth {
		f = append(f, "-fno-dfg")
	}
	return f, nil
}

// BuildSources builds the given sources (Sources, possibly edited by a test).
func BuildSources(ctx context.Context, dir string, files []verilog.File, cfgs []verilog.Config, lib string) (*Bench, error) {
	return buildSources(ctx, dir, files, cfgs, lib, nil, nil)
}

func buildSources(ctx context.Context, dir string, files []verilog.File, cfgs []verilog.Config, lib string, flags []string, inputs [][]byte) (*Bench, error) {
	wf, err := widthFlags(cfgs)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if lib == "" {
		lib = filepath.Join(dir, "libibreservoir.a")
		if err := BuildLibrary(ctx, lib); err != nil {
			return nil, err
		}
	}
	if lib, err = filepath.Abs(lib); err != nil {
		return nil, err
	}
	libData, err := os.ReadFile(lib)
	if err != nil {
		return nil, fmt.Errorf("dpi: the C library: %w", err)
	}
	b := verilate.Build{Dir: dir, Files: files, After: []string{lib}, Inputs: append([][]byte{libData}, inputs...)}
	b.Flags = append(append(append(slices.Clone(verilatorFlags), "-CFLAGS", "-I"+b.Src()), wf...), flags...)
	took, err := b.Run(ctx, fmt.Sprintf("dpi: verilator build of %d configurations", len(cfgs)))
	if err != nil {
		return nil, err
	}
	return &Bench{Dir: dir, Binary: b.Binary(), Configs: cfgs, BuildTime: took}, nil
}

// DefaultRun are the run options of `ibreservoir scoreboard` (its flags'
// defaults); set Repro.
var DefaultRun = RunOptions{Packets: 1_000_000, Seed: 1, Chain: 64, Stall: 10, Gap: 5, MaxFail: 5}

// RunOptions tune a scoreboard run; each is used as given (DefaultRun: 64
// packets a chain, 10% stalls, 5% gaps, 5 mismatches printed).
type RunOptions struct {
	Packets int    // packets to check
	Seed    uint64 // the stimulus seed and the model's (the ports' generator states)
	Chain   int    // packets through each port before the next (at least 1)
	Stall   int    // percent of cycles with the egress ready low, 0..MaxPercent
	Gap     int    // percent chance of an idle ingress cycle at a packet boundary, 0..MaxPercent
	MaxFail int    // mismatches reported in full (all are counted)
	// Repro is the command that runs one packet through the model for a
	// configuration (ibreservoir stage with its RTL flags); the testbench
	// appends the packet's switch, port, congested bit, state and bytes.
	Repro func(verilog.Config) string
}

// A Mismatch is one difference the scoreboard found.
type Mismatch struct {
	Packet int    // the packet's index in the run
	What   string // packet, status, state, extra, extra-status, deadlock; segmented: sop-seg, segment-rule
	Report string // the testbench's report: the packet, the field diff, the command reproducing it
}

// Result is what one run found.
type Result struct {
	Config    verilog.Config
	Packets   int // packets checked
	Malformed int // packets the model refuses, which the RTL must flag and pass unchanged
	// Corrupt counts the corrupt packets made, by kind (CorruptKinds), and
	// Stomped those the model stomped (every kind but icrc, which is sound to
	// a switch).
	Corrupt    map[string]int
	Stomped    int
	Mismatches int // all mismatches counted; the first ones are in First
	First      []Mismatch
	Cycles     int64
	SimTime    time.Duration // the testbench's own timing of its clock loop
	SimCPU     time.Duration // the CPU time the process spent in it (every thread's)
	Wall       time.Duration
	Model      string // the model's version and configuration, as the testbench printed them
	// Beats and SharedBeats are, with segmented beats, the ingress beats and
	// those holding two packets (the end of one and the start of the next);
	// 0 one packet a beat.
	Beats, SharedBeats int64
	// Assertions counts the errors the RTL itself reported (cosim.IsRTLError):
	// they fail the run like a mismatch but are not the comparison with the
	// model. FirstAssertion is the first message.
	Assertions     int
	FirstAssertion string
}

// Stopped is the error of a run that an error of the RTL itself ended (a
// $fatal: no RESULT line): Result holds what the run printed before it, its
// mismatches so far and the RTL's errors. The comparison with the model found
// the bug only if Result.First holds a mismatch.
type Stopped struct {
	Result *Result
	err    error
}

func (e *Stopped) Error() string { return e.err.Error() }

// Rate is the packets checked per second of simulation.
func (r *Result) Rate() float64 { return float64(r.Packets) / r.SimTime.Seconds() }

// PacketsPerCycle is the packets checked per clock cycle of the run.
func (r *Result) PacketsPerCycle() float64 { return float64(r.Packets) / float64(r.Cycles) }

// CPURate is the packets checked per CPU-second of simulation: the rate a
// core gives the run when other work shares the machine.
func (r *Result) CPURate() float64 { return float64(r.Packets) / r.SimCPU.Seconds() }

// CorruptKinds are the kinds of corrupt packets the testbench makes, one
// packet in eight (docs/spec.md section 5, step 0): a VCRC bit flipped; an
// ICRC bit flipped behind a resealed VCRC (sound to a switch, which does not
// check the ICRC); PktLen made longer or shorter than the frame, the VCRC
// resealed; PktLen beyond the longest legal packet (1049..2047 words), the
// frame as long.
var CorruptKinds = []string{"vcrc", "icrc", "pktlen-longer", "pktlen-shorter", "oversize"}

var (
	reCorrupt  = regexp.MustCompile(`^CORRUPT ((?:\S+=\d+ )*)stomped=(\d+)$`)
	reMismatch = regexp.MustCompile(`^MISMATCH packet=(\d+) what=(\S+)`)
	reSegment  = regexp.MustCompile(`^SEGMENTED beats=(\d+) shared=(\d+)$`)
	reResult   = regexp.MustCompile(`^RESULT packets=(\d+) mismatches=(\d+) malformed=(\d+) cycles=(\d+)$`)
	reSeconds  = regexp.MustCompile(`^SECONDS ([0-9.]+) CPU ([0-9.]+)$`)
)

// MaxPercent is the largest Stall and Gap: at 100 nothing moves.
const MaxPercent = 95

// Check refuses options a run cannot be made with.
func (o RunOptions) Check() error {
	if o.Packets < 1 {
		return fmt.Errorf("dpi: %d packets; want at least 1", o.Packets)
	}
	if o.Chain < 1 || o.Stall < 0 || o.Stall > MaxPercent || o.Gap < 0 || o.Gap > MaxPercent || o.MaxFail < 0 {
		return fmt.Errorf("dpi: chain %d, stall %d%%, gap %d%%, max-fail %d: want chain >= 1, stall and gap 0..%d",
			o.Chain, o.Stall, o.Gap, o.MaxFail, MaxPercent)
	}
	return nil
}

// Run runs configuration sel of the build. A run that finds mismatches
// returns them in the Result with a nil error; the error is for runs that
// could not be made or did not finish.
func (b *Bench) Run(ctx context.Context, sel int, o RunOptions) (*Result, error) {
	if sel < 0 || sel >= len(b.Configs) {
		return nil, fmt.Errorf("dpi: configuration %d outside the build's 0..%d", sel, len(b.Configs)-1)
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	c := b.Configs[sel]
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, b.Binary, b.args(sel, o)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	r, err := parse(out.Bytes())
	if err != nil {
		if runErr != nil {
			err = fmt.Errorf("%w (exit: %v)", err, runErr)
		}
		return nil, fmt.Errorf("dpi: %s: %w", c.Name(), err)
	}
	r.Config, r.Wall = c, time.Since(t0)
	if c.Segmented && r.Beats == 0 {
		return r, fmt.Errorf("dpi: %s: the testbench counted no segmented beats (a build without its Segmented parameter?)", c.Name())
	}
	if r.Packets != o.Packets && r.Mismatches == 0 {
		return r, fmt.Errorf("dpi: %s: %d packets checked of %d", c.Name(), r.Packets, o.Packets)
	}
	return r, nil
}

// args are the testbench's plusargs of a run of configuration sel.
func (b *Bench) args(sel int, o RunOptions) []string {
	c := b.Configs[sel]
	repro := "ibreservoir stage"
	if o.Repro != nil {
		repro = o.Repro(c)
	}
	return []string{
		"+config_local=" + c.ModelConfig(header.LNHLocal, o.Seed).Settings(),
		"+config_global=" + c.ModelConfig(header.LNHGlobal, o.Seed).Settings(),
		"+name=" + c.Name(), "+repro=" + repro,
		fmt.Sprintf("+sel=%d", sel), fmt.Sprintf("+packets=%d", o.Packets), fmt.Sprintf("+seed=%d", o.Seed),
		fmt.Sprintf("+chain=%d", o.Chain), fmt.Sprintf("+stall=%d", o.Stall), fmt.Sprintf("+gap=%d", o.Gap),
		fmt.Sprintf("+maxfail=%d", o.MaxFail), cosim.ErrorLimit,
	}
}

// parse reads the testbench's output.
func parse(out []byte) (*Result, error) {
	r := &Result{}
	var other strings.Builder
	done, timed := false, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch m := reMismatch.FindStringSubmatch(line); {
		case m != nil:
			i, _ := strconv.Atoi(m[1])
			r.First = append(r.First, Mismatch{Packet: i, What: m[2], Report: line})
			continue
		case strings.HasPrefix(line, "  ") && len(r.First) > 0:
			r.First[len(r.First)-1].Report += "\n" + line
			continue
		}
		if m := reResult.FindStringSubmatch(line); m != nil {
			r.Packets, _ = strconv.Atoi(m[1])
			r.Mismatches, _ = strconv.Atoi(m[2])
			r.Malformed, _ = strconv.Atoi(m[3])
			r.Cycles, _ = strconv.ParseInt(m[4], 10, 64)
			done = true
			continue
		}
		if m := reSegment.FindStringSubmatch(line); m != nil {
			r.Beats, _ = strconv.ParseInt(m[1], 10, 64)
			r.SharedBeats, _ = strconv.ParseInt(m[2], 10, 64)
			continue
		}
		if m := reCorrupt.FindStringSubmatch(line); m != nil {
			r.Corrupt = map[string]int{}
			for _, kv := range strings.Fields(m[1]) {
				k, v, _ := strings.Cut(kv, "=")
				r.Corrupt[k], _ = strconv.Atoi(v)
			}
			r.Stomped, _ = strconv.Atoi(m[2])
			continue
		}
		if m := reSeconds.FindStringSubmatch(line); m != nil {
			s, _ := strconv.ParseFloat(m[1], 64)
			r.SimTime = time.Duration(s * float64(time.Second))
			c, _ := strconv.ParseFloat(m[2], 64)
			r.SimCPU = time.Duration(c * float64(time.Second))
			timed = true
			continue
		}
		if m, ok := strings.CutPrefix(line, "MODEL "); ok {
			r.Model = m
			continue
		}
		if strings.HasSuffix(line, ": Verilog $finish") || cosim.IsErrorLimitNote(line) {
			continue // Verilator's notes of where $finish was called, and of an error let pass
		}
		if cosim.IsRTLError(line, TopModule+".sv") {
			if r.Assertions == 0 {
				r.FirstAssertion = line
			}
			r.Assertions++
			continue
		}
		other.WriteString(line + "\n")
	}
	if done && !sameKeys(r.Corrupt, CorruptKinds) {
		return r, fmt.Errorf("the testbench's CORRUPT line counts %v, want the kinds %v", r.Corrupt, CorruptKinds)
	}
	if !done || !timed {
		err := fmt.Errorf("the testbench ended without its RESULT line:\n%s", verilate.Tail(other.String(), 40))
		if r.Assertions > 0 {
			return r, &Stopped{Result: r, err: err}
		}
		return r, err
	}
	if other.Len() > 0 {
		return r, fmt.Errorf("the testbench printed what it should not:\n%s", verilate.Tail(other.String(), 40))
	}
	return r, nil
}

// sameKeys says whether m has exactly the keys keys.
func sameKeys(m map[string]int, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// CorruptTotal is the number of corrupt packets made, every kind.
func (r *Result) CorruptTotal() int {
	n := 0
	for _, v := range r.Corrupt {
		n += v
	}
	return n
}

// Print writes a run's summary lines and its first mismatches in full.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "%-36s %8d packets %6d malformed %4d mismatches %4d RTL assertion errors  %.2f s  %.0f packets/s\n",
		r.Config.Name(), r.Packets, r.Malformed, r.Mismatches, r.Assertions, r.SimTime.Seconds(), r.Rate())
	kinds := make([]string, len(CorruptKinds))
	for i, k := range CorruptKinds {
		kinds[i] = fmt.Sprintf("%s %d", k, r.Corrupt[k])
	}
	fmt.Fprintf(w, "%-36s %8d corrupt: %s; %d stomped\n", "", r.CorruptTotal(), strings.Join(kinds, ", "), r.Stomped)
	if r.Config.Segmented {
		fmt.Fprintf(w, "%-36s %8d segmented beats, %d holding two packets; %d cycles, %.3f packets a cycle\n", "", r.Beats, r.SharedBeats,
			r.Cycles, r.PacketsPerCycle())
	}
	for _, m := range r.First {
		fmt.Fprintln(w, m.Report)
	}
	if r.Assertions > 0 {
		fmt.Fprintf(w, "%d errors reported by the RTL's own assertions (not the comparison with the model); the first: %s\n", r.Assertions, r.FirstAssertion)
	}
}

// ErrMismatch is returned (wrapped) by callers that turn mismatches into a
// failure.
var ErrMismatch = errors.New("the RTL does not match the model")
