// SPDX-License-Identifier: Apache-2.0

// Package fabric is a packet-level discrete-event model of an InfiniBand fat
// tree carrying the reservoir-sampling telemetry of Taffet's thesis: the
// end-to-end check that a few bits per packet answer "where is the traffic,
// and where is the congestion?" (chapters 3-5).
//
// The model (docs/simulation.md):
//
//   - switches with an input buffer per port and a queue per output port
//     (input- and output-queued), a crossbar that moves the head of each
//     input FIFO to its output queue after a routing delay, and virtual
//     cut-through: a packet can leave as soon as its header has arrived and
//     the next buffer has credit for all of it;
//   - credit-based flow control on every link, credits counted in bytes of
//     the receiving buffer and returned one link latency after the bytes
//     leave it;
//   - adaptive routing among the minimal up-paths of package topo: each up
//     hop (and each choice among parallel down links) takes the output whose
//     queue plus unreturned credit is smallest, ties broken round-robin;
//   - HCAs that send their messages in order as back-to-back packets of at
//     most the MTU, each a real IBA packet (LRH, BTH, payload, ICRC, VCRC)
//     with the SLID, DLID, DestQP and PSN an HCA would give it, and that
//     consume what they receive at once;
//   - at every switch hop, when the packet is added to the output queue, the
//     congestion definition (package congestion; by default the thesis's
//     queue longer than the available credits, section 3.2) is evaluated on
//     the port's state, and refmodel's switch stage rewrites the packet's real
//     bytes for every configured scheme; every receiving HCA reads the fields
//     with refmodel's receiver.
//
// Beside the estimates the model keeps the ground truth (packets and
// congested packets per link), the port counters an operator would read
// (PortXmitWait, sampled at a coarse interval), and applies the diagnosis
// rules of section 4.1.
//
// Everything is integer time in picoseconds, every random choice derives from
// the run seed through internal/seed, and events at equal times run in the
// order they were scheduled: a run is the same, byte for byte, on every
// machine.
package fabric

import (
	"errors"
	"fmt"

	"ibreservoir/congestion"
	"ibreservoir/refmodel"
)

// Params are the fabric's physical and telemetry parameters.
type Params struct {
	LinkGbps        int   // link rate in Gb/s, every link (Table 3.1: 100, EDR)
	MTU             int   // the largest payload per packet: 256, 512, 1024, 2048 or 4096 bytes (IBA)
	LinkLatency     int64 // propagation delay of a link, ps
	RouterDelay     int64 // from a header's arrival to its packet entering the output queue, ps
	InputBuffer     int   // bytes of buffer per switch input port: the credits its upstream sees
	OutputBuffer    int   // bytes per switch output queue
	NICBuffer       int   // bytes of receive buffer per HCA: the credits of the leaf's port to it
	CounterInterval int64 // ps between reads of the port counters (PortXmitWait)

	// Congestion is the definition of "this output port is congested"
	// (section 5.10), evaluated when a packet is added to the queue.
	Congestion congestion.Definition
	// Schemes are the telemetry configurations every packet carries, each
	// in its own copy of the packet; all run on the same traffic. They must
	// share the LNH. Each scheme's port generators are seeded by its own
	// Config.Seed, so a scheme's result does not depend on the others.
	Schemes []refmodel.Config
	// P is the confidence of the false-positive threshold (section 5.3).
	P float64
	// Seed is the run seed every random choice of the fabric derives from.
	Seed uint64
	// Perspective, when 0 or more, decodes only the packets of that
	// application (Workload.Apps), as a user without the network
	// administrator's view would (section 4.4, Fig. 4.16); -1 decodes all.
	Perspective int
	// Windows, when positive, also decodes the packets in that many equal
	// windows of arrival time, as Fig. 4.11 follows a congestion tree as it
	// spreads (receivers know when each packet arrived; port counters are
	// read only every CounterInterval).
	Windows int
}

