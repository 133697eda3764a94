// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// result builds the run's Result: the statistics, the decode of every
// scheme (whole run and windows), the port counters, one LinkResult per link
// that carried packets or that a scheme has an estimate for, each scheme's
// summary and its diagnosis.
func (s *Sim) result() (*Result, error) {
	p := s.p
	r := &Result{Topology: s.t.Name, Workload: s.w.Name, Seed: p.Seed, topo: s.t,
		Params: ParamsSummary{LinkGbps: p.LinkGbps, MTU: p.MTU, LinkLatencyPS: p.LinkLatency, RouterDelayPS: p.RouterDelay,
			InputBuffer: p.InputBuffer, OutputBuffer: p.OutputBuffer, NICBuffer: p.NICBuffer, CounterInterval: p.CounterInterval,
			Congestion: p.Congestion.Name(), P: p.P, Schemes: p.Schemes},
	}
	r.Stats.SimTimePS = s.now
	r.Stats.Messages, r.Stats.Bytes = s.w.Messages()
	r.Stats.Packets = s.recvd
	r.Stats.Events = s.events
	r.Stats.Diameter = s.t.Diameter()
	for _, lt := range s.truth {
		r.Stats.Hops += lt.packets
	}
	groups := s.groupSamples()
	idx := s.linkIndex()
	dec, err := s.decode(groups, idx)
	if err != nil {
		return nil, err
	}
	if r.Windows, err = s.windows(groups, idx); err != nil {
		return nil, err
	}
	maxFITF, stalledObs, obs, series := s.counterStats()
	r.Counters = CounterSummary{IntervalPS: p.CounterInterval, Reads: len(s.counters), Observations: obs, Series: series}
	if obs > 0 {
		r.Counters.Stalled = float64(stalledObs) / float64(obs)
	}
	for li, l := range s.links {
		lt := &s.truth[li]
		keep := lt.packets > 0 || dec.q[li] > 0
		for _, d := range dec.schemes {
			keep = keep || d.w[li] != 0
		}
		if !keep {
			continue
		}
		sw := &s.t.Switches[l.Switch]
		pt := sw.Ports[l.Port-1]
		lr := LinkResult{Switch: l.Switch, Port: l.Port, Level: sw.Level, Packets: lt.seen, Congested: lt.seenCong,
			AllPackets: lt.packets, AllCongested: lt.congested, Bytes: lt.bytes, MaxFITF: maxFITF[li]}
		switch {
		case pt.Kind == topo.ToNode:
			lr.Dir = "node"
		case pt.Up:
			lr.Dir = "up"
		default:
			lr.Dir = "down"
		}
		if lt.seen > 0 {
			lr.Fraction = float64(lt.seenCong) / float64(lt.seen)
		}
		if lt.packets > 0 {
			if span := lt.last - lt.first + p.serialize(int(lt.bytes/lt.packets)); span > 0 {
				lr.Utilization = float64(lt.bytes) * 8000 / float64(p.LinkGbps) / float64(span)
			}
		}
		if n := len(s.counters); n > 0 {
			lr.XmitWaitPS = s.counters[n-1].wait[li]
		}
		r.Counters.MaxFITF = max(r.Counters.MaxFITF, lr.MaxFITF)
		for i, d := range dec.schemes {
			e := SchemeEstimate{W: d.w[li], C: d.c[li], Q: dec.q[li], Reported: d.reported[li], Var: s.variance(i, li, dec)}
			if e.Reported {
				e.Fraction = refmodel.CongestedFraction(e.W, e.C)
			}
			lr.Estimates = append(lr.Estimates, e)
		}
		r.Links = append(r.Links, lr)
	}
	for i, m := range s.models {
		r.Schemes = append(r.Schemes, summarize(m, i, r.Links))
	}
	for i := range s.models {
		r.Diagnoses = append(r.Diagnoses, diagnose(s.t, r, i, func(l topo.Link) float64 { return s.rootUtilization(i, groups, l) }))
	}
	return r, nil
}
