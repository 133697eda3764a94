// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"ibreservoir/cosim/liberty/asap7"
	"ibreservoir/hash"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// Liberty is the OSU 0.18 um standard-cell library of Debian's
// qflow-tech-osu018 (scripts/setup.sh installs it).
const Liberty = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"

// A CellLibrary is a standard-cell library the configurations are mapped to
// and timed in, with what the flow needs to know of it.
type CellLibrary struct {
	Name     string  // the --synth-lib value: "osu018", "asap7"
	Label    string  // as the reports name it
	NAND2    string  // the NAND2 cell whose area NAND2-eq counts in
	INV      string  // the inverter FO4 is timed on (pins A and Y)
	TargetPS int     // the delay ABC maps toward (ps)
	UnitNS   float64 // the library's time unit (ns)
	// Ignore matches the Yosys warnings the library's own cells cause
	// whatever the design (IgnoreWhy says which); any other warning is the
	// design's.
	Ignore    *regexp.Regexp
	IgnoreWhy string
	// Drive and LoadCap are what ABC assumes of the logic's boundary (its
	// read_constr: set_driving_cell, set_load): every input, the flip-flops'
	// outputs included, driven by the cell Drive, every output loaded with
	// Load (the library's capacitance unit). Without a driving cell ABC takes
	// its inputs as ideal drivers and buffers none of their fanouts: a
	// flip-flop driving a hundred gates stays unbuffered. Empty: no
	// constraints.
	Drive   string
	LoadCap float64
	path    func(dir string) (string, error) // the Liberty file, made in dir if need be
}

// OSU018 is the OSU 0.18 um library. Its delay target, 5 ns, is a clock
// 0.18 um logic of this depth can meet, so that ABC buffers high fanouts and
// sizes gates for speed rather than leaving area-minimal, unbuffered logic.
// It has no Drive: its table was made before ASAP7's, without, and giving
// it one (INVX1, a DFFSR's D pin) changes every row, so it waits for a run
// of all configurations.
var OSU018 = &CellLibrary{Name: "osu018", Label: "OSU 0.18 um", NAND2: "NAND2X1", INV: "INVX1", TargetPS: 5000, UnitNS: 1,
	path: func(string) (string, error) { return Liberty, nil }}

// ASAP7 is the ASAP7 7.5-track RVT typical-corner library (0.7 V, 25 C), a
// predictive 7 nm-class library for research, not a foundry process: the
// five Liberty files of package asap7, merged into one (MergeLiberty) in the
// work directory. Its delay target, 1 ns (1 GHz), is below what this logic
// reaches, for the same reason as OSU018's. Its scan flip-flops (SDF*) have
// a next-state function Yosys 0.23 cannot parse; dfflibmap skips them (the
// design needs none). ABC's inputs are driven by INVx1 (the drive of the
// x1 flip-flop DFFASRHQNx1, the only one with an asynchronous reset), its
// outputs loaded with that flip-flop's D pin (0.5617 fF), so that it buffers
// the flip-flops' high fanouts.
var ASAP7 = &CellLibrary{Name: "asap7", Label: "ASAP7 (predictive 7 nm-class)", NAND2: "NAND2xp33_ASAP7_75t_R", INV: "INVx1_ASAP7_75t_R",
	TargetPS: 1000, UnitNS: 0.001, path: asap7Liberty, Drive: "INVx1_ASAP7_75t_R", LoadCap: 0.5617,
	Ignore:    regexp.MustCompile(`^Warning: Found unsupported expression '[^']*' in pin attribute of cell 'SDF[HL]x[0-9]_ASAP7_75t_R' - skipping\.$`),
	IgnoreWhy: "the scan flip-flops' next-state functions, which Yosys cannot parse and dfflibmap skips"}

// CellLibraries are the libraries every configuration is mapped to, in the
// reports' order.
var CellLibraries = []*CellLibrary{OSU018, ASAP7}

// SelectLibraries returns the libraries a --synth-lib value names: one
// library's name, or "all".
func SelectLibraries(name string) ([]*CellLibrary, error) {
	if name == "all" {
		return CellLibraries, nil
	}
	var names []string
	for _, l := range CellLibraries {
		if l.Name == name {
			return []*CellLibrary{l}, nil
		}
		names = append(names, l.Name)
	}
	return nil, fmt.Errorf("library %q: want %s or all", name, strings.Join(names, ", "))
}

