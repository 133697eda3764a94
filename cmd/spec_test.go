// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/header"
	"ibreservoir/internal/golden"
)

func newFlagSet() *pflag.FlagSet { return pflag.NewFlagSet("test", pflag.ContinueOnError) }

func TestSpecGolden(t *testing.T) {
	spec := func(f func(*header.TelemetrySpec)) header.TelemetrySpec {
		s := defaultTelemetrySpec()
		f(&s)
		return s
	}
	for _, c := range []struct {
		name string
		o    specOptions
	}{
		{"spec-default.golden", specOptions{Spec: defaultTelemetrySpec(), Format: "text"}},
		{"spec-onereservoir-c4-global.golden", specOptions{Spec: spec(func(s *header.TelemetrySpec) { s.CountBits = 4 }), Global: true, Format: "text"}},
		{"spec-tworeservoir-reserved-global.md.golden", specOptions{Spec: spec(func(s *header.TelemetrySpec) {
			s.Scheme, s.Placement = header.TwoReservoir, header.PlaceReservedGlobal
		}), Global: true, Format: "markdown"}},
		{"spec-fullid-40bit.md.golden", specOptions{Spec: spec(func(s *header.TelemetrySpec) {
			s.Scheme, s.SwitchBits, s.PortBits, s.CountBits = header.FullID, 10, 6, 4
		}), Format: "markdown"}},
		{"spec-sender7-footer.golden", specOptions{Spec: spec(func(s *header.TelemetrySpec) { s.SenderL = 7 }), Format: "text"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			golden.CheckStable(t, filepath.Join("testdata", c.name), func() []byte {
				var a bytes.Buffer
				if err := runSpec(&a, c.o); err != nil {
					t.Fatal(err)
				}
				return a.Bytes()
			})
		})
	}
}

// TestSpecErrors: invalid layouts and flags give the reason and what to do.
func TestSpecErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--scheme", "tworeservoir", "--placement", "reserved-global"}, []string{"global (LNH=3) packets only", "add --global"}},
		{[]string{"--scheme", "tworeservoir", "--placement", "resv6"}, []string{"needs 8 bits; BTH Resv6 has 6", "--placement=footer"}},
		{[]string{"--scheme", "fullid", "--placement", "reserved-global", "--global"}, []string{"do not fit BTH Resv6"}},
		{[]string{"--count-bits", "0"}, []string{`invalid argument "0" for "--count-bits"`, "want 1..16"}},
		{[]string{"--count-bits", "NaN"}, []string{`invalid argument "NaN" for "--count-bits"`}},
		{[]string{"--sender-draws", "-1"}, []string{`invalid argument "-1" for "--sender-draws"`}},
		{[]string{"--sender-draws", "99999999999999999999"}, []string{"out of range"}},
		{[]string{"--scheme", "bogus"}, []string{`unknown scheme "bogus"`, "onereservoir"}},
		{[]string{"--placement", "lrh"}, []string{`unknown placement "lrh"`}},
		{[]string{"--format", "html"}, []string{`invalid argument "html" for "--format"`, "text, markdown or json"}},
		{[]string{"--bits", "3"}, []string{"unknown flag: --bits", "--count-bits"}},
		{[]string{"--switch-bits", "10"}, []string{"--switch-bits has no effect without --scheme fullid"}},
		{[]string{"--sender-draws", "3", "--count-bits", "4"}, []string{"--count-bits has no effect with --sender-draws"}},
		{[]string{"extra"}, []string{"unknown command"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, _, err := execute(t, append([]string{"spec"}, c.args...)...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestTelemetryFlags(t *testing.T) {
	s := defaultTelemetrySpec()
	var global bool
	fs := newFlagSet()
	bindTelemetryFlags(fs, &s)
	bindLNHFlag(fs, &global)
	if err := fs.Parse([]string{"--scheme=fullid", "--count-bits=4", "--switch-bits=10", "--port-bits=6", "--placement=footer", "--sender-draws=5", "--global"}); err != nil {
		t.Fatal(err)
	}
	want := header.TelemetrySpec{Scheme: header.FullID, CountBits: 4, SenderL: 5, SwitchBits: 10, PortBits: 6, Placement: header.PlaceFooter}
	if s != want || !global || lnhOf(global) != header.LNHGlobal {
		t.Fatalf("parsed %+v global=%v, want %+v global=true", s, global, want)
	}
	l, err := telemetryLayout(s, lnhOf(global))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "fullid-s10p6-sender5@footer" {
		t.Errorf("layout %s", l.Name)
	}
	if f := fs.Lookup(flagScheme); f.DefValue != "onereservoir" {
		t.Errorf("--scheme default %q", f.DefValue)
	}
}
