package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// `ibreservoir model ...`: inspection of the reference model and its
// statistics (package refmodel).

var modelCmd = &cobra.Command{
	Use:   "model",
	Short: "Inspect the reference model: configuration, saturation bias, moments, thresholds",
	Args:  cobra.NoArgs,
}

func init() {
	rootCmd.AddCommand(modelCmd)
	modelCmd.AddCommand(newModelConfigCmd(), newModelSaturationCmd(), newModelMomentsCmd(), newModelThresholdCmd())
}

// ---- model config

type modelConfigOptions struct {
	Config refmodel.Config
}

func newModelConfigCmd() *cobra.Command {
	o := &modelConfigOptions{Config: refmodel.DefaultConfig()}
	c := &cobra.Command{
		Use:   "config",
		Short: "Validate a model configuration and print it as the manifests record it (JSON)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runModelConfig(cmd.OutOrStdout(), o)
		},
	}
	bindModelFlags(c.Flags(), &o.Config)
	return c
}

func runModelConfig(w io.Writer, o *modelConfigOptions) error {
	if err := validateModelConfig(o.Config); err != nil {
		return err
	}
	m, err := refmodel.New(o.Config)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(o.Config, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\nlayout %s: %s\n", b, m.Layout(), m.Layout().Description)
	return nil
}

// ---- model saturation

type modelSaturationOptions struct {
	Bits      int    // saturating count width b
	Hops      int    // path length l
	Sender    int    // sender draws L (0: a switch generator)
	Generator string // switch generator name (rng.New); its P0 sets the overwrite probabilities
}

func newModelSaturationCmd() *cobra.Command {
	o := &modelSaturationOptions{Bits: 3, Hops: 5, Generator: "ideal"}
	c := &cobra.Command{
		Use:   "saturation",
		Short: "Print the exact distribution of the sampled hop and the expected weighted counts (thesis section 5.6)",
		Long: `Prints, in exact rational arithmetic, the probability that the reservoir holds
each hop of an l-hop path and the expected weighted count each hop's link
receives per packet (1 is unbiased), for a b-bit saturating count and an ideal
switch generator, or for L sender draws (section 5.9). The thesis's example:

    ibreservoir model saturation --bits 2 --hops 5     # 9/16, 9/16, 9/16, 9/16, 12/16`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runModelSaturation(cmd.OutOrStdout(), o) },
	}
	c.Flags().IntVar(&o.Bits, "bits", o.Bits, "width b of the saturating hop count, 1..16")
	c.Flags().IntVar(&o.Hops, "hops", o.Hops, "path length l in hops")
	c.Flags().IntVar(&o.Sender, "sender-draws", o.Sender, "L > 0: sender-generated draws (section 5.9) instead of a switch generator; --bits is then ignored")
	c.Flags().StringVar(&o.Generator, "generator", o.Generator, "switch generator whose long-run P0(l) gives the overwrite probabilities, e.g. lfsr-lut/b8")
	return c
}

