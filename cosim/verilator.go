// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"ibreservoir/internal/verilate"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

//go:embed tb/tb.cpp
var tbSource []byte

// tbHeader is the checked-in cosim/tb/ibr_vectors.h (TBHeader generates it).
//
//go:embed tb/ibr_vectors.h
var tbHeader []byte

// A Model is a built Verilator co-simulation: ibr_cosim_top holding Configs
// (index = sel) and the testbench binary.
type Model struct {
	Dir       string
	Binary    string
	Configs   []verilog.Config
	Lanes     int
	BuildTime time.Duration // 0 when an identical build was reused
}

// Sel returns the index of c in the build, or -1.
func (m *Model) Sel(c verilog.Config) int {
	for i, x := range m.Configs {
		if x.Name() == c.Name() && x.Hash.Key() == c.Hash.Key() {
			return i
		}
	}
	return -1
}

// verilatorFlags are the Verilator options of the co-simulation build.
var verilatorFlags = []string{
	"--cc", "--exe", "--build", "-Wall", "--assert", "-O3",
	"--x-assign", "fast", "--x-initial", "fast", "--top-module", TopModule,
	"-CFLAGS", "-O3 -march=native -std=c++17",
}

// Sources returns the files of the Verilator build for cfgs: the library, the
// configurations' wrappers, the verification top and the testbench.
func Sources(cfgs []verilog.Config, lanes int) ([]verilog.File, error) {
	if lanes < 1 || lanes > 8 {
		return nil, fmt.Errorf("cosim: %d lanes; want 1..8", lanes)
	}
	if len(cfgs) == 0 || len(cfgs) > 256 {
		return nil, fmt.Errorf("cosim: %d configurations in one build; want 1..256", len(cfgs))
	}
	if _, err := beatWidth(cfgs); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range cfgs {
		if seen[c.Module()] {
			return nil, fmt.Errorf("cosim: configuration %s twice in one build", c.Module())
		}
		seen[c.Module()] = true
	}
	files, err := verilog.Files(cfgs...)
	if err != nil {
		return nil, err
	}
	files = append(files, verilog.File{Name: TopModule + ".sv", Data: Top(cfgs, lanes)}, verilog.File{Name: "tb.cpp", Data: tbSource},
		verilog.File{Name: "ibr_vectors.h", Data: tbHeader})
	return files, nil
}

// SourcesRTL returns the files of the Verilator build of a user's stage:
// its sources, the verification top instantiating u.Top for u.Config, and the
// testbench.
func SourcesRTL(u *UserRTL, lanes int) ([]verilog.File, error) {
	if lanes < 1 || lanes > 8 {
		return nil, fmt.Errorf("cosim: %d lanes; want 1..8", lanes)
	}
	files := append(slices.Clone(u.Files),
		verilog.File{Name: TopModule + ".sv", Data: topOf([]verilog.Config{u.Config}, []string{u.Top}, lanes)},
		verilog.File{Name: "tb.cpp", Data: tbSource}, verilog.File{Name: "ibr_vectors.h", Data: tbHeader})
	return files, nil
}

// UserFlags are the Verilator options a build of a user's stage adds: its
// include directories and defines, and lint warnings that do not fail the
// build (the user's lint is the user's; the library's builds keep -Wall fatal).
func (u *UserRTL) UserFlags() []string { return append([]string{"-Wno-fatal"}, u.verilatorArgs()...) }

// BuildVerilatorRTL builds the co-simulation of a user's stage in dir, after
// checking its ports (CheckPorts). A build whose sources, headers and flags
// are unchanged is reused.
func BuildVerilatorRTL(ctx context.Context, dir string, u *UserRTL, lanes int) (*Model, error) {
	if err := u.CheckPorts(ctx, filepath.Join(dir, "ports")); err != nil {
		return nil, err
	}
	files, err := SourcesRTL(u, lanes)
	if err != nil {
		return nil, err
	}
	b := verilate.Build{Dir: filepath.Join(dir, "build"), Files: files, Inputs: u.Inputs(),
		Flags: append(append(slices.Clone(verilatorFlags), tbFlags(u.Config.DataW(), u.Config.Segmented, lanes)...), u.UserFlags()...)}
	took, err := b.Run(ctx, fmt.Sprintf("cosim: verilator build of %s (%s)", u.Top, u.FileList))
	if err != nil {
		return nil, err
	}
	return &Model{Dir: b.Dir, Binary: b.Binary(), Configs: []verilog.Config{u.Config}, Lanes: lanes, BuildTime: took}, nil
}

