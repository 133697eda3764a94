// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/header"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// Options of Verify.
type Options struct {
	Configs      []verilog.Config // co-simulated in Verilator, all in one build
	Icarus       []verilog.Config // cross-run on Icarus Verilog (a subset of Configs)
	Synth        []verilog.Config // synthesized with Yosys
	SynthLibs    []*CellLibrary   // the libraries Synth is mapped to
	Seed         uint64
	Random       int    // random switch-stage vectors per configuration
	IcarusRandom int    // random vectors of the Icarus runs (fewer: Icarus is slower)
	WorkDir      string // the Verilator build (reused when unchanged) and the vector files
	Lanes        int    // egress ports per configuration in the Verilator top
	Parts        int    // simulator processes per run
	Stall, Gap   int    // backpressure and input gaps (RunOptions)
	MaxFail      int
	Log          io.Writer // progress lines; nil for none
	// RTL, when set, is a user's stage co-simulated in place of the
	// library: Configs must be its one configuration.
	RTL *UserRTL
}

// DefaultVerify are the co-simulation settings of `ibreservoir verify`
// (its flags' defaults); set Configs, Icarus and WorkDir.
var DefaultVerify = Options{Seed: vectors.DefaultSeed, Random: 2000, IcarusRandom: 300, Lanes: 1, Parts: 1, Stall: 7, Gap: 5, MaxFail: 10}