var (
	asap7Merge   sync.Mutex
	asap7Written = map[string]bool{} // the paths this process wrote the merge to
)

// asap7Liberty writes the merged ASAP7 library in dir/liberty (once: a
// file already there with the merge's content is kept, and one this process
// wrote is not merged again) and returns its path.
func asap7Liberty(dir string) (string, error) {
	asap7Merge.Lock()
	defer asap7Merge.Unlock()
	path := filepath.Join(dir, "liberty", asap7.Name+".lib")
	if _, err := os.Stat(path); err == nil && asap7Written[path] {
		return path, nil
	}
	files, _, err := asap7.Files()
	if err != nil {
		return "", err
	}
	merged, err := MergeLiberty(asap7.Name, files...)
	if err != nil {
		return "", fmt.Errorf("cosim: the ASAP7 library: %w", err)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, merged) {
		asap7Written[path] = true
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(path, merged); err != nil {
		return "", err
	}
	asap7Written[path] = true
	return path, nil
}

// Load reads the library, making its Liberty file in dir if it is made.
func (cl *CellLibrary) Load(dir string) (*Library, error) {
	path, err := cl.path(dir)
	if err != nil {
		return nil, err
	}
	return LoadLibrary(cl, path)
}

// SynthStats is what synthesis makes of one configuration: Yosys's generic
// synthesis (`synth -flatten`, Yosys's internal gates), then the same netlist
// mapped to the standard cells of each library (dfflibmap, ABC with buffering
// and gate sizing) and timed by OpenSTA.
type SynthStats struct {
	Config    string         `json:"config"`
	Hash      string         `json:"hash"`
	Generator string         `json:"generator"`
	Field     string         `json:"field"` // hop_count b bits, or hop_rand L+1 bits
	CountBits int            `json:"count_bits,omitempty"`
	SenderL   int            `json:"sender_l,omitempty"`
	Cells     int            `json:"cells"` // generic Yosys cells
	FlipFlops int            `json:"flip_flops"`
	ByType    map[string]int `json:"by_type"`
	Warnings  []string       `json:"warnings,omitempty"`
	Mapped    []*CellStats   `json:"mapped"` // one per library, in the order asked for
}

// In returns the configuration's mapping to the library named lib, or nil.
func (s *SynthStats) In(lib string) *CellStats {
	for _, c := range s.Mapped {
		if c.Library == lib {
			return c
		}
	}
	return nil
}

// CellStats is one configuration mapped to one library's cells and timed.
type CellStats struct {
	Library      string         `json:"library"` // CellLibrary.Name
	Cells        int            `json:"cells"`
	FlipFlops    int            `json:"flip_flops"`
	AreaUM2      float64        `json:"area_um2"`
	NAND2Eq      float64        `json:"nand2_eq"` // area / the library's NAND2 area
	ByType       map[string]int `json:"by_type"`
	Timing       *Timing        `json:"timing"`
	WidthBits    int            `json:"width_bits"`     // the data word moved per cycle
	LineRateGbps float64        `json:"line_rate_gbps"` // WidthBits x fmax (whole MHz)
	Netlist      string         `json:"-"`              // the mapped netlist's path
	LibraryTag   string         `json:"library_tag"`
	Time         time.Duration  `json:"-"` // Yosys and OpenSTA
}

// SynthesisScript is the Yosys script of one configuration: generic
// synthesis and its statistics, then the standard-cell mapping (flip-flops by
// dfflibmap, logic by ABC mapping for delay with buffering and gate sizing
// toward the library's delay target; abc is MappingScript's, constr the
// boundary constraints' file or ""), its statistics and netlist. top is the
// wrapper module.
func SynthesisScript(srcs []string, top, lib, constr, dir, abc string) string {
	if constr != "" {
		constr = " -constr " + constr
	}
	return strings.Join([]string{
		"read_verilog -sv -DSYNTHESIS " + strings.Join(srcs, " "),
		"synth -flatten -top " + top,
		"tee -q -o " + filepath.Join(dir, "stat.json") + " stat -json",
		"dfflibmap -liberty " + lib,
		"abc -liberty " + lib + constr + " -script " + abc,
		"opt_clean -purge",
		"splitnets -ports",
		"opt_clean -purge",
		"tee -q -o " + filepath.Join(dir, "cells.json") + " stat -json",
		"write_verilog -noexpr " + filepath.Join(dir, "netlist.v"), // with src attributes: Timing.StartSrc, EndSrc
	}, "; ")
}

// MappingScript is the ABC script that maps configuration c's logic to
// library l, toward l's delay target (the same script for every library): for
// every hash but SipHash, logic optimization (fraiging, signal correspondence,
// dc2, choices) before delay mapping; for SipHash, whose 2-4 rounds are five
// times the logic of any other hash and take that optimization past fifteen
// minutes a configuration, delay mapping of the logic as Yosys left it
// (LightMapping).
func MappingScript(c verilog.Config, l *CellLibrary) string {
	if c.Hash.Kind == hash.SipHash {
		return LightMappingScript(l)
	}
	d := l.TargetPS
	return fmt.Sprintf("+strash;&get,-n;&fraig,-x;&put;scorr;dc2;strash;&get,-n;&dch,-f;&nf,-D,%d;&put;", d) + sizing(d)
}

// LightMappingScript is SipHash's script (LightMapping): delay mapping of
// the logic as Yosys left it, then the same sizing. Another configuration
// mapped with it compares with SipHash's rows like for like.
func LightMappingScript(l *CellLibrary) string {
	return fmt.Sprintf("+strash;&get,-n;&nf,-D,%d;&put;", l.TargetPS) + sizing(l.TargetPS)
}

// sizing is the scripts' buffering and gate sizing toward d ps.
func sizing(d int) string {
	return fmt.Sprintf("buffer,-p;upsize,-D,%d;dnsize,-D,%d;stime,-p", d, d)
}

// LightMapping says, for docs/synthesis.md, which configurations
// MappingScript maps without logic optimization and what that costs.
const LightMapping = "SipHash's configurations are mapped without ABC's logic optimization (fraiging, " +
	"signal correspondence, dc2, choices), which takes each of them past fifteen minutes; on " +
	"`mult0_ideal_c3` leaving it out costs 9% more area (327,513 against 299,629 um^2), so their areas are upper bounds."

// Synthesize runs Yosys on configuration c in dir/<library>, once per
// library: generic synthesis, then the mapping to the library's cells, timed
// by OpenSTA. A Yosys warning (but those the library causes, CellLibrary.Ignore)
// is returned in Warnings (a clean run has none); an error is a run that
// failed or was interrupted.
func Synthesize(ctx context.Context, dir string, c verilog.Config, libs []*CellLibrary) (*SynthStats, error) {
	return synthesize(ctx, dir, c, libs, false)
}

// SynthesizeLight is Synthesize with SipHash's script (LightMappingScript)
// for every hash: a configuration's figures like for like with SipHash's
// rows, which the page's script for other hashes is not.
func SynthesizeLight(ctx context.Context, dir string, c verilog.Config, libs []*CellLibrary) (*SynthStats, error) {
	return synthesize(ctx, dir, c, libs, true)
}

func synthesize(ctx context.Context, dir string, c verilog.Config, libs []*CellLibrary, light bool) (*SynthStats, error) {
	var s *SynthStats
	for _, l := range libs {
		g, cs, err := synthesizeIn(ctx, dir, c, l, light)
		if err != nil {
			return nil, err
		}
		if s, err = joinGeneric(s, g); err != nil {
			return nil, err
		}
		s.Mapped = append(s.Mapped, cs)
	}
	return s, nil
}

// joinGeneric returns s with g's mapping appended; the generic synthesis of
// every library's run must be the same (Yosys is deterministic).
func joinGeneric(s, g *SynthStats) (*SynthStats, error) {
	if s == nil {
		return g, nil
	}
	if s.Cells != g.Cells || s.FlipFlops != g.FlipFlops {
		return nil, fmt.Errorf("cosim: %s: generic synthesis gave %d cells, %d flip-flops, then %d, %d", s.Config, s.Cells, s.FlipFlops, g.Cells, g.FlipFlops)
	}
	s.Warnings = append(s.Warnings, g.Warnings...)
	return s, nil
}

// synthesizeIn runs Yosys on configuration c for library l in dir/<l.Name>,
// with MappingScript, or with LightMappingScript when light is set.
func synthesizeIn(ctx context.Context, dir string, c verilog.Config, l *CellLibrary, light bool) (*SynthStats, *CellStats, error) {
	for _, tool := range []string{"yosys", "sta"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, nil, fmt.Errorf("cosim: %s is not installed (run scripts/setup.sh): %w", tool, err)
		}
	}
	lib, err := l.Load(filepath.Dir(dir))
	if err != nil {
		return nil, nil, err
	}
	files, err := verilog.Files(c)
	if err != nil {
		return nil, nil, err
	}
	dir = filepath.Join(dir, l.Name)
	srcs, err := writeSources(dir, files)
	if err != nil {
		return nil, nil, err
	}
	constr := ""
	if l.Drive != "" {
		constr = filepath.Join(dir, "abc.constr")
		if err := os.WriteFile(constr, []byte(fmt.Sprintf("set_driving_cell %s\nset_load %g\n", l.Drive, l.LoadCap)), 0o644); err != nil {
			return nil, nil, err
		}
	}
	t0 := time.Now()
	abc := MappingScript(c, l)
	if light {
		abc = LightMappingScript(l)
	}
	cmd := toolCommand(ctx, "yosys", "-q", "-p", SynthesisScript(srcs, c.Module(), lib.Path, constr, dir, abc))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := interrupted(ctx, "yosys", cmd.Run()); err != nil {
		if Interrupted(err) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("cosim: yosys synthesis of %s (%s) failed: %w\n%s", c.Module(), l.Name, err, tail(out.String(), 40))
	}
	s, err := readGeneric(dir, c)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range strings.Split(out.String(), "\n") {
		w = strings.TrimSpace(w)
		if strings.HasPrefix(w, "Warning:") && (l.Ignore == nil || !l.Ignore.MatchString(w)) {
			s.Warnings = append(s.Warnings, l.Name+": "+w)
		}
	}
	cs, err := readMapped(ctx, dir, c, lib)
	if err != nil {
		return nil, nil, err
	}
	cs.Time = time.Since(t0)
	return s, cs, nil
}

