// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/rng"
)

// FlagValues returns the values shell completion offers for a flag: the
// words of a flag that takes one of a fixed set (its own Allowed list, the
// list its parser checks against), package rng's generator names for a
// generator flag, and nothing for other flags.
func FlagValues(f *pflag.Flag) []string {
	if a, ok := f.Value.(allowedValues); ok && len(a.Allowed()) > 0 {
		return slices.Clone(a.Allowed())
	}
	if f.Value.Type() == "generator" {
		return rng.Names()
	}
	return nil
}

// RegisterCompletions gives every flag of c and its subcommands that has
// FlagValues a completion function offering them (the values that start
// with what is typed so far), so that the shell completion script of
// ibreservoir completion completes flag values too.
func RegisterCompletions(c *cobra.Command) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		vals := FlagValues(f)
		if len(vals) == 0 {
			return
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, v := range vals {
				if strings.HasPrefix(v, typed) {
					out = append(out, v)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	})
	for _, s := range c.Commands() {
		RegisterCompletions(s)
	}
}
