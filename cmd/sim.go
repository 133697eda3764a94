// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/cfplot"
	"ibreservoir/congestion"
	"ibreservoir/fabric"
	"ibreservoir/header"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// `ibreservoir sim`: the packet-level fat-tree simulation (package fabric),
// with results as JSON and congested-fraction plots (package cfplot).

type simOptions struct {
	fabric.Experiment
	Out      string
	Crop     int // plot the left-most leaves
	Plots    bool
	Progress bool
	List     bool
}

func newSimCmd() *cobra.Command {
	o := &simOptions{Experiment: fabric.Experiment{Seed: 1, Congestion: congestion.QueueOverCredits{}.Name(), Schemes: fabric.DefaultSchemeNames(), P: refmodel.DefaultP},
		Crop: 24, Plots: true, Progress: true}
	c := &cobra.Command{
		Use:   "sim --preset NAME",
		Short: "Simulate a fat tree carrying the telemetry and compare every scheme's estimate with the truth",
		Long: `Runs a packet-level simulation of an InfiniBand fat tree (thesis chapter 4):
every switch hop runs the reference model's switch stage on the packets' real
bytes, every receiver its decoder. Writes, into --out:

  result.json      truth beside each scheme's estimate per link, errors,
                   false positives and negatives at the threshold, port
                   counters (PortXmitWait) and the diagnosis of section 4.1
  <view>-<dir>.svg and .png
                   congested-fraction plots (Fig. 3.1 style) of the truth and
                   of each scheme, up, down and both directions

The files appear together when the run is complete; an interrupted or failed
run leaves the directory as it was. The run is reproducible from --seed, byte
for byte. --list shows the presets.`,
		Example: `  ibreservoir sim --list
  ibreservoir sim --preset reduction-small --out out/sim-small
  ibreservoir sim --preset reduction-tapered --schemes one5,two8 --windows 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			if o.List {
				var others []string
				fs.Visit(func(f *pflag.Flag) {
					if f.Name != "list" {
						others = append(others, f.Name)
					}
				})
				if err := cli.NoEffect(fs, "with --list", "", others...); err != nil {
					return err
				}
			}
			if !o.Plots {
				if err := cli.NoEffect(fs, "with --plots=false", "", "crop"); err != nil {
					return err
				}
			}
			return runSim(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Preset, "preset", "", "experiment to run (see --list)")
	f.StringVar(&o.Topology, "topology", "", "replace the preset's tree: "+strings.Join(topo.Names, " | "))
	f.StringVarP(&o.Out, "out", "o", "", "output directory (default sim-<preset>)")
	f.Uint64Var(&o.Seed, flagSeed, o.Seed, "run seed: traffic, PSNs, port generators and congestion detectors all derive from it")
	cli.IntVar(f, &o.MTU, "mtu", 0, 4096, "largest payload per packet: 256, 512, 1024, 2048 or 4096 bytes; 0: the preset's")
	cli.CheckedStringVar(f, &o.Congestion, "congestion", "definition", func(s string) error { _, err := congestion.ParseDefinition(s); return err },
		"congestion definition (section 5.10): "+strings.Join(congestion.Names, " | "))
	f.StringSliceVar(&o.Schemes, "schemes", o.Schemes, "schemes to carry, comma-separated, by short name (as result.json and the plots name them) or by layout name (as the vector sets and the other commands do): "+fabric.SchemeList())
	f.StringVar(&o.Perspective, "perspective", "", "decode only application N's packets (0, 1, ...), or all of them (all) (default the preset's)")
	cli.FloatVar(f, &o.P, "p", cli.Range{Lo: 0.5, Hi: 1}, "confidence of the false-positive threshold (section 5.3), 0.5 < p < 1")
	d := fabric.DefaultParams()
	cli.IntVar(f, &o.InputBuffer, "input-buffer", 0, 1<<30, fmt.Sprintf("bytes of buffer per switch input port, the credits upstream sees; 0: %d", d.InputBuffer))
	cli.IntVar(f, &o.OutputBuffer, "output-buffer", 0, 1<<30, fmt.Sprintf("bytes per switch output queue; 0: %d", d.OutputBuffer))
	cli.IntVar(f, &o.HCABuffer, "hca-buffer", 0, 1<<30, fmt.Sprintf("bytes of receive buffer per HCA, the credits of the leaf's port to it; 0: %d", d.NICBuffer))
	cli.OptionalIntVar(f, &o.Windows, "windows", -1, 0, 100, "also decode the packets in N equal windows of arrival time and plot each (Fig. 4.11), 0..100 (default the preset's)")
	cli.IntVar(f, &o.Crop, "crop", 0, math.MaxInt, "plot only the left-most N leaves (0: all)")
	f.BoolVar(&o.Plots, "plots", o.Plots, "write the congested-fraction plots")
	f.BoolVar(&o.Progress, "progress", o.Progress, "show a progress bar on stderr")
	f.BoolVar(&o.List, "list", false, "list the presets and exit")
	return c
}

// cfDirections maps fabric's plot directions to cfplot's.
var cfDirections = map[string]cfplot.Direction{"up": cfplot.Up, "down": cfplot.Down, "both": cfplot.Both}

// runSim checks everything (the experiment and the output directory) before
// simulating, and writes the outputs as one set.
func runSim(ctx context.Context, stdout, stderr io.Writer, o *simOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.List {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, n := range fabric.PresetNames() {
			fmt.Fprintf(tw, "%s\t%s\n", n, fabric.Presets[n].Description)
		}
		return tw.Flush()
	}
	out := o.Out
	if out == "" && o.Preset != "" {
		out = "sim-" + o.Preset
	}
	if out != "" {
		if err := cli.CheckOutputDir("--out", out); err != nil {
			return err
		}
	}
	run, err := o.Experiment.Prepare()
	if err != nil {
		var pe *fabric.ParamError
		if errors.As(err, &pe) {
			if pe.Param == "preset" && o.Preset == "" {
				return fmt.Errorf("no --preset given; choose one of %s (--list describes them)", strings.Join(fabric.PresetNames(), ", "))
			}
			return fmt.Errorf("--%w", err)
		}
		return err
	}
	var progress func(done, total int64)
	if o.Progress {
		bar := progressbar.NewOptions64(-1, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription(o.Preset+": packets"),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		progress = func(done, total int64) {
			bar.ChangeMax64(total)
			bar.Set64(done)
		}
		defer bar.Finish()
	}
	start := time.Now()
	r, err := run.Simulate(ctx, progress)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	dir, err := atomicfile.CreateDir(out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(dir.Path("result.json"), append(b, '\n')); err != nil {
		return err
	}
	if o.Plots {
		for _, v := range run.PlotViews(r) {
			for _, ext := range []string{".svg", ".png"} {
				if err := ctx.Err(); err != nil {
					return err
				}
				opt := cfplot.Options{Title: v.Title, Notes: plotNotes(r, o.Experiment, v.File), Direction: cfDirections[v.Direction], MaxLeaves: o.Crop, PNGDPI: 150}
				if err := cfplot.Write(dir.Path(v.File+ext), run.Tree, v.Fractions, opt); err != nil {
					return err
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	printSimSummary(stdout, r, o, wall, out)
	return nil
}

func printSimSummary(w io.Writer, r *fabric.Result, o *simOptions, wall time.Duration, out string) {
	fmt.Fprintf(w, "%s on %s, seed %d: %d packets, %d hops, %.1f us simulated, %.1f s wall (not in result.json)\n",
		r.Workload, r.Topology, r.Seed, r.Stats.Packets, r.Stats.Hops, float64(r.Stats.SimTimePS)/1e6, wall.Seconds())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scheme\tlinks\treported\tFP\tFN\trel. error\tmean z\tmean z^2\tcause")
	for i, sc := range r.Schemes {
		name := sc.Name + " = " + sc.Layout
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%s\n", name, sc.TrueLinks, sc.ReportedLinks, sc.FalsePositives, sc.FalseNegatives,
			sc.RelativeError, sc.ZMean, sc.ZMeanSquare, r.Diagnoses[i].Cause)
	}
	tw.Flush()
	if len(r.Diagnoses) > 0 {
		d := r.Diagnoses[len(r.Diagnoses)-1]
		for i, x := range r.Diagnoses {
			if strings.HasPrefix(r.Schemes[i].Layout, "onereservoir") {
				d = x
				break
			}
		}
		fmt.Fprintf(w, "diagnosis (%s): %s: %s\n", d.Scheme, d.Cause, d.Reason)
		for k, rt := range d.Roots {
			if k == 5 {
				fmt.Fprintf(w, "  ... %d more roots in result.json\n", len(d.Roots)-5)
				break
			}
			kind := "internal"
			if rt.Endpoint {
				kind = fmt.Sprintf("endpoint, node %d", rt.Node)
			}
			fmt.Fprintf(w, "  root %d:%d (%s): congested fraction %.3f, %d packets, utilization %.2f, PortXmitWait %.1f us -> %s\n",
				rt.Switch, rt.Port, kind, rt.Fraction, rt.W, rt.Utilization, float64(rt.XmitWaitPS)/1e6, rt.Cause)
		}
		if d.CounterView != "" {
			fmt.Fprintf(w, "  counters: %s\n", d.CounterView)
		}
	}
	fmt.Fprintf(w, "port counters: %.1f%% of %d (port, %.0f us interval) observations stalled for credit; largest FITF %.2f\n",
		100*r.Counters.Stalled, r.Counters.Observations, float64(r.Counters.IntervalPS)/1e6, r.Counters.MaxFITF)
	fmt.Fprintf(w, "wrote %s\n", out)
}

// plotNotes are the lines a congested-fraction plot needs to be judged: what
// the scheme's short name stands for, the packets and the seed, and the
// threshold below which a link is not drawn. file is the plot's file name
// (fabric.PlotView.File), which starts with the scheme's short name or
// "truth".
func plotNotes(r *fabric.Result, e fabric.Experiment, file string) []string {
	name, _, _ := strings.Cut(file, "-")
	p := e.P
	if p == 0 {
		p = refmodel.DefaultP
	}
	counts := fmt.Sprintf("%d packets, seed %d", r.Stats.Packets, r.Seed)
	for i, sc := range r.Schemes {
		if sc.Name != name {
			continue
		}
		c := r.Params.Schemes[i]
		notes := []string{fmt.Sprintf("%s = %s (scheme, hop-count bits, where the fields go): hash %s, id %s, generator %s",
			sc.Name, sc.Layout, c.Hash, c.ID, c.Generator)}
		if c.Telemetry.Scheme == header.FullID {
			return append(notes, counts+"; full ID: every link a packet was sampled on is drawn")
		}
		return append(notes, fmt.Sprintf("%s; links whose weighted count is below the threshold of section 5.3 "+
			"(L = %d, the diameter; p = %g) are not drawn", counts, r.Stats.Diameter, p))
	}
	return []string{"truth: the simulator's own count of the packets that left each link through a congested port", counts}
}
