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
vectors, and with --synth synthesizes each configuration with Yosys,
reporting cells and flip-flops (--synth-table writes them as Markdown).

With --vectors FILE it co-simulates one binary vector file (ibreservoir vectors
--bulk) on the configuration the RTL flags choose, with --lanes egress ports
and --parts simulator processes, and reports the rate.

It exits 1 when any vector mismatches or a reachable coverage bin is missed.
Verilator, Icarus Verilog and Yosys come from scripts/setup.sh.`,
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
	fs.BoolVar(&verifyOpts.Synth, "synth", false, "synthesize every configuration with Yosys and report cells and flip-flops")
	fs.StringVar(&verifyOpts.SynthTable, "synth-table", "", "with --synth, write the table of Yosys cell counts as Markdown to this file (docs/synthesis.md)")
	fs.StringVar(&verifyOpts.SynthReadme, "synth-readme", "", "with --synth, rewrite the synthesis summary (one row per hash, one column per generator) between its markers in this Markdown file (README.md)")
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

func runVerify(ctx context.Context, w io.Writer, o verifyOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Vectors != "" {
		return runVerifyFile(ctx, w, o)
	}
	pool := vectors.RTLMatrix()
	cfgs, err := pickConfigs(o.Configs, o.Flags, pool)
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if o.Configs == "flags" {
		pool = cfgs
	}
	icarus, err := pickConfigs(o.Icarus, o.Flags, cfgs)
	if err != nil {
		return fmt.Errorf("--icarus: %w", err)
	}
	var synth []verilog.Config
	if o.Synth {
		synth = cfgs
	} else if o.SynthTable != "" || o.SynthReadme != "" {
		return fmt.Errorf("--synth-table and --synth-readme need --synth")
	}
	if o.SynthReadme != "" {
		// Refuse a file without the markers now, not after the synthesis.
		doc, err := os.ReadFile(o.SynthReadme)
		if err == nil {
			_, err = replaceSummary(doc, nil)
		}
		if err != nil {
			return fmt.Errorf("--synth-readme %s: %w", o.SynthReadme, err)
		}
	}
	t0 := time.Now()
	rep, err := cosim.Verify(ctx, cosim.Options{
		Configs: cfgs, Icarus: icarus, Synth: synth, Seed: o.Seed, Random: o.Random, IcarusRandom: o.IcarusRandom,
		WorkDir: o.Work, Lanes: o.Lanes, Parts: o.Parts, Stall: o.Stall, Gap: o.Gap, MaxFail: o.MaxFail, Log: w,
	})
	if err != nil {
		return err
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
	var stats []*cosim.SynthStats
	for _, cr := range rep.Configs {
		if cr.Synth != nil {
			stats = append(stats, cr.Synth)
		}
	}
	if o.SynthTable != "" {
		if err := atomicfile.WriteFile(o.SynthTable, cosim.SynthesisMarkdown(stats, cosim.YosysVersion())); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the synthesis table to %s\n", o.SynthTable)
	}
	if o.SynthReadme != "" {
		if err := writeSummary(o.SynthReadme, cosim.SynthesisSummary(stats)); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the synthesis summary to %s\n", o.SynthReadme)
	}
	fmt.Fprintf(w, "verify: %d configurations, %d vectors, %d mismatches, %d coverage holes, %.1f s\n",
		len(rep.Configs), vecs, rep.Mismatches, rep.Uncovered, time.Since(t0).Seconds())
	if !rep.OK() {
		return exitError{1, errors.New("the RTL does not match the model (see the mismatches above)")}
	}
	return nil
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

// The markers around the synthesis summary in a Markdown file (README.md).
const (
	summaryBegin = "<!-- synthesis summary: begin (go run . verify --synth --synth-readme README.md) -->"
	summaryEnd   = "<!-- synthesis summary: end -->"
)

// replaceSummary returns doc with the text between the summary markers
// replaced by table.
func replaceSummary(doc, table []byte) ([]byte, error) {
	out, err := replaceMarked(doc, summaryBegin, summaryEnd, table)
	if err != nil {
		return nil, fmt.Errorf("synthesis summary: %w", err)
	}
	return out, nil
}

// writeSummary rewrites the synthesis summary of the Markdown file path.
func writeSummary(path string, table []byte) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceSummary(doc, table)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, out)
}
