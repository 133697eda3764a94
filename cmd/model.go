package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
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
	Hops      int   // l
	Packets   int64 // Q: packets that might have crossed d
	Through   int64 // N: packets that crossed d
	Congested int64 // M: packets congested at d
	G         int   // congested hops of each congested packet (section 3.3's g)
}

func newModelMomentsCmd() *cobra.Command {
	o := &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2}
	c := &cobra.Command{
		Use:   "moments",
		Short: "Print the analytic means and variances of the estimators (thesis sections 3.3 and 5.3, and the one-reservoir scheme's)",
		Long: `For one link d on paths of l hops: Q packets might have crossed d, N did, and
M of those were congested at d, each congested packet on g hops (d among them).
Prints E and Var of the full-ID count (section 3.3), the one-bit count W_d
(section 5.3), the Taylor estimates of the congested fraction, and the
one-reservoir scheme's congested count (docs/onereservoir-moments.md), with
an ideal generator and no saturation.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runModelMoments(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.IntVar(&o.Hops, "hops", o.Hops, "path length l")
	f.Int64Var(&o.Packets, "packets", o.Packets, "Q: packets that might have crossed the link")
	f.Int64Var(&o.Through, "through", o.Through, "N: packets that crossed the link")
	f.Int64Var(&o.Congested, "congested", o.Congested, "M: packets congested at the link")
	f.IntVar(&o.G, "g", o.G, "congested hops of each congested packet, the link included")
	return c
}

func runModelMoments(w io.Writer, o *modelMomentsOptions) error {
	if o.Hops < 1 || o.Through < 1 || o.Packets < o.Through || o.Congested < 0 || o.Congested > o.Through || o.G < 1 || o.G > o.Hops {
		return fmt.Errorf("want --hops >= 1, 1 <= --through <= --packets, 0 <= --congested <= --through and 1 <= --g <= --hops")
	}
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
		return err
	}
	fm, fv := refmodel.FullIDMoments(o.Through, l)
	pm, pv := refmodel.ProbMoments(o.Through, o.Packets, l)
	tm, tv := refmodel.TaylorF(max(o.Congested, 1), o.Through, o.G, l)
	rm, rv := refmodel.RatioMoments(one)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "l=%d Q=%d N=%d M=%d g=%d\n", l, o.Packets, o.Through, o.Congested, o.G)
	fmt.Fprintln(tw, "estimator\tmean\tvariance\tsource")
	fmt.Fprintf(tw, "full-ID count W\t%.4g\t%.4g\tsection 3.3: N, N(l-1)\n", fm, fv)
	fmt.Fprintf(tw, "one-bit count W_d\t%.4g\t%.4g\tsection 5.3: N, Q l^2 - N\n", pm, pv)
	fmt.Fprintf(tw, "full-ID fraction F\t%.6g\t%.4g\tsection 3.3 Taylor\n", tm, tv)
	fmt.Fprintf(tw, "one-reservoir C_d\t%.4g\t%.4g\tM, l G - M (G = %d congested hops)\n", one.MeanC, one.VarC, int64(o.G)*o.Congested)
	fmt.Fprintf(tw, "one-reservoir Cov(W_d, C_d)\t\t%.4g\tl G - M\n", one.CovWC)
	if one.MeanC > 0 {
		fmt.Fprintf(tw, "one-reservoir fraction C_d/W_d\t%.6g\t%.4g\tdelta method\n", rm, rv)
	}
	return tw.Flush()
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
