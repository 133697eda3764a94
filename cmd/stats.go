// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"ibreservoir/battery"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
	"ibreservoir/internal/markers"
	"ibreservoir/rng"
)

// statsOptions are the flags of `ibreservoir stats` and `stats merge`.
type statsOptions struct {
	cfg      battery.Config
	quick    bool
	slowBits int    // --decode-slow-bits; 0: the size's own
	shard    string // "i/n"
	out      string // the partial result of a shard
	jsonPath string
	record   string // the decode record, for stats choose
	report   string // a directory for report.md and its figures
	all      bool
	strict   bool
	jobs     int
	progress bool // draw a progress bar on stderr
	stdout   io.Writer
	stderr   io.Writer
}

func newStatsCmd() *cobra.Command {
	o := &statsOptions{cfg: battery.DefaultConfig()}
	c := &cobra.Command{
		Use:   "stats",
		Short: "Run the statistical battery: which hash, id, link, generator and count-width combinations are sound, and why",
		Long: `stats runs the statistical battery of docs/battery.md over every combination of
hash, packet-id option, link encoding, generator and hop-count width (all of
them by default): hash bias and independence (thesis section 5.4, with the
exhaustive sweeps of Theorems 5.1 and 5.2), linearity over GF(2), runs, serial
and linear-complexity tests, the periodicity analysis of Hmult0, the generators'
exact P0, binomial, gap and hop-independence tests (section 5.9), and the
reservoir's uniformity through the reference model (sections 3.3 and 5.6).

Then the decode family: decoding windows of 2^12 to 2^22 consecutive PSNs on
section 5.3's 401 links on the Tapered tree and on the Full tree's 685 (three
switch numberings, one flow and sixteen), does the receiver report the links
that carried nothing at no more than the threshold's nominal rate, and the
others without bias? Its hash tests compute each link's exact conditional
moments through the model's own decode; its generator tests send packets
through the model's sender, stages and receiver.

Each test gives exact counts, a p-value from gonum's distributions and a
verdict, PASS, FAIL or INVALID (too little data), at a family-wise error rate
(--alpha) held by Holm's correction, over the randomness tests and apart over
the decode tests. The text report goes to stdout; --json and --report write
the JSON and a Markdown report with plots, --decode-record the decode verdicts
for 'ibreservoir stats choose'. Progress goes to stderr.

A large battery can be split: --shard i/n --out part-i.json runs one n-th of
it, and 'ibreservoir stats merge part-*.json' adds the exact counts and gives
the same report, byte for byte, as one unsharded run.`,
		Example: `  ibreservoir stats
  ibreservoir stats --hashes mult0,crc32 --ids psn-slid --links thesis --generators ideal --count-widths 3
  ibreservoir stats --json stats.json --report stats-report
  ibreservoir stats --decode=false --quick
  ibreservoir stats --hashes none --generators ideal,lfsr-lut/b16
  ibreservoir stats --shard 0/4 --out part-0.json && ibreservoir stats merge part-*.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.progress = true
			if !o.cfg.Decode.Enabled {
				if err := cli.NoEffect(cmd.Flags(), "with --decode=false", "", "decode-topologies", "decode-numberings", "decode-flows", "decode-slow-bits"); err != nil {
					return err
				}
			}
			return runStats(cmd.Context(), o)
		},
	}
	fs := c.Flags()
	fs.StringSliceVar(&o.cfg.Hashes, "hashes", o.cfg.Hashes, "hashes to test (thesis section 5.4 and mxm): "+strings.Join(cli.HashNames(), ", ")+"; none for generators only")
	fs.StringSliceVar(&o.cfg.IDs, "ids", o.cfg.IDs, "packet-id options: psn, psn-odd, psn-slid, psn-destqp")
	fs.StringSliceVar(&o.cfg.Links, "links", o.cfg.Links, "link encodings: thesis, wide, packed")
	fs.StringSliceVar(&o.cfg.Generators, "generators", o.cfg.Generators, "generators to test (thesis section 5.9): "+rng.Syntax+"; none for hashes only")
	fs.IntSliceVar(&o.cfg.CountBits, "count-widths", o.cfg.CountBits, fmt.Sprintf("hop-count widths b to test, a list, 1..%d each (section 5.6)", battery.MaxCountBits))
	// --count-bits names one width in every other command; here it is kept as
	// an alias of the list, which says so on every use.
	fs.IntSliceVar(&o.cfg.CountBits, flagCountBits, o.cfg.CountBits, "the list --count-widths")
	_ = fs.MarkDeprecated(flagCountBits, "stats takes a list of widths: use --count-widths (--count-bits names one width elsewhere)")
	fs.BoolVar(&o.cfg.Lockstep, "lockstep", o.cfg.Lockstep, "also test every switch generator with all ports seeded alike (the lockstep scenario)")
	fs.Uint64Var(&o.cfg.Seed, "seed", o.cfg.Seed, "run seed: every sample and generator stream derives from it")
	cli.FloatVar(fs, &o.cfg.Alpha, "alpha", cli.Range{Lo: 0, Hi: 1}, "family-wise error rate, held by Holm's correction, 0 < alpha < 1")
	cli.FloatVar(fs, &o.cfg.MaxBias, "max-bias", cli.Range{Lo: 0, Hi: math.MaxFloat64, LoClosed: true}, "largest relative bias |l*P0(l)-1| a generator may have, 0 or more")
	fs.BoolVar(&o.quick, "quick", false, "a small battery (less data per test): seconds instead of minutes; its PASS verdicts are not evidence (every output says so)")
	fs.BoolVar(&o.cfg.Decode.Enabled, "decode", o.cfg.Decode.Enabled, "run the decode family (docs/battery.md): does the receiver find the right links at the stated confidence, per window size")
	fs.StringSliceVar(&o.cfg.Decode.Topologies, "decode-topologies", o.cfg.Decode.Topologies, "the decode family's candidate sets: "+strings.Join(battery.DecodeTopologies(), ", "))
	fs.StringSliceVar(&o.cfg.Decode.Numberings, "decode-numberings", o.cfg.Decode.Numberings, "the decode family's switch numberings: "+strings.Join(battery.DecodeNumberings(), ", "))
	fs.IntSliceVar(&o.cfg.Decode.Flows, "decode-flows", o.cfg.Decode.Flows, "the decode family's flows per workload, 1..16")
	cli.IntVar(fs, &o.slowBits, "decode-slow-bits", 0, battery.DefaultSize().DecodeMaxBits, "decode SipHash and mxm (which the decode evaluates in full) on windows up to 2^N packets instead of the default's 2^18; at most the largest window, 2^22")
	fs.StringVar(&o.shard, "shard", "", "run only shard i of n (i/n, 0 <= i < n) and write its partial result to --out")
	fs.StringVar(&o.out, "out", "", "with --shard: the partial result file, for 'ibreservoir stats merge'")
	bindStatsOutput(fs, o)
	c.AddCommand(newStatsMergeCmd(), newStatsChooseCmd())
	return c
}

// statsCommand is the command line that reproduces a run's configuration
// as far as the flags reach (the default run: plain 'ibreservoir stats').
func statsCommand(c battery.Config) string {
	cmd := "ibreservoir stats"
	d := battery.DefaultConfig()
	if c.Seed != d.Seed {
		cmd += fmt.Sprintf(" --seed %d", c.Seed)
	}
	switch base := c.Size; {
	case base == battery.QuickSize():
		cmd += " --quick"
	case base == d.Size:
	default:
		base.DecodeSlowBits = d.Size.DecodeSlowBits
		if base != d.Size {
			cmd += " (with a custom size)"
		} else {
			cmd += fmt.Sprintf(" --decode-slow-bits %d", c.Size.DecodeSlowBits)
		}
	}
	return cmd
}

// ---- stats choose

type statsChooseOptions struct {
	record, synthesis string
	readme, doc       string
}

// The markers around the "which configuration to choose" table in README.md
// and docs/battery.md.
const (
	chooseBegin = "<!-- which configuration to choose: begin (go run . stats choose --readme README.md --doc docs/battery.md) -->"
	chooseEnd   = "<!-- which configuration to choose: end -->"
)

func newStatsChooseCmd() *cobra.Command {
	o := &statsChooseOptions{record: "docs/decode.json", synthesis: "docs/synthesis.json"}
	c := &cobra.Command{
		Use:   "choose",
		Short: "The 'which configuration to choose' table: decode verdicts per window size beside each configuration's cost in gates",
		Long: `choose joins a decode record (the decode family's verdicts, written by
'ibreservoir stats --decode-record FILE') with the synthesis costs of every RTL
configuration (docs/synthesis.json, written by 'ibreservoir verify --synth')
into one table: each synthesized hash and generator at a 3-bit hop count (the
sender draws at their L), its decode verdict at each window size (the packet-id
options that pass, with the thesis's link encoding), its cells and flip-flops
(standard-cell area and critical path where the file has them), and the
cheapest configuration sound for decoding at each window size. It prints the
table in Markdown, or rewrites it between its markers in the files given.`,
		Example: `  ibreservoir stats --decode-record docs/decode.json
  ibreservoir stats choose --readme README.md --doc docs/battery.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatsChoose(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.StringVar(&o.record, "record", o.record, "the decode record (stats --decode-record)")
	f.StringVar(&o.synthesis, "synthesis", o.synthesis, "the synthesis costs (verify --synth)")
	f.StringVar(&o.readme, "readme", "", "rewrite the table between its markers in this file (README.md)")
	f.StringVar(&o.doc, "doc", "", "rewrite the table between its markers in this file too (docs/battery.md)")
	return c
}

// chooseTable reads the record and the costs and returns the table.
func chooseTable(recordPath, synthPath string) (string, error) {
	rf, err := os.Open(recordPath)
	if err != nil {
		return "", fmt.Errorf("--record: %w", err)
	}
	defer rf.Close()
	rec, err := battery.ReadDecodeRecord(rf)
	if err != nil {
		return "", fmt.Errorf("--record %s: %w", recordPath, err)
	}
	sf, err := os.Open(synthPath)
	if err != nil {
		return "", fmt.Errorf("--synthesis: %w", err)
	}
	defer sf.Close()
	synth, err := battery.ReadSynthesis(sf)
	if err != nil {
		return "", fmt.Errorf("--synthesis %s: %w", synthPath, err)
	}
	table, err := battery.ChooseTable(rec, synth)
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("Decode verdicts from `%s` (seed %d; %s), costs from `%s`; regenerate with `go run . stats choose --readme README.md --doc docs/battery.md`.\n\n",
		recordPath, rec.Config.Seed, rec.Command, synthPath)
	return note + table, nil
}

func runStatsChoose(w io.Writer, o *statsChooseOptions) error {
	var docs []string
	for _, p := range []string{o.readme, o.doc} {
		if p == "" {
			continue
		}
		doc, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if _, err := replaceMarked(doc, chooseBegin, chooseEnd, nil); err != nil {
			return fmt.Errorf("%s: %w", p, err) // refuse a file without markers before any work
		}
		docs = append(docs, p)
	}
	table, err := chooseTable(o.record, o.synthesis)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		_, err := io.WriteString(w, table)
		return err
	}
	for _, p := range docs {
		doc, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := replaceMarked(doc, chooseBegin, chooseEnd, []byte(table))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := atomicfile.WriteFile(p, out); err != nil {
			return err
		}
	}
	return nil
}

// replaceMarked returns doc with the text between the lines begin and end
// replaced by body.
func replaceMarked(doc []byte, begin, end string, body []byte) ([]byte, error) {
	return markers.Section{Begin: begin, End: end}.Replace(doc, body)
}

func bindStatsOutput(fs *pflag.FlagSet, o *statsOptions) {
	fs.StringVar(&o.jsonPath, "json", "", "also write the report as JSON to this file")
	fs.StringVar(&o.record, "decode-record", "", "also write the decode family's verdicts to this file, for 'ibreservoir stats choose' (docs/decode.json)")
	fs.StringVar(&o.report, "report", "", "also write a Markdown report with plots into this directory")
	fs.BoolVar(&o.all, "all", false, "list every test in the text report, not only the failing and invalid ones")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 2 if any combination is not sound")
	cli.IntVar(fs, &o.jobs, "jobs", 0, 1<<16, "worker goroutines (0: GOMAXPROCS); the results do not depend on it")
}

func newStatsMergeCmd() *cobra.Command {
	o := &statsOptions{}
	c := &cobra.Command{
		Use:   "merge PARTIAL...",
		Short: "Combine the partial results of 'stats --shard i/n' into the report of the whole battery",
		Long: `merge adds the exact counts of partial results written by 'ibreservoir stats
--shard i/n --out FILE' and finishes the battery: the report is identical to
the one an unsharded run with the same flags writes. Every shard 0..n-1 must be
given exactly once.`,
		Example: `  ibreservoir stats merge part-0.json part-1.json part-2.json part-3.json --json stats.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("give the partial result files to merge (written by 'ibreservoir stats --shard i/n --out FILE')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runStatsMerge(o, args)
		},
	}
	bindStatsOutput(c.Flags(), o)
	return c
}

func init() { rootCmd.AddCommand(newStatsCmd()) }

// parseShard reads "i/n".
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. --shard 0/4 for the first of four shards", s)
	}
	return i, n, nil
}

func runStats(ctx context.Context, o *statsOptions) error {
	if o.quick {
		o.cfg.Size = battery.QuickSize()
	}
	if o.slowBits != 0 {
		o.cfg.Size.DecodeSlowBits = o.slowBits
	}
	var err error
	if o.cfg.Hashes, err = noneList("hashes", o.cfg.Hashes); err != nil {
		return err
	}
	if o.cfg.Generators, err = noneList("generators", o.cfg.Generators); err != nil {
		return err
	}
	b, err := battery.New(o.cfg)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	shard, of := 0, 1
	if o.shard != "" {
		if shard, of, err = parseShard(o.shard); err != nil {
			return err
		}
		if o.out == "" {
			return errors.New("--shard needs --out FILE for the partial result; merge the shards with 'ibreservoir stats merge'")
		}
		if o.jsonPath != "" || o.report != "" || o.record != "" {
			return errors.New("--json, --report and --decode-record describe the whole battery: give them to 'ibreservoir stats merge', not to a shard")
		}
	} else if o.out != "" {
		return errors.New("--out writes a shard's partial result: use it with --shard i/n, or use --json for the report")
	}
	if err := checkStatsOutputs(o); err != nil {
		return err
	}
	what := "stats"
	if o.shard != "" {
		what = fmt.Sprintf("stats shard %d/%d", shard, of)
	}
	progress, done := newStatsProgress(o, what)
	p, err := b.RunShard(ctx, shard, of, o.jobs, progress)
	done()
	if err != nil {
		return err
	}
	if o.shard != "" {
		return atomicfile.Write(o.out, p.WriteJSON)
	}
	r, err := b.Finalize(p)
	if err != nil {
		return err
	}
	return writeStatsOutputs(o, r)
}

func runStatsMerge(o *statsOptions, paths []string) error {
	if err := checkStatsOutputs(o); err != nil {
		return err
	}
	var parts []*battery.Partial
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		p, err := battery.ReadPartial(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("merge: %s: %w", path, err)
		}
		parts = append(parts, p)
	}
	m, err := battery.Merge(parts)
	if err != nil {
		return err
	}
	b, err := battery.New(m.Config)
	if err != nil {
		return fmt.Errorf("merge: the partials' configuration: %w", err)
	}
	r, err := b.Finalize(m)
	if err != nil {
		return err
	}
	return writeStatsOutputs(o, r)
}

func writeStatsOutputs(o *statsOptions, r *battery.Report) error {
	if o.jsonPath != "" {
		if err := atomicfile.Write(o.jsonPath, r.WriteJSON); err != nil {
			return err
		}
	}
	if o.record != "" {
		rec, err := r.DecodeRecord(statsCommand(r.Config))
		if err != nil {
			return fmt.Errorf("--decode-record: %w", err)
		}
		if err := atomicfile.Write(o.record, rec.WriteJSON); err != nil {
			return err
		}
	}
	if o.report != "" {
		if err := r.WriteMarkdown(o.report); err != nil {
			return err
		}
	}
	if err := r.WriteText(o.stdout, o.all); err != nil {
		return err
	}
	if o.strict && r.Summary.Sound < r.Summary.Combinations {
		return exitError{2, fmt.Errorf("stats: %d of %d combinations are not sound", r.Summary.Combinations-r.Summary.Sound, r.Summary.Combinations)}
	}
	return nil
}

// noneList reads a list flag that "none" empties (stats --hashes none runs
// the generators only).
func noneList(flag string, list []string) ([]string, error) {
	if !slices.Contains(list, "none") {
		return list, nil
	}
	if len(list) > 1 {
		return nil, fmt.Errorf("--%s %s: none cannot be listed with others", flag, strings.Join(list, ","))
	}
	return nil, nil
}

// checkStatsOutputs refuses, before any work, output paths that cannot be
// written: --out and --json must be files in a writable directory, --report
// a directory that exists or can be made.
func checkStatsOutputs(o *statsOptions) error {
	for _, c := range []struct {
		flag, path string
		dir        bool
	}{{"out", o.out, false}, {"json", o.jsonPath, false}, {"decode-record", o.record, false}, {"report", o.report, true}} {
		if c.path == "" {
			continue
		}
		if err := checkOutputPath(c.path, c.dir); err != nil {
			return fmt.Errorf("--%s %s: %w", c.flag, c.path, err)
		}
	}
	return nil
}

// checkOutputPath says why path cannot be written as a file (or, with dir,
// made a directory): something of the other kind in the way, or no writable
// directory to create it in.
func checkOutputPath(path string, dir bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && dir && !fi.IsDir():
		return errors.New("a file is in the way of the directory")
	case err == nil && !dir && fi.IsDir():
		return errors.New("is a directory; give a file name")
	case err != nil && !missing(err):
		return err
	}
	at := filepath.Dir(path)
	if dir && err == nil {
		at = path
	}
	for {
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a directory", at)
			}
			break
		}
		if !missing(err) {
			return err
		}
		up := filepath.Dir(at)
		if up == at {
			break
		}
		at = up
	}
	f, err := os.CreateTemp(at, ".ibreservoir-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", at, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// missing reports whether a stat failed because the path does not exist (or
// runs through a file).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// newStatsProgress returns a progress callback and a function that ends it:
// a line at once, saying the run has started; then a bar on stderr when it is
// a terminal, otherwise a line when the first unit of work is done (with the
// time left it implies) and at every tenth of the work, so that a long run in
// a batch job shows how far it got.
func newStatsProgress(o *statsOptions, what string) (battery.Progress, func()) {
	if !o.progress {
		return nil, func() {}
	}
	fmt.Fprintf(o.stderr, "%s: started (the default battery takes minutes; --quick takes seconds)\n", what)
	if !isTerminal(o.stderr) {
		start := time.Now()
		last := -1
		return func(done, total int) {
			tenth := 10 * done / total
			if tenth == last || done == 0 {
				return
			}
			last = tenth
			el := time.Since(start)
			left := time.Duration(float64(el) * float64(total-done) / float64(done))
			fmt.Fprintf(o.stderr, "%s: %d%% (%d of %d units of work), %s elapsed, about %s left\n",
				what, 10*tenth, done, total, el.Round(time.Second), left.Round(time.Second))
		}, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(o.stderr),
					progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
			}
			bar.Set(done)
		}, func() {
			if bar != nil {
				bar.Finish()
			}
		}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
