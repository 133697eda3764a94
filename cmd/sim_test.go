package cmd

import (
	"bytes"
	"context"
	"encoding/json"
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
