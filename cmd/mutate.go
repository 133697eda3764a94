// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ibreservoir/cosim/mutation"
	"ibreservoir/internal/atomicfile"
)

type mutateOptions struct {
	Work  string
	Only  string   // comma-separated mutation ids
	Shard string   // "i/n"
	Out   string   // a shard's outcomes (JSON)
	Merge []string // shards' outcome files to merge
	Doc   string   // the Markdown file whose campaign table is rewritten
	List  bool
	Score bool   // a mutant verify misses goes on to the scoreboard
	Lib   string // the scoreboard's C library
}

var mutateOpts = mutateOptions{Work: "out/mutate"}

var mutateCmd = &cobra.Command{
	Use:   "mutate",
	Short: "Run the mutation campaign: planted bugs in a copy of the RTL, each checked with verify --rtl",
	Long: `mutate runs the project's mutation campaign on the RTL switch stage
(docs/rtl.md, "Mutation campaign"): each planted bug is a text patch
applied to a copy of the library (never the checked-in RTL), written out as a
user's stage (the library, the configuration's wrapper and ibr_stage.f), and
checked as ` + "`verify --rtl ibr_stage.f --top ibr_stage_<name>`" + ` does, with the
default co-simulation (seed, random vectors, stalls and gaps) on Verilator;
a mutant that comparison misses goes on to the DPI-C scoreboard as
` + "`scoreboard --rtl`" + ` runs it (its default options; --scoreboard=false skips it).
A bug counts as caught only when a comparison with the model finds it; the
RTL's own assertion errors are counted beside it.

--doc FILE rewrites the campaign's table between its markers in FILE
(docs/rtl.md); it needs every mutation's outcome, from one whole run or from
--merge of every shard's --out file. --only runs the named mutations,
--shard i/n every n-th from i; --list prints the campaign. An escape is an
outcome recorded in the table, not a failure of the command; a mutant that
cannot be applied (the RTL changed under it), built or run is.`,
	Example: `  ibreservoir mutate --only count-wraps
  ibreservoir mutate --shard 0/2 --out m0.json && ibreservoir mutate --shard 1/2 --out m1.json
  ibreservoir mutate --merge m0.json,m1.json --doc docs/rtl.md`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runMutate(cmd.Context(), cmd.OutOrStdout(), mutateOpts)
	},
}

func init() {
	fs := mutateCmd.Flags()
	fs.StringVar(&mutateOpts.Work, "work", mutateOpts.Work, "work directory: each mutant's RTL, vectors and Verilator build (removed after its run)")
	fs.StringVar(&mutateOpts.Only, "only", "", "run only these mutations (comma-separated ids; --list names them)")
	fs.StringVar(&mutateOpts.Shard, "shard", "", "run only shard i of n (i/n: every n-th mutation from the i-th) and write its outcomes to --out")
	fs.StringVar(&mutateOpts.Out, "out", "", "write the outcomes as JSON to this file (for --merge)")
	fs.StringSliceVar(&mutateOpts.Merge, "merge", nil, "merge these shards' --out files instead of running (comma-separated)")
	fs.StringVar(&mutateOpts.Doc, "doc", "", "rewrite the campaign table between its markers in this Markdown file (docs/rtl.md); needs every mutation's outcome")
	fs.BoolVar(&mutateOpts.List, "list", false, "list the mutations and exit")
	fs.BoolVar(&mutateOpts.Score, "scoreboard", true, "check a mutant that verify's comparison misses with the DPI-C scoreboard too (scoreboard --rtl, its default options)")
	fs.StringVar(&mutateOpts.Lib, "lib", "", "with --scoreboard, a built C library (libibreservoir.a from go build -buildmode=c-archive ./capi); default: build it into --work")
	rootCmd.AddCommand(mutateCmd)
}

func runMutate(ctx context.Context, w io.Writer, o mutateOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Lib != "" && !o.Score {
		return errors.New("--lib is the scoreboard's C library: it has no effect with --scoreboard=false")
	}
	if o.List {
		if o.Only != "" || o.Shard != "" || o.Out != "" || len(o.Merge) > 0 || o.Doc != "" {
			return errors.New("--list prints the campaign: give it alone")
		}
		for _, m := range mutation.Mutations {
			fmt.Fprintf(w, "%-22s %-10s %-20s %-28s %s\n", m.ID, m.Kind, m.File, m.Config, m.What)
		}
		return nil
	}
	if o.Doc != "" {
		if err := mutation.Section.Check(o.Doc); err != nil {
			return fmt.Errorf("--doc: %w", err)
		}
	}
	var outs []*mutation.Outcome
	if len(o.Merge) > 0 {
		if o.Only != "" || o.Shard != "" || o.Out != "" {
			return errors.New("--merge combines shards' outcomes: --only, --shard and --out have no effect with it")
		}
		var parts [][]*mutation.Outcome
		for _, f := range o.Merge {
			p, err := mutation.ReadJSON(f)
			if err != nil {
				return fmt.Errorf("--merge: %w", err)
			}
			parts = append(parts, p)
		}
		var err error
		if outs, err = mutation.Merge(parts...); err != nil {
			return err
		}
	} else {
		ms := mutation.Mutations
		if o.Only != "" && o.Shard != "" {
			return errors.New("--only and --shard both choose the mutations: give one")
		}
		if o.Only != "" {
			ms = nil
			for _, id := range strings.Split(o.Only, ",") {
				m, ok := mutation.ByID(strings.TrimSpace(id))
				if !ok {
					return fmt.Errorf("--only: no mutation %q (ibreservoir mutate --list names them)", id)
				}
				ms = append(ms, m)
			}
		}
		if o.Shard != "" {
			i, n, err := parseShard(o.Shard)
			if err != nil {
				return err
			}
			if o.Out == "" {
				return errors.New("--shard needs --out FILE for its outcomes; merge the shards with --merge")
			}
			ms = mutation.Shard(i, n)
		}
		if o.Doc != "" && len(ms) != len(mutation.Mutations) {
			return errors.New("--doc writes the whole campaign's table: run every mutation, or --merge every shard's outcomes")
		}
		t0 := time.Now()
		for _, m := range ms {
			out, err := mutation.Run(ctx, m, mutation.Options{WorkDir: o.Work, Scoreboard: o.Score, Lib: o.Lib,
				Log: func(f string, a ...any) { fmt.Fprintf(w, f, a...) }})
			if err != nil {
				return interruptedError(ctx, err)
			}
			outs = append(outs, out)
		}
		caught := 0
		for _, out := range outs {
			if out.Caught {
				caught++
			}
		}
		fmt.Fprintf(w, "mutate: %d of %d mutations caught by the comparison with the model, %.1f s\n", caught, len(outs), time.Since(t0).Seconds())
		if o.Out != "" {
			b, err := json.MarshalIndent(outs, "", "  ")
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(o.Out, append(b, '\n')); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote the outcomes to %s\n", o.Out)
		}
	}
	if o.Doc != "" {
		t, err := mutation.Table(outs)
		if err != nil {
			return err
		}
		if err := mutation.Section.Rewrite(o.Doc, t); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the campaign table to %s\n", o.Doc)
	}
	return nil
}