// Validate says what is wrong with the options before anything runs.
func (o *Options) Validate() error {
	var errs []error
	if len(o.Configs) == 0 {
		errs = append(errs, errors.New("no configuration to co-simulate"))
	}
	if o.Random < 0 || o.IcarusRandom < 0 {
		errs = append(errs, fmt.Errorf("random vectors %d, Icarus random vectors %d: give 0 or more", o.Random, o.IcarusRandom))
	}
	if o.Lanes < 0 || o.Lanes > 8 {
		errs = append(errs, fmt.Errorf("lanes %d: give 1..8", o.Lanes))
	}
	if len(o.Synth) > 0 && len(o.SynthLibs) == 0 {
		errs = append(errs, errors.New("configurations to synthesize but no library to map them to"))
	}
	if o.WorkDir == "" {
		errs = append(errs, errors.New("no work directory"))
	}
	if o.RTL != nil && (len(o.Configs) != 1 || o.Configs[0].Name() != o.RTL.Config.Name()) {
		errs = append(errs, fmt.Errorf("a user's stage (%s) implements one configuration, %s: co-simulate that one alone", o.RTL.Top, o.RTL.Config.Name()))
	}
	if err := (RunOptions{MaxFail: o.MaxFail, Stall: o.Stall, Gap: o.Gap, Parts: o.Parts}).Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ConfigReport is what Verify found for one configuration.
type ConfigReport struct {
	Config    verilog.Config
	Vectors   int
	Verilator *Result
	Icarus    *Result
	Synth     *SynthStats
	// Coverage: the bins the RTL hit, of the bins Alg. 8 can reach (the
	// bins of the model's directed vectors), and any bin the RTL hit
	// outside them.
	Reachable int
	Missing   []CoverBin
	Outside   []CoverBin
	// Edges is the comparator-edge coverage of the vectors co-simulated.
	Edges     vectors.EdgeCoverage
	Explained []string // the first mismatches, field by field
	set       *vectors.StageSet
}

// Report is the result of Verify.
type Report struct {
	Build      time.Duration // Verilator build (0: reused)
	Configs    []ConfigReport
	Mismatches int // over every run: the comparison with the model
	Assertions int // over every run: errors the RTL itself reported (Result.Assertions)
	Uncovered  int // reachable coverage bins not hit, bins hit outside them, and comparator edges missed, over every configuration
}

// OK reports whether every run matched, covered every reachable bin and
// comparator edge, and hit no bin outside them.
func (r *Report) OK() bool { return r.Mismatches == 0 && r.Assertions == 0 && r.Uncovered == 0 }

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// Verify generates each configuration's switch-stage vectors from the model,
// co-simulates them in one Verilator build holding every configuration, runs
// a subset on Icarus Verilog, and synthesizes the configurations asked for.
// Mismatches and coverage holes are in the report; the error is for runs that
// could not be made.
func Verify(ctx context.Context, o Options) (*Report, error) {
	if o.Lanes == 0 {
		o.Lanes = 1
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("cosim: %w", err)
	}
	rep := &Report{}
	var m *Model
	var err error
	if o.RTL != nil {
		o.logf("verilator: checking the ports of %s and building it (%s), %d lane(s)\n", o.RTL.Top, o.RTL.FileList, o.Lanes)
		m, err = BuildVerilatorRTL(ctx, filepath.Join(o.WorkDir, "rtl"), o.RTL, o.Lanes)
	} else {
		o.logf("verilator: building %d configuration(s), %d lane(s)\n", len(o.Configs), o.Lanes)
		m, err = BuildVerilator(ctx, filepath.Join(o.WorkDir, "verilator"), o.Configs, o.Lanes)
	}
	if err != nil {
		return nil, err
	}
	rep.Build = m.BuildTime
	if m.BuildTime > 0 {
		o.logf("verilator: built in %.1f s\n", m.BuildTime.Seconds())
	} else {
		o.logf("verilator: reusing the unchanged build in %s\n", m.Dir)
	}
	vdir := filepath.Join(o.WorkDir, "vectors")
	for i, c := range o.Configs {
		cr := ConfigReport{Config: c}
		set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, o.Seed), Seed: o.Seed, Random: o.Random})
		if err != nil {
			return nil, fmt.Errorf("cosim: vectors for %s: %w", c.Name(), err)
		}
		cr.set, cr.Vectors = set, len(set.Vectors)
		bin := filepath.Join(vdir, c.Name()+".bin")
		if err := writeFile(bin, set.WriteBinary); err != nil {
			return nil, err
		}
		r, err := m.Run(ctx, i, bin, RunOptions{MaxFail: o.MaxFail, Stall: o.Stall, Gap: o.Gap, Parts: o.Parts})
		if st := (*Stopped)(nil); errors.As(err, &st) {
			st.Of = len(set.Vectors)
		}
		if err != nil {
			return nil, fmt.Errorf("cosim: %s: %w", c.Name(), err)
		}
		cr.Verilator = r
		checkCount(r, uint64(len(set.Vectors)))
		if err := cr.cover(r, c, set.EdgeCoverage()); err != nil {
			return nil, err
		}
		rep.Mismatches += r.Mismatches
		rep.Assertions += r.Assertions
		rep.Uncovered += cr.Holes()
		for _, mm := range r.First {
			cr.Explained = append(cr.Explained, Explain(set, "verilator", mm))
		}
		cr.explainAssertions(r)
		o.logf("verilator %-36s %6d vectors %4d mismatches %4d RTL assertions  coverage %d/%d  edges %d/%d  %.3f s\n", c.Name(), r.Vectors, r.Mismatches,
			r.Assertions, cr.Reachable-len(cr.Missing), cr.Reachable, cr.Edges.Hit, cr.Edges.Total, r.SimTime.Seconds())
		rep.Configs = append(rep.Configs, cr)
	}
	for _, c := range o.Icarus {
		k := -1
		for i := range rep.Configs {
			if rep.Configs[i].Config.Module() == c.Module() {
				k = i
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("cosim: Icarus configuration %s is not among the co-simulated ones", c.Name())
		}
		cr := &rep.Configs[k]
		set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, o.Seed), Seed: o.Seed, Random: o.IcarusRandom})
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(o.WorkDir, "icarus", c.Name())
		hexFile := filepath.Join(dir, "stage.hex")
		if err := writeFile(hexFile, set.WriteHex); err != nil {
			return nil, err
		}
		var r *Result
		if o.RTL != nil {
			r, err = RunIcarusRTL(ctx, dir, o.RTL, hexFile, len(set.Vectors), o.Stall)
		} else {
			r, err = RunIcarus(ctx, dir, c, hexFile, len(set.Vectors), o.Stall)
		}
		if err != nil {
			return nil, fmt.Errorf("cosim: %s: %w", c.Name(), err)
		}
		checkCount(r, uint64(len(set.Vectors)))
		cr.Icarus = r
		rep.Mismatches += r.Mismatches
		rep.Assertions += r.Assertions
		for _, mm := range r.First {
			cr.Explained = append(cr.Explained, Explain(set, "icarus", mm))
		}
		cr.explainAssertions(r)
		o.logf("icarus    %-36s %6d vectors %4d mismatches %4d RTL assertions  %.2f s\n", c.Name(), r.Vectors, r.Mismatches, r.Assertions, r.Wall.Seconds())
	}
	stats, err := SynthesizeAll(ctx, filepath.Join(o.WorkDir, "yosys"), o.Synth, o.SynthLibs, runtime.GOMAXPROCS(0), func(s *SynthStats) {
		for _, c := range s.Mapped {
			o.logf("yosys     %-36s %-6s %6d cells %4d flip-flops  %8.0f um^2  %5.2f ns  %6.1f Gb/s  %d warnings  %.1f s\n", s.Config, c.Library,
				c.Cells, c.FlipFlops, c.AreaUM2, c.Timing.CriticalNS, c.LineRateGbps, len(s.Warnings), c.Time.Seconds())
		}
	})
	if err != nil {
		return nil, err
	}
	for k, c := range o.Synth {
		for i := range rep.Configs {
			if rep.Configs[i].Config.Module() == c.Module() {
				rep.Configs[i].Synth = stats[k]
			}
		}
	}
	return rep, nil
}