// BuildVerilator builds the co-simulation of cfgs in dir (created if
// needed). A build whose sources and flags are unchanged is reused, so tests
// and `ibreservoir verify` share it.
//
// lanes is the number of independent egress ports per configuration (1..8):
// the testbench splits a vector file across them, so a run simulates lanes
// packets per clock.
func BuildVerilator(ctx context.Context, dir string, cfgs []verilog.Config, lanes int) (*Model, error) {
	files, err := Sources(cfgs, lanes)
	if err != nil {
		return nil, err
	}
	return buildFiles(ctx, dir, files, cfgs, lanes)
}

// buildFiles builds the given sources (Sources, possibly edited by a test).
func buildFiles(ctx context.Context, dir string, files []verilog.File, cfgs []verilog.Config, lanes int) (*Model, error) {
	w, err := beatWidth(cfgs)
	if err != nil {
		return nil, err
	}
	b := verilate.Build{Dir: dir, Files: files, Flags: append(slices.Clone(verilatorFlags), tbFlags(w, cfgs[0].Segmented, lanes)...)}
	took, err := b.Run(ctx, fmt.Sprintf("cosim: verilator build of %d configurations", len(cfgs)))
	if err != nil {
		return nil, err
	}
	return &Model{Dir: b.Dir, Binary: b.Binary(), Configs: cfgs, Lanes: lanes, BuildTime: took}, nil
}

// beatWidth is the beat width, in bits, that every configuration of one
// build shares: the top's data ports and the testbench's beats have one width.
func beatWidth(cfgs []verilog.Config) (int, error) {
	if len(cfgs) == 0 {
		return 0, fmt.Errorf("cosim: no configurations")
	}
	w := cfgs[0].DataW()
	for _, c := range cfgs[1:] {
		if c.DataW() != w {
			return 0, fmt.Errorf("cosim: configurations of %d and %d-bit beats in one build; build each width apart", w, c.DataW())
		}
		if c.Segmented != cfgs[0].Segmented {
			return 0, fmt.Errorf("cosim: segmented and unsegmented configurations (%s, %s) in one build; the testbench packs beats one way: build each apart", cfgs[0].Name(), c.Name())
		}
	}
	return w, nil
}

// tbFlags are the testbench's compile-time settings: lanes, and the beat
// (bytes a beat and its log2, the width of the empty ports, and the width of
// the sop-segment ports), and whether beats are segmented.
// Wide beats also turn off Verilator's data-flow-graph pass, which splits
// the wide CRC parities into bit-level temporaries: at 512 bits it writes
// 22 MB of C++ (three minutes of compiling) where the plain expressions take
// 0.6 MB.
func tbFlags(width int, segmented bool, lanes int) []string {
	defs := fmt.Sprintf("-DLANES=%d -DBEAT=%d -DEMPTYW=%d -DSEGW=%d", lanes, width/8, bits.Len(uint(width/8))-1,
		verilog.Config{Width: width}.SegBits())
	if segmented {
		defs += " -DSEGMENTED=1"
	}
	f := []string{"-CFLAGS", defs}
	if width != verilog.DefaultWidth {
		f = append(f, "-fno-dfg")
	}
	return f
}

// tail is the last lines of a tool's output, for errors.
func tail(s string, lines int) string { return verilate.Tail(s, lines) }

// RunOptions tune a co-simulation run.
type RunOptions struct {
	MaxFail int // mismatches printed in full (0: the default, 10)
	Stall   int // out_ready_i low one cycle in Stall (0: never; 1 would hold it low for good)
	Gap     int // an idle input cycle after every Gap packets of a lane (0: never)
	// Dense offers every beat the cycle after the last was taken: no idle
	// input cycle inside or before a packet (the testbench's word gaps off;
	// Gap still applies), and with segmented beats each packet at the first
	// legal segment (no idle segments). Back-to-back traffic, for the stage's rate.
	Dense bool
	Parts int // simulator processes run at once, each on a range of the vectors (0: the default, 1)
}

// MaxParts bounds RunOptions.Parts.
const MaxParts = 256

// Validate says what is wrong with the options, naming each.
func (o RunOptions) Validate() error {
	var errs []error
	if o.MaxFail < 0 {
		errs = append(errs, fmt.Errorf("max-fail %d: give 0 or more mismatches to print", o.MaxFail))
	}
	if o.Stall < 0 || o.Stall == 1 {
		errs = append(errs, fmt.Errorf("stall %d: give 0 (never) or N >= 2 (ready low one cycle in N); 1 would hold ready low every cycle, so nothing could leave", o.Stall))
	}
	if o.Gap < 0 {
		errs = append(errs, fmt.Errorf("gap %d: give 0 (never) or N >= 1", o.Gap))
	}
	if o.Parts < 0 || o.Parts > MaxParts {
		errs = append(errs, fmt.Errorf("parts %d: give 1..%d simulator processes", o.Parts, MaxParts))
	}
	return errors.Join(errs...)
}

