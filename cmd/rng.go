// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ibreservoir/internal/cli"
	"ibreservoir/lfsr"
	"ibreservoir/rng"
)

// `ibreservoir rng ...`: the switch-side random-number generators of thesis
// section 5.9 (package rng).

func newRngCmd() *cobra.Command {
	c := cli.Group(&cobra.Command{
		Use:   "rng",
		Short: "The random-number generators of thesis section 5.9: exact probabilities and draw streams",
	})
	c.AddCommand(newRngP0Cmd(), newRngStreamCmd())
	return c
}

// maxGeneratorL bounds --max-l: a 12-bit hop count already serves l up to
// 4096, and a shift register's state grows as l^2.
const maxGeneratorL = 4096

// rngGenFlags are the flags naming a generator.
type rngGenFlags struct {
	Generator string
	Seed      uint64
	MaxL      int
}

func (f *rngGenFlags) bind(c *cobra.Command) {
	cli.GeneratorVar(c.Flags(), &f.Generator, "generator: "+rng.Syntax)
	c.Flags().Uint64Var(&f.Seed, flagSeed, f.Seed, "seed of the generator's initial state")
	cli.IntVar(c.Flags(), &f.MaxL, "max-l", 1, maxGeneratorL, fmt.Sprintf("largest l served (path length L), 1..%d", maxGeneratorL))
}

func (f *rngGenFlags) build() (rng.Generator, error) {
	g, err := rng.New(f.Generator, f.Seed, f.MaxL)
	if err != nil {
		return nil, fmt.Errorf("--%s/--max-l: %w", flagGenerator, err)
	}
	return g, nil
}

// ---- rng p0

type rngP0Options struct {
	rngGenFlags
	Format cli.Format
}

