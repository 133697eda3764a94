// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"ibreservoir/cosim"
	"ibreservoir/dpi"
	"ibreservoir/internal/cli"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

type scoreboardOptions struct {
	Configs string
	Work    string
	Lib     string
	Packets int
	Seed    uint64
	Chain   int
	Stall   int
	Gap     int
	MaxFail int
	RTL     string // a user's stage: its file list, with Top
	Top     string
	Width   int // beat width in bits (--width); 0 is verilog.DefaultWidth
	// Segmented: beats shared by two packets (--segmented; --width 256 or 512)
	Segmented bool
	Flags     rtlFlags
}

var scoreboardOpts = scoreboardOptions{Configs: "flags", Work: "out/scoreboard", Packets: dpi.DefaultRun.Packets, Seed: dpi.DefaultRun.Seed,
	Chain: dpi.DefaultRun.Chain, Stall: dpi.DefaultRun.Stall, Gap: dpi.DefaultRun.Gap, MaxFail: dpi.DefaultRun.MaxFail, Width: verilog.DefaultWidth, Flags: defaultRTLFlags()}

var scoreboardCmd = &cobra.Command{
	Use:   "scoreboard",
	Short: "Check the RTL against the model called through DPI-C, packet by packet, in a Verilator testbench",
	Long: `scoreboard builds and runs the DPI-C scoreboard of dpi/example: a SystemVerilog
testbench that generates random packets (local and global, random headers,
incoming telemetry bits and payloads; one in eight corrupt as a link can damage
it: a bad VCRC, a bad ICRC behind a right VCRC, a PktLen longer or shorter than
the frame, a PktLen beyond the longest legal packet), drives them through the
RTL switch stage with random egress stalls and ingress gaps, and checks every
output packet, every per-packet status and the generator state after every
draw against the reference model's cut-through stage, which it calls through
DPI-C (dpi/src/ibr_dpi_pkg.sv over the C library of ./capi) as each packet
enters: the model gives every expected byte, a corrupt packet's stomped VCRC
too. The summary counts the corrupt packets by kind.

--width sets the stage's beat width (its DataW: 64, 128, 256 or 512 bits):
the testbench cuts each packet into beats of that width under the stage's
beat rules (one packet per beat, the sop beat from lane 0, in_empty_i the
unused bytes of the eop beat; docs/rtl.md), with gaps and stalls per beat;
the packets and the comparison with the model are the same at every width.
--segmented (with --width 256 or 512) builds the segmented stage (names
ending _seg) and packs the packets into shared beats (docs/rtl.md, "Segmented
beats": each packet at an 8-byte segment, a beat holding the end of one and
the start of the next, densely but for random idle segments now and then;
the first packet of a port, whose generator is loaded, at a beat of its
own); the egress is reassembled by its sop, sop segment, eop and empty, every
rule checked, and each packet must leave at the segment it entered at.

It builds the C library (go build -buildmode=c-archive ./capi, so run it in a
checkout, or give --lib), writes the RTL of the configurations (package
verilog, as ibreservoir verilog does) with the verification top of package
cosim, and builds one Verilator model holding them all (reused while nothing
changed); then it runs each configuration for --packets packets. Every
mismatch is printed with the packet, a field-by-field diff and the
ibreservoir stage command that writes the packet as a vector. It exits 1 on
any mismatch, or any error the RTL's own assertions report (counted apart
from the comparison). docs/testbench.md describes the layers.

With --rtl FILELIST --top MODULE it checks a user's stage instead of the
library, as verify --rtl does: the top must have the stage's ports
(docs/rtl.md) at the configuration the RTL flags (or one --configs name)
choose and at --width (in_data_i, out_data_o width bits, in_empty_i and
out_empty_o log2(width/8)), checked before the build.`,
	Example: `  ibreservoir scoreboard
  ibreservoir scoreboard --configs mult0_ideal_c3,crc32_lfsr_lut_b16_c4 --packets 100000
  ibreservoir scoreboard --width 512 --packets 100000
  ibreservoir scoreboard --width 512 --segmented --packets 100000
  ibreservoir scoreboard --hash siphash --generator lfsr-lut/b16 --id psn-slid --stall 25% --gap 10%`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := refuseEmpty(cmd.Flags()); err != nil {
			return err
		}
		return runScoreboard(cmd.Context(), cmd.OutOrStdout(), scoreboardOpts)
	},
}

