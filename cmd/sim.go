package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"ibreservoir/cfplot"
	"ibreservoir/congestion"
	"ibreservoir/fabric"
	"ibreservoir/header"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// `ibreservoir sim`: the packet-level fat-tree simulation (package
// fabric), with results as JSON and congested-fraction plots (package cfplot).

type simOptions struct {
	Preset       string
	Topology     string // overrides the preset's tree
	Out          string
	Seed         uint64
	MTU          int // 0: the preset's
	Congestion   string
	Schemes      string
	Perspective  string // "": the preset's; "all": every packet; N: application N
	P            float64
	InputBuffer  int // 0: the default
	OutputBuffer int
	HCABuffer    int
	Windows      int // -1: the preset's
	Crop         int // plot the left-most leaves
	Plots        bool
	Progress     bool
	List         bool
}

func newSimCmd() *cobra.Command {
	o := &simOptions{Seed: 1, Congestion: "queue-over-credits", Schemes: "fullid64,one5,two8", P: refmodel.DefaultP, Crop: 24, Plots: true, Progress: true}
	c := &cobra.Command{
		Use:   "sim --preset NAME",
		Short: "Simulate a fat tree carrying the telemetry and compare every scheme's estimate with the truth",
		Long: `Runs a packet-level simulation of an InfiniBand fat tree (thesis chapter 4,
issue 7): every switch hop runs the reference model's switch stage on the
packets' real bytes, every receiver its decoder. Writes, into --out:

  result.json      truth beside each scheme's estimate per link, errors,
                   false positives and negatives at the threshold, port
                   counters (PortXmitWait) and the diagnosis of section 4.1
  <view>-<dir>.svg and .png
                   congested-fraction plots (Fig. 3.1 style) of the truth and
                   of each scheme, up, down and both directions

The run is reproducible from --seed, byte for byte. --list shows the presets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSim(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Preset, "preset", "", "experiment to run (see --list)")
	f.StringVar(&o.Topology, "topology", "", "replace the preset's tree: "+strings.Join(topo.Names, " | "))
	f.StringVarP(&o.Out, "out", "o", "", "output directory (default sim-<preset>)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "run seed: traffic, PSNs, port generators and congestion detectors all derive from it")
	f.IntVar(&o.MTU, "mtu", 0, "largest payload per packet, 256..4096 (default: the preset's)")
	f.StringVar(&o.Congestion, "congestion", o.Congestion, "congestion definition (section 5.10): "+strings.Join(congestion.Names, " | "))
	f.StringVar(&o.Schemes, "schemes", o.Schemes, "comma-separated schemes: "+strings.Join(schemeNames(), ", "))
	f.StringVar(&o.Perspective, "perspective", "", "decode only application N's packets (0, 1, ...), or all of them (all); default: the preset's")
	f.Float64Var(&o.P, "p", o.P, "confidence of the false-positive threshold (section 5.3)")
	f.IntVar(&o.InputBuffer, "input-buffer", 0, "bytes of buffer per switch input port, the credits upstream sees (default 32768)")
	f.IntVar(&o.OutputBuffer, "output-buffer", 0, "bytes per switch output queue (default 131072)")
	f.IntVar(&o.HCABuffer, "hca-buffer", 0, "bytes of receive buffer per HCA, the credits of the leaf's port to it (default 65536)")
	f.IntVar(&o.Windows, "windows", -1, "also decode the packets in N equal windows of arrival time and plot each (Fig. 4.11); default: the preset's")
	f.IntVar(&o.Crop, "crop", o.Crop, "plot only the left-most N leaves (0: all)")
	f.BoolVar(&o.Plots, "plots", o.Plots, "write the congested-fraction plots")
	f.BoolVar(&o.Progress, "progress", o.Progress, "show a progress bar on stderr")
	f.BoolVar(&o.List, "list", false, "list the presets and exit")
	return c
}

func init() { rootCmd.AddCommand(newSimCmd()) }

// simSchemes are the named telemetry configurations --schemes accepts.
var simSchemes = map[string]func() refmodel.Config{
	"fullid64": func() refmodel.Config { // section 5.1's 64-bit layout
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme, c.Telemetry.CountBits = header.FullID, 8
		return c
	},
	"fullid40": func() refmodel.Config { // section 5.1's 40-bit layout
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme, c.Telemetry.CountBits, c.Telemetry.SwitchBits, c.Telemetry.PortBits = header.FullID, 4, 10, 6
		return c
	},
	"one5": refmodel.DefaultConfig, // Alg. 8-9, b = 3: 5 bits in BTH Resv6
	"one6": func() refmodel.Config { // b = 4: 6 bits
		c := refmodel.DefaultConfig()
		c.Telemetry.CountBits = 4
		return c
	},
	"two8": func() refmodel.Config { // Alg. 5-7, b = 3: 8 bits in a footer
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme = header.TwoReservoir
		return c
	},
}

func schemeNames() []string { return []string{"fullid64", "fullid40", "one5", "one6", "two8"} }

func parseSimSchemes(list string, seed uint64, maxSwitch, maxPort int) ([]refmodel.Config, error) {
	var cs []refmodel.Config
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		mk, ok := simSchemes[n]
		if !ok {
			return nil, fmt.Errorf("--schemes: unknown scheme %q; choose from %s", n, strings.Join(schemeNames(), ", "))
		}
		if seen[n] {
			return nil, fmt.Errorf("--schemes: %s listed twice", n)
		}
		seen[n] = true
		c := mk()
		c.Seed, c.MaxSwitch, c.MaxPort = seed, maxSwitch, maxPort
		cs = append(cs, c)
	}
	return cs, nil
}

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
	if o.Preset == "" {
		return fmt.Errorf("no --preset given; choose one of %s (--list describes them)", strings.Join(fabric.PresetNames(), ", "))
	}
	pr, err := fabric.LookupPreset(o.Preset)
	if err != nil {
		return fmt.Errorf("--preset: %w", err)
	}
	var tp *topo.Topology
	if o.Topology != "" {
		if tp, err = topo.Parse(o.Topology); err != nil {
			return fmt.Errorf("--topology: %w", err)
		}
	} else if tp, err = pr.Topology(); err != nil {
		return err
	}
	p := fabric.DefaultParams()
	if pr.Adjust != nil {
		pr.Adjust(&p)
	}
	p.Seed = o.Seed
	if o.MTU != 0 {
		p.MTU = o.MTU
	}
	switch o.Perspective {
	case "":
	case "all":
		p.Perspective = -1
	default:
		n, err := strconv.Atoi(o.Perspective)
		if err != nil || n < 0 {
			return fmt.Errorf("--perspective %q: want an application number (0, 1, ...) or all", o.Perspective)
		}
		p.Perspective = n
	}
	if o.Windows >= 0 {
		p.Windows = o.Windows
	}
	for _, b := range []struct{ flag, dst *int }{{&o.InputBuffer, &p.InputBuffer}, {&o.OutputBuffer, &p.OutputBuffer}, {&o.HCABuffer, &p.NICBuffer}} {
		if *b.flag != 0 {
			*b.dst = *b.flag
		}
	}
	p.P = o.P
	if p.Congestion, err = congestion.ParseDefinition(o.Congestion); err != nil {
		return fmt.Errorf("--congestion: %w", err)
	}
	if p.Schemes, err = parseSimSchemes(o.Schemes, o.Seed, len(tp.Switches)-1, tp.MaxPort()); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("parameters: %w", err)
	}
	w, err := pr.Workload(tp, o.Seed)
	if err != nil {
		return fmt.Errorf("preset %s on %s: %w; choose another --topology", o.Preset, tp.Name, err)
	}
	if p.Perspective >= len(w.Apps) {
		return fmt.Errorf("--perspective %d: workload %s has applications 0..%d (%s)", p.Perspective, w.Name, len(w.Apps)-1, strings.Join(w.Apps, ", "))
	}
	out := o.Out
	if out == "" {
		out = "sim-" + o.Preset
	}
	s, err := fabric.New(tp, w, p)
	if err != nil {
		return err
	}
	if o.Progress {
		bar := progressbar.NewOptions64(-1, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription(o.Preset+": packets"),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		s.SetProgress(func(done, total int64) {
			bar.ChangeMax64(total)
			bar.Set64(done)
		})
		defer bar.Finish()
	}
	start := time.Now()
	r, err := s.Run(ctx)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(out, "result.json"), append(b, '\n')); err != nil {
		return err
	}
	if o.Plots {
		type view struct {
			name string
			i    int // scheme index, -1 for the ground truth
		}
		views := []view{{"truth", -1}}
		for i, n := range strings.Split(o.Schemes, ",") {
			views = append(views, view{strings.TrimSpace(n), i})
		}
		for _, v := range views {
			for _, d := range []cfplot.Direction{cfplot.Up, cfplot.Down, cfplot.Both} {
				title := fmt.Sprintf("%s on %s\ncongested fraction: %s\n%s direction", o.Preset, tp.Name, v.name, d)
				for _, ext := range []string{".svg", ".png"} {
					path := filepath.Join(out, v.name+"-"+d.String()+ext)
					if err := cfplot.Write(path, tp, r.Fractions(v.i), cfplot.Options{Title: title, Direction: d, MaxLeaves: o.Crop, PNGDPI: 150}); err != nil {
						return err
					}
				}
			}
			if v.i < 0 {
				continue
			}
			for k, win := range r.Windows {
				title := fmt.Sprintf("%s on %s\ncongested fraction: %s, down direction\narrivals %.1f-%.1f us (window %d of %d)",
					o.Preset, tp.Name, v.name, float64(win.StartPS)/1e6, float64(win.EndPS)/1e6, k+1, len(r.Windows))
				for _, ext := range []string{".svg", ".png"} {
					path := filepath.Join(out, fmt.Sprintf("%s-window%d-down%s", v.name, k+1, ext))
					if err := cfplot.Write(path, tp, r.WindowFractions(k, v.i), cfplot.Options{Title: title, Direction: cfplot.Down, MaxLeaves: o.Crop, PNGDPI: 150}); err != nil {
						return err
					}
				}
			}
		}
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
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%s\n", sc.Name, sc.TrueLinks, sc.ReportedLinks, sc.FalsePositives, sc.FalseNegatives,
			sc.RelativeError, sc.ZMean, sc.ZMeanSquare, r.Diagnoses[i].Cause)
	}
	tw.Flush()
	if len(r.Diagnoses) > 0 {
		d := r.Diagnoses[len(r.Diagnoses)-1]
		for _, x := range r.Diagnoses {
			if strings.HasPrefix(x.Scheme, "onereservoir") {
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
