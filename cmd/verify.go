package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"ibreservoir/cosim"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

type verifyOptions struct {
	Configs      string
	Icarus       string
	Work         string
	Seed         uint64
	Random       int
	IcarusRandom int
	Lanes, Parts int
	Stall, Gap   int
	MaxFail      int
	Synth        bool
	SynthTable   string
	SynthReadme  string
	Formal       bool
	FormalDepth  int // 0: cosim.DefaultFormal's
	Vectors      string
	Flags        rtlFlags
}

var verifyOpts = verifyOptions{Configs: "all", Icarus: "subset", Work: "out/cosim", Seed: vectors.DefaultSeed,
	Random: 2000, IcarusRandom: 300, Lanes: 1, Parts: 1, Stall: 7, Gap: 5, MaxFail: 10, Flags: defaultRTLFlags()}

var verifyCmd = &cobra.Command{
	Use:   "verify",
	Short: "Co-simulate the RTL against the model's vectors (Verilator, Icarus Verilog), synthesize with Yosys",
	Long: `verify proves the RTL switch stage bit-exact with the reference model. For
each configuration it generates switch-stage vectors from the model, builds one
self-checking Verilator testbench holding every configuration (reused while the
sources are unchanged), drives the RTL with every vector and compares every
output bit (packets, per-packet status, generator state), reporting the first
mismatches with their vector index and a field-by-field diff, and functional
coverage (hop field x overwrite x congested x saturation) against every bin
Alg. 8 can reach. It cross-runs a subset on Icarus Verilog from the $readmemh
vectors (the example testbench ibreservoir verilog writes).

With --synth it synthesizes each configuration with Yosys (generic cells and
flip-flops), maps it to the OSU 0.18 um standard cells and times it with
OpenSTA (area, NAND2 equivalents, critical path, logic depth, FO4 depth, fmax,
and every combinational input-to-output path); --synth-table writes the table
(docs/synthesis.md, and docs/synthesis.json beside it) and --synth-readme the
README's summary. With --formal it checks the RTL's formal properties
(docs/rtl.md) with yosys-smtbmc and z3 on the formal configurations, and says
of each whether it is proved by k-induction or checked to a bounded depth.
--configs none skips the co-simulation (for --synth or --formal alone).

With --vectors FILE it co-simulates one binary vector file (ibreservoir vectors
--bulk) on the configuration the RTL flags choose, with --lanes egress ports
and --parts simulator processes, and reports the rate.

It exits 1 when any vector mismatches, a reachable coverage bin is missed or
a formal property fails, and 130 when interrupted. Verilator, Icarus Verilog,
Yosys, OpenSTA, the OSU library and z3 come from scripts/setup.sh.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runVerify(cmd.Context(), cmd.OutOrStdout(), verifyOpts)
	},
}

func init() {
	fs := verifyCmd.Flags()
	fs.StringVar(&verifyOpts.Configs, "configs", verifyOpts.Configs,
		"configurations to co-simulate: all (every hash x generator x count width), flags (the one the RTL flags choose), or comma-separated names like mult0_ideal_c3")
	fs.StringVar(&verifyOpts.Icarus, "icarus", verifyOpts.Icarus,
		"configurations cross-run on Icarus Verilog: subset (one per hash, every generator among them), all, none, or comma-separated names")
	fs.StringVar(&verifyOpts.Work, "work", verifyOpts.Work, "work directory: the Verilator build, vector files, Icarus and Yosys runs")
	fs.Uint64Var(&verifyOpts.Seed, "seed", verifyOpts.Seed, "vector seed")
	fs.IntVar(&verifyOpts.Random, "random", verifyOpts.Random, "random switch-stage vectors per configuration (after the directed ones)")
	fs.IntVar(&verifyOpts.IcarusRandom, "icarus-random", verifyOpts.IcarusRandom, "random vectors per Icarus run")
	fs.IntVar(&verifyOpts.Lanes, "lanes", verifyOpts.Lanes, "egress ports per configuration in the Verilator top, 1..8 (packets simulated per clock)")
	fs.IntVar(&verifyOpts.Parts, "parts", verifyOpts.Parts, "Verilator processes per run, each on a range of the vectors")
	fs.IntVar(&verifyOpts.Stall, "stall", verifyOpts.Stall, "hold the egress ready low one cycle in N (0: never), exercising backpressure")
	fs.IntVar(&verifyOpts.Gap, "gap", verifyOpts.Gap, "an idle ingress cycle after every N packets (0: never)")
	fs.IntVar(&verifyOpts.MaxFail, "max-fail", verifyOpts.MaxFail, "mismatches reported in full per run")
	fs.BoolVar(&verifyOpts.Synth, "synth", false, "synthesize every configuration with Yosys, map it to the OSU 0.18 um cells and time it with OpenSTA")
	fs.StringVar(&verifyOpts.SynthTable, "synth-table", "", "with --synth and --configs all, write the synthesis table as Markdown to this file (docs/synthesis.md) and as JSON beside it (.json)")
	fs.StringVar(&verifyOpts.SynthReadme, "synth-readme", "", "with --synth and --configs all, rewrite the synthesis summary (one row per hash, one column per generator) between its markers in this Markdown file (README.md)")
	fs.BoolVar(&verifyOpts.Formal, "formal", false, "check the RTL's formal properties (a)-(e) with yosys-smtbmc and z3 on the formal configurations")
	fs.IntVar(&verifyOpts.FormalDepth, "formal-depth", 0, fmt.Sprintf("with --formal, the bounded-check depth in clocks, %d..%d (default %d)", minFormalDepth, maxFormalDepth, cosim.DefaultFormal.Depth))
	fs.StringVar(&verifyOpts.Vectors, "vectors", "", "co-simulate this binary vector file on the configuration of the RTL flags")
	bindRTLFlags(fs, &verifyOpts.Flags)
	rootCmd.AddCommand(verifyCmd)
}

// pickConfigs resolves a --configs or --icarus list.
func pickConfigs(spec string, flags rtlFlags, pool []verilog.Config) ([]verilog.Config, error) {
	byName := map[string]verilog.Config{}
	var names []string
	for _, c := range pool {
		byName[c.Name()] = c
		names = append(names, c.Name())
	}
	switch spec {
	case "all":
		return pool, nil
	case "none", "":
		return nil, nil
	case "flags":
		c, err := flags.config()
		if err != nil {
			return nil, err
		}
		return []verilog.Config{c}, nil
	case "subset":
		// One configuration per hash, the generators in turn, so every hash
		// and every generator runs on the second simulator.
		gens := verilog.Generators()
		var out []verilog.Config
		for _, c := range pool {
			want := gens[int(c.Hash.Kind)%len(gens)]
			if c.Generator == want && (c.CountBits == 3 || c.Generator == "sender") {
				out = append(out, c)
			}
		}
		return out, nil
	}
	var out []verilog.Config
	for _, n := range strings.Split(spec, ",") {
		c, ok := byName[strings.TrimSpace(n)]
		if !ok {
			sort.Strings(names)
			return nil, fmt.Errorf("no configuration %q; use all, flags, or names such as %s", n, strings.Join(names[:min(4, len(names))], ", "))
		}
		out = append(out, c)
	}
	return out, nil
}

// Limits of --formal-depth: below the induction depth nothing is proved;
// above, a run takes hours.
const (
	minFormalDepth = 8
	maxFormalDepth = 200
)

// checkVerifyFlags refuses, before any work, every synth and formal flag
// combination that would have no effect or could not be written.
func checkVerifyFlags(o verifyOptions) error {
	if o.Vectors != "" {
		for _, f := range []struct {
			set  bool
			name string
		}{{o.Synth, "--synth"}, {o.SynthTable != "", "--synth-table"}, {o.SynthReadme != "", "--synth-readme"},
			{o.Formal, "--formal"}, {o.FormalDepth != 0, "--formal-depth"}} {
			if f.set {
				return fmt.Errorf("%s has no effect with --vectors (which co-simulates one vector file); run verify %s without --vectors", f.name, f.name)
			}
		}
	}
	if !o.Synth && (o.SynthTable != "" || o.SynthReadme != "") {
		return fmt.Errorf("--synth-table and --synth-readme need --synth")
	}
	if (o.SynthTable != "" || o.SynthReadme != "") && o.Configs != "all" {
		return fmt.Errorf("--synth-table and --synth-readme write the table of every configuration: they need --configs all, not %q", o.Configs)
	}
	if o.SynthTable != "" {
		for _, p := range []string{o.SynthTable, cosim.JSONPath(o.SynthTable)} {
			if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
				return fmt.Errorf("--synth-table %s: %s is not a directory", o.SynthTable, filepath.Dir(p))
			}
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return fmt.Errorf("--synth-table %s: %s is a directory", o.SynthTable, p)
			}
		}
		if filepath.Ext(o.SynthTable) != ".md" {
			return fmt.Errorf("--synth-table %s: want a .md file (its JSON goes beside it)", o.SynthTable)
		}
	}
	if o.SynthReadme != "" {
		// Refuse a file without the markers now, not after the synthesis.
		if err := cosim.ReadmeSummary.Check(o.SynthReadme); err != nil {
			return fmt.Errorf("--synth-readme: %w", err)
		}
	}
	if o.FormalDepth != 0 {
		if !o.Formal {
			return fmt.Errorf("--formal-depth needs --formal")
		}
		if o.FormalDepth < minFormalDepth || o.FormalDepth > maxFormalDepth {
			return fmt.Errorf("--formal-depth %d: want %d..%d clocks", o.FormalDepth, minFormalDepth, maxFormalDepth)
		}
	}
	return nil
}

// interruptedError reports a run that Ctrl-C stopped: exit status 130, and
// nothing written.
func interruptedError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return exitError{130, fmt.Errorf("verify: interrupted (%v); no table or summary was written", ctx.Err())}
	}
	return err
}

func runVerify(ctx context.Context, w io.Writer, o verifyOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkVerifyFlags(o); err != nil {
		return err
	}
	if o.Vectors != "" {
		return interruptedError(ctx, runVerifyFile(ctx, w, o))
	}
	pool := verilog.Matrix()
	cfgs, err := pickConfigs(o.Configs, o.Flags, pool)
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	icarus, err := pickConfigs(o.Icarus, o.Flags, cfgs)
	if err != nil {
		return fmt.Errorf("--icarus: %w", err)
	}
	if len(cfgs) == 0 && !o.Synth && !o.Formal {
		return fmt.Errorf("--configs none with neither --synth nor --formal: nothing to verify")
	}
	var synth []verilog.Config
	if o.Synth {
		synth = cfgs
	}
	t0 := time.Now()
	rep := &cosim.Report{}
	if len(cfgs) > 0 {
		rep, err = cosim.Verify(ctx, cosim.Options{
			Configs: cfgs, Icarus: icarus, Synth: synth, Seed: o.Seed, Random: o.Random, IcarusRandom: o.IcarusRandom,
			WorkDir: o.Work, Lanes: o.Lanes, Parts: o.Parts, Stall: o.Stall, Gap: o.Gap, MaxFail: o.MaxFail, Log: w,
		})
		if err != nil {
			return interruptedError(ctx, err)
		}
	}
	vecs := 0
	for _, cr := range rep.Configs {
		vecs += cr.Vectors
		for _, e := range cr.Explained {
			fmt.Fprintln(w, e)
		}
		for _, b := range cr.Missing {
			fmt.Fprintf(w, "coverage hole: %s: %s never hit\n", cr.Config.Name(), b)
		}
	}
	failed := 0
	if o.Formal {
		if failed, err = runFormal(ctx, w, o); err != nil {
			return interruptedError(ctx, err)
		}
	}
	if o.Synth {
		if err := writeSynthesis(ctx, w, o, rep); err != nil {
			return interruptedError(ctx, err)
		}
	}
	fmt.Fprintf(w, "verify: %d configurations, %d vectors, %d mismatches, %d coverage holes, %d formal failures, %.1f s\n",
		len(rep.Configs), vecs, rep.Mismatches, rep.Uncovered, failed, time.Since(t0).Seconds())
	if !rep.OK() || failed > 0 {
		return exitError{1, errors.New("the RTL does not match the model or breaks a formal property (see above)")}
	}
	return nil
}

// writeSynthesis writes the synthesis table, its JSON and the README summary
// that --synth-table and --synth-readme ask for, from the run's statistics.
func writeSynthesis(ctx context.Context, w io.Writer, o verifyOptions, rep *cosim.Report) error {
	var stats []*cosim.SynthStats
	for _, cr := range rep.Configs {
		if cr.Synth != nil {
			stats = append(stats, cr.Synth)
		}
	}
	if o.SynthTable != "" {
		tools, err := cosim.CurrentSynthTools(ctx, filepath.Join(o.Work, "yosys"))
		if err != nil {
			return err
		}
		js, err := cosim.SynthesisJSON(stats)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(o.SynthTable, cosim.SynthesisMarkdown(stats, tools)); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(cosim.JSONPath(o.SynthTable), js); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the synthesis table to %s and %s\n", o.SynthTable, cosim.JSONPath(o.SynthTable))
	}
	if o.SynthReadme != "" {
		if err := cosim.ReadmeSummary.Rewrite(o.SynthReadme, cosim.SynthesisSummary(stats)); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the synthesis summary to %s\n", o.SynthReadme)
	}
	return nil
}

// runFormal checks every property on every formal configuration, two at a
// time, and returns how many failed.
func runFormal(ctx context.Context, w io.Writer, o verifyOptions) (int, error) {
	lib, err := verilog.Library()
	if err != nil {
		return 0, err
	}
	opts := cosim.DefaultFormal
	if o.FormalDepth != 0 {
		opts.Depth = o.FormalDepth
	}
	type job struct {
		c verilog.Config
		p cosim.Property
	}
	var jobs []job
	for _, c := range cosim.FormalConfigs() {
		for _, p := range cosim.Properties {
			jobs = append(jobs, job{c, p})
		}
	}
	fmt.Fprintf(w, "formal: %d properties on %d configurations, bounded depth %d, k-induction k=%d\n",
		len(cosim.Properties), len(cosim.FormalConfigs()), opts.Depth, opts.Induction)
	results := make([]*cosim.FormalResult, len(jobs))
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(2, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				dir := filepath.Join(o.Work, "formal", j.c.Name(), j.p.ID)
				results[i], errs[i] = cosim.CheckProperty(ctx, dir, lib, j.c, j.p, opts)
				if errs[i] == nil {
					mu.Lock()
					r := results[i]
					fmt.Fprintf(w, "formal    %-28s (%s) %s, %d covers reached, %.1f s\n", r.Config, r.Property.ID, r.Status(), r.Covers, r.Time.Seconds())
					mu.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	failed, proved := 0, 0
	for i, err := range errs {
		if err != nil {
			return 0, err
		}
		if results[i].Failed {
			failed++
		} else if results[i].Proved {
			proved++
		}
	}
	fmt.Fprintf(w, "formal: %d proved by k-induction, %d bounded to %d clocks, %d failed\n", proved, len(jobs)-proved-failed, opts.Depth, failed)
	return failed, nil
}

// runVerifyFile co-simulates one binary vector file and reports the rate.
func runVerifyFile(ctx context.Context, w io.Writer, o verifyOptions) error {
	c, err := o.Flags.config()
	if err != nil {
		return err
	}
	m, err := cosim.BuildVerilator(ctx, filepath.Join(o.Work, fmt.Sprintf("verilator-%s-x%d", c.Name(), o.Lanes)), []verilog.Config{c}, o.Lanes)
	if err != nil {
		return err
	}
	if m.BuildTime > 0 {
		fmt.Fprintf(w, "verilator: built %s with %d lanes in %.1f s\n", c.Name(), o.Lanes, m.BuildTime.Seconds())
	}
	r, err := m.Run(ctx, 0, o.Vectors, cosim.RunOptions{MaxFail: o.MaxFail, Stall: o.Stall, Gap: o.Gap, Parts: o.Parts})
	if err != nil {
		return err
	}
	for _, mm := range r.First {
		fmt.Fprintf(w, "mismatch: vector %d: %s: got %s, want %s\n", mm.Index, mm.What, mm.Got, mm.Want)
	}
	fmt.Fprintf(w, "verilator %s: %d vectors, %d mismatches, %d cycles; simulation %.3f s (%.2f M vectors/s), whole run %.3f s (%.2f M vectors/s)\n",
		c.Name(), r.Vectors, r.Mismatches, r.Cycles, r.SimTime.Seconds(), float64(r.Vectors)/r.SimTime.Seconds()/1e6,
		r.Wall.Seconds(), float64(r.Vectors)/r.Wall.Seconds()/1e6)
	if r.Mismatches > 0 {
		return exitError{1, fmt.Errorf("%d mismatches", r.Mismatches)}
	}
	return nil
}
