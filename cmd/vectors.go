// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/internal/cli"
	"ibreservoir/vectors"
)

type vectorsOptions struct {
	Out    string
	Seed   uint64
	Random int
	Paths  int
	Only   string
	Bulk   int
	Flags  rtlFlags
	given  map[string]bool // the flags set on the command line
}

var vectorsOpts = vectorsOptions{Out: "out/vectors", Seed: vectors.DefaultSeed, Random: vectors.DefaultRandom,
	Paths: vectors.DefaultPaths, Flags: defaultRTLFlags()}

var vectorsCmd = &cobra.Command{
	Use:   "vectors",
	Short: "Write the golden test vectors (switch stage and whole path) with their manifests",
	Long: `vectors writes golden test vectors made by the reference model, reproducible
byte for byte from --seed whatever the machine or GOMAXPROCS:

  OUT/stage/<config>/   switch-stage vectors for every RTL configuration (every
                        hash x generator x count width): stage.hex ($readmemh),
                        stage.jsonl, stage.bin (co-simulation), stage_in.pcap and
                        stage_out.pcap (ERF pcap), manifest.json
  OUT/path/<config>/    whole-path vectors (sender NIC, l switches, receiver) for
                        every scheme: path.jsonl, path.pcap, manifest.json
  OUT/index.json        every set of OUT, with its seed and the SHA-256 of its files

Each manifest records the seed, the configuration and its digest, the counts,
the comparator-edge coverage, the SHA-256 of every file, the tool version and
the CPU. --only writes the default sets whose kind/name contains its text.

With RTL flags (--hash, --generator, --count-bits, --sender-draws, --id,
--link) it writes that configuration's switch-stage set in every format,
OUT/stage/<config>/. With --bulk N it writes N random switch-stage vectors of
that configuration (the defaults without RTL flags) in the binary form, for
long co-simulation runs: OUT/bulk/<config>/stage.bin and its manifest.

OUT is written as a unit: the run goes to a staging directory beside it that
replaces it at the end, keeping the sets of earlier runs the run does not
rewrite; an interrupted or failed run leaves OUT as it was. A flag that has
no effect in the chosen mode is an error. docs/rtl.md documents every field
of every format.`,
	Example: `  ibreservoir vectors
  ibreservoir vectors --only stage/mult0_ideal
  ibreservoir vectors --hash siphash --id psn-slid --generator sender --sender-draws 3
  ibreservoir vectors --bulk 10000000 --hash crc32`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		o := vectorsOpts
		o.given = givenFlags(cmd.Flags())
		if err := refuseEmpty(cmd.Flags()); err != nil {
			return err
		}
		return runVectors(cmd.Context(), cmd.OutOrStdout(), o)
	},
}

func init() {
	bindVectorsFlags(vectorsCmd.Flags(), &vectorsOpts)
	rootCmd.AddCommand(vectorsCmd)
}

// bindVectorsFlags binds the vectors command's flags to o.
func bindVectorsFlags(fs *pflag.FlagSet, o *vectorsOptions) {
	fs.StringVar(&o.Out, "out", o.Out, "output directory")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "run seed every random choice derives from")
	cli.IntVar(fs, &o.Random, "random", 0, math.MaxInt, "random switch-stage vectors per set, after the directed ones")
	cli.IntVar(fs, &o.Paths, "paths", 0, math.MaxInt, "random whole paths per set, after the directed ones")
	fs.StringVar(&o.Only, "only", "", "write only the default sets whose kind/name contains this text (e.g. stage/mult0_ideal)")
	cli.OptionalIntVar(fs, &o.Bulk, "bulk", 0, 1, math.MaxInt, "write N random switch-stage vectors of one configuration (the RTL flags') in the binary form only")
	bindRTLFlags(fs, &o.Flags)
	fs.MarkHidden("depth") // the RTL's pipeline: the vectors do not depend on it (an error here)
	fs.MarkHidden("hash-latency")
}

// givenFlags is the set of flags given on the command line.
func givenFlags(fs *pflag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { given[f.Name] = true })
	return given
}