func init() {
	fs := scoreboardCmd.Flags()
	fs.StringVar(&scoreboardOpts.Configs, "configs", scoreboardOpts.Configs,
		"configurations: flags (the one the RTL flags choose), all (every hash x generator x count width), subset (one per hash), or comma-separated names like mult0_ideal_c3")
	fs.StringVar(&scoreboardOpts.Work, "work", scoreboardOpts.Work, "work directory: the C library and the Verilator build")
	fs.StringVar(&scoreboardOpts.Lib, "lib", "", "a built C library (libibreservoir.a from go build -buildmode=c-archive ./capi) (default build it from this checkout)")
	cli.IntVar(fs, &scoreboardOpts.Packets, "packets", 1, math.MaxUint32, "packets per configuration")
	fs.Uint64Var(&scoreboardOpts.Seed, "seed", scoreboardOpts.Seed, "seed of the random packets and of the ports' generator states")
	cli.IntVar(fs, &scoreboardOpts.Chain, "chain", 1, math.MaxUint32, "packets through each port before the next (a port's generator state is loaded at its first)")
	cli.PercentVar(fs, &scoreboardOpts.Stall, "stall", dpi.MaxPercent, fmt.Sprintf("percent of cycles with the egress ready low, at random: 0%% (never) to %d%%", dpi.MaxPercent))
	cli.PercentVar(fs, &scoreboardOpts.Gap, "gap", dpi.MaxPercent, fmt.Sprintf("percent chance of an idle ingress cycle before a packet: 0%% (never) to %d%%", dpi.MaxPercent))
	cli.IntVar(fs, &scoreboardOpts.MaxFail, "max-fail", 0, math.MaxUint32, "mismatches printed in full per configuration (all are counted)")
	fs.StringVar(&scoreboardOpts.RTL, "rtl", "", "check a user's stage instead of the library: its file list (-f file; paths relative to the list), with --top")
	fs.StringVar(&scoreboardOpts.Top, "top", "", "with --rtl, the stage's top module: the port contract of docs/rtl.md at the configuration the RTL flags (or one --configs name) choose")
	bindRTLFlags(fs, &scoreboardOpts.Flags)
	bindWidthFlag(fs, &scoreboardOpts.Width)
	bindSegmentedFlag(fs, &scoreboardOpts.Segmented)
	rootCmd.AddCommand(scoreboardCmd)
}

func runScoreboard(ctx context.Context, w io.Writer, o scoreboardOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	run := dpi.RunOptions{Packets: o.Packets, Seed: o.Seed, Chain: o.Chain, Stall: o.Stall, Gap: o.Gap, MaxFail: o.MaxFail}
	if err := run.Check(); err != nil {
		return err
	}
	if o.Width == 0 {
		o.Width = verilog.DefaultWidth
	}
	if err := verilog.CheckWidth(o.Width); err != nil {
		return fmt.Errorf("--width: %w", err)
	}
	if err := checkSegmented(o.Segmented, o.Width); err != nil {
		return err
	}
	o.Flags.width = o.Width // the depths a stage takes depend on it
	cfgs, err := pickConfigs(o.Configs, o.Flags, vectors.RTLMatrix())
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if len(cfgs) == 0 {
		return fmt.Errorf("--configs %q chooses no configuration", o.Configs)
	}
	cfgs = withBeats(cfgs, o.Width, o.Segmented)
	if o.Lib != "" {
		if err := checkLibrary(o.Lib); err != nil {
			return err
		}
	}
	if (o.RTL == "") != (o.Top == "") {
		return errors.New("--rtl and --top go together: the file list of the stage and its top module")
	}
	release, err := lockWork(o.Work)
	if err != nil {
		return err
	}
	defer release()
	var b *dpi.Bench
	if o.RTL != "" {
		if len(cfgs) != 1 {
			return fmt.Errorf("--configs %s with --rtl chooses %d configurations: a stage's top implements one; give flags or one name", o.Configs, len(cfgs))
		}
		u, err := cosim.LoadUserRTL(o.RTL, o.Top, cfgs[0])
		if err != nil {
			return fmt.Errorf("--rtl: %w", err)
		}
		fmt.Fprintf(w, "building the C library and the Verilator testbench of %s (%s) as %s, %d-bit beats, in %s\n", o.Top, o.RTL, cfgs[0].Name(), o.Width, o.Work)
		if b, err = dpi.BuildRTL(ctx, filepath.Join(o.Work, "rtl"), u, o.Lib); err != nil {
			return err
		}
	} else {
		// A build per beat width, so that runs at different widths reuse theirs.
		dir, beats := o.Work, fmt.Sprintf("%d-bit beats", o.Width)
		if o.Segmented {
			dir, beats = filepath.Join(o.Work, fmt.Sprintf("w%dseg", o.Width)), fmt.Sprintf("%d-bit segmented beats", o.Width)
		} else if o.Width != verilog.DefaultWidth {
			dir = filepath.Join(o.Work, fmt.Sprintf("w%d", o.Width))
		}
		fmt.Fprintf(w, "building the C library and the Verilator testbench of %d configuration(s), %s, in %s\n", len(cfgs), beats, dir)
		if b, err = dpi.Build(ctx, dir, cfgs, o.Lib); err != nil {
			return err
		}
	}
	if b.BuildTime > 0 {
		fmt.Fprintf(w, "built in %.1f s\n", b.BuildTime.Seconds())
	}
	prefix := reproPrefix()
	repro := func(c verilog.Config) string { return prefix + " stage " + strings.Join(rtlArgs(c), " ") }
	mismatches, assertions := 0, 0
	for sel := range cfgs {
		run.Repro = repro
		r, err := b.Run(ctx, sel, run)
		if err != nil {
			return err
		}
		r.Print(w)
		mismatches += r.Mismatches
		assertions += r.Assertions
	}
	if mismatches > 0 {
		return exitError{1, fmt.Errorf("%d mismatches: %w", mismatches, dpi.ErrMismatch)}
	}
	if assertions > 0 {
		return exitError{1, fmt.Errorf("%d errors reported by the RTL's own assertions, though its outputs matched the model", assertions)}
	}
	return nil
}

// The testbench counts packets, chains and mismatches in 32-bit unsigned
// plusargs (dpi/example/ibr_dpi_tb.sv): --packets, --chain and --max-fail
// stop at math.MaxUint32.

// reproPrefix is how the user runs this tool: "go run ." from a go run
// build, else the command as invoked.
func reproPrefix() string {
	if exe, err := os.Executable(); err == nil && strings.Contains(exe, "go-build") {
		return "go run ."
	}
	return os.Args[0]
}