// A Mismatch is one difference the testbench found.
type Mismatch struct {
	Index int    // the vector's index in its set
	What  string // packet, sop-seg, stat, state, extra, extra-stat, deadlock, finish
	Got   string
	Want  string
}

// A CoverBin is one functional-coverage bin: the hop field after the stage,
// whether the reservoir took the hop, the congested bit, saturation.
type CoverBin struct {
	Field                         int
	Replace, Congested, Saturated bool
}

// Result is what one simulation run found.
type Result struct {
	Simulator  string
	Vectors    int // packets checked
	Mismatches int // all mismatches counted; the first ones are in First
	First      []Mismatch
	Coverage   map[CoverBin]int
	Cycles     int64         // clock cycles the run took (every part's, added)
	Beats      int64         // beats the stage took at its ingress (Verilator's testbench; 0 from Icarus)
	SimTime    time.Duration // the testbench's own timing of its main loop (the longest part's)
	Wall       time.Duration // the whole run: loading and indexing the file, simulating, reporting
	Output     string        // anything else the simulator printed (assertion messages)
	// Latency counts the beats by the cycles each took from the ingress to
	// the egress (Verilator's testbench; nil from Icarus). With Stall 0 the
	// egress is never held, and the counts are the stage's own latency.
	Latency map[int]int64
	// Assertions counts the errors the RTL itself reported ($error, $fatal,
	// a failed assert): they fail the run like a mismatch, but are not the
	// comparison with the model. FirstAssertion is the first message.
	Assertions     int
	FirstAssertion string
}

// reAssertion matches an error the RTL reports: Verilator's "[t] %Error:
// file:line: Assertion failed in ...: msg" (and $error, $fatal), Icarus
// Verilog's "ERROR: file:line: msg" and "FATAL: ...". Verilator's note that
// a $stop was ignored (the error limit the testbenches raise) is not one.
var reAssertion = regexp.MustCompile(`^(?:\[\d+\] )?%(?:Error|Fatal)\b|^(?:ERROR|FATAL): `)

// ErrorLimit lets a Verilator run go on after the RTL reports an error, so
// the comparison with the model still runs to the end and both are counted.
const ErrorLimit = "+verilator+error+limit+1000000000"

// IsRTLError reports whether a simulator's output line is an error the RTL
// reported ($error, $fatal, a failed assert; reAssertion), not one of the
// named testbench files (whose own verdict, say a $fatal on FAIL, is not
// the RTL's).
func IsRTLError(line string, testbenches ...string) bool {
	if !reAssertion.MatchString(line) || strings.Contains(line, "Verilog $stop") {
		return false
	}
	for _, tb := range testbenches {
		if strings.Contains(line, tb+":") {
			return false
		}
	}
	return true
}

// IsErrorLimitNote reports whether line is Verilator's note that ErrorLimit
// let a run go on past an error.
func IsErrorLimitNote(line string) bool {
	return strings.HasPrefix(line, "-Info: ") && strings.Contains(line, "ignored due to +verilator+error+limit")
}

// countAssertion counts line if it is an error the RTL reported.
func (r *Result) countAssertion(line string) {
	if IsRTLError(line, ExampleTB, TopModule+".sv") {
		if r.Assertions == 0 {
			r.FirstAssertion = line
		}
		r.Assertions++
	}
}

// Stopped is the error of a run that an error of the RTL itself ended (a
// $fatal: no RESULT line): Result holds what the run printed before it, its
// mismatches so far and the RTL's errors; Of is the vectors the run had
// (Verify sets it). The comparison with the model found the bug only if
// Result.First holds a mismatch.
type Stopped struct {
	Result *Result
	Of     int
	err    error
}

func (e *Stopped) Error() string { return e.err.Error() }

var (
	reMismatch = regexp.MustCompile(`^MISMATCH index=(\d+) what=(\S+) got=(\S*) want=(\S*)$`)
	reCov      = regexp.MustCompile(`^COV field=(\d+) replace=(\d) cong=(\d) sat=(\d) n=(\d+)$`)
	reLatency  = regexp.MustCompile(`^LATENCY cycles=(\d+) beats=(\d+)$`)
	reResult   = regexp.MustCompile(`^RESULT vectors=(\d+) mismatches=(\d+) cycles=(\d+)(?: beats=(\d+))? seconds=([0-9.]+)$`)
)