// rtlFlagNames are the flags that choose an RTL configuration's vectors.
var rtlFlagNames = []string{"hash", "generator", "count-bits", "sender-draws", "id", "link"}

// vectorSets checks the flags against the mode they choose (every default
// set, one configuration's set, or a bulk file) and returns the sets to write.
func vectorSets(o vectorsOptions) ([]vectors.SetSpec, error) {
	given := func(names ...string) string {
		for _, n := range names {
			if o.given[n] {
				return "--" + n
			}
		}
		return ""
	}
	for _, f := range []struct {
		name   string
		v, min int
	}{{"random", o.Random, 0}, {"paths", o.Paths, 0}, {"bulk", o.Bulk, 1}} {
		if f.v < f.min && (f.name != "bulk" || o.given["bulk"]) {
			return nil, fmt.Errorf("--%s %d: give a count of %d or more", f.name, f.v, f.min)
		}
	}
	if o.given["depth"] {
		return nil, fmt.Errorf("--depth is the RTL's pipeline depth, which the vectors do not depend on: use it with verilog and verify")
	}
	if o.given["hash-latency"] {
		return nil, fmt.Errorf("--hash-latency is the RTL's SipHash pipeline, which the vectors do not depend on: use it with verilog and verify")
	}
	rtl := given(rtlFlagNames...)
	if o.given["count-bits"] && o.Flags.generator == "sender" {
		return nil, fmt.Errorf("--count-bits has no effect with --generator sender: hop_rand is --sender-draws+1 bits")
	}
	switch {
	case o.given["bulk"]:
		if f := given("only", "random", "paths"); f != "" {
			return nil, fmt.Errorf("%s has no effect with --bulk, which writes --bulk N random switch-stage vectors of the configuration the RTL flags choose", f)
		}
		c, err := o.Flags.config()
		if err != nil {
			return nil, err
		}
		return []vectors.SetSpec{vectors.StageSetSpec(vectors.KindBulk, c, o.Seed, o.Bulk)}, nil
	case rtl != "":
		if f := given("only", "paths"); f != "" {
			return nil, fmt.Errorf("%s has no effect with %s: the RTL flags choose one switch-stage set (drop them to write the default sets)", f, rtl)
		}
		c, err := o.Flags.config()
		if err != nil {
			return nil, err
		}
		return []vectors.SetSpec{vectors.StageSetSpec(vectors.KindStage, c, o.Seed, o.Random)}, nil
	}
	var sets []vectors.SetSpec
	for _, s := range vectors.DefaultSets(o.Seed, o.Random, o.Paths) {
		if o.Only == "" || strings.Contains(s.Kind+"/"+s.Name, o.Only) {
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("--only %q matches no vector set; names are like stage/mult0_ideal_c3 or path/onereservoir-c3@resv6_mult0_ideal_local", o.Only)
	}
	return sets, nil
}

func runVectors(ctx context.Context, w io.Writer, o vectorsOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	sets, err := vectorSets(o)
	if err != nil {
		return err
	}
	t0 := time.Now()
	res, err := vectors.WriteAll(ctx, o.Out, Version, sets)
	if err != nil {
		return err
	}
	files, vecs := 0, 0
	for _, m := range res.Written {
		files += len(m.Files) + 1
		vecs += m.Counts["vectors"] + m.Counts["paths"]
	}
	fmt.Fprintf(w, "wrote %d vector sets (%d vectors and paths, %d files) to %s in %.2f s", len(res.Written), vecs, files, o.Out, time.Since(t0).Seconds())
	if kept := len(res.Index.Sets) - len(res.Written); kept > 0 {
		fmt.Fprintf(w, "; kept %d sets of earlier runs (%s lists every set)", kept, vectors.IndexName)
	}
	fmt.Fprintln(w)
	if res.Stale > 0 {
		fmt.Fprintf(w, "removed %d temporaries of an interrupted earlier run\n", res.Stale)
	}
	return nil
}
