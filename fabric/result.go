package fabric

import (
	"fmt"
	"math"
	"slices"

	"ibreservoir/header"
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// Result is a run's outcome: the ground truth beside every scheme's estimate,
// per link and overall, the port counters, and the diagnosis. It holds no wall
// time, so it is the same on every machine for the same inputs.
type Result struct {
	Topology  string          `json:"topology"`
	Workload  string          `json:"workload"`
	Seed      uint64          `json:"seed"`
	Params    ParamsSummary   `json:"params"`
	Stats     Stats           `json:"stats"`
	Schemes   []SchemeSummary `json:"schemes"`
	Counters  CounterSummary  `json:"port_counters"`
	Diagnoses []Diagnosis     `json:"diagnosis"`
	Links     []LinkResult    `json:"links"`
	Windows   []Window        `json:"windows,omitempty"`

	topo *topo.Topology
}

// ParamsSummary is the run's parameters in manifest form.
type ParamsSummary struct {
	LinkGbps        int               `json:"link_gbps"`
	MTU             int               `json:"mtu"`
	LinkLatencyPS   int64             `json:"link_latency_ps"`
	RouterDelayPS   int64             `json:"router_delay_ps"`
	InputBuffer     int               `json:"input_buffer_bytes"`
	OutputBuffer    int               `json:"output_buffer_bytes"`
	NICBuffer       int               `json:"hca_buffer_bytes"`
	CounterInterval int64             `json:"counter_interval_ps"`
	Congestion      string            `json:"congestion"`
	P               float64           `json:"threshold_p"`
	Schemes         []refmodel.Config `json:"schemes"`
}

// Stats describes the run.
type Stats struct {
	SimTimePS int64 `json:"sim_time_ps"`
	Messages  int   `json:"messages"`
	Bytes     int64 `json:"bytes"`
	Packets   int64 `json:"packets"`
	Hops      int64 `json:"hops"`
	Events    int64 `json:"events"`
	Diameter  int   `json:"diameter"`
}

// SchemeSummary is one scheme's accuracy over all links.
type SchemeSummary struct {
	Name   string `json:"name"`
	Config string `json:"config"`
	// Links with traffic (truth) and links the scheme reports (after the
	// threshold of section 5.3 for the one-bit schemes; any sample for
	// full-ID).
	TrueLinks      int `json:"true_links"`
	ReportedLinks  int `json:"reported_links"`
	FalsePositives int `json:"false_positives"` // reported, but no packet crossed
	FalseNegatives int `json:"false_negatives"` // packets crossed, reported as zero
	// Errors of the weighted counts against the true packet counts.
	RMSError      float64 `json:"rms_error_packets"`
	RelativeError float64 `json:"relative_error"` // sum |W-N| / sum N
	// Standardized errors z = (W-N)/sqrt(Var) with refmodel's analytic
	// variance (section 3.3 for full-ID, 5.3 for the one-bit schemes), over
	// every link with positive variance: mean about 0, mean square about 1.
	ZLinks      int     `json:"z_links"`
	ZMean       float64 `json:"z_mean"`
	ZMeanSquare float64 `json:"z_mean_square"`
	// Congested links (congested fraction at least 0.5) misclassified among
	// the reported links.
	CongestedFP int `json:"congested_false_positives"`
	CongestedFN int `json:"congested_false_negatives"`
}

// LinkResult is one link's truth and estimates.
type LinkResult struct {
	Switch uint16 `json:"switch"`
	Port   uint8  `json:"port"`
	Level  int    `json:"level"`
	Dir    string `json:"dir"` // up, down, or node (to an HCA)
	// Packets and Congested are the ground truth the estimates estimate:
	// the perspective application's packets, or all of them.
	Packets   int64   `json:"packets"`
	Congested int64   `json:"congested"`
	Fraction  float64 `json:"fraction"`
	// AllPackets, AllCongested and Bytes count every application's packets.
	AllPackets   int64 `json:"all_packets"`
	AllCongested int64 `json:"all_congested"`
	Bytes        int64 `json:"bytes"`
	// Utilization is the true fraction of line rate while the link carried
	// traffic (first to last packet).
	Utilization float64          `json:"utilization"`
	XmitWaitPS  int64            `json:"xmit_wait_ps"`
	MaxFITF     float64          `json:"max_fitf"` // largest stalled fraction of a counter interval
	Estimates   []SchemeEstimate `json:"estimates"`
}

// SchemeEstimate is one scheme's view of one link.
type SchemeEstimate struct {
	W        int64   `json:"w"` // weighted count
	C        int64   `json:"c"` // weighted congested count
	Q        int64   `json:"q,omitempty"`
	Reported bool    `json:"reported"`
	Fraction float64 `json:"fraction"`
	Var      float64 `json:"var"` // analytic variance of W
}

// A Window is the decode of the packets that arrived in one window of time
// (Params.Windows): per scheme, every link it reports.
type Window struct {
	StartPS int64          `json:"start_ps"`
	EndPS   int64          `json:"end_ps"`
	Packets int            `json:"packets"`
	Schemes [][]WindowLink `json:"schemes"`
}

// WindowLink is one reported link in a window.
type WindowLink struct {
	Switch   uint16  `json:"switch"`
	Port     uint8   `json:"port"`
	W        int64   `json:"w"`
	C        int64   `json:"c"`
	Fraction float64 `json:"fraction"`
}

// WindowFractions is Fractions for window k.
func (r *Result) WindowFractions(k, i int) func(topo.Link) (float64, bool) {
	m := map[topo.Link]float64{}
	for _, l := range r.Windows[k].Schemes[i] {
		m[topo.Link{Switch: l.Switch, Port: l.Port}] = l.Fraction
	}
	return func(l topo.Link) (float64, bool) { f, ok := m[l]; return f, ok }
}

// windows decodes the packets of each of Params.Windows equal windows of
// arrival time, from the first arrival to the last.
func (s *Sim) windows(groups [][]int, idx map[topo.Link]int) ([]Window, error) {
	if s.p.Windows == 0 || len(s.samples) == 0 {
		return nil, nil
	}
	lo, hi := s.samples[0].at, s.samples[len(s.samples)-1].at+1
	nw := int64(s.p.Windows)
	out := make([]Window, nw)
	per := make([][][]int, nw)
	for k := range out {
		out[k].StartPS = lo + (hi-lo)*int64(k)/nw
		out[k].EndPS = lo + (hi-lo)*int64(k+1)/nw
	}
	for _, g := range groups {
		split := make([][]int, nw)
		for _, si := range g {
			k := (s.samples[si].at - lo) * nw / (hi - lo)
			split[k] = append(split[k], si)
		}
		for k, sg := range split {
			if len(sg) > 0 {
				per[k] = append(per[k], sg)
				out[k].Packets += len(sg)
			}
		}
	}
	for k := range out {
		decs, err := s.decode(per[k], idx)
		if err != nil {
			return nil, err
		}
		for _, d := range decs {
			var ls []WindowLink
			for li, l := range s.links {
				if d.reported[li] {
					ls = append(ls, WindowLink{Switch: l.Switch, Port: l.Port, W: d.w[li], C: d.c[li], Fraction: refmodel.CongestedFraction(d.w[li], d.c[li])})
				}
			}
			out[k].Schemes = append(out[k].Schemes, ls)
		}
	}
	return out, nil
}

// CounterSummary is what the port counters show (Alali et al.'s method:
// PortXmitWait read at a coarse interval, the forced idle time fraction per
// interval).
type CounterSummary struct {
	IntervalPS   int64   `json:"interval_ps"`
	Reads        int     `json:"reads"`
	Observations int     `json:"observations"`  // (port, interval) pairs on ports that carried traffic
	Stalled      float64 `json:"stalled_share"` // share of observations with a nonzero PortXmitWait increase
	MaxFITF      float64 `json:"max_fitf"`
	// Series is what an operator polling every port would see, read by
	// read: how many ports stalled in the interval, and their mean FITF.
	Series []CounterRead `json:"series"`
}

// CounterRead summarizes one read of every port's PortXmitWait.
type CounterRead struct {
	AtPS         int64   `json:"at_ps"`
	StalledPorts int     `json:"stalled_ports"`
	MeanFITF     float64 `json:"mean_fitf"` // over the ports that carried traffic
}

// decoded is one scheme's per-link estimate, by link index.
type decoded struct {
	w, c, q   []int64
	qByLen    [][maxPathLen + 1]int64 // Q by path length
	reported  []bool
	threshold []float64
}

func (s *Sim) linkIndex() map[topo.Link]int {
	m := make(map[topo.Link]int, len(s.links))
	for i, l := range s.links {
		m[l] = i
	}
	return m
}

// decode runs every scheme's receivers over every packet: Alg. 4 for full-ID,
// and for the one-bit schemes Alg. 7 or 9 over each (source leaf,
// destination) group's candidate set (section 5.2), the counts of all
// receivers summed per link, and section 5.3's threshold with L the diameter
// and Q the packets that might have crossed the link.
func (s *Sim) decode(groups [][]int, idx map[topo.Link]int) ([]*decoded, error) {
	n := len(s.links)
	k := len(s.models)
	decs := make([]*decoded, k)
	fulls := make([]*refmodel.FullIDCounts, k)
	for i, m := range s.models {
		decs[i] = &decoded{w: make([]int64, n), c: make([]int64, n), q: make([]int64, n), qByLen: make([][maxPathLen + 1]int64, n),
			reported: make([]bool, n), threshold: make([]float64, n)}
		if m.Config().Telemetry.Scheme == header.FullID {
			fulls[i] = refmodel.NewFullIDCounts()
		}
	}
	for _, g := range groups {
		first := s.samples[g[0]]
		cs := s.t.CandidatesFromLeaf(s.t.NodeLeaf[first.src], int(first.dst))
		for i, m := range s.models {
			d := decs[i]
			var tally *refmodel.Tally
			if fulls[i] == nil {
				var err error
				if tally, err = m.NewTally(cs); err != nil {
					return nil, fmt.Errorf("decode %s: %w", m.Layout().Name, err)
				}
			}
			for _, si := range g {
				if r := s.reads[si*k+i]; tally == nil {
					fulls[i].Add(r)
				} else {
					tally.Add(r)
				}
			}
			var tw, tc []int64
			if tally != nil {
				tw, tc = tally.Counts()
			}
			for j, l := range cs.Links {
				li := idx[l]
				if tally != nil {
					d.w[li] += tw[j]
					d.c[li] += tc[j]
				}
				d.q[li] += int64(len(g))
				d.qByLen[li][cs.PathLen] += int64(len(g))
			}
		}
	}
	diam := s.t.Diameter()
	for i, d := range decs {
		for li := range n {
			if fulls[i] != nil {
				l := s.links[li]
				d.w[li], d.c[li] = fulls[i].Counts[l], fulls[i].Congested[l]
				d.reported[li] = d.w[li] > 0
				continue
			}
			if d.q[li] > 0 {
				d.threshold[li] = refmodel.Threshold(diam, d.q[li], s.p.P)
				d.reported[li] = float64(d.w[li]) >= d.threshold[li]
			}
		}
	}
	return decs, nil
}

// groupSamples returns the received packets grouped by (source leaf,
// destination), groups in key order, packets in arrival order.
func (s *Sim) groupSamples() [][]int {
	key := func(i int) uint64 {
		return uint64(s.t.NodeLeaf[s.samples[i].src])<<32 | uint64(s.samples[i].dst)
	}
	at := map[uint64]int{}
	var keys []uint64
	var groups [][]int
	for i := range s.samples {
		if s.p.Perspective >= 0 && int(s.samples[i].app) != s.p.Perspective {
			continue
		}
		k := key(i)
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	out := make([][]int, len(groups))
	for i, o := range order {
		out[i] = groups[o]
	}
	return out
}

// variance returns the analytic variance of link li's weighted count under
// scheme i: section 3.3's sum N_l(l-1) for full-ID, section 5.3's sum
// Q_l l^2 - N_l for the one-bit schemes.
func (s *Sim) variance(i, li int, d *decoded) float64 {
	lt := &s.truth[li]
	var ns, qs []int64
	var ls []int
	for l := 1; l <= maxPathLen; l++ {
		if lt.byLen[l] == 0 && d.qByLen[li][l] == 0 {
			continue
		}
		ns, qs, ls = append(ns, lt.byLen[l]), append(qs, d.qByLen[li][l]), append(ls, l)
	}
	if s.models[i].Config().Telemetry.Scheme == header.FullID {
		_, v := refmodel.FullIDMomentsMulti(ns, ls)
		return v
	}
	_, v := refmodel.ProbMomentsMulti(ns, qs, ls)
	return v
}

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
	decs, err := s.decode(groups, idx)
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
		keep := lt.packets > 0
		for _, d := range decs {
			keep = keep || d.q[li] > 0 || d.w[li] != 0
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
		for i, d := range decs {
			e := SchemeEstimate{W: d.w[li], C: d.c[li], Q: d.q[li], Reported: d.reported[li], Var: s.variance(i, li, d)}
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

// SchemeName is a scheme's short name in reports.
func SchemeName(m *refmodel.Model) string { return m.Layout().Name }

func summarize(m *refmodel.Model, i int, links []LinkResult) SchemeSummary {
	ss := SchemeSummary{Name: SchemeName(m), Config: m.Config().String()}
	var se, sabs, sn, zs, zz float64
	for _, l := range links {
		e := l.Estimates[i]
		if l.Packets > 0 {
			ss.TrueLinks++
			if !e.Reported {
				ss.FalseNegatives++
			}
		}
		if e.Reported {
			ss.ReportedLinks++
			if l.Packets == 0 {
				ss.FalsePositives++
			}
			trueC, estC := l.Fraction >= 0.5 && l.Packets > 0, e.Fraction >= 0.5
			if estC && !trueC {
				ss.CongestedFP++
			}
			if trueC && !estC {
				ss.CongestedFN++
			}
		} else if l.Packets > 0 && l.Fraction >= 0.5 {
			ss.CongestedFN++
		}
		if l.Packets > 0 || e.Reported {
			diff := float64(e.W - l.Packets)
			if !e.Reported {
				diff = float64(-l.Packets)
			}
			se += diff * diff
			sabs += math.Abs(diff)
			sn++
		}
		if e.Var > 0 {
			z := float64(e.W-l.Packets) / math.Sqrt(e.Var)
			zs += z
			zz += z * z
			ss.ZLinks++
		}
	}
	var total float64
	for _, l := range links {
		total += float64(l.Packets)
	}
	if sn > 0 {
		ss.RMSError = math.Sqrt(se / sn)
	}
	if total > 0 {
		ss.RelativeError = sabs / total
	}
	if ss.ZLinks > 0 {
		ss.ZMean = zs / float64(ss.ZLinks)
		ss.ZMeanSquare = zz / float64(ss.ZLinks)
	}
	return ss
}

// counterStats returns, per link, the largest forced idle time fraction over
// the counter intervals (Alali et al.'s FITF: PortXmitWait increase over the
// interval), and how many (port, interval) observations on ports that carried
// traffic show a stall.
func (s *Sim) counterStats() (maxFITF []float64, stalled, obs int, series []CounterRead) {
	maxFITF = make([]float64, len(s.links))
	prevAt := int64(0)
	prev := make([]int64, len(s.links))
	for _, c := range s.counters {
		dt := c.at - prevAt
		if dt <= 0 {
			continue
		}
		rd := CounterRead{AtPS: c.at}
		ports := 0
		for li := range s.links {
			if s.truth[li].packets == 0 {
				continue
			}
			obs++
			ports++
			dw := c.wait[li] - prev[li]
			if dw > 0 {
				stalled++
				rd.StalledPorts++
			}
			f := float64(dw) / float64(dt)
			rd.MeanFITF += f
			maxFITF[li] = max(maxFITF[li], f)
		}
		if ports > 0 {
			rd.MeanFITF /= float64(ports)
		}
		series = append(series, rd)
		prevAt = c.at
		copy(prev, c.wait)
	}
	return maxFITF, stalled, obs, series
}

// Fractions returns the congested fraction of each link as scheme i reports
// it (reported links only), or, for i < 0, the ground truth (links that
// carried packets); for cfplot.
func (r *Result) Fractions(i int) func(topo.Link) (float64, bool) {
	m := make(map[topo.Link]float64, len(r.Links))
	for _, l := range r.Links {
		k := topo.Link{Switch: l.Switch, Port: l.Port}
		switch {
		case i < 0 && l.Packets > 0:
			m[k] = l.Fraction
		case i >= 0 && l.Estimates[i].Reported:
			m[k] = l.Estimates[i].Fraction
		}
	}
	return func(l topo.Link) (float64, bool) { f, ok := m[l]; return f, ok }
}

// Tree returns the tree the run used.
func (r *Result) Tree() *topo.Topology { return r.topo }
