// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRngP0(t *testing.T) {
	var out bytes.Buffer
	o := &rngP0Options{rngGenFlags: rngGenFlags{Generator: "lfsr-lut/b12/k12", Seed: 1, MaxL: 3}}
	if err := runRngP0(&out, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# lfsr-lut/b12/k12, seed 1, state cc1 (12 bits)",
		"2  2048  33/65     0.507692308  +7.692e-03  63.000",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	o = &rngP0Options{rngGenFlags: rngGenFlags{Generator: "shiftreg/free/2:1", Seed: 1, MaxL: 4}}
	if err := runRngP0(&out, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2  0         0.000000000  -5.000e-01") {
		t.Errorf("free 2:1 output:\n%s", out.String())
	}
	o = &rngP0Options{rngGenFlags: rngGenFlags{Generator: "lfsr-lut/b3", Seed: 1, MaxL: 9}}
	if err := runRngP0(&out, o); err == nil || !strings.Contains(err.Error(), "wider LFSR") {
		t.Errorf("maxL too large for b3: %v", err)
	}
}

func TestRngStream(t *testing.T) {
	var out bytes.Buffer
	o := &rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "sender", Seed: 1, MaxL: 8}, Ls: "1,2,3,4,5,6,7,8", Draws: 24}
	if err := runRngStream(context.Background(), &out, o); err != nil {
		t.Fatal(err)
	}
	want := "# sender, seed 1, 137 state bits\nstate 100beeb8da1658eec67910a2dec89025cc1\ndraws 111110001000000011101001\nstate 1007e00f7cf7733e8cc6d1f3e84a7276418\n"
	if out.String() != want {
		t.Errorf("stream:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, c := range []struct {
		o   rngStreamOptions
		msg string
	}{
		{rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "ideal", MaxL: 4}, Ls: "5", Draws: 1}, "not an l in 1..4"},
		{rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "ideal", MaxL: 4}, Ls: "x", Draws: 1}, "not an l"},
		{rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "ideal", MaxL: 4}, Ls: "1", Draws: -1}, "--draws"},
		{rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "lfsr", MaxL: 4}, Ls: "1", Draws: 1}, "unknown generator"},
	} {
		if err := runRngStream(context.Background(), &out, &c.o); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.o, err, c.msg)
		}
	}
}

func TestRngFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stream", "--gen", "ideal"}, "--generator"},
		{[]string{"stream", "--draws", "-1"}, `invalid argument "-1" for "--draws"`},
		{[]string{"p0", "--max-l", "0"}, `invalid argument "0" for "--max-l"`},
		{[]string{"p0", "--max-l", "1000000000"}, `invalid argument "1000000000" for "--max-l"`},
		{[]string{"p0", "--generator", "lfsr-lut/b3", "--max-l", "9"}, "wider LFSR"},
	} {
		_, _, err := execute(t, append([]string{"rng"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	out, _, err := execute(t, "rng", "p0", "--generator", "lfsr-lut/b12/k12", "--max-l", "3", "--format", "markdown")
	if err != nil || !strings.Contains(out, "| 2 | 2048 | 33/65 | 0.5076923076923077 | 0.007692307692307693 | 63 |") {
		t.Errorf("p0 markdown: %v\n%s", err, out)
	}
}

// TestRngStreamInterrupt: a cancelled context stops a long stream.
func TestRngStreamInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	o := &rngStreamOptions{rngGenFlags: rngGenFlags{Generator: "ideal", Seed: 1, MaxL: 8}, Ls: "2", Draws: 1 << 40}
	if err := runRngStream(ctx, &out, o); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
}
