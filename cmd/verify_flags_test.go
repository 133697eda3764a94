// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/vectors"
)

// TestVerifyFlagErrors: out-of-range values and flags without effect in the
// chosen mode are refused before any tool runs (none is needed here), never
// a panic, a hang or a verdict about the RTL.
func TestVerifyFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--configs", "mult0_ideal_c3", "--icarus", "none", "--max-fail", "-1"}, "--max-fail -1"},
		{[]string{"--stall", "1"}, `"1" has no unit: write the percentage with its sign, 1% (one in 1 is 100%)`},
		{[]string{"--stall", "7"}, "7% (one in 7 is 14%)"},
		{[]string{"--stall", "60%"}, "60% is out of range: want 0%..50%"},
		{[]string{"--stall", "-2%"}, "-2% is out of range"},
		{[]string{"--parts", "-1"}, "--parts -1"},
		{[]string{"--parts", "0"}, "--parts 0"},
		{[]string{"--lanes", "0"}, "--lanes 0"},
		{[]string{"--lanes", "9"}, "--lanes 9"},
		{[]string{"--gap", "-1%"}, "-1% is out of range"},
		{[]string{"--gap", "5"}, "5% (one in 5 is 20%)"},
		{[]string{"--random", "-5"}, "--random -5"},
		{[]string{"--hash", "crc32"}, "--hash has no effect with --configs all"},
		{[]string{"--depth", "3"}, "--depth has no effect"},
		{[]string{"--icarus", "none", "--icarus-random", "5"}, "--icarus-random has no effect"},
		{[]string{"--vectors", "x/stage.bin", "--random", "5"}, "--random has no effect with --vectors"},
		{[]string{"--vectors", "x/stage.bin", "--configs", "all"}, "--configs has no effect with --vectors"},
		{[]string{"--vectors", "x/stage.bin", "--synth"}, "--synth has no effect with --vectors"},
		{[]string{"--vectors", "x/stage.bin"}, "manifest.json"},
		{[]string{"--width", "100"}, "beat width 100 bits: want one of 64, 128, 256, 512"},
		{[]string{"--width", "wide"}, `"wide" is not a number of bits`},
		{[]string{"--segmented"}, "--segmented at --width 64: beats shared by two packets need --width 256 or 512"},
		{[]string{"--width", "128", "--segmented"}, "--segmented at --width 128"},
		{[]string{"--width", "512", "--segmented", "--formal", "--formal-props", "e,f"}, "--formal-props e,f with --segmented: (f) its monitor follows one PSN a beat"},
		{[]string{"--width", "256", "--segmented", "--formal", "--formal-props", "b"}, "--formal-props b with --segmented: (b) its wide monitors follow one packet's CRC a beat"},
		{[]string{"--segmented", "--formal"}, "--segmented at --width 64"},
		// --formal runs at every width: the checks after the width's are reached.
		{[]string{"--width", "512", "--formal", "--formal-depth", "2"}, "--formal-depth 2: give"},
		{[]string{"--formal", "--configs", "flags", "--hash", "siphash", "--hash-latency", "3"}, "--hash-latency 3 with --formal"},
		{[]string{"--formal", "--configs", "flags", "--depth", "4"}, "(g) on mult0_ideal_c3_d4: its monitor follows one telemetry word"},
		{[]string{"--formal", "--configs", "flags", "--depth", "4", "--formal-props", "g,c"}, "at pipeline depth 4 a second one"},
		{[]string{"--hash", "mult0", "--hash-latency", "3", "--configs", "flags"}, "only SipHash's rounds are pipelined"},
		{[]string{"--configs", "flags", "--depth", "8"}, "pipeline depth 8: want 2..4 at 64-bit beats"},
		// Every co-simulation runs at every width: the checks that follow
		// the width's are reached.
		{[]string{"--width", "256", "--icarus", "none", "--icarus-random", "5"}, "--icarus-random has no effect with --icarus none"},
		{[]string{"--width", "256", "--icarus-random", "5"}, "--icarus-random has no effect at --width 256 without --icarus"},
		{[]string{"--width", "128", "--vectors", "x/stage.bin"}, "manifest.json"},
		{[]string{"--width", "512", "--rtl", "x.f", "--top", "t"}, "x.f: no such file"},
	} {
		o := verifyOptions{Configs: "all", Icarus: "subset", Work: t.TempDir(), Seed: vectors.DefaultSeed,
			Random: 2000, IcarusRandom: 300, Lanes: 1, Parts: 1, Stall: 7, Gap: 5, MaxFail: 10, Flags: defaultRTLFlags(), SynthLib: verifyOpts.SynthLib}
		fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		bindVerifyFlags(fs, &o)
		perr := fs.Parse(tc.args)
		o.given = givenFlags(fs)
		err := parseOrRunError(perr, func() error { return runVerify(context.Background(), &bytes.Buffer{}, o) })
		if !mentions(err, tc.want) {
			t.Errorf("verify %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
