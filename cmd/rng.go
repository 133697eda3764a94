package cmd

import (
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ibreservoir/lfsr"
	"ibreservoir/rng"
)

// `ibreservoir rng ...`: the switch-side random-number generators of thesis
// section 5.9 (package rng).

var rngCmd = &cobra.Command{
	Use:   "rng",
	Short: "The random-number generators of thesis section 5.9: exact probabilities and draw streams",
	Args:  cobra.NoArgs,
}

func init() {
	rootCmd.AddCommand(rngCmd)
	rngCmd.AddCommand(newRngP0Cmd(), newRngStreamCmd())
}

// rngGenFlags are the flags naming a generator.
type rngGenFlags struct {
	Gen  string
	Seed uint64
	MaxL int
}

func (f *rngGenFlags) bind(c *cobra.Command) {
	c.Flags().StringVar(&f.Gen, "gen", f.Gen, "generator: "+rng.Syntax)
	c.Flags().Uint64Var(&f.Seed, "seed", f.Seed, "seed of the generator's initial state")
	c.Flags().IntVar(&f.MaxL, "max-l", f.MaxL, "largest l served (path length L)")
}

func (f *rngGenFlags) build() (rng.Generator, error) {
	g, err := rng.New(f.Gen, f.Seed, f.MaxL)
	if err != nil {
		return nil, fmt.Errorf("--gen/--max-l: %w", err)
	}
	return g, nil
}

// ---- rng p0

type rngP0Options struct{ rngGenFlags }

func newRngP0Cmd() *cobra.Command {
	o := &rngP0Options{rngGenFlags{Gen: "lfsr-lut/b16", Seed: 1, MaxL: 16}}
	c := &cobra.Command{
		Use:   "p0",
		Short: "Print each l's exact probability of a 0 draw, and its distance from 1/l",
		Long: `p0 prints, for l = 1..max-l, the exact long-run probability that the generator
answers "0" from its seeded state (rng.Exact), and how far that is from 1/l.
For lfsr-lut it also prints the lookup table T[l] the RTL holds and the
distance in units of the section 5.9 bound 1/(2(2^B-1)); a value above 1
breaks the bound (this happens when the steps per draw share a factor with
2^B-1, e.g. lfsr-lut/b12/k12).`,
		Example: `  ibreservoir rng p0 --gen lfsr-lut/b16
  ibreservoir rng p0 --gen lfsr-lut/b12/k12 --max-l 8
  ibreservoir rng p0 --gen shiftreg/free/2:1 --max-l 6`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRngP0(cmd.OutOrStdout(), o)
		},
	}
	o.bind(c)
	return c
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
	fmt.Fprintf(w, "# %s, seed %d, state %s (%d bits)\n", g.Name(), o.Seed, g.State().Hex(g.StateBits()), g.StateBits())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "l\tP0 exact\tP0\tP0 - 1/l"
	var table []uint32
	var bound *big.Rat
	if isLUT {
		head = "l\tT[l]\tP0 exact\tP0\tP0 - 1/l\t|P0 - 1/l| / bound"
		table = lut.Table()
		bound = big.NewRat(1, 2*int64(lfsr.Period(lut.Width())))
	}
	fmt.Fprintln(tw, head)
	for l := 1; l <= g.MaxL(); l++ {
		p := ex.P0(l)
		dev := new(big.Rat).Sub(p, big.NewRat(1, int64(l)))
		df, _ := dev.Float64()
		pf, _ := p.Float64()
		if isLUT {
			ratio, _ := new(big.Rat).Quo(new(big.Rat).Abs(dev), bound).Float64()
			fmt.Fprintf(tw, "%d\t%d\t%s\t%.9f\t%+.3e\t%.3f\n", l, table[l], p.RatString(), pf, df, ratio)
		} else {
			fmt.Fprintf(tw, "%d\t%s\t%.9f\t%+.3e\n", l, p.RatString(), pf, df)
		}
	}
	return tw.Flush()
}

// ---- rng stream

type rngStreamOptions struct {
	rngGenFlags
	Ls    string // comma-separated l pattern, repeated
	Draws int
}

func newRngStreamCmd() *cobra.Command {
	o := &rngStreamOptions{rngGenFlags: rngGenFlags{Gen: "ideal", Seed: 1, MaxL: 16}, Ls: "1,2,3,4,5,6,7,8", Draws: 64}
	c := &cobra.Command{
		Use:   "stream",
		Short: "Print a generator's state and its answers to a pattern of draws",
		Long: `stream builds the named generator from its seed, prints its whole state (hex,
most significant digit first, as the vector files and $readmemh use), then
the answers to --draws draws whose l cycles through --ls (1 = the draw was 0),
then the final state.`,
		Example: `  ibreservoir rng stream --gen lfsr-lut/b16 --ls 2 --draws 32
  ibreservoir rng stream --gen sender --max-l 8 --ls 1,2,3,4,5,6,7,8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRngStream(cmd.OutOrStdout(), o)
		},
	}
	o.bind(c)
	c.Flags().StringVar(&o.Ls, "ls", o.Ls, "comma-separated values of l, repeated in turn")
	c.Flags().IntVar(&o.Draws, "draws", o.Draws, "number of draws")
	return c
}

func runRngStream(w io.Writer, o *rngStreamOptions) error {
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
	var b strings.Builder
	for i := range o.Draws {
		if g.Draw(ls[i%len(ls)]) {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	fmt.Fprintf(w, "draws %s\n", b.String())
	fmt.Fprintf(w, "state %s\n", g.State().Hex(g.StateBits()))
	return nil
}
