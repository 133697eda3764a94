// SPDX-License-Identifier: Apache-2.0

package fabric

import (
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
	Name   string `json:"name"`   // the short name (one5; SchemeNames)
	Layout string `json:"layout"` // its layout's name (onereservoir-c3@resv6), as the vector sets and the other commands name it
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
