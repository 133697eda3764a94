package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"ibreservoir/hash"
)

// hashSweepOptions are the inputs of `ibreservoir hash sweep`.
type hashSweepOptions struct {
	Hash  string   // hash name (hash.ParseKind)
	Over  string   // "d" (id fixed, d varies) or "id" (d fixed, id varies)
	Ones  []string // fixed values whose count of H = 1 to print
	Agree []string // pairs a:b of fixed values whose agreement to print
	Time  bool     // report each sweep's time on stderr
}

func init() {
	o := &hashSweepOptions{Hash: "mult0", Over: "d"}
	c := &cobra.Command{
		Use:   "sweep",
		Short: "Count, over all 2^32 values of one argument, how often H is 1 or two hashes agree",
		Long: `sweep evaluates a hash over every one of the 2^32 values of one argument with
the other fixed, and prints exact counts (thesis section 5.4).

With no --ones or --agree it checks the thesis's facts for the chosen hash
(mult0 by default):
  Theorem 5.1: for Hmult0 and any id != 0, exactly 2^31 of the 2^32 d give 1;
  Theorem 5.2 is false: ids 2 and 6 agree on about 2/3 of all d, not 1/2;
and the same with d fixed and the id varying. For mult0 it exits with status 2
if Theorem 5.1 fails for any id checked.

Values are decimal, 0x hex, 2^N or 2^N-1. The sweep runs on the vector
kernels (AVX-512 or AVX2; IBRESERVOIR_GENERIC=1 forces plain Go) on every
core; siphash has no vector form and takes about a minute per sweep.`,
		Example: `  ibreservoir hash sweep
  ibreservoir hash sweep --agree 2:6,509:1021 --ones 0,1,2^31
  ibreservoir hash sweep --hash crc32 --over id --ones 509 --agree 2:6`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHashSweep(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Hash, "hash", o.Hash, "hash: "+strings.Join(kindNames(), ", "))
	f.StringVar(&o.Over, "over", o.Over, "argument that varies: d (id fixed) or id (d fixed)")
	f.StringSliceVar(&o.Ones, "ones", nil, "fixed values whose count of H = 1 to print (comma-separated)")
	f.StringSliceVar(&o.Agree, "agree", nil, "pairs a:b of fixed values whose agreement to print (comma-separated)")
	f.BoolVar(&o.Time, "time", false, "print each sweep's wall time on stderr")
	hashCmd.AddCommand(c)
}

func kindNames() []string {
	var ns []string
	for _, k := range hash.Kinds() {
		ns = append(ns, k.String())
	}
	return ns
}

// factIDs are the fixed values the default run checks Theorem 5.1 at: odd and
// even, the counterexample's 2 and 6, the thesis's smallest link offset 509,
// the top bit, all ones and the id of the thesis's Figure 5.1.
var factIDs = []uint32{1, 2, 6, 509, 1 << 31, 1<<32 - 1, 44974351}

type sweepRow struct {
	fixed, varies, test string
	count               uint64
}

// runHashSweep prints the table to w, and notes (and with o.Time the timings)
// to errw.
func runHashSweep(w, errw io.Writer, o *hashSweepOptions) error {
	kind, err := hash.ParseKind(o.Hash)
	if err != nil {
		return fmt.Errorf("--hash: %w", err)
	}
	if o.Over != "d" && o.Over != "id" {
		return fmt.Errorf("--over %q: use d (id fixed, d varies) or id (d fixed, id varies)", o.Over)
	}
	ones := make([]uint32, 0, len(o.Ones))
	for _, s := range o.Ones {
		v, err := parseUint32(s)
		if err != nil {
			return fmt.Errorf("--ones: %w", err)
		}
		ones = append(ones, v)
	}
	var pairs [][2]uint32
	for _, s := range o.Agree {
		a, b, ok := strings.Cut(s, ":")
		if !ok {
			return fmt.Errorf("--agree: %q is not a pair a:b (e.g. 2:6)", s)
		}
		x, err1 := parseUint32(a)
		y, err2 := parseUint32(b)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("--agree %q: %w", s, err)
		}
		pairs = append(pairs, [2]uint32{x, y})
	}
	facts := len(ones) == 0 && len(pairs) == 0
	h := hash.New(kind)
	if kind == hash.SipHash {
		fmt.Fprintln(errw, "note: siphash has no vector form; each sweep takes about a minute")
	}

	timed := func(label string, f func() uint64) uint64 {
		start := time.Now()
		n := f()
		if o.Time {
			fmt.Fprintf(errw, "%s: %v\n", label, time.Since(start).Round(time.Millisecond))
		}
		return n
	}
	name := func(over string) (fixed, varies string) {
		if over == "d" {
			return "id", "d"
		}
		return "d", "id"
	}
	onesRow := func(over string, v uint32) sweepRow {
		fixed, varies := name(over)
		label := fmt.Sprintf("%s %s=%d", kind, fixed, v)
		n := timed(label, func() uint64 {
			if over == "d" {
				return h.OnesOverD(v)
			}
			return h.OnesOverID(v)
		})
		return sweepRow{fmt.Sprintf("%s=%d", fixed, v), varies, "H = 1", n}
	}
	agreeRow := func(over string, p [2]uint32) sweepRow {
		fixed, varies := name(over)
		label := fmt.Sprintf("%s %s=%d,%d", kind, fixed, p[0], p[1])
		n := timed(label, func() uint64 {
			if over == "d" {
				return h.AgreeOverD(p[0], p[1])
			}
			return h.AgreeOverID(p[0], p[1])
		})
		test := fmt.Sprintf("H(%d,d) = H(%d,d)", p[0], p[1])
		if over == "id" {
			test = fmt.Sprintf("H(id,%d) = H(id,%d)", p[0], p[1])
		}
		return sweepRow{fmt.Sprintf("%s=%d,%d", fixed, p[0], p[1]), varies, test, n}
	}

	var rows []sweepRow
	var verdicts []string
	failed := false
	if facts {
		for _, over := range []string{"d", "id"} {
			for _, v := range append([]uint32{0}, factIDs...) {
				rows = append(rows, onesRow(over, v))
			}
		}
		if kind == hash.Mult0 {
			for _, r := range rows {
				zero := strings.HasSuffix(r.fixed, "=0")
				if !zero && r.count != 1<<31 {
					failed = true
					verdicts = append(verdicts, fmt.Sprintf("Theorem 5.1 FAILS at %s: %d of 2^32, not 2^31", r.fixed, r.count))
				}
			}
			if !failed {
				verdicts = append(verdicts, fmt.Sprintf("Theorem 5.1 holds at every non-zero value checked (%d ids, %d links): exactly 2^31 of 2^32", len(factIDs), len(factIDs)))
			}
		}
		for _, over := range []string{"d", "id"} {
			r := agreeRow(over, [2]uint32{2, 6})
			rows = append(rows, r)
			if kind == hash.Mult0 && over == "d" {
				verdicts = append(verdicts, fmt.Sprintf("Theorem 5.2 is false: ids 2 and 6 agree on %d of 2^32 d (%s = %.9f), not 1/2", r.count, ratString(r.count), float64(r.count)/hash.Domain))
			}
		}
	} else {
		for _, v := range ones {
			rows = append(rows, onesRow(o.Over, v))
		}
		for _, p := range pairs {
			rows = append(rows, agreeRow(o.Over, p))
		}
	}

	fmt.Fprintf(w, "# %s over all 2^32 values of one argument (sweep kernel %s)\n", kind, hash.SweepKernel())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fixed\tvaries\tcounts\tcount\tfraction of 2^32\tdecimal")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.12f\n", r.fixed, r.varies, r.test, r.count, ratString(r.count), float64(r.count)/hash.Domain)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range verdicts {
		fmt.Fprintln(w, v)
	}
	if failed {
		return exitError{2, errors.New("Theorem 5.1 does not hold for every id checked")}
	}
	return nil
}
