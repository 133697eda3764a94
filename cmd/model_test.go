// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/refmodel"
)

func TestModelSaturationOutput(t *testing.T) {
	var b bytes.Buffer
	if err := runModelSaturation(&b, &modelSaturationOptions{CountBits: 2, Hops: 5, Generator: "ideal"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "9/16"); got != 4 || !strings.Contains(b.String(), "3/4") {
		t.Errorf("section 5.6's example not in the output:\n%s", b.String())
	}
	if err := runModelSaturation(&b, &modelSaturationOptions{CountBits: 0, Hops: 5, Generator: "ideal"}); err == nil {
		t.Error("a count width of 0 accepted")
	}
	b.Reset()
	if err := runModelSaturation(&b, &modelSaturationOptions{CountBits: 3, Hops: 5, Generator: "lfsr-lut/b8"}); err != nil || !strings.Contains(b.String(), "lfsr-lut/b8") {
		t.Errorf("lfsr-lut/b8: %v\n%s", err, b.String())
	}
}

func TestModelThresholdOutput(t *testing.T) {
	var b bytes.Buffer
	if err := runModelThreshold(&b, &modelThresholdOptions{Links: 192, L: 5, P: 0.99, Q: 5_000_000}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "26009.4") || !strings.Contains(b.String(), "4987602") {
		t.Errorf("unexpected output:\n%s", b.String())
	}
}

func TestModelMomentsOutput(t *testing.T) {
	var b bytes.Buffer
	if err := runModelMoments(&b, &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4880", "480", "540"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, b.String())
		}
	}
}

// model moments refuses every input outside its range before any work, and
// names each wrong flag: a huge --congested is no longer a negative G.
func TestModelMomentsRanges(t *testing.T) {
	def := func() *modelMomentsOptions {
		return &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2, Format: "text"}
	}
	for _, tc := range []struct {
		edit func(*modelMomentsOptions)
		want []string
	}{
		{func(o *modelMomentsOptions) { o.Congested = 1 << 62 }, []string{"--congested 4611686018427387904: want 0..--through (120)"}},
		{func(o *modelMomentsOptions) { o.Congested = -1 }, []string{"--congested -1"}},
		{func(o *modelMomentsOptions) { o.Hops, o.G = 0, 0 }, []string{"--hops 0", "--g 0"}},
		{func(o *modelMomentsOptions) { o.Hops = 1 << 30 }, []string{"--hops 1073741824: want 1..255"}},
		{func(o *modelMomentsOptions) { o.Packets, o.Through, o.Congested = 1<<50, 1<<49, 1<<48 }, []string{"--packets 1125899906842624: want 1..2^40"}},
		{func(o *modelMomentsOptions) { o.Through = 0 }, []string{"--through 0"}},
		{func(o *modelMomentsOptions) { o.Format = "html" }, []string{`--format "html"`}},
	} {
		o := def()
		tc.edit(o)
		var b bytes.Buffer
		err := runModelMoments(&b, o)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("err = %v, want it to mention %q", err, w)
			}
		}
		if b.Len() != 0 {
			t.Errorf("output despite the error:\n%s", b.String())
		}
	}
}

