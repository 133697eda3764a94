// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"errors"
	"strings"
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

// TestSchemeNames: every scheme has one short name and one layout name, each
// leading to the other, and either names it in Schemes and Prepare; the
// short name is the one a run reports and names its plots by.
func TestSchemeNames(t *testing.T) {
	want := map[string]string{"fullid64": "fullid-s16p8-c8@footer", "fullid40": "fullid-s10p6-c4@footer",
		"one5": "onereservoir-c3@resv6", "one6": "onereservoir-c4@resv6", "two8": "tworeservoir-c3@footer"}
	if len(SchemeNames()) != len(want) {
		t.Errorf("SchemeNames() = %v, want the %d of %v", SchemeNames(), len(want), want)
	}
	for _, n := range SchemeNames() {
		l, ok := SchemeLayout(n)
		if !ok || l != want[n] {
			t.Errorf("SchemeLayout(%s) = %q, %v; want %q", n, l, ok, want[n])
		}
		for _, by := range []string{n, l, " " + l} {
			if c, ok := CanonicalScheme(by); !ok || c != n {
				t.Errorf("CanonicalScheme(%q) = %q, %v; want %s", by, c, ok, n)
			}
		}
		cs, err := Schemes([]string{l}, 1, 10, 10)
		if err != nil || SchemeName(cs[0]) != n {
			t.Errorf("Schemes(%s) names %v (%v), want %s", l, cs, err, n)
		}
	}
	if _, ok := CanonicalScheme("onereservoir"); ok {
		t.Error("CanonicalScheme accepts a scheme without its hop-count bits")
	}
	if _, err := Schemes([]string{"one5", "onereservoir-c3@resv6"}, 1, 10, 10); err == nil || err.Error() != "one5 listed twice" {
		t.Errorf("one scheme by both names: %v, want one5 listed twice", err)
	}
	r, err := Experiment{Preset: "reduction-small", Seed: 1, Windows: 1, Schemes: []string{"tworeservoir-c3@footer"}}.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Experiment.Schemes; len(got) != 1 || got[0] != "two8" {
		t.Errorf("Prepare keeps the scheme names %v, want [two8]", got)
	}
	for _, v := range r.PlotViews(&Result{Windows: []Window{{Schemes: make([][]WindowLink, 1)}}}) {
		if !strings.HasPrefix(v.File, "truth-") && !strings.HasPrefix(v.File, "two8-") {
			t.Errorf("plot %s is not named by the short name", v.File)
		}
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