// readGeneric reads the generic synthesis statistics of configuration c
// that Yosys wrote in dir (stat.json).
func readGeneric(dir string, c verilog.Config) (*SynthStats, error) {
	s := &SynthStats{Config: c.Name(), Hash: c.Hash.Kind.String(), Generator: c.Generator, ByType: map[string]int{}}
	if c.Generator == refmodel.GeneratorSender {
		s.Field, s.SenderL = fmt.Sprintf("hop_rand %d bits (L=%d)", c.SenderL+1, c.SenderL), c.SenderL
	} else {
		s.Field, s.CountBits = fmt.Sprintf("hop_count %d bits", c.CountBits), c.CountBits
	}
	generic, err := readStat(filepath.Join(dir, "stat.json"), c.Module())
	if err != nil {
		return nil, err
	}
	s.Cells = generic.NumCells
	for t, n := range generic.NumCellsByType {
		s.ByType[t] = n
		if isFlipFlop(t) {
			s.FlipFlops += n
		}
	}
	return s, nil
}

// readMapped reads the standard-cell statistics of configuration c that
// Yosys wrote in dir (cells.json, netlist.v) and times the netlist.
func readMapped(ctx context.Context, dir string, c verilog.Config, lib *Library) (*CellStats, error) {
	mapped, err := readStat(filepath.Join(dir, "cells.json"), c.Module())
	if err != nil {
		return nil, err
	}
	cs := &CellStats{Library: lib.Spec.Name, Cells: mapped.NumCells, ByType: mapped.NumCellsByType, Netlist: filepath.Join(dir, "netlist.v"),
		LibraryTag: lib.Tag(), WidthBits: dataBits(c)}
	for t, n := range mapped.NumCellsByType {
		a, ok := lib.Area[t]
		if !ok {
			return nil, fmt.Errorf("cosim: %s's mapped netlist has cell %s, which %s does not define", c.Module(), t, lib.Path)
		}
		cs.AreaUM2 += a * float64(n)
		if lib.Sequential[t] {
			cs.FlipFlops += n
		}
	}
	cs.NAND2Eq = cs.AreaUM2 / lib.Area[lib.Spec.NAND2]
	if cs.Timing, err = TimeNetlist(ctx, dir, cs.Netlist, c.Module(), lib); err != nil {
		return nil, err
	}
	// From fmax in whole MHz, as the reports give it, so that a report's
	// line rate is its width times its fmax.
	cs.LineRateGbps = float64(cs.WidthBits) * math.Round(cs.Timing.FmaxMHz) / 1000
	return cs, nil
}

