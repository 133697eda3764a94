package fabric

import (
	"errors"
	"testing"

	"ibreservoir/header"
)

func TestSchemes(t *testing.T) {
	cs, err := Schemes([]string{"fullid40", " two8"}, 7, 100, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Telemetry.SwitchBits != 10 || cs[1].Telemetry.Scheme != header.TwoReservoir || cs[1].Seed != 7 || cs[1].MaxPort != 20 {
		t.Errorf("schemes %v", cs)
	}
	for _, bad := range [][]string{{"one5", "one5"}, {"onebit"}, {}} {
		if _, err := Schemes(bad, 1, 10, 10); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if d := DefaultSchemes(3); len(d) != 3 || d[0].Telemetry.Scheme != header.FullID || d[0].Telemetry.CountBits != 8 || d[2].MaxSwitch != 1023 {
		t.Errorf("DefaultSchemes %v", d)
	}
}

// TestPrepareParamErrors: each wrong parameter is named.
func TestPrepareParamErrors(t *testing.T) {
	base := Experiment{Preset: "reduction-small", Seed: 1, Windows: -1}
	for _, c := range []struct {
		edit  func(e *Experiment)
		param string
	}{
		{func(e *Experiment) { e.Preset = "" }, "preset"},
		{func(e *Experiment) { e.Preset = "nope" }, "preset"},
		{func(e *Experiment) { e.Topology = "kary:k=1" }, "topology"},
		{func(e *Experiment) { e.Congestion = "loud" }, "congestion"},
		{func(e *Experiment) { e.Schemes = []string{"x"} }, "schemes"},
		{func(e *Experiment) { e.Perspective = "ring" }, "perspective"},
		{func(e *Experiment) { e.Perspective = "5" }, "perspective"},
	} {
		e := base
		c.edit(&e)
		_, err := e.Prepare()
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: got %v, want an error about %s", e, err, c.param)
		}
	}
	r, err := base.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Experiment.Schemes) != 3 || r.Params.Windows != 5 || r.Params.MTU != 256 {
		t.Errorf("the preset's choices were not kept: %+v", r.Params)
	}
}
