// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// FlagError is the root command's flag-error function (cobra's
// SetFlagErrorFunc): to an unknown flag it adds the flags the user may have
// meant, as cobra does for mistyped commands, and to every flag error the
// command to ask for help.
func FlagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := SuggestFlags(cmd.Flags(), name); len(s) > 0 {
			return fmt.Errorf("%w\nDid you mean this?\n\t%s\nSee '%s --help'", err, strings.Join(s, "\n\t"), cmd.CommandPath())
		}
	}
	return fmt.Errorf("%w\nSee '%s --help'", err, cmd.CommandPath())
}

// allowedValues is implemented by flag values that take one of a fixed set
// of words (EnumVar, FormatVar, the model's kinds).
type allowedValues interface{ Allowed() []string }

// SuggestFlags returns what the user may have meant by the unknown long flag
// --typed, written as it would be typed ("--count-bits", "--format json"):
//
//   - a flag within Levenshtein distance 2 of it (cobra's rule for commands),
//   - a flag it is a prefix of (--gen for --generator),
//   - a flag one of whose dash-separated words it is (--bits for --count-bits),
//   - a flag taking it as a value (--json for --format json).
//
// Hidden flags are never suggested.
func SuggestFlags(fs *pflag.FlagSet, typed string) []string {
	typed = strings.ToLower(typed)
	if i := strings.IndexByte(typed, '='); i >= 0 {
		typed = typed[:i]
	}
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		name := strings.ToLower(f.Name)
		switch {
		case levenshtein.ComputeDistance(typed, name) <= 2,
			len(typed) >= 2 && strings.HasPrefix(name, typed),
			len(typed) >= 3 && slices.Contains(strings.Split(name, "-"), typed):
			out = append(out, "--"+f.Name)
		default:
			if a, ok := f.Value.(allowedValues); ok && slices.Contains(a.Allowed(), typed) {
				out = append(out, "--"+f.Name+" "+typed)
			}
		}
	})
	return out
}

// Group makes c a command that only groups subcommands: alone it prints its
// help; with an argument that names no subcommand it fails, suggesting the
// subcommands meant, as cobra does for the root command (cobra itself prints
// the help and exits 0, so a mistyped subcommand would pass unnoticed).
func Group(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's default, which it sets on the root only
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return fmt.Errorf("%s\nSee '%s --help'", msg, cmd.CommandPath())
	}
	return c
}