// dataBits is the width of the data word configuration c moves per cycle
// (in_data_i).
func dataBits(c verilog.Config) int {
	for _, p := range verilog.Ports() {
		if p.Name == "in_data_i" {
			return p.Bits(c)
		}
	}
	panic("cosim: the stage has no in_data_i port") // verilog's port list is fixed at build time
}

// SynthesizeAll synthesizes cfgs in libs, workers Yosys runs at a time (one
// per configuration and library), each in its own directory under dir, and
// returns the statistics in cfgs' order, the mappings in libs' order; log
// (may be nil) gets each configuration's statistics as its last library ends.
func SynthesizeAll(ctx context.Context, dir string, cfgs []verilog.Config, libs []*CellLibrary, workers int, log func(*SynthStats)) ([]*SynthStats, error) {
	if len(cfgs) == 0 {
		return nil, nil
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("cosim: no library to map to")
	}
	generic := make([]*SynthStats, len(cfgs)*len(libs))
	mapped := make([]*CellStats, len(cfgs)*len(libs))
	left := make([]int, len(cfgs))
	for i := range left {
		left[i] = len(libs)
	}
	stats := make([]*SynthStats, len(cfgs))
	join := func(i int) error {
		for k := range libs {
			var err error
			if stats[i], err = joinGeneric(stats[i], generic[i*len(libs)+k]); err != nil {
				return err
			}
			stats[i].Mapped = append(stats[i].Mapped, mapped[i*len(libs)+k])
		}
		return nil
	}
	var mu sync.Mutex
	var joinErr error
	job := func(j int) (err error) {
		i, k := j/len(libs), j%len(libs)
		generic[j], mapped[j], err = synthesizeIn(ctx, filepath.Join(dir, cfgs[i].Name()), cfgs[i], libs[k], false)
		return err
	}
	done := func(j int) {
		mu.Lock()
		defer mu.Unlock()
		i := j / len(libs)
		if left[i]--; left[i] > 0 {
			return
		}
		if err := join(i); err != nil {
			joinErr = errors.Join(joinErr, err)
		} else if log != nil {
			log(stats[i])
		}
	}
	if err := runAll(ctx, "synthesis", len(generic), workers, job, done); err != nil {
		return nil, err
	}
	if joinErr != nil {
		return nil, joinErr
	}
	return stats, nil
}

