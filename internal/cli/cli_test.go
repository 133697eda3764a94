// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/hash"
)

func parse(t *testing.T, bind func(fs *pflag.FlagSet), args ...string) error {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	bind(fs)
	return fs.Parse(args)
}

// TestNumbersRangeChecked: NaN, infinities, negatives, overflow and values
// outside a flag's range are refused at parse time, naming the flag; values
// inside are stored.
func TestNumbersRangeChecked(t *testing.T) {
	var n int
	var n64 int64
	var x float64
	p := Range{Lo: 0, Hi: 1}
	bind := func(fs *pflag.FlagSet) {
		n, n64, x = 3, 5, 0.5
		IntVar(fs, &n, "count-bits", 1, 16, "")
		Int64Var(fs, &n64, "packets", 1, math.MaxInt64, "")
		FloatVar(fs, &x, "p", p, "")
	}
	for _, bad := range [][]string{
		{"--count-bits", "0"}, {"--count-bits", "17"}, {"--count-bits", "-1"}, {"--count-bits", "x"},
		{"--count-bits", "99999999999999999999"}, {"--count-bits", "3.5"},
		{"--packets", "0"}, {"--packets", "-5"}, {"--packets", "9223372036854775808"},
		{"--p", "NaN"}, {"--p", "nan"}, {"--p", "Inf"}, {"--p", "-Inf"}, {"--p", "+Inf"}, {"--p", "0"}, {"--p", "1"},
		{"--p", "1e400"}, {"--p", "-0.1"}, {"--p", ""},
	} {
		err := parse(t, bind, bad...)
		if err == nil {
			t.Errorf("%v accepted (n=%d n64=%d x=%g)", bad, n, n64, x)
			continue
		}
		if !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: error does not name the flag: %v", bad, err)
		}
	}
	if err := parse(t, bind, "--count-bits", "16", "--packets", "9223372036854775807", "--p", "0.999"); err != nil {
		t.Fatal(err)
	}
	if n != 16 || n64 != math.MaxInt64 || x != 0.999 {
		t.Errorf("got %d %d %g", n, n64, x)
	}
	closed := Range{Lo: 0, Hi: 1, LoClosed: true, HiClosed: true}
	if !closed.Contains(0) || !closed.Contains(1) || p.Contains(0) || p.Contains(1) || closed.Contains(math.NaN()) {
		t.Error("Range.Contains ends")
	}
}

func TestOptionalIntHelp(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var w int
	OptionalIntVar(fs, &w, "windows", -1, 0, 100, "windows; default: the preset's")
	if w != -1 {
		t.Fatalf("unset value %d", w)
	}
	if u := fs.FlagUsages(); strings.Contains(u, "(default") {
		t.Errorf("help shows a default for an unset optional flag:\n%s", u)
	}
	if err := fs.Parse([]string{"--windows", "-1"}); err == nil {
		t.Error("the unset marker is accepted as a value")
	}
	if err := fs.Parse([]string{"--windows", "5"}); err != nil || w != 5 {
		t.Errorf("--windows 5: %v, %d", err, w)
	}
}

