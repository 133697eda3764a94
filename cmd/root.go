// SPDX-License-Identifier: Apache-2.0

// Package cmd holds the ibreservoir command line: one file per subcommand,
// each registering itself with the root command in an init function.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"ibreservoir/internal/cli"
	"ibreservoir/internal/version"
)

// Version is the tool version recorded in manifests (package version's, which
// the C library and ibreservoir version report too).
var Version = version.String()

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

func init() {
	rootCmd.SetFlagErrorFunc(cli.FlagError)
	rootCmd.AddCommand(constructedCommands()...)
}

// constructedCommands builds the commands made by constructors, a fresh tree
// on every call (the tests run each command line on its own, with its flags
// unset, as a new process has them).
func constructedCommands() []*cobra.Command {
	return []*cobra.Command{newModelCmd(), newHashCmd(), newRngCmd(), newSpecCmd(), newPacketCmd(), newSimCmd(), newVersionCmd()}
}

// Execute runs the command line and returns the process exit code. SIGINT
// and SIGTERM cancel the command's context: every command then stops,
// removes what it had not finished writing, and exits with 128 + the signal
// number (130, 143), whatever error the interrupted work returned. A command
// that finished before it saw the signal has written everything: it succeeds.
func Execute() int {
	// Every command's init has run by now: complete the values of their
	// enumerated flags.
	cli.RegisterCompletions(rootCmd)
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	err := rootCmd.ExecuteContext(ctx)
	if in := cli.Interrupted(ctx); in != nil && err != nil {
		fmt.Fprintln(os.Stderr, "ibreservoir:", in)
		return in.ExitCode()
	}
	if err != nil {
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
