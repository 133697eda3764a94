package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/refmodel"
)

func TestModelSaturationOutput(t *testing.T) {
	var b bytes.Buffer
	if err := runModelSaturation(&b, &modelSaturationOptions{Bits: 2, Hops: 5, Generator: "ideal"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "9/16"); got != 4 || !strings.Contains(b.String(), "3/4") {
		t.Errorf("section 5.6's example not in the output:\n%s", b.String())
	}
	if err := runModelSaturation(&b, &modelSaturationOptions{Bits: 0, Hops: 5, Generator: "ideal"}); err == nil {
		t.Error("--bits 0 accepted")
	}
	b.Reset()
	if err := runModelSaturation(&b, &modelSaturationOptions{Bits: 3, Hops: 5, Generator: "lfsr-lut/b8"}); err != nil || !strings.Contains(b.String(), "lfsr-lut/b8") {
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