func writeFile(path string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// explainAssertions adds the run's RTL errors, if any, to the explanations.
func (cr *ConfigReport) explainAssertions(r *Result) {
	if r.Assertions > 0 {
		cr.Explained = append(cr.Explained, fmt.Sprintf("%s: %d errors reported by the RTL's own assertions (not the comparison with the model); the first: %s",
			r.Simulator, r.Assertions, r.FirstAssertion))
	}
}

// checkCount makes a run that checked another number of vectors than the
// file holds a mismatch: a check that checked less is no check.
func checkCount(r *Result, want uint64) {
	if uint64(r.Vectors) != want {
		r.Mismatches++
		r.First = append(r.First, Mismatch{Index: r.Vectors, What: "count", Got: fmt.Sprint(r.Vectors), Want: fmt.Sprint(want)})
	}
}

// cover fills the report's coverage from a run: the bins of Alg. 8 it
// missed or hit outside them, and the comparator edges of its vectors.
func (cr *ConfigReport) cover(r *Result, c verilog.Config, edges vectors.EdgeCoverage) error {
	reach, err := ReachableBins(c)
	if err != nil {
		return err
	}
	cr.Reachable, cr.Edges = len(reach), edges
	for _, b := range sortedBins(reach) {
		if r.Coverage[b] == 0 {
			cr.Missing = append(cr.Missing, b)
		}
	}
	hit := map[CoverBin]bool{}
	for b, n := range r.Coverage {
		if n > 0 && !reach[b] {
			hit[b] = true
		}
	}
	cr.Outside = sortedBins(hit)
	return nil
}

// Holes counts what the configuration's coverage lacks: reachable bins not
// hit, bins hit that Alg. 8 cannot reach, and comparator edges missed.
func (cr *ConfigReport) Holes() int { return len(cr.Missing) + len(cr.Outside) + len(cr.Edges.Missed) }

// BinOf is the coverage bin of a vector's model result.
func BinOf(v *vectors.StageVector) CoverBin {
	return CoverBin{Field: int(v.FieldOut), Replace: v.Result.HopReplaced, Congested: v.Congested, Saturated: v.Result.HopSaturated}
}

// ReachableBins is every coverage bin Alg. 8 can produce under c, taken from
// the model's own results (refmodel's StageResult) on the directed vectors,
// which visit every incoming hop field, both decisions and both congested
// bits: the field after the stage, whether the reservoir took the hop, the
// congested bit, and saturation.
func ReachableBins(c verilog.Config) (map[CoverBin]bool, error) {
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 0)})
	if err != nil {
		return nil, fmt.Errorf("cosim: coverage bins of %s: %w", c.Name(), err)
	}
	bins := map[CoverBin]bool{}
	for i := range set.Vectors {
		if !set.Vectors[i].Result.Raw { // a raw packet reports no status
			bins[BinOf(&set.Vectors[i])] = true
		}
	}
	return bins, nil
}

func sortedBins(m map[CoverBin]bool) []CoverBin {
	var bs []CoverBin
	for b := range m {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].String() < bs[j].String() })
	return bs
}

func (b CoverBin) String() string {
	return fmt.Sprintf("field=%02d replace=%t congested=%t saturated=%t", b.Field, b.Replace, b.Congested, b.Saturated)
}

