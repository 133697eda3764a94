// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/cosim"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
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
	SynthMerge   bool
	SynthLib     string
	Formal       bool
	FormalDepth  int
	FormalProps  string
	Vectors      string
	RTL, Top     string // a user's stage: its file list and top module
	Width        int    // beat width in bits (--width)
	Segmented    bool   // --segmented: beats shared by two packets
	Flags        rtlFlags
	Campaign     campaignOptions // the synthesis campaign (verify_campaign.go)
	given        map[string]bool // the flags set on the command line
}

var verifyOpts = verifyOptions{Configs: "all", Icarus: "subset", Work: "out/cosim", Seed: cosim.DefaultVerify.Seed,
	Random: cosim.DefaultVerify.Random, IcarusRandom: cosim.DefaultVerify.IcarusRandom, Lanes: cosim.DefaultVerify.Lanes, Parts: cosim.DefaultVerify.Parts,
	Stall: cosim.DefaultVerify.Stall, Gap: cosim.DefaultVerify.Gap, MaxFail: cosim.DefaultVerify.MaxFail, SynthLib: "all", FormalDepth: cosim.DefaultFormal.Depth, Width: verilog.DefaultWidth, Flags: defaultRTLFlags(), Campaign: campaignOptions{Jobs: 1}}

var verifyCmd = &cobra.Command{
	Use:   "verify",
	Short: "Co-simulate the RTL against the model's vectors (Verilator, Icarus Verilog); synthesis, timing and formal proofs",
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
flip-flops), maps it to the standard cells of OSU 0.18 um and of ASAP7 (a
predictive 7 nm-class library; --synth-lib chooses) and times it with OpenSTA
(area, NAND2 equivalents, critical path, logic depth, FO4 depth, fmax, line
rate, and every combinational input-to-output path); --synth-table writes the
table (docs/synthesis.md, and docs/synthesis.json beside it) and --synth-readme
the README's summary; --synth-merge keeps the page's rows of the
configurations --configs leaves out, for a run of new or changed ones. With
--formal it checks, instead of co-simulating, the RTL's formal properties
(docs/rtl.md) with yosys-smtbmc and z3 (bounded checks and k-induction),
ABC (bounded checks) and CryptoMiniSat (lemmas) on the configurations of --configs (default
formal: the formal configurations; flags, all or names as for the
co-simulation) at the beats --width and --segmented set (on segmented
beats the properties docs/rtl.md lists), and says
of each whether it is proved by k-induction or checked only to a bounded
depth, and to which.