func TestKinds(t *testing.T) {
	var f hash.Func
	var k hash.Kind
	var id hash.IDOption
	var l hash.LinkEncoding
	var g, e string
	var fm Format
	bind := func(fs *pflag.FlagSet) {
		HashVar(fs, &f)
		IDVar(fs, &id)
		LinkVar(fs, &l)
		GeneratorVar(fs, &g, GeneratorUsage)
		EnumVar(fs, &e, "over", []string{"d", "id"}, "")
		FormatVar(fs, &fm, Text, JSON)
	}
	if err := parse(t, bind, "--hash", "crc32", "--id", "psn-odd", "--link", "wide", "--generator", "lfsr-lut/b8", "--over", "id", "--format", "json"); err != nil {
		t.Fatal(err)
	}
	if f.Kind != hash.CRC32 || id != hash.IDPSNOdd || l != hash.LinkWide || g != "lfsr-lut/b8" || e != "id" || fm != JSON {
		t.Errorf("got %v %v %v %q %q %q", f.Kind, id, l, g, e, fm)
	}
	for _, bad := range [][]string{{"--hash", "md5"}, {"--id", "qp"}, {"--link", "x"}, {"--generator", "lfsr"},
		{"--generator", "lfsr-lut/b99"}, {"--over", "both"}, {"--format", "markdown"}} {
		if err := parse(t, bind, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	bind2 := func(fs *pflag.FlagSet) { HashKindVar(fs, &k) }
	if err := parse(t, bind2, "--hash", "siphash"); err != nil || k != hash.SipHash {
		t.Errorf("HashKindVar: %v %v", err, k)
	}
}

func TestSuggestFlags(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var s string
	var n int
	var fm Format
	fs.StringVar(&s, "generator", "", "")
	IntVar(fs, &n, "count-bits", 1, 16, "")
	fs.StringVar(&s, "out", "", "")
	fs.StringVar(&s, "secret", "", "")
	fs.MarkHidden("secret")
	FormatVar(fs, &fm)
	for typed, want := range map[string]string{
		"gen":          "--generator",
		"generatr":     "--generator",
		"bits":         "--count-bits",
		"count-bit":    "--count-bits",
		"json":         "--format json",
		"markdown":     "--format markdown",
		"outt":         "--out",
		"secre":        "",
		"zzzzzzzzzzzz": "",
	} {
		got := strings.Join(SuggestFlags(fs, typed), ",")
		if got != want {
			t.Errorf("--%s: suggested %q, want %q", typed, got, want)
		}
	}
}

// TestFlagErrorThroughCobra: a mistyped flag on a real command gets the
// suggestion in its error.
func TestFlagErrorThroughCobra(t *testing.T) {
	root := &cobra.Command{Use: "x", SilenceErrors: true, SilenceUsage: true}
	root.SetFlagErrorFunc(FlagError)
	var g string
	sub := &cobra.Command{Use: "sub", RunE: func(*cobra.Command, []string) error { return nil }}
	GeneratorVar(sub.Flags(), &g, GeneratorUsage)
	root.AddCommand(sub)
	root.SetArgs([]string{"sub", "--gen", "ideal"})
	root.SetOut(&bytes.Buffer{})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "unknown flag: --gen") || !strings.Contains(err.Error(), "--generator") ||
		!strings.Contains(err.Error(), "x sub --help") {
		t.Errorf("got %v", err)
	}
}

func TestNoEffect(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var a, b, c int
	fs.IntVar(&a, "scheme", 0, "")
	fs.IntVar(&b, "count-bits", 0, "")
	fs.IntVar(&c, "other", 0, "")
	if err := NoEffect(fs, "without --telemetry", "add --telemetry", "scheme", "count-bits"); err != nil {
		t.Errorf("nothing set: %v", err)
	}
	fs.Parse([]string{"--count-bits", "99", "--scheme", "1", "--other", "2"})
	err := NoEffect(fs, "without --telemetry", "add --telemetry", "scheme", "count-bits")
	if err == nil || err.Error() != "--scheme and --count-bits have no effect without --telemetry; add --telemetry" {
		t.Errorf("got %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown flag name was not caught")
		}
	}()
	NoEffect(fs, "", "", "no-such-flag")
}

func TestTableMarkdown(t *testing.T) {
	tb := &Table{Title: "T", Notes: []string{"n1", "n2"}, Columns: []string{"a", "b"}, Rows: [][]string{{"1", "x|y"}}, Footer: []string{"f"}}
	var b bytes.Buffer
	if err := tb.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "### T\n\nn1\nn2\n\n| a | b |\n|---|---|\n| 1 | x\\|y |\n\nf\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	tb.WriteText(&b)
	if want := "T\n  n1\n  n2\n\nA  B\n1  x|y\nf\n"; b.String() != want {
		t.Errorf("text: got %q want %q", b.String(), want)
	}
	b.Reset()
	a, c := 0.1, 0.2
	r := Report{Tables: []*Table{tb}, JSON: map[string]float64{"x": a + c}}
	if err := r.Write(&b, JSON); err != nil || b.String() != "{\n  \"x\": 0.30000000000000004\n}\n" {
		t.Errorf("json: %v %q", err, b.String())
	}
	if Float(a+c) != "0.30000000000000004" || Float(26009.4) != "26009.4" {
		t.Error("Float is not the shortest exact form")
	}
}

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		dir  bool
		path string
		want string // "" for no error
	}{
		{true, filepath.Join(dir, "new", "deeper"), ""},
		{true, dir, ""},
		{true, file, "is a file"},
		{true, filepath.Join(file, "sim"), "is a file"},
		{true, "", "empty"},
		{false, filepath.Join(dir, "x.json"), ""},
		{false, file, ""},
		{false, dir, "is a directory"},
		{false, filepath.Join(file, "x.json"), "is a file"},
	} {
		check := CheckOutputFile
		if c.dir {
			check = CheckOutputDir
		}
		err := check("--out", c.path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s (dir %v): got %v, want %q", c.path, c.dir, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("the check created the directory")
	}
}
