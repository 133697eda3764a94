// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/fabric"
)

func TestSimReductionSmall(t *testing.T) {
	dir := t.TempDir()
	o := &simOptions{Experiment: fabric.Experiment{Preset: "reduction-small", Seed: 1, Congestion: "queue-over-credits", Schemes: []string{"fullid64", "one5"},
		P: 0.99, Windows: -1}, Out: dir, Crop: 8, Plots: true}
	var out, errs bytes.Buffer
	if err := runSim(context.Background(), &out, &errs, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r fabric.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Schemes) != 2 || r.Diagnoses[1].Cause != fabric.CausePattern {
		t.Errorf("schemes %d, diagnosis %+v", len(r.Schemes), r.Diagnoses)
	}
	// One name per scheme, the short one, with its layout beside it; the
	// summary names the one-reservoir scheme's diagnosis the same way, and
	// the plots' notes say what the short name stands for.
	for i, want := range [][2]string{{"fullid64", "fullid-s16p8-c8@footer"}, {"one5", "onereservoir-c3@resv6"}} {
		if i < len(r.Schemes) && (r.Schemes[i].Name != want[0] || r.Schemes[i].Layout != want[1] || r.Diagnoses[i].Scheme != want[0]) {
			t.Errorf("scheme %d is %s = %s (diagnosis %s), want %s = %s", i, r.Schemes[i].Name, r.Schemes[i].Layout, r.Diagnoses[i].Scheme, want[0], want[1])
		}
	}
	for _, want := range []string{"one5 = onereservoir-c3@resv6 ", "diagnosis (one5):"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if n := plotNotes(&r, o.Experiment, "one5-window3-down"); len(n) == 0 || !strings.HasPrefix(n[0], "one5 = onereservoir-c3@resv6 (") {
		t.Errorf("one5's plot notes %q", n)
	}
	if len(r.Windows) != 5 {
		t.Errorf("%d windows, want the preset's 5", len(r.Windows))
	}
	for _, f := range []string{"truth-down.svg", "one5-up.png", "fullid64-both.svg", "one5-window3-down.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "communication pattern") {
		t.Errorf("summary does not name the cause:\n%s", out.String())
	}
	// The same seed gives the same result.json.
	dir2 := t.TempDir()
	o.Out, o.Plots = dir2, false
	if err := runSim(context.Background(), &out, &errs, o); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(filepath.Join(dir2, "result.json"))
	if !bytes.Equal(b, b2) {
		t.Error("two runs with seed 1 wrote different result.json")
	}
}

func TestSimErrors(t *testing.T) {
	base := simOptions{Experiment: fabric.Experiment{Preset: "reduction-small", Seed: 1, Congestion: "queue-over-credits", Schemes: []string{"one5"}, P: 0.99, Windows: -1}}
	for _, c := range []struct {
		edit func(o *simOptions)
		want string
	}{
		{func(o *simOptions) { o.Preset = "" }, "no --preset given; choose one of"},
		{func(o *simOptions) { o.Preset = "reduce" }, `unknown preset "reduce"`},
		{func(o *simOptions) { o.Schemes = []string{"one5", "onebit"} }, `unknown scheme "onebit"`},
		{func(o *simOptions) { o.Schemes = []string{"one5", "onereservoir-c3@resv6"} }, "one5 listed twice"},
		{func(o *simOptions) { o.Congestion = "loud" }, "--congestion"},
		{func(o *simOptions) { o.MTU = 1000 }, "MTU 1000"},
		{func(o *simOptions) { o.Topology = "kary:k=2" }, "--topology"},
		{func(o *simOptions) { o.Perspective = "3" }, "--perspective 3"},
		{func(o *simOptions) { o.Perspective = "ring" }, `--perspective "ring"`},
	} {
		o := base
		o.Out = t.TempDir()
		c.edit(&o)
		err := runSim(context.Background(), &bytes.Buffer{}, &bytes.Buffer{}, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	var out bytes.Buffer
	if err := runSim(context.Background(), &out, &bytes.Buffer{}, &simOptions{List: true}); err != nil || !strings.Contains(out.String(), "reduction-tapered") {
		t.Errorf("--list: %v\n%s", err, out.String())
	}
}

// TestSimOutputs: the output directory is checked before the simulation
// (a path through a file used to fail only after the run), flags without
// effect are errors, and an interrupted run leaves the previous output as it
// was, with no staging directory behind.
func TestSimOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "reduction-tapered", "--out", filepath.Join(file, "sim")}, "afile is a file, not a directory"},
		{[]string{"--preset", "reduction-tapered", "--out", file}, "exists and is a file"},
		{[]string{"--list", "--seed", "3"}, "--progress and --seed have no effect with --list"},
		{[]string{"--preset", "reduction-small", "--plots=false", "--crop", "4"}, "--crop has no effect with --plots=false"},
		{[]string{"--preset", "reduction-small", "--windows", "-1"}, `invalid argument "-1" for "--windows"`},
		{[]string{"--preset", "reduction-small", "--p", "NaN"}, `invalid argument "NaN" for "--p"`},
		{[]string{"--preset", "reduction-small", "--congestion", "loud"}, `invalid argument "loud" for "--congestion"`},
		{[]string{"--preset", "reduction-small", "--mtu", "-256"}, `invalid argument "-256" for "--mtu"`},
	} {
		_, _, err := execute(t, append([]string{"sim", "--progress=false"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	out := filepath.Join(dir, "out")
	if _, _, err := execute(t, "sim", "--progress=false", "--preset", "reduction-small", "--plots=false", "--out", out); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, "result.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := executeContext(ctx, t, "sim", "--progress=false", "--preset", "reduction-small", "--seed", "2", "--out", out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted run: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(out, "result.json"))
	es, _ := os.ReadDir(out)
	if !bytes.Equal(before, after) || len(es) != 1 {
		t.Errorf("the interrupted run changed the output directory: %d entries", len(es))
	}
}
