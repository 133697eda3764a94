// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"ibreservoir/congestion"
	"ibreservoir/topo"
)

// An Experiment is a preset with the overrides a user gives it (the sim
// command's flags): everything that decides a run. Its zero values take the
// preset's or DefaultParams' choices.
type Experiment struct {
	Preset       string   // a name of Presets
	Topology     string   // replaces the preset's tree (topo.Parse); "": the preset's
	Seed         uint64   // the run seed
	MTU          int      // 0: the preset's
	Congestion   string   // congestion.ParseDefinition; "": the thesis's queue-over-credits
	Schemes      []string // short or layout names of SchemeNames; none: DefaultSchemeNames
	Perspective  string   // "": the preset's; "all": every packet; "N": application N only
	P            float64  // threshold confidence; 0: refmodel.DefaultP
	InputBuffer  int      // bytes; 0: DefaultParams'
	OutputBuffer int      // bytes; 0: DefaultParams'
	HCABuffer    int      // bytes; 0: DefaultParams'
	Windows      int      // arrival-time windows; -1: the preset's
}

// A ParamError says which of an Experiment's parameters is wrong: Param is
// its name as the sim command's flag (without the dashes), Value the value
// given, if the message is about it.
type ParamError struct {
	Param, Value string
	Err          error
}

func (e *ParamError) Error() string {
	if e.Value != "" {
		return e.Param + " " + e.Value + ": " + e.Err.Error()
	}
	return e.Param + ": " + e.Err.Error()
}

func (e *ParamError) Unwrap() error { return e.Err }

func paramErr(param string, err error) error { return &ParamError{Param: param, Err: err} }

// A Run is an Experiment checked and built: its tree, workload and
// parameters, ready to simulate. Nothing has been simulated yet.
type Run struct {
	Experiment Experiment
	Tree       *topo.Topology
	Workload   *Workload
	Params     Params
	sim        *Sim
}

// Prepare checks every parameter of e and builds the run; its errors are
// *ParamError where one parameter is to blame. It does no simulation.
func (e Experiment) Prepare() (*Run, error) {
	if e.Preset == "" {
		return nil, paramErr("preset", fmt.Errorf("none given; choose one of %s", strings.Join(PresetNames(), ", ")))
	}
	pr, err := LookupPreset(e.Preset)
	if err != nil {
		return nil, paramErr("preset", err)
	}
	var tp *topo.Topology
	if e.Topology != "" {
		if tp, err = topo.Parse(e.Topology); err != nil {
			return nil, paramErr("topology", err)
		}
	} else if tp, err = pr.Topology(); err != nil {
		return nil, err
	}
	p := DefaultParams()
	if pr.Adjust != nil {
		pr.Adjust(&p)
	}
	p.Seed = e.Seed
	if e.MTU != 0 {
		p.MTU = e.MTU
	}
	switch e.Perspective {
	case "":
	case "all":
		p.Perspective = -1
	default:
		n, err := strconv.Atoi(e.Perspective)
		if err != nil || n < 0 {
			return nil, &ParamError{"perspective", strconv.Quote(e.Perspective), errors.New("want an application number (0, 1, ...) or all")}
		}
		p.Perspective = n
	}
	if e.Windows >= 0 {
		p.Windows = e.Windows
	}
	for _, b := range []struct{ set, dst *int }{{&e.InputBuffer, &p.InputBuffer}, {&e.OutputBuffer, &p.OutputBuffer}, {&e.HCABuffer, &p.NICBuffer}} {
		if *b.set != 0 {
			*b.dst = *b.set
		}
	}
	if e.P != 0 {
		p.P = e.P
	}
	if e.Congestion != "" {
		if p.Congestion, err = congestion.ParseDefinition(e.Congestion); err != nil {
			return nil, paramErr("congestion", err)
		}
	}
	names := e.Schemes
	if len(names) == 0 {
		names = DefaultSchemeNames()
	}
	if p.Schemes, err = Schemes(names, e.Seed, len(tp.Switches)-1, tp.MaxPort()); err != nil {
		return nil, paramErr("schemes", err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	w, err := pr.Workload(tp, e.Seed)
	if err != nil {
		return nil, paramErr("topology", fmt.Errorf("preset %s on %s: %w; choose another tree", e.Preset, tp.Name, err))
	}
	if p.Perspective >= len(w.Apps) {
		return nil, &ParamError{"perspective", strconv.Itoa(p.Perspective), fmt.Errorf("workload %s has applications 0..%d (%s)", w.Name, len(w.Apps)-1, strings.Join(w.Apps, ", "))}
	}
	s, err := New(tp, w, p)
	if err != nil {
		return nil, err
	}
	e.Schemes = make([]string, len(names))
	for i, n := range names {
		e.Schemes[i], _ = CanonicalScheme(n) // Schemes has accepted every name
	}
	return &Run{Experiment: e, Tree: tp, Workload: w, Params: p, sim: s}, nil
}

// Simulate runs the experiment; progress, when not nil, is told now and then
// how many packets have arrived of the total. ctx stops it.
func (r *Run) Simulate(ctx context.Context, progress func(done, total int64)) (*Result, error) {
	if progress != nil {
		r.sim.SetProgress(progress)
	}
	return r.sim.Run(ctx)
}

// A PlotView is one congested-fraction plot of a run's result: the truth or
// one scheme, over the whole run or one arrival window, in one direction.
type PlotView struct {
	File      string // file name without its extension, e.g. "one5-down" or "one5-window3-down"
	Title     string
	Direction string                          // "up", "down" or "both" (package cfplot's names)
	Fractions func(topo.Link) (float64, bool) // the congested fraction of each link that has one
}

// PlotViews lists the plots of a result: the truth and every scheme, in each
// direction, and every scheme in the down direction for each arrival window
// (Fig. 4.11).
func (r *Run) PlotViews(res *Result) []PlotView {
	type view struct {
		name string
		i    int // scheme index, -1 for the ground truth
	}
	views := []view{{"truth", -1}}
	for i, n := range r.Experiment.Schemes {
		views = append(views, view{n, i})
	}
	var out []PlotView
	for _, v := range views {
		for _, d := range []string{"up", "down", "both"} {
			out = append(out, PlotView{
				File:      v.name + "-" + d,
				Title:     fmt.Sprintf("%s on %s\ncongested fraction: %s\n%s direction", r.Experiment.Preset, r.Tree.Name, v.name, d),
				Direction: d,
				Fractions: res.Fractions(v.i),
			})
		}
		if v.i < 0 {
			continue
		}
		for k, win := range res.Windows {
			out = append(out, PlotView{
				File: fmt.Sprintf("%s-window%d-down", v.name, k+1),
				Title: fmt.Sprintf("%s on %s\ncongested fraction: %s, down direction\narrivals %.1f-%.1f us (window %d of %d)",
					r.Experiment.Preset, r.Tree.Name, v.name, float64(win.StartPS)/1e6, float64(win.EndPS)/1e6, k+1, len(res.Windows)),
				Direction: "down",
				Fractions: res.WindowFractions(k, v.i),
			})
		}
	}
	return out
}