// DefaultParams are EDR-like: 100 Gb/s links, a 4 KB MTU, 20 ns links, 90 ns
// switches, 32 KB of input buffer per switch port (eight 4 KB packets), 128 KB
// output queues, 64 KB of receive buffer per HCA, the thesis's congestion
// definition, and three schemes (the full-ID 64-bit layout, and the
// one-reservoir scheme in 5 bits and the two-reservoir scheme in 8, both with
// Hmult0 and the thesis's link encoding).
//
// Under the thesis's definition (queue longer than the available credits) a
// port can only be congested if its queue can grow past the buffer behind
// the link, so the output queues are larger than both the switch input
// buffers and the HCAs' buffers. An HCA drains its buffer at once, so its
// port is congested only when more than 64 KB (16 packets) wait for it:
// adaptive routing delivers a single sender's packets in bursts, and a
// smaller HCA buffer makes such bursts look like endpoint congestion.
func DefaultParams() Params {
	return Params{
		LinkGbps:        100,
		MTU:             4096,
		LinkLatency:     20_000,
		RouterDelay:     90_000,
		InputBuffer:     32 << 10,
		OutputBuffer:    128 << 10,
		NICBuffer:       64 << 10,
		CounterInterval: 100_000_000, // 100 us
		Congestion:      congestion.QueueOverCredits{},
		Schemes:         DefaultSchemes(1),
		P:               refmodel.DefaultP,
		Seed:            1,
		Perspective:     -1,
	}
}

// DefaultSchemes returns the three schemes of DefaultParams, seeded with s:
// the named schemes of DefaultSchemeNames, for switches up to 1023 with up to
// 63 ports.
func DefaultSchemes(s uint64) []refmodel.Config {
	cs, err := Schemes(DefaultSchemeNames(), s, 1023, 63)
	if err != nil {
		panic(err) // the default names are in the table
	}
	return cs
}

// Validate says what is wrong, all at once.
func (p Params) Validate() error {
	var errs []error
	if p.LinkGbps < 1 || p.LinkGbps > 8000 {
		errs = append(errs, fmt.Errorf("link rate %d Gb/s: want 1..8000", p.LinkGbps))
	}
	switch p.MTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		errs = append(errs, fmt.Errorf("MTU %d: IBA MTUs are 256, 512, 1024, 2048 and 4096 bytes", p.MTU))
	}
	if p.LinkLatency < 0 || p.RouterDelay < 0 {
		errs = append(errs, fmt.Errorf("negative delay (link %d ps, router %d ps)", p.LinkLatency, p.RouterDelay))
	}
	maxPkt := p.MTU + 128
	if p.InputBuffer < maxPkt || p.OutputBuffer < maxPkt || p.NICBuffer < maxPkt {
		errs = append(errs, fmt.Errorf("buffers (input %d, output %d, HCA %d bytes) must each hold a whole %d-byte packet for virtual cut-through", p.InputBuffer, p.OutputBuffer, p.NICBuffer, maxPkt))
	}
	if p.CounterInterval <= 0 {
		errs = append(errs, fmt.Errorf("port counter interval %d ps: want positive", p.CounterInterval))
	}
	if p.Congestion == nil {
		errs = append(errs, errors.New("no congestion definition"))
	} else if err := p.Congestion.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(p.Schemes) == 0 {
		errs = append(errs, errors.New("no telemetry scheme"))
	}
	for i, c := range p.Schemes {
		if c.LNH != p.Schemes[0].LNH {
			errs = append(errs, fmt.Errorf("scheme %d has LNH=%d, scheme 0 LNH=%d: every scheme rides the same packets", i, c.LNH, p.Schemes[0].LNH))
		}
	}
	if p.Perspective < -1 {
		errs = append(errs, fmt.Errorf("perspective %d: want an application number, or -1 for every packet", p.Perspective))
	}
	if p.Windows < 0 || p.Windows > 100 {
		errs = append(errs, fmt.Errorf("%d time windows: want 0..100", p.Windows))
	}
	if !(p.P > 0.5 && p.P < 1) {
		errs = append(errs, fmt.Errorf("threshold confidence %g: want 0.5 < p < 1", p.P))
	}
	return errors.Join(errs...)
}

// serialize returns the time to send n bytes, rounded up to a picosecond.
func (p Params) serialize(n int) int64 {
	return (int64(n)*8000 + int64(p.LinkGbps) - 1) / int64(p.LinkGbps)
}