func newRngP0Cmd() *cobra.Command {
	o := &rngP0Options{rngGenFlags: rngGenFlags{Generator: "lfsr-lut/b16", Seed: 1, MaxL: 16}}
	c := &cobra.Command{
		Use:   "p0",
		Short: "Print each l's exact probability of a 0 draw, and its distance from 1/l",
		Long: `p0 prints, for l = 1..max-l, the exact long-run probability that the generator
answers "0" from its seeded state (rng.Exact), and how far that is from 1/l.
For lfsr-lut it also prints the lookup table T[l] the RTL holds and the
distance in units of the section 5.9 bound 1/(2(2^B-1)); a value above 1
breaks the bound (this happens when the steps per draw share a factor with
2^B-1, e.g. lfsr-lut/b12/k12). --format markdown gives the table for a
document, json every probability as an exact fraction and a float64.`,
		Example: `  ibreservoir rng p0 --generator lfsr-lut/b16
  ibreservoir rng p0 --generator lfsr-lut/b12/k12 --max-l 8
  ibreservoir rng p0 --generator shiftreg/free/2:1 --max-l 6 --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRngP0(cmd.OutOrStdout(), o)
		},
	}
	o.bind(c)
	cli.FormatVar(c.Flags(), &o.Format)
	return c
}

// p0Row is one l of rng p0; its JSON form is the command's.
type p0Row struct {
	L         int      `json:"l"`
	Table     *uint32  `json:"lut,omitempty"` // T[l], lfsr-lut only
	P0        ratJSON  `json:"p0"`
	Deviation float64  `json:"p0_minus_1_over_l"`
	Bound     *float64 `json:"deviation_over_bound,omitempty"` // lfsr-lut only
}

func runRngP0(w io.Writer, o *rngP0Options) error {
	g, err := o.build()
	if err != nil {
		return err
	}
	ex, ok := g.(rng.Exact)
	if !ok {
		return fmt.Errorf("generator %s has no exact probabilities", g.Name())
	}
	lut, isLUT := g.(*rng.LFSRLUT)
	title := fmt.Sprintf("%s, seed %d, state %s (%d bits)", g.Name(), o.Seed, g.State().Hex(g.StateBits()), g.StateBits())
	var table []uint32
	var bound *big.Rat
	if isLUT {
		table = lut.Table()
		bound = big.NewRat(1, 2*int64(lfsr.Period(lut.Width())))
	}
	var rows []p0Row
	for l := 1; l <= g.MaxL(); l++ {
		p := ex.P0(l)
		dev := new(big.Rat).Sub(p, big.NewRat(1, int64(l)))
		r := p0Row{L: l, P0: ratOf(p)}
		r.Deviation, _ = dev.Float64()
		if isLUT {
			r.Table = &table[l]
			b, _ := new(big.Rat).Quo(new(big.Rat).Abs(dev), bound).Float64()
			r.Bound = &b
		}
		rows = append(rows, r)
	}
	text := func(w io.Writer) error {
		fmt.Fprintf(w, "# %s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		head := "l\tP0 exact\tP0\tP0 - 1/l"
		if isLUT {
			head = "l\tT[l]\tP0 exact\tP0\tP0 - 1/l\t|P0 - 1/l| / bound"
		}
		fmt.Fprintln(tw, head)
		for _, r := range rows {
			if isLUT {
				fmt.Fprintf(tw, "%d\t%d\t%s\t%.9f\t%+.3e\t%.3f\n", r.L, *r.Table, r.P0.Exact, r.P0.Value, r.Deviation, *r.Bound)
			} else {
				fmt.Fprintf(tw, "%d\t%s\t%.9f\t%+.3e\n", r.L, r.P0.Exact, r.P0.Value, r.Deviation)
			}
		}
		return tw.Flush()
	}
	md := &cli.Table{Title: title, Notes: []string{"Exact long-run probability of a 0 draw for each l (thesis section 5.9)."},
		Columns: []string{"l", "P0 exact", "P0", "P0 - 1/l"}}
	if isLUT {
		md.Columns = []string{"l", "T[l]", "P0 exact", "P0", "P0 - 1/l", "|P0 - 1/l| / bound"}
		md.Notes = append(md.Notes, "Bound: 1/(2(2^B-1)); a ratio above 1 breaks it.")
	}
	for _, r := range rows {
		if isLUT {
			md.Rows = append(md.Rows, []string{fmt.Sprint(r.L), fmt.Sprint(*r.Table), r.P0.Exact, cli.Float(r.P0.Value), cli.Float(r.Deviation), cli.Float(*r.Bound)})
		} else {
			md.Rows = append(md.Rows, []string{fmt.Sprint(r.L), r.P0.Exact, cli.Float(r.P0.Value), cli.Float(r.Deviation)})
		}
	}
	doc := struct {
		Generator string  `json:"generator"`
		Seed      uint64  `json:"seed"`
		State     string  `json:"state"`
		Rows      []p0Row `json:"p0"`
	}{g.Name(), o.Seed, g.State().Hex(g.StateBits()), rows}
	return cli.Report{Text: text, Tables: []*cli.Table{md}, JSON: doc}.Write(w, o.Format)
}

// ---- rng stream

type rngStreamOptions struct {
	rngGenFlags
	Ls    string // comma-separated l pattern, repeated
	Draws int
}

func newRngStreamCmd() *cobra.Command {
	o := &rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "ideal", Seed: 1, MaxL: 16}, Ls: "1,2,3,4,5,6,7,8", Draws: 64}
	c := &cobra.Command{
		Use:   "stream",
		Short: "Print a generator's state and its answers to a pattern of draws",
		Long: `stream builds the named generator from its seed, prints its whole state (hex,
most significant digit first, as the vector files and $readmemh use), then
the answers to --draws draws whose l cycles through --ls (1 = the draw was 0),
then the final state.`,
		Example: `  ibreservoir rng stream --generator lfsr-lut/b16 --ls 2 --draws 32
  ibreservoir rng stream --generator sender --max-l 8 --ls 1,2,3,4,5,6,7,8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRngStream(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	o.bind(c)
	c.Flags().StringVar(&o.Ls, "ls", o.Ls, "comma-separated values of l, repeated in turn")
	cli.IntVar(c.Flags(), &o.Draws, "draws", 0, math.MaxInt, "number of draws (streamed: any number)")
	return c
}

// runRngStream writes the draws as they are made, so any number of them
// takes constant memory; a SIGINT or SIGTERM (ctx) stops it.
func runRngStream(ctx context.Context, w io.Writer, o *rngStreamOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	g, err := o.build()
	if err != nil {
		return err
	}
	if o.Draws < 0 {
		return fmt.Errorf("--draws %d: give a count of 0 or more", o.Draws)
	}
	var ls []int
	for _, s := range strings.Split(o.Ls, ",") {
		l, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || l < 1 || l > g.MaxL() {
			return fmt.Errorf("--ls: %q is not an l in 1..%d (raise --max-l for longer paths)", s, g.MaxL())
		}
		ls = append(ls, l)
	}
	fmt.Fprintf(w, "# %s, seed %d, %d state bits\n", g.Name(), o.Seed, g.StateBits())
	fmt.Fprintf(w, "state %s\n", g.State().Hex(g.StateBits()))
	b := bufio.NewWriter(w)
	b.WriteString("draws ")
	for i := range o.Draws {
		if i%(1<<16) == 0 && ctx.Err() != nil {
			b.Flush()
			return ctx.Err()
		}
		if g.Draw(ls[i%len(ls)]) {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	fmt.Fprintf(b, "\nstate %s\n", g.State().Hex(g.StateBits()))
	return b.Flush()
}
