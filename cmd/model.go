// SPDX-License-Identifier: Apache-2.0

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
	"ibreservoir/internal/cli"
	"ibreservoir/internal/jsonfloat"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// `ibreservoir model ...`: inspection of the reference model and its
// statistics (package refmodel).

func newModelCmd() *cobra.Command {
	c := cli.Group(&cobra.Command{
		Use:   "model",
		Short: "Inspect the reference model: configuration, saturation bias, moments, thresholds",
	})
	c.AddCommand(newModelConfigCmd(), newModelSaturationCmd(), newModelMomentsCmd(), newModelThresholdCmd())
	return c
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
		Long: `Validate a model configuration given by its flags and print it as the vector
manifests record it (JSON). The flags are the settings of a configuration
string (refmodel.ParseConfig): --hash siphash is hash=siphash. Without flags it
prints the thesis's configuration (Hmult0 over the PSN), the vectors' default,
which does not decode soundly; the second example is the configuration that
does (refmodel.RecommendedConfig).`,
		Example: `  ibreservoir model config
  ibreservoir model config --hash siphash --id psn-slid --generator lfsr-lut/b16
  ibreservoir model config --scheme tworeservoir --sender-draws 5 --generator sender --global --placement footer`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkTelemetryFlags(cmd.Flags(), o.Config.Telemetry); err != nil {
				return err
			}
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

// maxPathHops bounds the path lengths the model's commands accept: a fat
// tree's longest path is 2n-2 hops and the thesis's fabrics stay under ten,
// while exact rational arithmetic over longer paths only grows.
const maxPathHops = 255

type modelSaturationOptions struct {
	CountBits int    // saturating count width b
	Hops      int    // path length l
	Sender    int    // sender draws L (0: a switch generator)
	Generator string // switch generator name (rng.New); its P0 sets the overwrite probabilities
	Format    cli.Format
}

func newModelSaturationCmd() *cobra.Command {
	o := &modelSaturationOptions{CountBits: 3, Hops: 5, Generator: "ideal"}
	c := &cobra.Command{
		Use:   "saturation",
		Short: "Print the exact distribution of the sampled hop and the expected weighted counts (thesis section 5.6)",
		Long: `Prints, in exact rational arithmetic, the probability that the reservoir holds
each hop of an l-hop path and the expected weighted count each hop's link
receives per packet (1 is unbiased), for a b-bit saturating count and a switch
generator, or for L sender draws (section 5.9). --format markdown gives the
table for a document, json every figure as an exact fraction and a float64.
The thesis's example:

    ibreservoir model saturation --count-bits 2 --hops 5     # 9/16, 9/16, 9/16, 9/16, 12/16`,
		Example: `  ibreservoir model saturation
  ibreservoir model saturation --hops 5 --count-bits 2
  ibreservoir model saturation --generator lfsr-lut/b8 --format markdown
  ibreservoir model saturation --sender-draws 3 --hops 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Sender > 0 {
				if err := cli.NoEffect(cmd.Flags(), "with --sender-draws (the sender's draws replace the count and the switch generator)", "",
					flagCountBits, flagGenerator); err != nil {
					return err
				}
			}
			return runModelSaturation(cmd.OutOrStdout(), o)
		},
	}
	f := c.Flags()
	cli.IntVar(f, &o.CountBits, flagCountBits, 1, 16, "width b of the saturating hop count, 1..16")
	cli.IntVar(f, &o.Hops, "hops", 1, maxPathHops, fmt.Sprintf("path length l in hops, 1..%d", maxPathHops))
	cli.IntVar(f, &o.Sender, flagSenderL, 0, rng.MaxSenderL, "L > 0: sender-generated draws (section 5.9) instead of a switch generator and a count")
	cli.GeneratorVar(f, &o.Generator, "switch generator whose long-run P0(l) gives the overwrite probabilities: "+rng.Syntax)
	cli.FormatVar(f, &o.Format)
	return c
}

// ratJSON is an exact probability and its nearest float64.
type ratJSON struct {
	Exact string  `json:"exact"`
	Value float64 `json:"value"`
}

func ratOf(r *big.Rat) ratJSON {
	f, _ := r.Float64()
	return ratJSON{r.RatString(), f}
}

// hopJSON is one hop of model saturation's JSON form.
type hopJSON struct {
	Hop      int     `json:"hop"`
	P        ratJSON `json:"p_selected"`
	Expected ratJSON `json:"expected_weighted_count"`
}

// saturationJSON is the JSON form of model saturation.
type saturationJSON struct {
	Generator   string    `json:"generator,omitempty"`
	CountBits   int       `json:"count_bits,omitempty"`
	SenderDraws int       `json:"sender_draws,omitempty"`
	Hops        int       `json:"hops"`
	Weight      int64     `json:"weight"`
	Selection   []hopJSON `json:"selection"`
	None        ratJSON   `json:"p_none"`
}

func runModelSaturation(w io.Writer, o *modelSaturationOptions) error {
	var s refmodel.Selection
	var err error
	var title string
	doc := saturationJSON{Hops: o.Hops}
	if o.Sender > 0 {
		s, err = refmodel.SenderSaturation(o.Hops, o.Sender)
		title = fmt.Sprintf("sender draws L=%d, %d-hop path, weight %d", o.Sender, o.Hops, s.Weight)
		doc.SenderDraws = o.Sender
	} else {
		cfg := refmodel.DefaultConfig()
		cfg.Generator, cfg.Telemetry.CountBits, cfg.Telemetry.Placement = o.Generator, o.CountBits, header.PlaceFooter
		p0, perr := cfg.P0()
		if perr != nil {
			return fmt.Errorf("--%s %s: %w", flagGenerator, o.Generator, perr)
		}
		s, err = refmodel.Saturation(o.Hops, o.CountBits, p0)
		title = fmt.Sprintf("%s generator, %d-bit count (saturates at %d), %d-hop path, weight %d", o.Generator, o.CountBits, 1<<o.CountBits-1, o.Hops, s.Weight)
		doc.Generator, doc.CountBits = o.Generator, o.CountBits
	}
	if err != nil {
		return fmt.Errorf("%w (set --hops and --%s, or --%s)", err, flagCountBits, flagSenderL)
	}
	doc.Weight, doc.None = s.Weight, ratOf(s.None)
	md := &cli.Table{Title: "Saturation: " + title,
		Notes:   []string{"Exact probability that the reservoir holds each hop, and the expected weighted count per packet (1 is unbiased); thesis section 5.6."},
		Columns: []string{"hop", "P(selected)", "P(selected), float64", "expected weighted count", "expected, float64"}}
	for j := range s.P {
		p, e := ratOf(s.P[j]), ratOf(s.Expected[j])
		doc.Selection = append(doc.Selection, hopJSON{j + 1, p, e})
		md.Rows = append(md.Rows, []string{fmt.Sprint(j + 1), p.Exact, cli.Float(p.Value), e.Exact, cli.Float(e.Value)})
	}
	md.Rows = append(md.Rows, []string{"none", doc.None.Exact, cli.Float(doc.None.Value), "", ""})
	text := func(w io.Writer) error {
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "hop\tP(selected)\t\texpected weighted count\t\t")
		for j := range s.P {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", j+1, s.P[j].RatString(), dec(s.P[j]), s.Expected[j].RatString(), dec(s.Expected[j]))
		}
		fmt.Fprintf(tw, "none\t%s\t%s\t\t\t\n", s.None.RatString(), dec(s.None))
		return tw.Flush()
	}
	return cli.Report{Text: text, Tables: []*cli.Table{md}, JSON: doc}.Write(w, o.Format)
}

func dec(r *big.Rat) string { return r.FloatString(6) }

// ---- model moments

type modelMomentsOptions struct {
	Hops      int   // l
	Packets   int64 // Q: packets that might have crossed d
	Through   int64 // N: packets that crossed d
	Congested int64 // M: packets congested at d
	G         int   // congested hops of each congested packet (section 3.3's g)
	Format    cli.Format
}

// The bounds of model moments' inputs: paths of at most maxPathHops hops, and
// 2^40 packets keep every product of the formulas exact in an int64 and
// within a float64's 53 bits.
const (
	momentsMaxPackets = 1 << 40
	// momentsReplicates and momentsSeed fix the simulation of the fraction's
	// law when the exact convolution would take too long.
	momentsReplicates = 100_000
	momentsSeed       = 1
)

func newModelMomentsCmd() *cobra.Command {
	o := &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2, Format: cli.Text}
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
	cli.IntVar(f, &o.Hops, "hops", 1, maxPathHops, fmt.Sprintf("path length l, 1..%d", maxPathHops))
	cli.Int64Var(f, &o.Packets, "packets", 1, momentsMaxPackets, "Q: packets that might have crossed the link, 1..2^40")
	cli.Int64Var(f, &o.Through, "through", 1, momentsMaxPackets, "N: packets that crossed the link, 1..Q")
	cli.Int64Var(f, &o.Congested, "congested", 0, momentsMaxPackets, "M: packets congested at the link, 0..N")
	cli.IntVar(f, &o.G, "g", 1, maxPathHops, "congested hops of each congested packet, the link included, 1..l")
	cli.FormatVar(f, &o.Format)
	return c
}

// check says what is wrong with every input, before any work.
func (o *modelMomentsOptions) check() error {
	var errs []error
	if o.Hops < 1 || o.Hops > maxPathHops {
		errs = append(errs, fmt.Errorf("--hops %d: want 1..%d", o.Hops, maxPathHops))
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
	if o.Format != cli.Text && o.Format != cli.Markdown && o.Format != cli.JSON {
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

func (v jsonNum) MarshalJSON() ([]byte, error) { return jsonfloat.Marshal(float64(v), -1), nil }

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

func writeMoments(w io.Writer, format cli.Format, res *momentsResult) error {
	head := fmt.Sprintf("l=%d Q=%d N=%d M=%d g=%d", res.Hops, res.Packets, res.Through, res.Congested, res.G)
	md := &cli.Table{Title: "Moments: " + head, Columns: []string{"estimator", "mean", "variance", "source"}}
	for _, r := range res.Rows {
		md.Rows = append(md.Rows, []string{r.Estimator, momentsNum(float64(r.Mean)), momentsNum(float64(r.Variance)), r.Source})
	}
	for _, n := range res.Notes {
		md.Footer = append(md.Footer, strings.ToUpper(n[:1])+n[1:]+".")
	}
	text := func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, head)
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
	return cli.Report{Text: text, Tables: []*cli.Table{md}, JSON: res}.Write(w, format)
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
	Links  int     // links sharing the traffic evenly
	L      int     // longest path
	P      float64 // confidence
	Q      int64   // packets, for the threshold itself
	Format cli.Format
}

func newModelThresholdCmd() *cobra.Command {
	o := &modelThresholdOptions{Links: 8 * 24, L: 5, P: refmodel.DefaultP, Q: 5_000_000}
	c := &cobra.Command{
		Use:   "threshold",
		Short: "Print the false-positive threshold L*sqrt(Q)*Phi^-1(p) and the packets needed to clear it (thesis section 5.3)",
		Long: `Prints Phi^-1(p), the threshold L*sqrt(Q)*Phi^-1(p) a link's count must reach
to be reported (thesis section 5.3), the packets S needed for a link carrying
1/k of them (k = --links) to reach it in expectation, and the same at the
family-wise confidence 1-(1-p)/k that bounds the chance of any false positive
among k zero-traffic links. --format markdown gives the table for a document,
json every figure at full precision.`,
		Example: `  ibreservoir model threshold
  ibreservoir model threshold --links 192 --hops 5 --p 0.999 --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runModelThreshold(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	cli.IntVar(f, &o.Links, "links", 1, math.MaxInt, "links k sharing the traffic evenly (the 5-hop example: 8*24)")
	cli.IntVar(f, &o.L, "hops", 1, maxPathHops, fmt.Sprintf("L, the longest path, 1..%d", maxPathHops))
	cli.FloatVar(f, &o.P, "p", cli.Range{Lo: 0, Hi: 1}, "confidence that a zero-traffic link is hidden, 0 < p < 1")
	cli.Int64Var(f, &o.Q, "packets", 1, math.MaxInt64, "Q, packets that might have crossed the link")
	cli.FormatVar(f, &o.Format)
	return c
}

// thresholdRow is the threshold and the packets needed at one confidence.
type thresholdRow struct {
	P               float64 `json:"p"`
	Quantile        float64 `json:"quantile"`
	Threshold       float64 `json:"threshold"`
	RequiredPackets int64   `json:"required_packets"`
}

// thresholdJSON is the JSON form of model threshold.
type thresholdJSON struct {
	Links      int          `json:"links"`
	Hops       int          `json:"hops"`
	Packets    int64        `json:"packets"`
	PerLink    thresholdRow `json:"per_link"`
	FamilyWise thresholdRow `json:"family_wise"`
}

func runModelThreshold(w io.Writer, o *modelThresholdOptions) error {
	if o.Links < 1 || o.L < 1 || !(o.P > 0 && o.P < 1) || o.Q < 1 {
		return fmt.Errorf("want --links >= 1, --hops >= 1, 0 < --p < 1 and --packets >= 1")
	}
	row := func(p float64, what string) (thresholdRow, error) {
		s, err := refmodel.RequiredPackets(o.Links, o.L, p)
		if err != nil {
			return thresholdRow{}, fmt.Errorf("%s: %w; lower --links, --hops or --p", what, err)
		}
		return thresholdRow{p, refmodel.NormalQuantile(p), refmodel.Threshold(o.L, o.Q, p), s}, nil
	}
	per, err := row(o.P, "per link")
	if err != nil {
		return err
	}
	pf := refmodel.FamilyP(o.P, o.Links)
	if !(pf < 1) {
		return fmt.Errorf("family-wise confidence 1-(1-%g)/%d rounds to 1 in float64; lower --links or --p", o.P, o.Links)
	}
	fam, err := row(pf, "family-wise")
	if err != nil {
		return err
	}
	doc := thresholdJSON{Links: o.Links, Hops: o.L, Packets: o.Q, PerLink: per, FamilyWise: fam}
	text := func(w io.Writer) error {
		fmt.Fprintf(w, "Phi^-1(%g) = %.6f\n", o.P, per.Quantile)
		fmt.Fprintf(w, "threshold at Q=%d, L=%d: %.1f\n", o.Q, o.L, per.Threshold)
		fmt.Fprintf(w, "packets for a link with 1/%d of the traffic to reach it in expectation: %d\n", o.Links, per.RequiredPackets)
		_, err := fmt.Fprintf(w, "family-wise over %d zero-traffic links (p = %.8f): threshold %.1f, packets %d\n",
			o.Links, pf, fam.Threshold, fam.RequiredPackets)
		return err
	}
	md := &cli.Table{
		Title: fmt.Sprintf("Threshold L*sqrt(Q)*Phi^-1(p) at Q=%d, L=%d, k=%d links", o.Q, o.L, o.Links),
		Notes: []string{"Thesis section 5.3. Packets: the least S for which a link carrying S/k of S packets reaches the threshold in expectation. " +
			"Family-wise: p' = 1-(1-p)/k, so that no zero-traffic link of k passes with probability p."},
		Columns: []string{"confidence", "p", "Phi^-1(p)", "threshold", "packets"},
	}
	for _, r := range []struct {
		name string
		thresholdRow
	}{{"per link", per}, {"family-wise", fam}} {
		md.Rows = append(md.Rows, []string{r.name, cli.Float(r.P), cli.Float(r.Quantile), cli.Float(r.Threshold), fmt.Sprint(r.RequiredPackets)})
	}
	return cli.Report{Text: text, Tables: []*cli.Table{md}, JSON: doc}.Write(w, o.Format)
}