// Explain describes a mismatch field by field: the vector's case and inputs,
// then, for a packet, every header field and telemetry bit that differs.
func Explain(set *vectors.StageSet, sim string, m Mismatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: vector %d: %s differs", sim, m.Index, m.What)
	if m.Index < 0 || m.Index >= len(set.Vectors) {
		fmt.Fprintf(&b, " (got %s, want %s)", m.Got, m.Want)
		return b.String()
	}
	v := &set.Vectors[m.Index]
	fmt.Fprintf(&b, " (case %s; switch %d port %d congested %t load %t)\n", v.Case, v.Switch, v.Port, v.Congested, v.Load)
	switch m.What {
	case "packet":
		got, err1 := hex.DecodeString(m.Got)
		want, err2 := hex.DecodeString(m.Want)
		if err1 != nil || err2 != nil {
			fmt.Fprintf(&b, "  got %s\n  want %s", m.Got, m.Want)
			return b.String()
		}
		if !bytes.Equal(want, v.Out) {
			b.WriteString("  (the vector file's expected packet is not the model's: the file is corrupt or stale)\n")
		}
		b.WriteString(DiffPackets(got, want, set.Layout()))
	case "stat":
		// FLAGS,FIELD,MALFORMED: the flag bits of vectors/format.go.
		var gf, gv, gm, wf, wv, wm int
		_, err1 := fmt.Sscanf(m.Got, "%x,%x,%d", &gf, &gv, &gm)
		_, err2 := fmt.Sscanf(m.Want, "%x,%x,%d", &wf, &wv, &wm)
		if err1 != nil || err2 != nil {
			fmt.Fprintf(&b, "  got  %s\n  want %s", m.Got, m.Want)
			return b.String()
		}
		for _, f := range []struct {
			name string
			bit  int
		}{{"replace", vectors.FlagReplace}, {"saturated", vectors.FlagSaturated}, {"hash (the hop_bit H(id, d))", vectors.FlagHash}, {"congested", vectors.FlagCongested}} {
			if gf&f.bit != wf&f.bit {
				fmt.Fprintf(&b, "  stat %s: got %d, want %d\n", f.name, b2i(gf&f.bit != 0), b2i(wf&f.bit != 0))
			}
		}
		if gv != wv {
			fmt.Fprintf(&b, "  stat hop field after the stage: got %d, want %d\n", gv, wv)
		}
		if gm != wm {
			fmt.Fprintf(&b, "  stat malformed: got %d, want %d\n", gm, wm)
		}
	default:
		fmt.Fprintf(&b, "  got  %s\n  want %s", m.Got, m.Want)
	}
	return strings.TrimRight(b.String(), "\n")
}

// DiffPackets lists, one per line, the IBA header fields (decoded by package
// header), the telemetry fields of layout l (placed by package header), the
// Resv6 bits outside them, and the CRCs in which got differs from want, then
// any other differing byte.
func DiffPackets(got, want []byte, l *header.Layout) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "  length: got %d bytes, want %d\n", len(got), len(want))
	}
	pg, eg := header.DecodePacket(got, 0)
	pw, ew := header.DecodePacket(want, 0)
	if eg == nil && ew == nil {
		if d := cmp.Diff(pw, pg); d != "" {
			b.WriteString("  decoded packet (-want +got):\n")
			for _, line := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
				b.WriteString("    " + line + "\n")
			}
		}
		b.WriteString(diffTelemetry(got, want, l))
	} else if eg != nil {
		fmt.Fprintf(&b, "  got does not decode: %v\n", eg)
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			fmt.Fprintf(&b, "  byte %d: got %02x, want %02x\n", i, got[i], want[i])
		}
	}
	return b.String()
}

