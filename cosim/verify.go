package cosim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
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
	Seed         uint64
	Random       int    // random switch-stage vectors per configuration
	IcarusRandom int    // random vectors of the Icarus runs (fewer: Icarus is slower)
	WorkDir      string // the Verilator build (reused when unchanged) and the vector files
	Lanes        int    // egress ports per configuration in the Verilator top
	Parts        int    // simulator processes per run
	Stall, Gap   int    // backpressure and input gaps (RunOptions)
	MaxFail      int
	Log          io.Writer // progress lines; nil for none
}

// ConfigReport is what Verify found for one configuration.
type ConfigReport struct {
	Config    verilog.Config
	Vectors   int
	Verilator *Result
	Icarus    *Result
	Synth     *SynthStats
	// Coverage: the bins the RTL hit, of the bins Alg. 8 can reach.
	Reachable int
	Missing   []CoverBin
	Explained []string // the first mismatches, field by field
	set       *vectors.StageSet
}

// Report is the result of Verify.
type Report struct {
	Build      time.Duration // Verilator build (0: reused)
	Configs    []ConfigReport
	Mismatches int // over every run
	Uncovered  int // reachable coverage bins not hit, over every configuration
}

// OK reports whether every run matched and covered every reachable bin.
func (r *Report) OK() bool { return r.Mismatches == 0 && r.Uncovered == 0 }

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
	if o.WorkDir == "" {
		return nil, fmt.Errorf("cosim: no work directory")
	}
	rep := &Report{}
	o.logf("verilator: building %d configuration(s), %d lane(s)\n", len(o.Configs), o.Lanes)
	m, err := BuildVerilator(ctx, filepath.Join(o.WorkDir, "verilator"), o.Configs, o.Lanes)
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
		if err != nil {
			return nil, fmt.Errorf("cosim: %s: %w", c.Name(), err)
		}
		cr.Verilator = r
		if r.Vectors != len(set.Vectors) && r.Mismatches == 0 {
			r.Mismatches++
			r.First = append(r.First, Mismatch{Index: r.Vectors, What: "count", Got: fmt.Sprint(r.Vectors), Want: fmt.Sprint(len(set.Vectors))})
		}
		reach := ReachableBins(c)
		cr.Reachable = len(reach)
		for _, b := range sortedBins(reach) {
			if r.Coverage[b] == 0 {
				cr.Missing = append(cr.Missing, b)
			}
		}
		rep.Mismatches += r.Mismatches
		rep.Uncovered += len(cr.Missing)
		for _, mm := range r.First {
			cr.Explained = append(cr.Explained, Explain(set, "verilator", mm))
		}
		o.logf("verilator %-36s %6d vectors %4d mismatches  coverage %d/%d  %.3f s\n", c.Name(), r.Vectors, r.Mismatches,
			cr.Reachable-len(cr.Missing), cr.Reachable, r.SimTime.Seconds())
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
		r, err := RunIcarus(ctx, dir, c, hexFile, len(set.Vectors), o.Stall)
		if err != nil {
			return nil, fmt.Errorf("cosim: %s: %w", c.Name(), err)
		}
		if r.Vectors != len(set.Vectors) && r.Mismatches == 0 {
			r.Mismatches++
		}
		cr.Icarus = r
		rep.Mismatches += r.Mismatches
		for _, mm := range r.First {
			cr.Explained = append(cr.Explained, Explain(set, "icarus", mm))
		}
		o.logf("icarus    %-36s %6d vectors %4d mismatches  %.2f s\n", c.Name(), r.Vectors, r.Mismatches, r.Wall.Seconds())
	}
	stats, err := SynthesizeAll(ctx, filepath.Join(o.WorkDir, "yosys"), o.Synth, runtime.GOMAXPROCS(0), func(s *SynthStats) {
		o.logf("yosys     %-36s %6d cells %4d flip-flops  %6.0f NAND2-eq  %5.2f ns  %d warnings  %.1f s\n", s.Config, s.Cells, s.FlipFlops,
			s.Cell.NAND2Eq, s.Cell.Timing.CriticalNS, len(s.Warnings), s.Time.Seconds())
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

// ReachableBins is every coverage bin Alg. 8 can produce under c: for each
// incoming hop field and decision, the field after the stage, whether the
// reservoir took the hop, the congested bit, and saturation.
func ReachableBins(c verilog.Config) map[CoverBin]bool {
	bins := map[CoverBin]bool{}
	w := c.FieldBits()
	for _, cong := range []bool{false, true} {
		if c.Generator == "sender" {
			spent := uint64(1) << (w - 1)
			for v := uint64(1); v < 1<<w; v++ {
				if v == spent {
					bins[CoverBin{int(v), false, cong, true}] = true
					continue
				}
				bins[CoverBin{int(v << 1 & (1<<w - 1)), v>>(w-1) == 0, cong, false}] = true
			}
			continue
		}
		max := 1<<w - 1
		for n := 0; n <= max; n++ {
			for _, z := range []bool{true, false} {
				if !z && n == 0 {
					continue // l = 1 always answers 0
				}
				bins[CoverBin{min(n+1, max), z, cong, n == max}] = true
			}
		}
	}
	return bins
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
		b.WriteString(DiffPackets(got, want, set.FieldBits))
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
// header), the telemetry bits of BTH byte 4 and the CRCs in which got differs
// from want, then any other differing byte.
func DiffPackets(got, want []byte, fieldBits int) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "  length: got %d bytes, want %d\n", len(got), len(want))
	}
	pg, eg := header.DecodePacket(got, 0)
	pw, ew := header.DecodePacket(want, 0)
	if eg == nil && ew == nil {
		if d := cmp.Diff(pw, pg); d != "" {
			b.WriteString("  decoded packet (-want +got):\n")
			for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
				b.WriteString("    " + l + "\n")
			}
		}
		gb, wb := byte4(got), byte4(want)
		names := []string{"FECN", "BECN"}
		for i := 5; i >= 0; i-- {
			switch {
			case i == fieldBits+1:
				names = append(names, "hop_bit")
			case i == fieldBits:
				names = append(names, "cong_bit")
			case i < fieldBits:
				names = append(names, fmt.Sprintf("hop field bit %d", i))
			default:
				names = append(names, fmt.Sprintf("Resv6 bit %d (untouched)", i))
			}
		}
		for k, n := range names {
			bit := 7 - k
			if gb>>bit&1 != wb>>bit&1 {
				fmt.Fprintf(&b, "  BTH byte 4 bit %d (%s): got %d, want %d\n", bit, n, gb>>bit&1, wb>>bit&1)
			}
		}
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func byte4(p []byte) byte {
	if len(p) < 2 {
		return 0
	}
	off, err := header.BTHOffset(p[1] & 3)
	if err != nil || len(p) <= off+4 {
		return 0
	}
	return p[off+4]
}
