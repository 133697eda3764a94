// Package cmd holds the ibreservoir command line: one file per subcommand,
// each registering itself with the root command in an init function.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"ibreservoir/internal/version"
)

// Version is the tool version recorded in manifests (package version's, which
// the C library reports too; release builds set it there).
var Version = version.Version

var rootCmd = &cobra.Command{
	Use:   "ibreservoir",
	Short: "Bit-exact model and RTL vectors for in-band reservoir-sampling telemetry in InfiniBand",
	Long: `ibreservoir models, bit for bit, the reservoir-sampling telemetry schemes of
Taffet's thesis (chapters 3 and 5): the sender NIC, the switch stage and the
receiver decode, over real LRH/GRH/BTH bytes with correct ICRC and VCRC. It
emits golden test vectors and a synthesizable Verilog switch stage, runs the
statistical battery that says which hash and generator combinations are sound,
and validates the estimator on simulated fat-tree traffic.`,
	Version:       Version,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// Execute runs the command line and returns the process exit code.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ibreservoir:", err)
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

// exitError carries a specific exit code, for commands whose failure is a
// verdict (a failed check, a failed verification) rather than a usage error.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