// diffTelemetry names the telemetry fields of l that differ, and whether the
// Resv6 bits outside them do (they must pass untouched).
func diffTelemetry(got, want []byte, l *header.Layout) string {
	var b strings.Builder
	fg, err1 := l.Locate(got)
	fw, err2 := l.Locate(want)
	if err1 != nil || err2 != nil || len(got) != len(want) {
		return ""
	}
	cleared := [2][]byte{append([]byte(nil), got...), append([]byte(nil), want...)}
	for _, f := range l.Fields {
		g, _ := l.Get(got, fg, f.Name)
		w, _ := l.Get(want, fw, f.Name)
		if g != w {
			fmt.Fprintf(&b, "  telemetry %s: got %d, want %d\n", f.Name, g, w)
		}
		l.Set(cleared[0], fg, f.Name, 0)
		l.Set(cleared[1], fw, f.Name, 0)
	}
	pg, e1 := header.DecodePacket(cleared[0], 0)
	pw, e2 := header.DecodePacket(cleared[1], 0)
	if e1 == nil && e2 == nil && pg.BTH.Resv6 != pw.BTH.Resv6 {
		fmt.Fprintf(&b, "  BTH Resv6 outside the telemetry fields (must pass untouched): got %06b, want %06b\n", pg.BTH.Resv6, pw.BTH.Resv6)
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ConfigMismatchError says a vector file is for another configuration than
// the RTL asked to run it.
type ConfigMismatchError struct {
	File       string
	FileConfig string // the configuration the file's manifest names
	FileDigest uint64
	RTLConfig  string
	RTLDigest  uint64
}

func (e *ConfigMismatchError) Error() string {
	return fmt.Sprintf("configuration mismatch: %s holds vectors for %s (digest %016x), but the RTL flags choose %s (digest %016x): drop the RTL flags to run the file's own configuration",
		e.File, e.FileConfig, e.FileDigest, e.RTLConfig, e.RTLDigest)
}

// A VectorFile is a binary vector file checked against its set's manifest,
// ready to co-simulate.
type VectorFile struct {
	Path     string
	Manifest *vectors.Manifest
	Header   vectors.BinaryFileHeader
	Config   verilog.Config // the manifest's configuration (pipeline depth as asked)
}

// OpenVectorFile checks a binary vector file (stage.bin of a vector set)
// before anything is simulated: its set is whole (the manifest's sizes and
// SHA-256, index.json; vectors.CheckSet), the file header's vector count and
// configuration digest agree with the manifest, the count is not zero and
// fits the file, what the manifest says of the vectors is what the model
// makes (vectors.RecheckStage), and,
// if want is given, the file is for that configuration (else a
// *ConfigMismatchError). depth is the pipeline depth of the RTL to run.
func OpenVectorFile(ctx context.Context, path string, want *verilog.Config, depth int) (*VectorFile, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	m, err := vectors.CheckSet(dir)
	if errors.Is(err, os.ErrNotExist) && m == nil {
		return nil, fmt.Errorf("%s: no %s beside it: co-simulate a stage.bin of a vector set (ibreservoir vectors, or vectors --bulk), whose manifest says what it holds", path, vectors.ManifestName)
	}
	if err != nil {
		return nil, err
	}
	if m.Kind != vectors.KindStage && m.Kind != vectors.KindBulk {
		return nil, fmt.Errorf("%s: a %s set has no switch-stage vectors to co-simulate", path, m.Kind)
	}
	listed := false
	for _, f := range m.Files {
		listed = listed || f.Name == name
	}
	if name != "stage.bin" || !listed {
		return nil, fmt.Errorf("%s: co-simulation reads the binary form, stage.bin, of a set", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, vectors.BinaryHeaderLen)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h, err := vectors.ReadBinaryHeader(head)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if err := vectors.CheckCount(h, st.Size()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := m.RTLConfig()
	if err != nil {
		return nil, err
	}
	c.PipeDepth = depth
	switch n := m.Counts["vectors"]; {
	case h.Count == 0 || n == 0:
		return nil, fmt.Errorf("%s holds no vectors (header count %d, manifest %d): a run would check nothing", path, h.Count, n)
	case h.Count != uint64(n):
		return nil, fmt.Errorf("%s: the header counts %d vectors, the manifest %d: the file is not the set's", path, h.Count, n)
	case vectors.DigestString(h.Digest) != m.ConfigDigest:
		return nil, fmt.Errorf("%s: the header's configuration digest %016x is not the manifest's %s: the file is not the set's", path, h.Digest, m.ConfigDigest)
	}
	if want != nil {
		if d := vectors.ConfigDigest(want.ModelConfig(0, 0)); d != h.Digest {
			return nil, &ConfigMismatchError{File: path, FileConfig: c.Name(), FileDigest: h.Digest, RTLConfig: want.Name(), RTLDigest: d}
		}
	}
	// What the run reports (coverage, counts, replay) comes from the
	// vectors, not from what the manifest claims.
	if m, err = vectors.RecheckStage(ctx, dir, m); err != nil {
		return nil, err
	}
	return &VectorFile{Path: path, Manifest: m, Header: h, Config: c}, nil
}

// Run co-simulates the file on the configuration of the build at sel. A run
// that checks another number of vectors than the file holds is a mismatch.
func (vf *VectorFile) Run(ctx context.Context, m *Model, sel int, o RunOptions) (*Result, error) {
	r, err := m.Run(ctx, sel, vf.Path, o)
	if err != nil {
		return nil, err
	}
	checkCount(r, vf.Header.Count)
	return r, nil
}

// Coverage is the run's coverage: the bins of Alg. 8 (ReachableBins) it
// missed or hit outside them, and the file's comparator-edge coverage (as
// RecheckStage recomputed it from the vectors).
func (vf *VectorFile) Coverage(r *Result) (*ConfigReport, error) {
	cr := &ConfigReport{Config: vf.Config, Vectors: int(vf.Header.Count), Verilator: r}
	var edges vectors.EdgeCoverage
	if vf.Manifest.Edges != nil {
		edges = *vf.Manifest.Edges
	}
	if err := cr.cover(r, vf.Config, edges); err != nil {
		return nil, err
	}
	return cr, nil
}
