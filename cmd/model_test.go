package cmd

import (
	"bytes"
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
		t.Error("--bits 0 accepted")
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
	if err := runModelMoments(&b, &modelMomentsOptions{Hops: 5, Packets: 200, Through: 120, Congested: 60, G: 2}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4880", "480", "540"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, b.String())
		}
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
