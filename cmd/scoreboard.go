package cmd

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

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
	Flags   rtlFlags
}

var scoreboardOpts = scoreboardOptions{Configs: "flags", Work: "out/scoreboard", Packets: 1_000_000, Seed: 1, Chain: 64,
	Stall: 10, Gap: 5, MaxFail: 5, Flags: defaultRTLFlags()}

var scoreboardCmd = &cobra.Command{
	Use:   "scoreboard",
	Short: "Check the RTL against the model called through DPI-C, packet by packet, in a Verilator testbench",
	Long: `scoreboard builds and runs the DPI-C scoreboard of dpi/example: a SystemVerilog
testbench that generates random packets (local and global, random headers,
incoming telemetry bits and payloads), drives them through the RTL switch stage
with random egress stalls and ingress gaps, and checks every output packet,
every per-packet status and the generator state after every draw against the
reference model, which it calls through DPI-C (dpi/src/ibr_dpi_pkg.sv over the
C library of ./capi) as each packet enters.

It builds the C library (go build -buildmode=c-archive ./capi, so run it in a
checkout, or give --lib), writes the RTL of the configurations (package
verilog, as ibreservoir verilog does) with the verification top of package
cosim, and builds one Verilator model holding them all (reused while nothing
changed); then it runs each configuration for --packets packets. Every
mismatch is printed with the packet, a field-by-field diff and the
ibreservoir stage command that writes the packet as a vector. It exits 1 on
any mismatch. docs/testbench.md describes the layers.`,
	Example: `  ibreservoir scoreboard
  ibreservoir scoreboard --configs mult0_ideal_c3,crc32_lfsr_lut_b16_c4 --packets 100000
  ibreservoir scoreboard --hash siphash --generator lfsr-lut/b16 --id psn-slid --stall 25% --gap 10%`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runScoreboard(cmd.Context(), cmd.OutOrStdout(), scoreboardOpts)
	},
}

func init() {
	fs := scoreboardCmd.Flags()
	fs.StringVar(&scoreboardOpts.Configs, "configs", scoreboardOpts.Configs,
		"configurations: flags (the one the RTL flags choose), all (every hash x generator x count width), subset (one per hash), or comma-separated names like mult0_ideal_c3")
	fs.StringVar(&scoreboardOpts.Work, "work", scoreboardOpts.Work, "work directory: the C library and the Verilator build")
	fs.StringVar(&scoreboardOpts.Lib, "lib", "", "a built C library (libibreservoir.a from go build -buildmode=c-archive ./capi) (default build it from this checkout)")
	cli.IntVar(fs, &scoreboardOpts.Packets, "packets", 1, math.MaxInt, "packets per configuration")
	fs.Uint64Var(&scoreboardOpts.Seed, "seed", scoreboardOpts.Seed, "seed of the random packets and of the ports' generator states")
	cli.IntVar(fs, &scoreboardOpts.Chain, "chain", 1, math.MaxInt, "packets through each port before the next (a port's generator state is loaded at its first)")
	cli.PercentVar(fs, &scoreboardOpts.Stall, "stall", dpi.MaxPercent, fmt.Sprintf("percent of cycles with the egress ready low, at random: 0%% (never) to %d%%", dpi.MaxPercent))
	cli.PercentVar(fs, &scoreboardOpts.Gap, "gap", dpi.MaxPercent, fmt.Sprintf("percent chance of an idle ingress cycle before a packet: 0%% (never) to %d%%", dpi.MaxPercent))
	cli.IntVar(fs, &scoreboardOpts.MaxFail, "max-fail", 0, math.MaxInt, "mismatches printed in full per configuration (all are counted)")
	bindRTLFlags(fs, &scoreboardOpts.Flags)
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
	cfgs, err := pickConfigs(o.Configs, o.Flags, vectors.RTLMatrix())
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if len(cfgs) == 0 {
		return fmt.Errorf("--configs %q chooses no configuration", o.Configs)
	}
	fmt.Fprintf(w, "building the C library and the Verilator testbench of %d configuration(s) in %s\n", len(cfgs), o.Work)
	b, err := dpi.Build(ctx, o.Work, cfgs, o.Lib)
	if err != nil {
		return err
	}
	if b.BuildTime > 0 {
		fmt.Fprintf(w, "built in %.1f s\n", b.BuildTime.Seconds())
	}
	prefix := reproPrefix()
	repro := func(c verilog.Config) string { return prefix + " stage " + strings.Join(rtlArgs(c), " ") }
	mismatches := 0
	for sel := range cfgs {
		run.Repro = repro
		r, err := b.Run(ctx, sel, run)
		if err != nil {
			return err
		}
		r.Print(w)
		mismatches += r.Mismatches
	}
	if mismatches > 0 {
		return exitError{1, fmt.Errorf("%d mismatches: %w", mismatches, dpi.ErrMismatch)}
	}
	return nil
}

// reproPrefix is how the user runs this tool: "go run ." from a go run
// build, else the command as invoked.
func reproPrefix() string {
	if exe, err := os.Executable(); err == nil && strings.Contains(exe, "go-build") {
		return "go run ."
	}
	return os.Args[0]
}