// parseOutput reads the testbench's lines (the same for both simulators).
func parseOutput(sim string, out []byte) (*Result, error) {
	r := &Result{Simulator: sim, Coverage: map[CoverBin]int{}}
	var other strings.Builder
	done := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := reMismatch.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			r.First = append(r.First, Mismatch{Index: i, What: m[2], Got: m[3], Want: m[4]})
			continue
		}
		if m := reCov.FindStringSubmatch(line); m != nil {
			f, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[5])
			r.Coverage[CoverBin{f, m[2] == "1", m[3] == "1", m[4] == "1"}] += n
			continue
		}
		if m := reLatency.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[1])
			n, _ := strconv.ParseInt(m[2], 10, 64)
			if r.Latency == nil {
				r.Latency = map[int]int64{}
			}
			r.Latency[l] += n
			continue
		}
		if m := reResult.FindStringSubmatch(line); m != nil {
			r.Vectors, _ = strconv.Atoi(m[1])
			r.Mismatches, _ = strconv.Atoi(m[2])
			r.Cycles, _ = strconv.ParseInt(m[3], 10, 64)
			r.Beats, _ = strconv.ParseInt(m[4], 10, 64) // "" (Icarus) leaves 0
			s, _ := strconv.ParseFloat(m[5], 64)
			r.SimTime = time.Duration(s * float64(time.Second))
			done = true
			continue
		}
		r.countAssertion(line)
		other.WriteString(line + "\n")
	}
	r.Output = other.String()
	if !done {
		err := fmt.Errorf("cosim: %s testbench ended without a RESULT line:\n%s", sim, tail(r.Output, 40))
		if r.Assertions > 0 {
			return r, &Stopped{Result: r, err: err}
		}
		return r, err
	}
	return r, nil
}

// Run co-simulates configuration sel of the build on a binary vector file,
// in o.Parts processes at once (each a contiguous range of generator chains).
// A run that finds mismatches returns them in the Result with a nil error;
// the error is for runs that could not be made.
func (m *Model) Run(ctx context.Context, sel int, vectorFile string, o RunOptions) (*Result, error) {
	if sel < 0 || sel >= len(m.Configs) {
		return nil, fmt.Errorf("cosim: configuration %d outside the build's 0..%d", sel, len(m.Configs)-1)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("cosim: %w", err)
	}
	vectorFile, err := filepath.Abs(vectorFile)
	if err != nil {
		return nil, err
	}
	digest := vectors.ConfigDigest(m.Configs[sel].ModelConfig(0, 0))
	if o.MaxFail == 0 {
		o.MaxFail = 10
	}
	if o.Parts < 1 {
		o.Parts = 1
	}
	type part struct {
		r   *Result
		err error
	}
	res := make([]part, o.Parts)
	done := make(chan int)
	t0 := time.Now()
	for k := range o.Parts {
		go func() {
			args := []string{"+vectors=" + vectorFile, fmt.Sprintf("+sel=%d", sel), fmt.Sprintf("+digest=%016x", digest), fmt.Sprintf("+maxfail=%d", o.MaxFail),
				fmt.Sprintf("+stall=%d", o.Stall), fmt.Sprintf("+gap=%d", o.Gap), fmt.Sprintf("+part=%d", k), fmt.Sprintf("+parts=%d", o.Parts), ErrorLimit}
			if o.Dense {
				args = append(args, "+wgap=0", "+dense=1")
			}
			cmd := toolCommand(ctx, m.Binary, args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			r, perr := parseOutput("verilator", out.Bytes())
			if perr != nil && err != nil {
				perr = fmt.Errorf("%w (exit: %v)", perr, err)
			}
			res[k] = part{r, perr}
			done <- k
		}()
	}
	for range o.Parts {
		<-done
	}
	total := &Result{Simulator: "verilator", Coverage: map[CoverBin]int{}, Wall: time.Since(t0)}
	for _, p := range res {
		if p.err != nil {
			return p.r, p.err
		}
		total.Vectors += p.r.Vectors
		total.Mismatches += p.r.Mismatches
		total.First = append(total.First, p.r.First...)
		total.Cycles += p.r.Cycles
		total.Beats += p.r.Beats
		total.SimTime = max(total.SimTime, p.r.SimTime)
		total.Output += p.r.Output
		if total.Assertions == 0 {
			total.FirstAssertion = p.r.FirstAssertion
		}
		total.Assertions += p.r.Assertions
		for b, n := range p.r.Coverage {
			total.Coverage[b] += n
		}
		for l, n := range p.r.Latency {
			if total.Latency == nil {
				total.Latency = map[int]int64{}
			}
			total.Latency[l] += n
		}
	}
	sort.SliceStable(total.First, func(i, j int) bool { return total.First[i].Index < total.First[j].Index })
	if len(total.First) > o.MaxFail {
		total.First = total.First[:o.MaxFail]
	}
	return total, nil
}
