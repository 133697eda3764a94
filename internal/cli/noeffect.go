// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Changed returns those of the named flags that were set on the command line,
// as "--name", in the order given.
func Changed(fs *pflag.FlagSet, names ...string) []string {
	var set []string
	for _, n := range names {
		if f := fs.Lookup(n); f == nil {
			panic("cli.Changed: no flag --" + n) // a programming error: the check would check nothing
		} else if f.Changed {
			set = append(set, "--"+n)
		}
	}
	return set
}

// NoEffect returns an error if any of the named flags was set on the command
// line: in the mode the command runs in (when, e.g. "without --telemetry")
// they would be ignored, and a flag that is silently ignored is a flag the
// user believes did something. hint says what to do instead.
func NoEffect(fs *pflag.FlagSet, when, hint string, names ...string) error {
	set := Changed(fs, names...)
	if len(set) == 0 {
		return nil
	}
	verb := "has"
	if len(set) > 1 {
		verb = "have"
	}
	msg := fmt.Sprintf("%s %s no effect %s", andList(set), verb, when)
	if hint != "" {
		msg += "; " + hint
	}
	return fmt.Errorf("%s", msg)
}

// andList writes "a, b and c".
func andList(ws []string) string {
	if len(ws) <= 1 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}
