package cmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"

	"ibreservoir/internal/cli"
)

// execute runs a fresh command tree (flags unset, as a new process has them)
// on args and returns its standard output, standard error and error. Only the
// commands built by constructors are in it; a test of another command calls
// its run function.
func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return executeContext(context.Background(), t, args...)
}

func executeContext(ctx context.Context, t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "ibreservoir", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(cli.FlagError)
	for _, c := range constructedCommands() {
		root.AddCommand(c)
	}
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	return out.String(), errw.String(), err
}
