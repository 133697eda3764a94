// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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

// TestHelpExamplesUseRealFlags: every command line in a command's Example or
// Long help names a real command and only flags it has, so that the help
// cannot drift from the code (a renamed flag left in an example, say).
func TestHelpExamplesUseRealFlags(t *testing.T) {
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// Example lines, and the indented lines of Long (its prose also
		// starts sentences with "ibreservoir").
		var lines []string
		lines = append(lines, strings.Split(c.Example, "\n")...)
		for _, l := range strings.Split(c.Long, "\n") {
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				lines = append(lines, l)
			}
		}
		for _, line := range lines {
			line = strings.TrimSpace(line)
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			for _, part := range strings.Split(line, "&&") {
				fields := strings.Fields(part)
				if len(fields) < 2 || fields[0] != "ibreservoir" {
					continue
				}
				n++
				found, args, err := rootCmd.Find(fields[1:])
				if err != nil {
					t.Errorf("%s help: %q: %v", c.CommandPath(), part, err)
					continue
				}
				for _, a := range args {
					if !strings.HasPrefix(a, "-") {
						continue
					}
					name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
					var f *pflag.Flag
					if strings.HasPrefix(a, "--") {
						f = found.Flags().Lookup(name)
					} else {
						f = found.Flags().ShorthandLookup(name)
					}
					if f == nil && name != "help" {
						t.Errorf("%s help: %q: %s has no flag %s", c.CommandPath(), part, found.CommandPath(), a)
					}
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(rootCmd)
	if n < 10 {
		t.Errorf("found only %d example command lines: the walk is broken", n)
	}
}

// TestMistypedSubcommand: a mistyped subcommand of a group is an error with
// a suggestion, not the group's help and exit status 0.
func TestMistypedSubcommand(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"model satur", "Did you mean this?\n\tsaturation"},
		{"packet chek x.pcap", "Did you mean this?\n\tcheck"},
		{"rng po", `unknown command "po" for "ibreservoir rng"`},
		{"hash sweeep", "sweep"},
	} {
		_, _, err := execute(t, strings.Fields(c.args)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.args, err, c.want)
		}
	}
	if out, _, err := execute(t, "model"); err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("model alone: %v\n%s", err, out)
	}
}

// TestNumericFlagsRangeChecked: every numeric flag of every command is bound
// through internal/cli, which refuses NaN, infinities and out-of-range
// values when the flag is parsed. A seed takes any 64-bit value; stats'
// --count-bits and --decode-flows lists are checked by battery.New before any
// work.
func TestNumericFlagsRangeChecked(t *testing.T) {
	allowed := map[string]bool{"stats --count-widths": true, "stats --count-bits": true, "stats --decode-flows": true}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			typ := fmt.Sprintf("%T", f.Value)
			if !strings.HasPrefix(typ, "*pflag.") || f.Name == "help" {
				return
			}
			switch f.Value.Type() {
			case "uint64":
				if f.Name == flagSeed {
					return
				}
			case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "float32", "float64", "intSlice", "int64Slice", "float64Slice", "uintSlice":
			default:
				return
			}
			n++
			name := strings.TrimPrefix(c.CommandPath(), "ibreservoir ") + " --" + f.Name
			if !allowed[name] {
				t.Errorf("%s is a plain %s flag: bind it with internal/cli (IntVar, Int64Var, FloatVar) so that its range is checked", name, f.Value.Type())
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(rootCmd)
	if n != len(allowed) {
		t.Errorf("%d plain numeric flags found, %d allowed", n, len(allowed))
	}
}

// TestFlagCompletions: shell completion offers an enumerated flag's own
// values (cli.RegisterCompletions, from each flag's Allowed list) and the
// generator names for a generator flag, filtered by what is typed.
func TestFlagCompletions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"model", "config", "--hash", "s"}, []string{"single", "siphash"}},
		{[]string{"model", "config", "--generator", "lfsr-lut/b1"}, []string{"lfsr-lut/b16", "lfsr-lut/b16/k16"}},
		{[]string{"spec", "--scheme", ""}, []string{"fullid", "tworeservoir", "onereservoir"}},
		{[]string{"spec", "--placement", "re"}, []string{"resv6", "reserved-global"}},
		{[]string{"model", "config", "--id", "psn-"}, []string{"psn-odd", "psn-slid", "psn-destqp"}},
		{[]string{"version", "--format", ""}, []string{"text", "json"}},
	} {
		root := &cobra.Command{Use: "ibreservoir", SilenceUsage: true, SilenceErrors: true}
		root.AddCommand(constructedCommands()...)
		cli.RegisterCompletions(root)
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, c.args...))
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v: completes %q, want %q", c.args, got, c.want)
		}
	}
}