func runModelSaturation(w io.Writer, o *modelSaturationOptions) error {
	var s refmodel.Selection
	var err error
	if o.Sender > 0 {
		s, err = refmodel.SenderSaturation(o.Hops, o.Sender)
		if err == nil {
			fmt.Fprintf(w, "sender draws L=%d, %d-hop path, weight %d\n", o.Sender, o.Hops, s.Weight)
		}
	} else {
		cfg := refmodel.DefaultConfig()
		cfg.Generator, cfg.Telemetry.CountBits, cfg.Telemetry.Placement = o.Generator, o.Bits, header.PlaceFooter
		p0, perr := cfg.P0()
		if perr != nil {
			return fmt.Errorf("--generator %s: %w", o.Generator, perr)
		}
		s, err = refmodel.Saturation(o.Hops, o.Bits, p0)
		if err == nil {
			fmt.Fprintf(w, "%s generator, %d-bit count (saturates at %d), %d-hop path, weight %d\n", o.Generator, o.Bits, 1<<o.Bits-1, o.Hops, s.Weight)
		}
	}
	if err != nil {
		return fmt.Errorf("%w (set --hops and --bits, or --sender-draws)", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hop\tP(selected)\t\texpected weighted count\t\t")
	for j := range s.P {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", j+1, s.P[j].RatString(), dec(s.P[j]), s.Expected[j].RatString(), dec(s.Expected[j]))
	}
	fmt.Fprintf(tw, "none\t%s\t%s\t\t\t\n", s.None.RatString(), dec(s.None))
	return tw.Flush()
}

func dec(r *big.Rat) string { return r.FloatString(6) }

// ---- model moments

type modelMomentsOptions struct {
	Hops      int    // l
	Packets   int64  // Q: packets that might have crossed d
	Through   int64  // N: packets that crossed d
	Congested int64  // M: packets congested at d
	G         int    // congested hops of each congested packet (section 3.3's g)
	Format    string // text, markdown or json
}

// The bounds of model moments' inputs: an IBA path has at most 255 hops, and
// 2^40 packets keep every product of the formulas exact in an int64 and
// within a float64's 53 bits.
const (
	momentsMaxHops    = 255
	momentsMaxPackets = 1 << 40
	// momentsReplicates and momentsSeed fix the simulation of the fraction's
	// law when the exact convolution would take too long.
	momentsReplicates = 100_000
	momentsSeed       = 1
)

func newModelMomentsCmd() *cobra.Command {
	o := &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2, Format: "text"}
	c := &cobra.Command{
		Use:   "moments",
		Short: "Print the analytic means and variances of the estimators (thesis sections 3.3 and 5.3, and the one-reservoir scheme's)",
		Long: `For one link d on paths of l hops: Q packets might have crossed d, N did, and
M of those were congested at d, each congested packet on g hops (d among them).
Prints E and Var of the full-ID count (section 3.3), the one-bit count W_d
(section 5.3), the Taylor estimates of the congested fraction, and the
one-reservoir scheme's congested count (docs/onereservoir-moments.md), with
an ideal generator and no saturation.

The one-reservoir congested fraction F = C_d/W_d is printed twice: by the
delta method (a second-order expansion around the means, which holds only
while W_d stays far from 0: its coefficient of variation well below 1), and
from its exact law given W_d > 0 (the receiver reports F = 0 otherwise), with
P(W_d <= 0) and how often F falls outside [0, 1]. The exact law comes from
convolving the packets' contributions; when that would take too long it is
simulated from the same model (100000 draws, seed 1) and says so.`,
		Example: `  ibreservoir model moments
  ibreservoir model moments --packets 5000000 --through 26042 --congested 2604 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runModelMoments(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.IntVar(&o.Hops, "hops", o.Hops, fmt.Sprintf("path length l, 1..%d", momentsMaxHops))
	f.Int64Var(&o.Packets, "packets", o.Packets, "Q: packets that might have crossed the link, 1..2^40")
	f.Int64Var(&o.Through, "through", o.Through, "N: packets that crossed the link, 1..Q")
	f.Int64Var(&o.Congested, "congested", o.Congested, "M: packets congested at the link, 0..N")
	f.IntVar(&o.G, "g", o.G, "congested hops of each congested packet, the link included, 1..l")
	f.StringVar(&o.Format, "format", o.Format, "output format: text, markdown or json (json keeps every figure to 17 significant digits)")
	return c
}

// check says what is wrong with every input, before any work.
func (o *modelMomentsOptions) check() error {
	var errs []error
	if o.Hops < 1 || o.Hops > momentsMaxHops {
		errs = append(errs, fmt.Errorf("--hops %d: want 1..%d", o.Hops, momentsMaxHops))
	}
	if o.Packets < 1 || o.Packets > momentsMaxPackets {
		errs = append(errs, fmt.Errorf("--packets %d: want 1..2^40 (%d)", o.Packets, int64(momentsMaxPackets)))
	}
	if o.Through < 1 || o.Through > o.Packets {
		errs = append(errs, fmt.Errorf("--through %d: want 1..--packets (%d)", o.Through, o.Packets))
	}
	if o.Congested < 0 || o.Congested > o.Through {
		errs = append(errs, fmt.Errorf("--congested %d: want 0..--through (%d)", o.Congested, o.Through))
	}
	if o.G < 1 || o.G > o.Hops {
		errs = append(errs, fmt.Errorf("--g %d: want 1..--hops (%d)", o.G, o.Hops))
	}
	if o.Format != "text" && o.Format != "markdown" && o.Format != "json" {
		errs = append(errs, fmt.Errorf("--format %q: want text, markdown or json", o.Format))
	}
	return errors.Join(errs...)
}

// A momentsRow is one estimator's mean and variance.
type momentsRow struct {
	Estimator string  `json:"estimator"`
	Mean      jsonNum `json:"mean"` // NaN (null) when the row has no mean
	Variance  jsonNum `json:"variance"`
	Source    string  `json:"source"`
}

// jsonNum is a float64 that JSON writes in full (the shortest form that reads
// back to the same value), with null for NaN and the strings "+Inf"/"-Inf".
type jsonNum float64

func (v jsonNum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// momentsLaw is the congested fraction's law as model moments writes it.
type momentsLaw struct {
	Method       string  `json:"method"` // exact or simulated
	Replicates   int     `json:"replicates,omitempty"`
	PNonPositive jsonNum `json:"p_w_nonpositive"` // P(W_d <= 0)
	Mean         jsonNum `json:"mean"`            // E[F | W_d > 0]
	Variance     jsonNum `json:"variance"`        // Var[F | W_d > 0]
	POutside     jsonNum `json:"p_outside_0_1"`   // P(F outside [0, 1] | W_d > 0)
	CV           jsonNum `json:"cv_w"`            // sd/mean of W_d
}

// momentsResult is model moments' output.
type momentsResult struct {
	Hops      int          `json:"hops"`
	Packets   int64        `json:"packets"`
	Through   int64        `json:"through"`
	Congested int64        `json:"congested"`
	G         int          `json:"g"`
	Rows      []momentsRow `json:"rows"`
	Fraction  *momentsLaw  `json:"fraction,omitempty"` // the fraction's law given W_d > 0
	Notes     []string     `json:"notes"`
}

func runModelMoments(w io.Writer, o *modelMomentsOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	res, err := modelMoments(o)
	if err != nil {
		return err
	}
	return writeMoments(w, o.Format, res)
}

func modelMoments(o *modelMomentsOptions) (*momentsResult, error) {
	l := o.Hops
	flags := make([]bool, l)
	for j := range o.G {
		flags[j] = true // d is hop 1, congested with g-1 others
	}
	classes := []refmodel.PathClass{
		{Packets: o.Congested, Len: l, At: 1, Congested: flags},
		{Packets: o.Through - o.Congested, Len: l, At: 1},
		{Packets: o.Packets - o.Through, Len: l},
	}
	one, err := refmodel.OneReservoirMoments(classes, refmodel.IdealSelection)
	if err != nil {
		return nil, err
	}
	fm, fv := refmodel.FullIDMoments(o.Through, l)
	pm, pv := refmodel.ProbMoments(o.Through, o.Packets, l)
	tm, tv := refmodel.TaylorF(max(o.Congested, 1), o.Through, o.G, l)
	res := &momentsResult{Hops: l, Packets: o.Packets, Through: o.Through, Congested: o.Congested, G: o.G}
	res.Rows = []momentsRow{
		{"full-ID count W", jsonNum(fm), jsonNum(fv), "section 3.3: N, N(l-1)"},
		{"one-bit count W_d", jsonNum(pm), jsonNum(pv), "section 5.3: N, Q l^2 - N"},
		{"full-ID fraction F", jsonNum(tm), jsonNum(tv), "section 3.3 Taylor"},
		{"one-reservoir C_d", jsonNum(one.MeanC), jsonNum(one.VarC), fmt.Sprintf("M, l G - M (G = %d congested hops)", int64(o.G)*o.Congested)},
		{"one-reservoir Cov(W_d, C_d)", jsonNum(math.NaN()), jsonNum(one.CovWC), "l G - M"},
	}
	if one.MeanC > 0 {
		rm, rv := refmodel.RatioMoments(one)
		law, err := refmodel.OneReservoirRatio(classes, refmodel.IdealSelection, refmodel.DefaultRatioWork, momentsReplicates, momentsSeed)
		if err != nil {
			return nil, err
		}
		res.Fraction = &momentsLaw{Method: law.Method, Replicates: law.Replicates, PNonPositive: jsonNum(law.PNonPositive),
			Mean: jsonNum(law.Mean), Variance: jsonNum(law.Var), POutside: jsonNum(law.POutside), CV: jsonNum(law.CV)}
		res.Rows = append(res.Rows,
			momentsRow{"one-reservoir fraction C_d/W_d", jsonNum(rm), jsonNum(rv), "delta method"},
			momentsRow{"one-reservoir fraction C_d/W_d given W_d > 0", jsonNum(law.Mean), jsonNum(law.Var), law.Method + " law"})
		holds := "it holds"
		if law.CV > 0.1 || law.PNonPositive > 1e-3 {
			holds = "it does NOT hold here: use the " + law.Method + " law"
		}
		res.Notes = append(res.Notes,
			fmt.Sprintf("the delta method needs W_d far from 0 (coefficient of variation well below 1; here %.3g, and P(W_d <= 0) = %.3g): %s", law.CV, law.PNonPositive, holds),
			fmt.Sprintf("given W_d > 0, F lies outside [0, 1] with probability %.3g", law.POutside))
		if law.Method == "simulated" {
			res.Notes = append(res.Notes, fmt.Sprintf("the law is simulated from the same model (%d draws, seed %d): the exact convolution would take too long", law.Replicates, momentsSeed))
		}
	}
	return res, nil
}

func writeMoments(w io.Writer, format string, res *momentsResult) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	case "markdown":
		fmt.Fprintf(w, "l = %d, Q = %d, N = %d, M = %d, g = %d\n\n| estimator | mean | variance | source |\n|---|---:|---:|---|\n",
			res.Hops, res.Packets, res.Through, res.Congested, res.G)
		for _, r := range res.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Estimator, momentsNum(float64(r.Mean)), momentsNum(float64(r.Variance)), r.Source)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(w, "\n%s.\n", strings.ToUpper(n[:1])+n[1:])
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "l=%d Q=%d N=%d M=%d g=%d\n", res.Hops, res.Packets, res.Through, res.Congested, res.G)
	fmt.Fprintln(tw, "estimator\tmean\tvariance\tsource")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Estimator, momentsNum(float64(r.Mean)), momentsNum(float64(r.Variance)), r.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// momentsNum writes a figure with 6 significant digits, blank when absent.
func momentsNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// ---- model threshold

type modelThresholdOptions struct {
	Links int     // links sharing the traffic evenly
	L     int     // longest path
	P     float64 // confidence
	Q     int64   // packets, for the threshold itself
}

func newModelThresholdCmd() *cobra.Command {
	o := &modelThresholdOptions{Links: 8 * 24, L: 5, P: refmodel.DefaultP, Q: 5_000_000}
	c := &cobra.Command{
		Use:   "threshold",
		Short: "Print the false-positive threshold L*sqrt(Q)*Phi^-1(p) and the packets needed to clear it (thesis section 5.3)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runModelThreshold(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.IntVar(&o.Links, "links", o.Links, "links sharing the traffic evenly (the 5-hop example: 8*24)")
	f.IntVar(&o.L, "hops", o.L, "L, the longest path")
	f.Float64Var(&o.P, "p", o.P, "confidence that a zero-traffic link is hidden")
	f.Int64Var(&o.Q, "packets", o.Q, "Q, packets that might have crossed the link")
	return c
}

func runModelThreshold(w io.Writer, o *modelThresholdOptions) error {
	if o.Links < 1 || o.L < 1 || o.P <= 0 || o.P >= 1 || o.Q < 1 {
		return fmt.Errorf("want --links >= 1, --hops >= 1, 0 < --p < 1 and --packets >= 1")
	}
	fmt.Fprintf(w, "Phi^-1(%g) = %.6f\n", o.P, refmodel.NormalQuantile(o.P))
	fmt.Fprintf(w, "threshold at Q=%d, L=%d: %.1f\n", o.Q, o.L, refmodel.Threshold(o.L, o.Q, o.P))
	fmt.Fprintf(w, "packets for a link with 1/%d of the traffic to reach it in expectation: %d\n", o.Links, refmodel.RequiredPackets(o.Links, o.L, o.P))
	pf := refmodel.FamilyP(o.P, o.Links)
	fmt.Fprintf(w, "family-wise over %d zero-traffic links (p = %.8f): threshold %.1f, packets %d\n",
		o.Links, pf, refmodel.Threshold(o.L, o.Q, pf), refmodel.RequiredPackets(o.Links, o.L, pf))
	return nil
}