With --synth --widths 64,128,256,512 it runs the synthesis campaign
instead: every configuration of --configs at every width, mapped to the
libraries of --synth-lib and timed, without co-simulating (TestWidth
co-simulates every width); --shard i/n --out FILE runs every n-th
(configuration, width) pair from the i-th and writes a partial, --merge
joins the partials (and campaign pages) of one campaign, RTL and set of
tools, each shard once, and --synth-table writes the page
(docs/synthesis-widths.md and its .json; docs/rtl.md, "Synthesis
campaign").

With --rtl FILELIST --top MODULE it co-simulates a user's stage instead of
the library: the sources of the file list (a Verilator/Icarus -f file; paths
relative to the list) and the top module, which must have the stage's ports
(docs/rtl.md) at the configuration the RTL flags choose (or one --configs
name); a missing, extra or mis-sized port is an error naming it, found
before the build. The run reports the mismatches the comparison with the
model found apart from the errors the RTL's own assertions reported; either
fails it.

With --vectors FILE it co-simulates one binary vector file, the stage.bin of a
set that ibreservoir vectors wrote (vectors --bulk for long runs), on the
configuration its manifest names, with --lanes egress ports and --parts
simulator processes, and reports the rate. Before simulating it checks the
set whole: the file's size and SHA-256 against the manifest, the manifest
against index.json, and the vector count and configuration digest of the
file's header against the manifest. RTL flags given with --vectors must name
the file's configuration (else a configuration mismatch); --depth chooses
the pipeline depth of the RTL.

Coverage counts, besides the bins, the comparator edges of every generator
(an output at a rejection or zero bound, an LFSR state at its threshold,
a shift register's wrap, a spent sender field) the vectors sit on.

It exits 1 when any vector mismatches, the RTL's assertions report an error,
a run checks fewer vectors than it was given, a reachable coverage bin or comparator edge is missed, or the RTL
reports a bin Alg. 8 cannot reach, or a formal property fails; 130 when
interrupted (Ctrl-C), with nothing written. A flag that has no effect in the
chosen mode is an error. Verilator, Icarus Verilog, Yosys, OpenSTA, the OSU
library and z3 come from scripts/setup.sh.`,
	Example: `  ibreservoir verify
  ibreservoir verify --configs mult0_ideal_c3 --icarus none --random 200
  ibreservoir verify --configs mult0_ideal_c3 --width 512 --random 200
  ibreservoir verify --configs flags --hash siphash --generator lfsr-lut/b16 --id psn-slid
  ibreservoir verify --vectors out/vectors/bulk/mult0_ideal_c3/stage.bin --parts 2 --stall 0% --gap 0%
  ibreservoir verify --synth --synth-table docs/synthesis.md
  ibreservoir verify --synth --configs mxm_ideal_c3,mxm_ideal_c4 --synth-table docs/synthesis.md --synth-merge
  ibreservoir verify --synth --widths 64,128,256,512 --shard 0/16 --out shard-0.json
  ibreservoir verify --merge shard-0.json,shard-1.json --synth-table docs/synthesis-widths.md`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		o := verifyOpts
		o.given = givenFlags(cmd.Flags())
		if err := refuseEmpty(cmd.Flags()); err != nil {
			return err
		}
		return runVerify(cmd.Context(), cmd.OutOrStdout(), o)
	},
}

func init() {
	bindVerifyFlags(verifyCmd.Flags(), &verifyOpts)
	rootCmd.AddCommand(verifyCmd)
}

// bindVerifyFlags binds the verify command's flags to o.
func bindVerifyFlags(fs *pflag.FlagSet, o *verifyOptions) {
	fs.StringVar(&o.Configs, "configs", o.Configs,
		"configurations to co-simulate: all (every hash x generator x count width), flags (the one the RTL flags choose), or comma-separated names like mult0_ideal_c3")
	fs.StringVar(&o.Icarus, "icarus", o.Icarus,
		"configurations cross-run on Icarus Verilog: subset (one per hash, every generator among them), all, none, or comma-separated names")
	fs.StringVar(&o.Work, "work", o.Work, "work directory: the Verilator build, vector files, Icarus and Yosys runs")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "vector seed")
	cli.IntVar(fs, &o.Random, "random", 0, math.MaxInt, "random switch-stage vectors per configuration (after the directed ones)")
	cli.IntVar(fs, &o.IcarusRandom, "icarus-random", 0, math.MaxInt, "random vectors per Icarus run")
	cli.IntVar(fs, &o.Lanes, "lanes", 1, 8, "egress ports per configuration in the Verilator top, 1..8 (packets simulated per clock)")
	cli.IntVar(fs, &o.Parts, "parts", 1, math.MaxInt, "Verilator processes per run, each on a range of the vectors")
	cli.OneInNPercentVar(fs, &o.Stall, "stall", 50, "percent of cycles with the egress ready low, exercising backpressure: 0% (never) to 50%, paced as one cycle in N, the nearest (14% is one in 7)")
	cli.OneInNPercentVar(fs, &o.Gap, "gap", 100, "percent of packets an idle ingress cycle follows: 0% (never) to 100%, paced as one after every N packets, the nearest (20% is every 5th)")
	cli.IntVar(fs, &o.MaxFail, "max-fail", 1, math.MaxInt, "mismatches reported in full per run, 1 or more")
	fs.BoolVar(&o.Synth, "synth", false, "synthesize every configuration with Yosys, map it to the OSU 0.18 um cells and time it with OpenSTA")
	fs.StringVar(&o.SynthTable, "synth-table", "", "with --synth, write the synthesis table as Markdown to this file (docs/synthesis.md) and as JSON beside it (.json)")
	fs.StringVar(&o.SynthLib, "synth-lib", o.SynthLib, "with --synth, the libraries to map to: osu018 (OSU 0.18 um), asap7 (ASAP7, predictive 7 nm-class) or all; with one, --synth-table keeps the page's table of the other")
	fs.BoolVar(&o.SynthMerge, "synth-merge", false, "with --synth-table, keep the page's rows of the configurations --configs leaves out (a run of some configurations then rewrites their rows alone); the page must have been made with the installed tools and libraries")
	fs.StringVar(&o.SynthReadme, "synth-readme", "", "with --synth, rewrite the synthesis summary (one row per hash, one column per generator) between its markers in this Markdown file (README.md); with the campaign (--widths without --shard, or --merge of every shard), its summary at the widest beat in ASAP7, between its own markers")
	fs.BoolVar(&o.Formal, "formal", false, "check the RTL's formal properties (a)-(g) with yosys-smtbmc, z3, ABC and CryptoMiniSat on the configurations of --configs (default: formal, the formal configurations) instead of co-simulating")
	fs.StringVar(&o.FormalProps, "formal-props", "", "with --formal, the properties to check, comma-separated (a,b,c,d,e,f,g) or all (default all)")
	cli.OptionalIntVar(fs, &o.FormalDepth, "formal-depth", 0, minFormalDepth, maxFormalDepth, "with --formal, the bounded-check depth in clocks for every property (default each property's own, docs/rtl.md)")
	fs.StringVar(&o.Vectors, "vectors", "", "co-simulate this binary vector file (a set's stage.bin) on the configuration its manifest names")
	fs.StringVar(&o.RTL, "rtl", "", "co-simulate a user's stage instead of the library: its file list (-f file; paths relative to the list), with --top")
	fs.StringVar(&o.Top, "top", "", "with --rtl, the stage's top module: the port contract of docs/rtl.md at the configuration the RTL flags (or one --configs name) choose")
	bindRTLFlags(fs, &o.Flags)
	bindWidthFlag(fs, &o.Width)
	bindSegmentedFlag(fs, &o.Segmented)
	bindCampaignFlags(fs, &o.Campaign)
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
	seen := map[string]bool{}
	for _, n := range strings.Split(spec, ",") {
		c, ok := byName[strings.TrimSpace(n)]
		if !ok {
			sort.Strings(names)
			return nil, fmt.Errorf("no configuration %q; use all, flags, or names such as %s", n, strings.Join(names[:min(4, len(names))], ", "))
		}
		if seen[c.Name()] {
			return nil, fmt.Errorf("%s twice in %q: name each configuration once", c.Name(), spec)
		}
		seen[c.Name()] = true
		out = append(out, c)
	}
	return out, nil
}

// checkVerifyFlags refuses, before any work, a flag out of range or one that
// has no effect in the chosen mode.
func checkVerifyFlags(o verifyOptions) error {
	for _, f := range []struct {
		name   string
		v, min int
		max    int
	}{
		{"lanes", o.Lanes, 1, 8}, {"parts", o.Parts, 1, cosim.MaxParts}, {"max-fail", o.MaxFail, 1, 1 << 30},
		{"random", o.Random, 0, 1 << 30}, {"icarus-random", o.IcarusRandom, 0, 1 << 30}, {"gap", o.Gap, 0, 1 << 30}, {"stall", o.Stall, 0, 1 << 30},
	} {
		if f.v < f.min || f.v > f.max {
			return fmt.Errorf("--%s %d: give %d..%d", f.name, f.v, f.min, f.max)
		}
	}
	if o.Stall == 1 {
		return errors.New("--stall 1 holds the egress ready low every cycle, so no word could ever leave: give 0 (never) or 2 or more")
	}
	given := func(names ...string) string {
		for _, n := range names {
			if o.given[n] {
				return "--" + n
			}
		}
		return ""
	}
	if (o.RTL == "") != (o.Top == "") {
		return errors.New("--rtl and --top go together: the file list of the stage and its top module")
	}
	if o.Width == 0 {
		o.Width = verilog.DefaultWidth
	}
	if err := verilog.CheckWidth(o.Width); err != nil {
		return fmt.Errorf("--width: %w", err)
	}
	if err := checkSegmented(o.Segmented, o.Width); err != nil {
		return err
	}
	if o.Width != verilog.DefaultWidth && o.Vectors == "" && !o.Formal && o.given["icarus-random"] && !o.given["icarus"] {
		return fmt.Errorf("--icarus-random has no effect at --width %d without --icarus: the Icarus Verilog bench runs at wide beats only when --icarus names its configurations", o.Width)
	}
	if o.RTL != "" {
		if f := given("vectors", "synth", "synth-table", "synth-readme", "synth-merge", "formal", "formal-depth", "formal-props"); f != "" {
			return fmt.Errorf("%s has no effect with --rtl, which co-simulates the user's stage", f)
		}
		if o.given["configs"] && (o.Configs == "all" || o.Configs == "none" || o.Configs == "subset" || strings.Contains(o.Configs, ",")) {
			return fmt.Errorf("--configs %s with --rtl: a stage's top implements one configuration; give flags (the RTL flags choose it) or one name", o.Configs)
		}
		if f := given(append(rtlFlagNames, "depth", "hash-latency")...); f != "" && o.given["configs"] && o.Configs != "flags" {
			return fmt.Errorf("%s has no effect with --configs %s: the RTL flags choose the configuration of --configs flags", f, o.Configs)
		}
		if o.given["icarus-random"] && o.Icarus == "none" {
			return errors.New("--icarus-random has no effect with --icarus none")
		}
		return nil
	}
	if o.Vectors != "" {
		if f := given("configs", "icarus", "random", "icarus-random", "seed", "synth", "synth-table", "synth-readme", "synth-lib", "synth-merge", "formal", "formal-depth"); f != "" {
			return fmt.Errorf("%s has no effect with --vectors, which co-simulates the given file on its own configuration", f)
		}
		return nil
	}
	if o.Formal {
		return checkFormalFlags(o, given)
	}
	if f := given(append(rtlFlagNames, "depth", "hash-latency")...); f != "" && o.Configs != "flags" {
		return fmt.Errorf("%s has no effect with --configs %s: the RTL flags choose the configuration of --configs flags or the RTL of --vectors", f, o.Configs)
	}
	if o.given["icarus-random"] && o.Icarus == "none" {
		return errors.New("--icarus-random has no effect with --icarus none")
	}
	return checkSynthFormalFlags(o)
}

// checkFormalFlags refuses, before any work, the flags that have no effect
// with --formal, which checks the formal properties on the configurations of
// --configs (default: formal, cosim.FormalConfigs) and co-simulates nothing.
func checkFormalFlags(o verifyOptions, given func(...string) string) error {
	if f := given("icarus", "icarus-random", "random", "seed", "lanes", "parts", "stall", "gap", "max-fail", "synth", "synth-table", "synth-readme", "synth-merge"); f != "" {
		return fmt.Errorf("%s has no effect with --formal, which checks the formal properties and co-simulates nothing (run the co-simulation without --formal)", f)
	}
	if err := checkSynthFormalFlags(o); err != nil {
		return err
	}
	if o.given["configs"] && (o.Configs == "none" || o.Configs == "") {
		return fmt.Errorf("--configs %s with --formal: --formal checks the configurations --configs names (default formal: %s); give formal, flags, all or names", o.Configs, formalNames())
	}
	if f := given(append(rtlFlagNames, "depth", "hash-latency")...); f != "" && o.Configs != "flags" {
		return fmt.Errorf("%s has no effect with --formal --configs %s: the RTL flags choose the configuration of --configs flags", f, formalSpec(o))
	}
	if props, _ := formalProps(o.FormalProps); o.given["formal-props"] && o.Segmented {
		for _, p := range props {
			if p.SegRefused != "" {
				return fmt.Errorf("--formal-props %s with --segmented: (%s) %s; leave it out, or check it without --segmented", o.FormalProps, p.ID, p.SegRefused)
			}
		}
	}
	return nil
}

// formalSpec is --configs in formal mode: unset, the formal configurations.
func formalSpec(o verifyOptions) string {
	if !o.given["configs"] {
		return "formal"
	}
	return o.Configs
}

// formalNames lists the formal configurations.
func formalNames() string {
	var ns []string
	for _, c := range cosim.FormalConfigs() {
		ns = append(ns, c.Name())
	}
	return strings.Join(ns, ", ")
}

// pickFormalConfigs resolves --configs in formal mode: formal (the default),
// flags, all, or names of the matrix and the formal configurations.
func pickFormalConfigs(o verifyOptions) ([]verilog.Config, error) {
	spec := formalSpec(o)
	if spec == "formal" {
		return cosim.FormalConfigs(), nil
	}
	pool := verilog.Matrix()
	for _, c := range cosim.FormalConfigs() {
		if !slices.ContainsFunc(pool, func(x verilog.Config) bool { return x.Name() == c.Name() }) {
			pool = append(pool, c)
		}
	}
	cfgs, err := pickConfigs(spec, o.Flags, pool)
	if err != nil {
		return nil, fmt.Errorf("--configs with --formal: %w (or formal: %s)", err, formalNames())
	}
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("--configs %s with --formal chooses no configuration", spec)
	}
	for _, c := range cfgs {
		if c.HashLatency != 0 {
			return nil, fmt.Errorf("--hash-latency %d with --formal: the formal properties take the hash in the cycle it is asked for (SipHash's rounds in one cycle); co-simulate the pipelined hash instead", c.HashLatency)
		}
	}
	return cfgs, nil
}

// Limits of --formal-depth: below the induction's k nothing is proved (a
// depth too short for a property's covers is refused by the check itself);
// above, a run takes hours.
var (
	minFormalDepth = cosim.DefaultFormal.Induction
	maxFormalDepth = 200
)

// checkSynthFormalFlags refuses, before any work, every synth and formal
// flag combination that would have no effect or whose output could not be
// written.
func checkSynthFormalFlags(o verifyOptions) error {
	if !o.Synth && (o.SynthTable != "" || o.SynthReadme != "" || o.given["synth-lib"] || o.SynthMerge) {
		return fmt.Errorf("--synth-table, --synth-readme, --synth-lib and --synth-merge need --synth")
	}
	if _, err := cosim.SelectLibraries(o.SynthLib); err != nil {
		return fmt.Errorf("--synth-lib: %w", err)
	}
	if o.Synth && o.Configs == "none" {
		return fmt.Errorf("--synth synthesizes the configurations of --configs: --configs none leaves none")
	}
	if o.SynthTable != "" {
		if filepath.Ext(o.SynthTable) != ".md" {
			return fmt.Errorf("--synth-table %s: want a .md file (its JSON goes beside it)", o.SynthTable)
		}
		for _, p := range []string{o.SynthTable, cosim.JSONPath(o.SynthTable)} {
			if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
				return fmt.Errorf("--synth-table %s: %s is not a directory", o.SynthTable, filepath.Dir(p))
			}
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return fmt.Errorf("--synth-table %s: %s is a directory", o.SynthTable, p)
			}
		}
	}
	if o.SynthMerge {
		if o.SynthTable == "" {
			return fmt.Errorf("--synth-merge keeps rows of the page of --synth-table: give --synth-table")
		}
		page, err := os.ReadFile(o.SynthTable)
		if err != nil {
			return fmt.Errorf("--synth-merge: %w", err)
		}
		if _, _, err := cosim.ParseSynthesisMarkdown(page); err != nil {
			return fmt.Errorf("--synth-merge: %s: %w", o.SynthTable, err)
		}
	}
	if o.SynthReadme != "" {
		// Refuse a file without the markers now, not after the synthesis.
		if err := cosim.ReadmeSummary.Check(o.SynthReadme); err != nil {
			return fmt.Errorf("--synth-readme: %w", err)
		}
	}
	if o.given["formal-depth"] && !o.Formal {
		return fmt.Errorf("--formal-depth needs --formal")
	}
	if o.given["formal-props"] && !o.Formal {
		return fmt.Errorf("--formal-props needs --formal")
	}
	if _, err := formalProps(o.FormalProps); err != nil {
		return err
	}
	if o.Formal && o.FormalDepth != 0 && (o.FormalDepth < minFormalDepth || o.FormalDepth > maxFormalDepth) {
		return fmt.Errorf("--formal-depth %d: give %d..%d clocks", o.FormalDepth, minFormalDepth, maxFormalDepth)
	}
	if o.Configs == "none" && !o.Formal {
		return fmt.Errorf("--configs none: nothing to verify")
	}
	return nil
}

// interruptedError reports a run that Ctrl-C stopped: exit status 130, and
// nothing written.
func interruptedError(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return exitError{130, fmt.Errorf("verify: interrupted (%v); no table or summary was written", ctx.Err())}
	}
	return err
}

func runVerify(ctx context.Context, w io.Writer, o verifyOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if isCampaign(o) {
		return runCampaign(ctx, w, o)
	}
	if err := checkVerifyFlags(o); err != nil {
		return err
	}
	o.Flags.width = o.Width // the depths the RTL flags' configuration takes follow the width
	if o.Vectors != "" {
		return interruptedError(ctx, runVerifyFile(ctx, w, o))
	}
	if o.RTL != "" {
		return interruptedError(ctx, runVerifyRTL(ctx, w, o))
	}
	if o.Formal {
		t0 := time.Now()
		failed, err := runFormal(ctx, w, o)
		if err != nil {
			return interruptedError(ctx, err)
		}
		fmt.Fprintf(w, "verify: %d formal failures, %.1f s\n", failed, time.Since(t0).Seconds())
		if failed > 0 {
			return exitError{1, fmt.Errorf("%d formal properties failed (see the counterexamples above)", failed)}
		}
		return nil
	}
	pool := verilog.Matrix()
	cfgs, err := pickConfigs(o.Configs, o.Flags, pool)
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if o.Configs == "flags" {
		pool = cfgs
	}
	icarusSpec := o.Icarus
	if wideIcarusOff(w, o) {
		icarusSpec = "none"
	}
	icarus, err := pickConfigs(icarusSpec, o.Flags, cfgs)
	if err != nil {
		return fmt.Errorf("--icarus: %w", err)
	}
	if o.Width != 0 {
		cfgs, icarus = withBeats(cfgs, o.Width, o.Segmented), withBeats(icarus, o.Width, o.Segmented)
	}
	var synth []verilog.Config
	if o.Synth {
		synth = cfgs
	}
	release, err := lockWork(o.Work)
	if err != nil {
		return err
	}
	defer release()
	libs, err := cosim.SelectLibraries(o.SynthLib)
	if err != nil {
		return fmt.Errorf("--synth-lib: %w", err)
	}
	t0 := time.Now()
	rep := &cosim.Report{}
	if len(cfgs) > 0 {
		rep, err = cosim.Verify(ctx, cosim.Options{
			Configs: cfgs, Icarus: icarus, Synth: synth, SynthLibs: libs, Seed: o.Seed, Random: o.Random, IcarusRandom: o.IcarusRandom,
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
		printHoles(w, &cr)
	}
	if o.Synth {
		if err := writeSynthesis(ctx, w, o, libs, rep); err != nil {
			return interruptedError(ctx, err)
		}
	}
	fmt.Fprintf(w, "verify: %d configurations, %d vectors, %d mismatches, %d RTL assertion errors, %d coverage holes, %.1f s\n",
		len(rep.Configs), vecs, rep.Mismatches, rep.Assertions, rep.Uncovered, time.Since(t0).Seconds())
	return verifyVerdict(rep)
}

// verifyVerdict is the exit of a co-simulation: the comparison with the
// model first, then the RTL's own assertions, coverage and formal.
func verifyVerdict(rep *cosim.Report) error {
	switch {
	case rep.Mismatches > 0:
		return exitError{1, errors.New("the RTL does not match the model (see the mismatches above)")}
	case rep.Assertions > 0:
		return exitError{1, errors.New("the RTL's own assertions reported errors (see above), though its outputs matched the model")}
	case !rep.OK():
		return exitError{1, errors.New("the vectors do not cover what they must (see the coverage holes above)")}
	}
	return nil
}

// wideIcarusOff says whether the Icarus Verilog bench is left out by
// default: at beats wider than 64 bits it runs only when --icarus is given,
// since Icarus simulates a 512-bit stage about 40 times slower a cycle (a
// vector takes about 0.1 s of CPU against 0.02 at 64 bits: minutes for the
// default subset). It says so on w.
func wideIcarusOff(w io.Writer, o verifyOptions) bool {
	if o.Width == 0 || o.Width == verilog.DefaultWidth || o.given["icarus"] || o.Icarus == "none" {
		return false
	}
	fmt.Fprintf(w, "verify: %d-bit beats: the Icarus Verilog bench runs only when --icarus is given (it is slow at wide beats)\n", o.Width)
	return true
}

// runVerifyRTL co-simulates a user's stage (--rtl, --top) on the
// configuration the RTL flags or --configs NAME choose: its ports are checked
// against the contract before anything is built.
func runVerifyRTL(ctx context.Context, w io.Writer, o verifyOptions) error {
	spec := o.Configs
	if !o.given["configs"] {
		spec = "flags"
	}
	cfgs, err := pickConfigs(spec, o.Flags, verilog.Matrix())
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if len(cfgs) != 1 {
		return fmt.Errorf("--configs %s with --rtl chooses %d configurations: give one", spec, len(cfgs))
	}
	named := cfgs[0].Name() // as --configs names it (and --icarus may)
	if o.Width != 0 {
		cfgs = withBeats(cfgs, o.Width, o.Segmented)
	}
	c := cfgs[0]
	icarus := cfgs
	if o.Icarus == "none" || wideIcarusOff(w, o) {
		icarus = nil
	} else if o.given["icarus"] && o.Icarus != "all" && o.Icarus != "subset" && o.Icarus != c.Name() && o.Icarus != named {
		return fmt.Errorf("--icarus %s with --rtl: give all (the stage's configuration, the default) or none", o.Icarus)
	}
	u, err := cosim.LoadUserRTL(o.RTL, o.Top, c)
	if err != nil {
		return fmt.Errorf("--rtl: %w", err)
	}
	t0 := time.Now()
	rep, err := cosim.Verify(ctx, cosim.Options{
		Configs: cfgs, Icarus: icarus, Seed: o.Seed, Random: o.Random, IcarusRandom: o.IcarusRandom, RTL: u,
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
		printHoles(w, &cr)
	}
	fmt.Fprintf(w, "verify: %s (%s) as %s, %d vectors, %d mismatches, %d RTL assertion errors, %d coverage holes, %.1f s\n",
		o.Top, o.RTL, c.Name(), vecs, rep.Mismatches, rep.Assertions, rep.Uncovered, time.Since(t0).Seconds())
	return verifyVerdict(rep)
}

// printHoles lists what a configuration's coverage lacks.
func printHoles(w io.Writer, cr *cosim.ConfigReport) {
	for _, b := range cr.Missing {
		fmt.Fprintf(w, "coverage hole: %s: %s never hit\n", cr.Config.Name(), b)
	}
	for _, b := range cr.Outside {
		fmt.Fprintf(w, "coverage: %s: the RTL reported %s, which Alg. 8 cannot produce\n", cr.Config.Name(), b)
	}
	for _, e := range cr.Edges.Missed {
		fmt.Fprintf(w, "coverage hole: %s: no vector sits on comparator edge %s\n", cr.Config.Name(), e)
	}
}

// runVerifyFile co-simulates one binary vector file and reports the rate.
func runVerifyFile(ctx context.Context, w io.Writer, o verifyOptions) error {
	var want *verilog.Config
	if o.given["hash"] || o.given["generator"] || o.given["count-bits"] || o.given["sender-draws"] || o.given["id"] || o.given["link"] {
		c, err := o.Flags.config()
		if err != nil {
			return err
		}
		want = &c
	}
	vf, err := cosim.OpenVectorFile(ctx, o.Vectors, want, o.Flags.depth)
	if err != nil {
		return err
	}
	if o.Width != 0 {
		vf.Config.Width = o.Width // the RTL's beats: the vectors are packets, whatever the width
		vf.Config.Segmented = o.Segmented
	}
	c := vf.Config
	if err := c.Validate(); err != nil {
		return fmt.Errorf("--depth: %w", err)
	}
	release, err := lockWork(o.Work)
	if err != nil {
		return err
	}
	defer release()
	m, err := cosim.BuildVerilator(ctx, filepath.Join(o.Work, fmt.Sprintf("verilator-%s-x%d", c.Name(), o.Lanes)), []verilog.Config{c}, o.Lanes)
	if err != nil {
		return err
	}
	if m.BuildTime > 0 {
		fmt.Fprintf(w, "verilator: built %s with %d lanes in %.1f s\n", c.Name(), o.Lanes, m.BuildTime.Seconds())
	}
	r, err := vf.Run(ctx, m, 0, cosim.RunOptions{MaxFail: o.MaxFail, Stall: o.Stall, Gap: o.Gap, Parts: o.Parts})
	if err != nil {
		return err
	}
	for _, mm := range r.First {
		fmt.Fprintf(w, "mismatch: vector %d: %s: got %s, want %s\n", mm.Index, mm.What, mm.Got, mm.Want)
	}
	cr, err := vf.Coverage(r)
	if err != nil {
		return err
	}
	if !vf.Manifest.Replay {
		printHoles(w, cr)
	}
	fmt.Fprintf(w, "verilator %s: %d of %d vectors, %d mismatches, %d cycles; coverage %d/%d bins, %d/%d comparator edges; simulation %.3f s (%.2f M vectors/s), whole run %.3f s (%.2f M vectors/s)\n",
		c.Name(), r.Vectors, vf.Header.Count, r.Mismatches, r.Cycles, cr.Reachable-len(cr.Missing), cr.Reachable, cr.Edges.Hit, cr.Edges.Total,
		r.SimTime.Seconds(), float64(r.Vectors)/r.SimTime.Seconds()/1e6, r.Wall.Seconds(), float64(r.Vectors)/r.Wall.Seconds()/1e6)
	if r.Mismatches > 0 {
		return exitError{1, fmt.Errorf("%d mismatches", r.Mismatches)}
	}
	if cr.Holes() > 0 {
		if vf.Manifest.Replay {
			fmt.Fprintf(w, "(a replay set of given packets: its coverage is not required)\n")
			return nil
		}
		return exitError{1, fmt.Errorf("%d coverage holes", cr.Holes())}
	}
	return nil
}

// writeSynthesis writes the synthesis table, its JSON and the README summary
// that --synth-table and --synth-readme ask for, from the run's statistics
// (and, for a run of one library, the existing table's rows of the others;
// with --synth-merge, its rows of the configurations the run left out).
func writeSynthesis(ctx context.Context, w io.Writer, o verifyOptions, libs []*cosim.CellLibrary, rep *cosim.Report) error {
	var stats []*cosim.SynthStats
	for _, cr := range rep.Configs {
		if cr.Synth != nil {
			stats = append(stats, cr.Synth)
		}
	}
	tools, err := cosim.CurrentSynthTools(ctx, filepath.Join(o.Work, "yosys"), libs)
	if err != nil {
		return err
	}
	if o.SynthTable != "" && len(libs) < len(cosim.CellLibraries) {
		if page, err := os.ReadFile(o.SynthTable); err == nil {
			rows, pageTools, err := cosim.ParseSynthesisMarkdown(page)
			if err != nil {
				return fmt.Errorf("--synth-table %s: %w", o.SynthTable, err)
			}
			if stats, tools, err = cosim.KeepLibraries(stats, tools, rows, pageTools); err != nil {
				return fmt.Errorf("--synth-table %s: %w", o.SynthTable, err)
			}
		}
	}
	if o.SynthMerge {
		page, err := os.ReadFile(o.SynthTable)
		if err != nil {
			return fmt.Errorf("--synth-merge: %w", err)
		}
		rows, pageTools, err := cosim.ParseSynthesisMarkdown(page)
		if err != nil {
			return fmt.Errorf("--synth-merge: %s: %w", o.SynthTable, err)
		}
		var order []string
		for _, c := range verilog.Matrix() {
			order = append(order, c.Name())
		}
		if stats, err = cosim.MergeSynthesis(stats, tools, rows, pageTools, order); err != nil {
			return fmt.Errorf("--synth-merge: %s: %w", o.SynthTable, err)
		}
	}
	if o.SynthTable != "" {
		js, err := cosim.SynthesisJSON(stats, tools)
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
		if err := cosim.ReadmeSummary.Rewrite(o.SynthReadme, cosim.SynthesisSummary(stats, tools.Libs)); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the synthesis summary to %s\n", o.SynthReadme)
	}
	return nil
}

// formalProps resolves --formal-props: "" and "all" are every property.
func formalProps(spec string) ([]cosim.Property, error) {
	var props []cosim.Property
	if spec == "" || spec == "all" {
		return cosim.Properties, nil
	}
	for _, id := range strings.Split(spec, ",") {
		p, ok := cosim.PropertyByID(strings.TrimSpace(id))
		if !ok {
			return nil, fmt.Errorf("--formal-props %q: no property %q (want a, b, c, d, e, f, g or all)", spec, id)
		}
		if slices.ContainsFunc(props, func(q cosim.Property) bool { return q.ID == p.ID }) {
			return nil, fmt.Errorf("--formal-props %q: %s twice", spec, p.ID)
		}
		props = append(props, p)
	}
	return props, nil
}

// runFormal checks every property on every formal configuration, two at a
// time, and returns how many failed.
func runFormal(ctx context.Context, w io.Writer, o verifyOptions) (int, error) {
	lib, err := verilog.Library()
	if err != nil {
		return 0, err
	}
	props, err := formalProps(o.FormalProps)
	if err != nil {
		return 0, err
	}
	// A property not checked on segmented beats is left out by default
	// (named in --formal-props, checkFormalFlags refuses it).
	segOut := map[string]bool{}
	if o.Segmented {
		props = slices.DeleteFunc(slices.Clone(props), func(p cosim.Property) bool { // (props may be cosim.Properties)
			if p.SegRefused != "" {
				segOut[p.ID] = true
				fmt.Fprintf(w, "formal: (%s) not checked on segmented beats: %s\n", p.ID, p.SegRefused)
			}
			return p.SegRefused != ""
		})
	}
	opts := cosim.DefaultFormal
	depths := ""
	if o.FormalDepth != 0 {
		opts.Depth = o.FormalDepth
		depths = fmt.Sprintf("bounded depth %d", opts.Depth)
	} else {
		var ds []string
		for _, p := range props {
			ds = append(ds, fmt.Sprintf("(%s) %d", p.ID, p.DepthFor(verilog.Config{Width: o.Width, Segmented: o.Segmented})))
		}
		depths = "bounded depths " + strings.Join(ds, ", ")
	}
	cfgs, err := pickFormalConfigs(o)
	if err != nil {
		return 0, err
	}
	cfgs = withBeats(cfgs, o.Width, o.Segmented) // the formal properties are written for every beat width, and segmented beats
	if slices.ContainsFunc(props, func(p cosim.Property) bool { return p.ID == "g" }) {
		for _, c := range cfgs {
			if c.PipeDepth > 3 && c.DataW() == verilog.DefaultWidth { // (wider: (g) follows the k-th beat)
				return 0, fmt.Errorf("(g) on %s: its monitor follows one telemetry word inside the stage, and at pipeline depth %d a second one can wait in the skid buffer while the first waits at the head, so the check would fail on a sound stage; check (g) at depth 2 or 3, or leave it out (--formal-props a,b,c,d,e,f)", c.Name(), c.PipeDepth)
			}
		}
	}
	fmt.Fprintf(w, "formal: %d properties on %d configurations, %s, k-induction k=%d\n",
		len(props), len(cfgs), depths, opts.Induction)
	for _, p := range cosim.Properties {
		if !segOut[p.ID] && !slices.ContainsFunc(props, func(q cosim.Property) bool { return q.ID == p.ID }) {
			fmt.Fprintf(w, "formal: (%s) not checked: not in --formal-props\n", p.ID)
		}
	}
	results, err := cosim.CheckAll(ctx, filepath.Join(o.Work, "formal"), lib, cfgs, props, opts, 2, func(r *cosim.FormalResult) {
		fmt.Fprintf(w, "formal    %-28s (%s) %s, %d covers reached, %.1f s (%s)\n", r.Config, r.Property.ID, r.Status(), r.Covers, r.Time.Seconds(), r.Phases())
	})
	if err != nil {
		return 0, err
	}
	failed, proved := 0, 0
	bounded := map[string]int{}  // property: depth checked
	noInd := map[string]string{} // property: why its induction was not attempted
	for _, r := range results {
		switch {
		case r.Failed:
			failed++
		case r.Proved:
			proved++
		default:
			bounded[r.Property.ID] = r.Depth
			if r.NoInduction != "" {
				noInd[r.Property.ID] = r.NoInduction
			}
		}
	}
	fmt.Fprintf(w, "formal: %d proved by k-induction, %d bounded only, %d failed\n", proved, len(results)-proved-failed, failed)
	for _, p := range cosim.Properties {
		if d, ok := bounded[p.ID]; ok {
			why := p.Bounded
			if p.Induction {
				why = "k-induction did not close on this configuration"
			}
			if n, ok := noInd[p.ID]; ok {
				why = "k-induction not attempted " + n
			}
			fmt.Fprintf(w, "formal: (%s) is bounded only: no counterexample in %d clocks, not proved (%s)\n", p.ID, d, why)
		}
	}
	return failed, nil
}
