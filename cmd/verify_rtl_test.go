// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/cosim"
)

// TestVerifyRTLFormalFlagErrors: --rtl, --top and the formal mode's
// --configs refuse what has no effect or cannot run, before any tool runs.
func TestVerifyRTLFormalFlagErrors(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "s.f")
	os.WriteFile(list, []byte("missing.sv\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rtl", list}, "--rtl and --top go together"},
		{[]string{"--top", "m"}, "--rtl and --top go together"},
		{[]string{"--rtl", list, "--top", "m", "--synth"}, "--synth has no effect with --rtl"},
		{[]string{"--rtl", list, "--top", "m", "--formal"}, "--formal has no effect with --rtl"},
		{[]string{"--rtl", list, "--top", "m", "--configs", "all"}, "--configs all with --rtl"},
		{[]string{"--rtl", list, "--top", "m", "--configs", "mult0_ideal_c3,crc32_ideal_c3"}, "implements one configuration"},
		{[]string{"--rtl", list, "--top", "m", "--configs", "mult0_ideal_c3", "--hash", "crc32"}, "--hash has no effect with --configs mult0_ideal_c3"},
		{[]string{"--rtl", list, "--top", "m", "--icarus", "crc32_ideal_c3"}, "--icarus crc32_ideal_c3 with --rtl"},
		{[]string{"--rtl", list, "--top", "m"}, "s.f:1: missing.sv: no such file"},
		// --icarus names the configuration as --configs does, at any width.
		{[]string{"--rtl", list, "--top", "m", "--configs", "mult0_ideal_c3", "--width", "512", "--icarus", "mult0_ideal_c3"}, "s.f:1: missing.sv: no such file"},
		{[]string{"--rtl", list, "--top", "m", "--width", "512", "--icarus", "mult0_ideal_c3_w512"}, "s.f:1: missing.sv: no such file"},
		{[]string{"--rtl", filepath.Join(dir, "none.f"), "--top", "m"}, "none.f: no such file"},
		{[]string{"--rtl", list, "--top", "not a module"}, "want a module name"},
		{[]string{"--formal", "--random", "5"}, "--random has no effect with --formal"},
		{[]string{"--formal", "--icarus", "none"}, "--icarus has no effect with --formal"},
		{[]string{"--formal", "--configs", "none"}, "--configs none with --formal"},
		{[]string{"--formal", "--configs", "nosuch_c9"}, `no configuration "nosuch_c9"`},
		{[]string{"--formal", "--hash", "crc32"}, "--hash has no effect with --formal --configs formal"},
		{[]string{"--configs", "none"}, "nothing to verify"},
	} {
		o := verifyOpts
		o.Work = filepath.Join(dir, "work")
		fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		bindVerifyFlags(fs, &o)
		perr := fs.Parse(tc.args)
		o.given = givenFlags(fs)
		err := parseOrRunError(perr, func() error {
			if o.Formal {
				// Resolve the formal configurations only: no solver runs here.
				if err := checkVerifyFlags(o); err != nil {
					return err
				}
				_, err := pickFormalConfigs(o)
				return err
			}
			return runVerify(context.Background(), &bytes.Buffer{}, o)
		})
		if !mentions(err, tc.want) {
			t.Errorf("verify %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "work")); err == nil {
		t.Error("a refused run created its work directory")
	}
}

// TestFormalConfigs: --formal checks the formal configurations by default,
// and --configs chooses others as in every mode.
func TestFormalConfigs(t *testing.T) {
	names := func(args ...string) string {
		t.Helper()
		o := verifyOpts
		fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		bindVerifyFlags(fs, &o)
		if err := fs.Parse(append([]string{"--formal"}, args...)); err != nil {
			t.Fatal(err)
		}
		o.given = givenFlags(fs)
		if err := checkVerifyFlags(o); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		cs, err := pickFormalConfigs(o)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var ns []string
		for _, c := range cs {
			ns = append(ns, c.Name())
		}
		return strings.Join(ns, ",")
	}
	var def []string
	for _, c := range cosim.FormalConfigs() {
		def = append(def, c.Name())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, strings.Join(def, ",")},
		{[]string{"--configs", "formal"}, strings.Join(def, ",")},
		{[]string{"--configs", "crc32_ideal_c3,parity_sender_l3"}, "crc32_ideal_c3,parity_sender_l3"},
		{[]string{"--configs", "flags", "--hash", "siphash", "--count-bits", "4"}, "siphash_ideal_c4"},
	} {
		if got := names(tc.args...); got != tc.want {
			t.Errorf("--formal %v: %s, want %s", tc.args, got, tc.want)
		}
	}
}
