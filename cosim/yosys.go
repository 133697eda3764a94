package cosim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ibreservoir/hash"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// Liberty is the standard-cell library every configuration is mapped to: the
// OSU 0.18 um library of Debian's qflow-tech-osu018 (scripts/setup.sh
// installs it).
const Liberty = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"

// SynthStats is what synthesis makes of one configuration: Yosys's generic
// synthesis (`synth -flatten`, Yosys's internal gates), then the same netlist
// mapped to the standard cells of Liberty (dfflibmap, ABC with buffering and
// gate sizing) and timed by OpenSTA.
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
	Cell      *CellStats     `json:"cell,omitempty"` // the standard-cell mapping and its timing
	Time      time.Duration  `json:"-"`
}

// CellStats is one configuration mapped to the standard cells and timed.
type CellStats struct {
	Cells      int            `json:"cells"`
	FlipFlops  int            `json:"flip_flops"`
	AreaUM2    float64        `json:"area_um2"`
	NAND2Eq    float64        `json:"nand2_eq"` // area / the library's NAND2X1 area
	ByType     map[string]int `json:"by_type"`
	Timing     *Timing        `json:"timing"`
	Netlist    string         `json:"-"` // the mapped netlist's path
	LibraryTag string         `json:"library"`
}

// SynthesisScript is the Yosys script of one configuration: generic
// synthesis and its statistics, then the standard-cell mapping (flip-flops by
// dfflibmap, logic by ABC mapping for delay with buffering and gate sizing
// toward TargetPS; abc is MappingScript's), its statistics and netlist. top
// is the wrapper module.
func SynthesisScript(srcs []string, top, lib, dir, abc string) string {
	return strings.Join([]string{
		"read_verilog -sv -DSYNTHESIS " + strings.Join(srcs, " "),
		"synth -flatten -top " + top,
		"tee -q -o " + filepath.Join(dir, "stat.json") + " stat -json",
		"dfflibmap -liberty " + lib,
		"abc -liberty " + lib + " -script " + abc,
		"opt_clean -purge",
		"splitnets -ports",
		"opt_clean -purge",
		"tee -q -o " + filepath.Join(dir, "cells.json") + " stat -json",
		"write_verilog -noattr -noexpr " + filepath.Join(dir, "netlist.v"),
	}, "; ")
}

// MappingScript is the ABC script that maps configuration c's logic: for
// every hash but SipHash, logic optimization (fraiging, signal correspondence,
// dc2, choices) before delay mapping; for SipHash, whose 2-4 rounds are five
// times the logic of any other hash and take that optimization past fifteen
// minutes a configuration, delay mapping of the logic as Yosys left it
// (LightMapping).
func MappingScript(c verilog.Config) string {
	size := fmt.Sprintf("buffer,-p;upsize,-D,%d;dnsize,-D,%d;stime,-p", TargetPS, TargetPS)
	if c.Hash.Kind == hash.SipHash {
		return fmt.Sprintf("+strash;&get,-n;&nf,-D,%d;&put;", TargetPS) + size
	}
	return fmt.Sprintf("+strash;&get,-n;&fraig,-x;&put;scorr;dc2;strash;&get,-n;&dch,-f;&nf,-D,%d;&put;", TargetPS) + size
}

// LightMapping says, for docs/synthesis.md, which configurations
// MappingScript maps without logic optimization and what that costs.
const LightMapping = "SipHash's configurations are mapped without ABC's logic optimization (fraiging, " +
	"signal correspondence, dc2, choices), which takes each of them past fifteen minutes; on " +
	"`mult0_ideal_c3` leaving it out costs 9% more area (327,513 against 299,629 um^2), so their areas are upper bounds."

// TargetPS is the delay ABC maps toward (ps): 5 ns, a clock 0.18 um logic of
// this depth can meet, so that ABC buffers high fanouts and sizes gates for
// speed rather than leaving area-minimal, unbuffered logic.
const TargetPS = 5000

// Synthesize runs Yosys on configuration c in dir: generic synthesis, then
// the standard-cell mapping to Liberty, timed by OpenSTA. Any Yosys warning
// is returned in Warnings (a clean run has none); an error is a run that
// failed or was interrupted.
func Synthesize(ctx context.Context, dir string, c verilog.Config) (*SynthStats, error) {
	for _, tool := range []string{"yosys", "sta"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("cosim: %s is not installed (run scripts/setup.sh): %w", tool, err)
		}
	}
	lib, err := LoadLibrary(Liberty)
	if err != nil {
		return nil, err
	}
	files, err := verilog.Files(c)
	if err != nil {
		return nil, err
	}
	srcs, err := writeSources(dir, files)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	cmd := toolCommand(ctx, "yosys", "-q", "-p", SynthesisScript(srcs, c.Module(), lib.Path, dir, MappingScript(c)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := interrupted(ctx, "yosys", cmd.Run()); err != nil {
		if Interrupted(err) {
			return nil, err
		}
		return nil, fmt.Errorf("cosim: yosys synthesis of %s failed: %w\n%s", c.Module(), err, tail(out.String(), 40))
	}
	s, err := readGeneric(dir, c)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Warning:") {
			s.Warnings = append(s.Warnings, strings.TrimSpace(l))
		}
	}
	if s.Cell, err = readMapped(ctx, dir, c, lib); err != nil {
		return nil, err
	}
	s.Time = time.Since(t0)
	return s, nil
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
	cs := &CellStats{Cells: mapped.NumCells, ByType: mapped.NumCellsByType, Netlist: filepath.Join(dir, "netlist.v"), LibraryTag: lib.Tag()}
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
	cs.NAND2Eq = cs.AreaUM2 / lib.Area["NAND2X1"]
	if cs.Timing, err = TimeNetlist(ctx, dir, cs.Netlist, c.Module(), lib); err != nil {
		return nil, err
	}
	return cs, nil
}

// SynthesizeAll synthesizes cfgs, workers at a time (each Yosys run is one
// process), each in its own directory under dir, and returns the statistics
// in cfgs' order; log (may be nil) gets a line per configuration as it ends.
func SynthesizeAll(ctx context.Context, dir string, cfgs []verilog.Config, workers int, log func(*SynthStats)) ([]*SynthStats, error) {
	stats := make([]*SynthStats, len(cfgs))
	job := func(i int) (err error) {
		stats[i], err = Synthesize(ctx, filepath.Join(dir, cfgs[i].Name()), cfgs[i])
		return err
	}
	var done func(int)
	if log != nil {
		done = func(i int) { log(stats[i]) }
	}
	if err := runAll(ctx, "synthesis", len(cfgs), workers, job, done); err != nil {
		return nil, err
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