// The fraction's exact law is printed beside the delta method, with the
// warning that the expansion does not hold at the defaults; JSON keeps every
// digit and reads back; Markdown is a table.
func TestModelMomentsFraction(t *testing.T) {
	o := &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2, Format: "text"}
	var b bytes.Buffer
	if err := runModelMoments(&b, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0.631944", "0.0847222", "given W_d > 0", "0.624062", "exact law", "does NOT hold"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
	o.Format = "json"
	b.Reset()
	if err := runModelMoments(&b, o); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []struct {
			Estimator string   `json:"estimator"`
			Mean      *float64 `json:"mean"`
		} `json:"rows"`
		Fraction struct {
			Method   string  `json:"method"`
			Variance float64 `json:"variance"`
			PNonPos  float64 `json:"p_w_nonpositive"`
		} `json:"fraction"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if back.Fraction.Method != "exact" || math.Abs(back.Fraction.Variance-0.6240616643651431) > 1e-15 || back.Fraction.PNonPos < 0.04 || back.Fraction.PNonPos > 0.06 {
		t.Errorf("fraction %+v", back.Fraction)
	}
	o.Format = "markdown"
	b.Reset()
	if err := runModelMoments(&b, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| one-bit count W_d | 120 | 4880 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	// A large window: simulated, and the expansion holds.
	o = &modelMomentsOptions{Hops: 5, Packets: 1 << 30, Through: 1 << 29, Congested: 1 << 27, G: 2, Format: "text"}
	b.Reset()
	if err := runModelMoments(&b, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "simulated law") || !strings.Contains(b.String(), "it holds") {
		t.Errorf("large window:\n%s", b.String())
	}
}

func TestBindModelFlags(t *testing.T) {
	c := refmodel.DefaultConfig()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	bindModelFlags(fs, &c)
	if err := fs.Parse([]string{"--scheme", "tworeservoir", "--placement", "reserved-global", "--global",
		"--hash", "crc32", "--id", "psn-odd", "--link", "wide", "--max-port", "200", "--seed", "9"}); err != nil {
		t.Fatal(err)
	}
	if err := validateModelConfig(c); err != nil {
		t.Fatal(err)
	}
	if c.Telemetry.Scheme != header.TwoReservoir || c.LNH != header.LNHGlobal || c.Hash.Kind != hash.CRC32 ||
		c.ID != hash.IDPSNOdd || c.Link != hash.LinkWide || c.MaxPort != 200 || c.Seed != 9 {
		t.Errorf("flags not applied: %s", c)
	}
	c = refmodel.DefaultConfig()
	fs = pflag.NewFlagSet("t", pflag.ContinueOnError)
	bindModelFlags(fs, &c)
	_ = fs.Parse([]string{"--max-port", "100"})
	if err := validateModelConfig(c); err == nil || !strings.Contains(err.Error(), "link encoding wide") {
		t.Errorf("port 100 with the thesis encoding: %v", err)
	}
	if err := fs.Parse([]string{"--hash", "md5"}); err == nil || !strings.Contains(err.Error(), "unknown hash") {
		t.Errorf("--hash md5: %v", err)
	}
}

// TestModelFlagsAreSettings: the command line's model flags read every
// configuration string the same way refmodel.ParseConfig does (they bind the
// same refmodel.Settings), for configurations of every scheme and kind.
func TestModelFlagsAreSettings(t *testing.T) {
	for _, s := range []string{
		"",
		refmodel.RecommendedConfig().Settings(),
		"scheme=tworeservoir sender-draws=5 generator=sender global=true placement=footer",
		"scheme=fullid count-bits=4 switch-bits=10 port-bits=6 placement=footer hash=crc16 max-switch=1000",
		"hash=siphash siphash-key=000102030405060708090a0b0c0d0eff id=psn-destqp link=wide max-port=200 seed=77",
	} {
		want, err := refmodel.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		c := refmodel.DefaultConfig()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		bindModelFlags(fs, &c)
		var args []string
		for _, item := range strings.Fields(want.Settings()) {
			args = append(args, "--"+item)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if c.Settings() != want.Settings() {
			t.Errorf("flags %v gave %s, want %s", args, c.Settings(), want.Settings())
		}
	}
}

// TestModelFlagErrors: bad numbers are refused before any work (NaN used to
// spin in RequiredPackets, a billion links to overflow int64 and hang), and
// flags without effect are errors.
func TestModelFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"threshold", "--p", "NaN"}, `invalid argument "NaN" for "--p"`},
		{[]string{"threshold", "--p", "Inf"}, `invalid argument "Inf" for "--p"`},
		{[]string{"threshold", "--p", "1"}, `invalid argument "1" for "--p"`},
		{[]string{"threshold", "--links", "-3"}, `invalid argument "-3" for "--links"`},
		{[]string{"threshold", "--links", "1000000000"}, "more than 2^53"},
		{[]string{"threshold", "--links", "99999999999999999999"}, "out of range"},
		{[]string{"threshold", "--packets", "0"}, `invalid argument "0" for "--packets"`},
		{[]string{"threshold", "--hops", "100000"}, `invalid argument "100000" for "--hops"`},
		{[]string{"saturation", "--bits", "2"}, "Did you mean this?\n\t--count-bits"},
		{[]string{"saturation", "--hops", "1000000000"}, `invalid argument "1000000000" for "--hops"`},
		{[]string{"saturation", "--sender-draws", "3", "--count-bits", "2"}, "--count-bits has no effect with --sender-draws"},
		{[]string{"saturation", "--sender-draws", "3", "--generator", "lfsr-lut/b8"}, "--generator has no effect with --sender-draws"},
		{[]string{"saturation", "--generator", "lfsr"}, `invalid argument "lfsr" for "--generator"`},
		{[]string{"config", "--generator", "shiftreg/free/x"}, `invalid argument "shiftreg/free/x" for "--generator"`},
		{[]string{"config", "--max-port", "255"}, `invalid argument "255" for "--max-port"`},
	} {
		_, _, err := execute(t, append([]string{"model"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}

// TestModelFormats: markdown and JSON carry every figure at full precision.
func TestModelFormats(t *testing.T) {
	out, _, err := execute(t, "model", "threshold", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var th thresholdJSON
	if err := json.Unmarshal([]byte(out), &th); err != nil {
		t.Fatal(err)
	}
	if th.PerLink.Threshold != refmodel.Threshold(5, 5_000_000, 0.99) || th.PerLink.RequiredPackets != 4987602 || th.FamilyWise.P != refmodel.FamilyP(0.99, 192) {
		t.Errorf("threshold JSON %+v", th)
	}
	out, _, err = execute(t, "model", "threshold", "--format", "markdown")
	if err != nil || !strings.Contains(out, "| per link | 0.99 | 2.32634787404084 | 26009.359928337184 | 4987602 |") {
		t.Errorf("threshold markdown: %v\n%s", err, out)
	}
	out, _, err = execute(t, "model", "saturation", "--count-bits", "2", "--hops", "5", "--format", "markdown")
	if err != nil || !strings.Contains(out, "| 5 | 1/4 | 0.25 | 3/4 | 0.75 |") || !strings.Contains(out, "| 1 | 3/16 | 0.1875 | 9/16 | 0.5625 |") {
		t.Errorf("saturation markdown: %v\n%s", err, out)
	}
	out, _, err = execute(t, "model", "saturation", "--generator", "lfsr-lut/b8", "--format", "json")
	var sat saturationJSON
	if err != nil || json.Unmarshal([]byte(out), &sat) != nil || len(sat.Selection) != 5 || sat.Generator != "lfsr-lut/b8" {
		t.Fatalf("saturation JSON: %v\n%s", err, out)
	}
	for _, h := range sat.Selection {
		r, ok := new(big.Rat).SetString(h.P.Exact)
		if f, _ := r.Float64(); !ok || f != h.P.Value {
			t.Errorf("hop %d: %s is not %v", h.Hop, h.P.Exact, h.P.Value)
		}
	}
}

// TestRecommendedConfigIsChosen: refmodel.RecommendedConfig is a
// configuration the checked-in decode record finds sound for decoding at
// every window with every id option (its row of the "which configuration to
// choose" table of README.md and docs/battery.md reads PASS, unqualified, at
// every window size). The cheapest sound at every window, mxm, passes with
// the psn and psn-odd ids only, so it is not the recommendation.
func TestRecommendedConfigIsChosen(t *testing.T) {
	table, err := chooseTable(filepath.Join("..", "docs", "decode.json"), filepath.Join("..", "docs", "synthesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := refmodel.RecommendedConfig()
	if c.Telemetry.CountBits != 3 {
		t.Fatalf("RecommendedConfig has a %d-bit hop count; the table is of 3-bit counts", c.Telemetry.CountBits)
	}
	prefix := fmt.Sprintf("| %s | %s | ", c.Hash.Kind, c.Generator)
	rows := 0
	for _, l := range strings.Split(table, "\n") {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		rows++
		cells := strings.Split(strings.TrimPrefix(l, prefix), " | ")
		if len(cells) < 6 {
			t.Fatalf("row %q has %d cells, want the 6 window sizes first", l, len(cells))
		}
		for w, v := range cells[:6] {
			if v != "PASS" {
				t.Errorf("RecommendedConfig (%s with %s) reads %q at window 2^%d, not PASS with every id: %s", c.Hash.Kind, c.Generator, v, 12+2*w, l)
			}
		}
	}
	if rows != 1 {
		t.Fatalf("%d rows of the table start %q, want 1:\n%s", rows, prefix, table)
	}
}
