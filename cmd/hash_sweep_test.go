// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/hash"
)

func TestHashSweepFacts(t *testing.T) {
	if hash.SweepKernel() == "generic" {
		t.Skip("exhaustive sweeps need the vector kernels (none here, or IBRESERVOIR_GENERIC=1)")
	}
	var out, errw bytes.Buffer
	if err := runHashSweep(context.Background(), &out, &errw, &hashSweepOptions{Hash: hash.Mult0, Over: "d"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"id=2,6         d       H(2,d) = H(6,d)    2863311532  715827883/1073741824  0.666666666977",
		"d=2,6          id      H(id,2) = H(id,6)  2863311532",
		"id=2147483648  d       H = 1              2147483648  1/2",
		"id=0           d       H = 1              0           0",
		"Theorem 5.1 holds at every non-zero value checked",
		"Theorem 5.2 is false: ids 2 and 6 agree on 2863311532 of 2^32 d",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if errw.Len() != 0 {
		t.Errorf("unexpected stderr without --time: %q", errw.String())
	}
}

func TestHashSweepChosen(t *testing.T) {
	if hash.SweepKernel() == "generic" {
		t.Skip("exhaustive sweeps need the vector kernels (none here, or IBRESERVOIR_GENERIC=1)")
	}
	var out, errw bytes.Buffer
	o := &hashSweepOptions{Hash: hash.Parity, Over: "id", Ones: []string{"3", "0x2"}, Agree: []string{"2:6"}, Time: true}
	if err := runHashSweep(context.Background(), &out, &errw, o); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"d=3    id      H = 1              2147483648  1/2",
		"d=2    id      H = 1              0           0",
		"H(id,2) = H(id,6)  4294967296  1",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(errw.String(), "parity d=3:") {
		t.Errorf("--time printed %q", errw.String())
	}
}

func TestHashSweepArgErrors(t *testing.T) {
	for _, c := range []struct {
		o   hashSweepOptions
		msg string
	}{
		{hashSweepOptions{Hash: hash.Mult0, Over: "x"}, "--over"},
		{hashSweepOptions{Hash: hash.Mult0, Over: "d", Ones: []string{"2^32"}}, "not a 32-bit value"},
		{hashSweepOptions{Hash: hash.Mult0, Over: "d", Ones: []string{"-1"}}, "not a 32-bit value"},
		{hashSweepOptions{Hash: hash.Mult0, Over: "d", Agree: []string{"2"}}, "not a pair"},
		{hashSweepOptions{Hash: hash.Mult0, Over: "d", Agree: []string{"2:x"}}, "\"x\" is not"},
	} {
		var out, errw bytes.Buffer
		err := runHashSweep(context.Background(), &out, &errw, &c.o)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.o, err, c.msg)
		}
	}
}

// TestHashSweepFlags: flag errors come before any sweep.
func TestHashSweepFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hash", "md5"}, `invalid argument "md5" for "--hash"`},
		{[]string{"--over", "both"}, `invalid argument "both" for "--over"`},
		{[]string{"--over", "id"}, "--over has no effect without --ones or --agree"},
		{[]string{"--json"}, "--format json"},
		{[]string{"--format", "yaml"}, `invalid argument "yaml" for "--format"`},
	} {
		_, _, err := execute(t, append([]string{"hash", "sweep"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

func TestParseUint32(t *testing.T) {
	for s, want := range map[string]uint32{"0": 0, "509": 509, "0x1F": 31, "2^31": 1 << 31, "2^32-1": 1<<32 - 1, "2^0": 1, "4294967295": 1<<32 - 1} {
		if got, err := parseUint32(s); err != nil || got != want {
			t.Errorf("parseUint32(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2^32", "2^33-1", "4294967296", "1.5", "2^-1"} {
		if _, err := parseUint32(s); err == nil {
			t.Errorf("parseUint32(%q) accepted", s)
		}
	}
}

// FuzzParseUint32: any accepted text names a value that strconv or the 2^N
// forms agree on; nothing panics.
func FuzzParseUint32(f *testing.F) {
	for _, s := range []string{"0", "509", "0x1F", "2^31", "2^32-1", "2^32", "-1", " 7 ", "2^", "0b101"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseUint32(s)
		if err != nil {
			if !strings.Contains(err.Error(), "not a 32-bit value") {
				t.Fatalf("parseUint32(%q): unclear error %v", s, err)
			}
			return
		}
		// Round trip through decimal.
		if w, err := parseUint32(strconv.FormatUint(uint64(v), 10)); err != nil || w != v {
			t.Fatalf("parseUint32(%q) = %d, but its decimal form gives %d, %v", s, v, w, err)
		}
	})
}

// TestHashSweepInterrupt: a cancelled context stops the sweeps at once, even
// siphash's minute-long ones.
func TestHashSweepInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errw bytes.Buffer
	err := runHashSweep(ctx, &out, &errw, &hashSweepOptions{Hash: hash.SipHash, Over: "d"})
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Errorf("got %v and output %q", err, out.String())
	}
}