type yosysStat struct {
	NumCells       int            `json:"num_cells"`
	NumCellsByType map[string]int `json:"num_cells_by_type"`
}

// readStat reads the statistics of module top from a `stat -json` file.
func readStat(path, top string) (*yosysStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cosim: yosys wrote no statistics for %s: %w", top, err)
	}
	var st struct {
		Modules map[string]yosysStat `json:"modules"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("cosim: yosys statistics %s: %w", path, err)
	}
	m, ok := st.Modules["\\"+top]
	if !ok {
		var names []string
		for n := range st.Modules {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("cosim: yosys statistics %s name no module %s (have %v)", path, top, names)
	}
	if m.NumCells == 0 {
		return nil, fmt.Errorf("cosim: yosys made no cells of %s (%s)", top, path)
	}
	return &m, nil
}

// isFlipFlop reports whether a Yosys internal cell type is a flip-flop
// ($_DFF_*, $_DFFE_*, $_SDFF*, $_SDFFE*, $_ALDFF*, $_DFFSR*, ...).
func isFlipFlop(t string) bool {
	for _, p := range []string{"$_DFF", "$_SDFF", "$_ALDFF", "$_DFFSR", "$_DLATCH", "$_SR_"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// YosysVersion returns `yosys -V`'s first line.
func YosysVersion() string { return toolVersion("yosys", "-V") }

// toolVersion returns the first line a tool prints for its version flag.
func toolVersion(tool string, args ...string) string {
	out, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil {
		return tool + " (version unknown)"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}
