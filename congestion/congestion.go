// SPDX-License-Identifier: Apache-2.0

// Package congestion holds the pluggable definitions of "this output port is
// congested" that feed the congested bit c of the switch stage (Alg. 3 line 6,
// Alg. 6 line 6, Alg. 8 line 5).
//
// The thesis leaves the test "intentionally vague" (section 3.2) and discusses
// alternatives in section 5.10:
//
//	queue-over-credits  the queue is longer than the available credits       the thesis's experiments (section 3.2)
//	threshold           the queue is above a fixed threshold                  section 5.10
//	probabilistic       marked with a probability rising with occupancy       section 5.10
//	ibcc                InfiniBand congestion-control FECN marking            section 5.10 ("use the existing mechanisms")
//
// The ibcc definition follows IBA release 1.2.1 annex A10 as Gran et al.
// describe it ("On the Relation Between Congestion Control, Switch Arbitration
// and Fairness", section II): a per-port Threshold weight 0..15, Marking_Rate,
// Packet_Size and Victim_Mask, with the two-threshold (entry/exit) hysteresis of
// their section IV-B.
//
// A Definition is a value (its parameters); NewDetector makes the per-port
// state machine. Detectors are deterministic: the same seed and the same
// sequence of PortStates give the same answers on every machine. A detector
// belongs to one port and is not safe for concurrent use.
package congestion

import (
	"fmt"
	"math/bits"

	"ibreservoir/rng"
)

// PortState is what a switch knows about one output port (one Port VL) when a
// packet is considered for it. The simulator fills it at the instant it chooses
// to measure (arrival, enqueue or departure: section 5.10 notes any of the
// three detects congestion that lasts more than a few packet times).
type PortState struct {
	QueueBytes   int64 // bytes queued for the port, not counting this packet
	QueuePackets int   // packets queued for the port, not counting this packet
	Capacity     int64 // bytes of buffer the queue may occupy
	Credits      int64 // bytes of flow-control credit available from the downstream buffer
	PacketBytes  int   // size of this packet in bytes (IBA: 4*PktLen + VCRC)
	FacesHCA     bool  // the port's link leads to a channel adapter, not a switch
	Time         int64 // simulation time in picoseconds; no definition here depends on it
}

// Validate reports a state no port can be in.
func (s PortState) Validate() error {
	switch {
	case s.QueueBytes < 0 || s.QueuePackets < 0:
		return fmt.Errorf("port state: negative queue (%d bytes, %d packets)", s.QueueBytes, s.QueuePackets)
	case s.Capacity < 0:
		return fmt.Errorf("port state: negative capacity %d bytes", s.Capacity)
	case s.Credits < 0:
		return fmt.Errorf("port state: negative credits %d bytes", s.Credits)
	case s.PacketBytes < 0:
		return fmt.Errorf("port state: negative packet size %d bytes", s.PacketBytes)
	case s.QueuePackets == 0 && s.QueueBytes != 0:
		return fmt.Errorf("port state: %d bytes queued in 0 packets", s.QueueBytes)
	}
	return nil
}

// A Definition is one meaning of "congested", with its parameters.
type Definition interface {
	// Name is a stable description for manifests, parameters included,
	// e.g. "threshold(bytes=8192)". ParseDefinition reads it back.
	Name() string
	// Validate reports inconsistent parameters.
	Validate() error
	// NewDetector returns the state machine for one port. seed feeds the
	// definition's own random generator, where it has one; derive it per port
	// with internal/seed.Derive.
	NewDetector(seed uint64) Detector
}

// A Detector decides, packet by packet, whether one port is congested.
type Detector interface {
	// Congested reports whether this packet sees its output port congested,
	// and advances the detector's state (hysteresis, marking counters,
	// random draws). It is called once per packet, in the order the port
	// sees them.
	Congested(PortState) bool
}

// QueueOverCredits is the thesis's definition (section 3.2): congested when
// the queue is longer than the available credits, so that it cannot empty
// without credit coming back. Stateless.
type QueueOverCredits struct{}

func (QueueOverCredits) Name() string                { return "queue-over-credits" }
func (QueueOverCredits) Validate() error             { return nil }
func (QueueOverCredits) NewDetector(uint64) Detector { return queueOverCredits{} }
func (queueOverCredits) Congested(s PortState) bool  { return s.QueueBytes > s.Credits }

type queueOverCredits struct{}

// Threshold marks a port congested when its queue holds more than Bytes bytes
// or more than Packets packets (section 5.10). A zero limit is not checked;
// at least one must be set. Stateless.
type Threshold struct {
	Bytes   int64
	Packets int
}

func (t Threshold) Name() string {
	return fmt.Sprintf("threshold(bytes=%d,packets=%d)", t.Bytes, t.Packets)
}

func (t Threshold) Validate() error {
	if t.Bytes < 0 || t.Packets < 0 {
		return fmt.Errorf("threshold: negative limit (bytes=%d, packets=%d)", t.Bytes, t.Packets)
	}
	if t.Bytes == 0 && t.Packets == 0 {
		return fmt.Errorf("threshold: set bytes or packets (both are 0, which would mark nothing as a limit)")
	}
	return nil
}

func (t Threshold) NewDetector(uint64) Detector { return threshold{t} }

type threshold struct{ t Threshold }

func (d threshold) Congested(s PortState) bool {
	return (d.t.Bytes > 0 && s.QueueBytes > d.t.Bytes) || (d.t.Packets > 0 && s.QueuePackets > d.t.Packets)
}

// Probabilistic marks packets with a probability that rises linearly with the
// queue's occupancy (section 5.10: "marked as congested with some probability
// based on how congested the output port is", after RED): 0 at or below Min
// bytes, 1 at or above Max bytes, and (q-Min)/(Max-Min) between.
//
// Bit-exactly: each packet takes one 32-bit output r of the detector's own
// xoshiro128** (rng.Ideal, seeded by NewDetector's seed), drawn whether or not
// the probability is 0 or 1, and is marked iff r < floor(2^32*(q-Min)/(Max-Min))
// (for q strictly between Min and Max), so the probability is that fraction
// rounded down to a multiple of 2^-32.
type Probabilistic struct {
	Min, Max int64
}

func (p Probabilistic) Name() string {
	return fmt.Sprintf("probabilistic(min=%d,max=%d)", p.Min, p.Max)
}

func (p Probabilistic) Validate() error {
	if p.Min < 0 || p.Max <= p.Min {
		return fmt.Errorf("probabilistic: want 0 <= min < max bytes, have min=%d max=%d", p.Min, p.Max)
	}
	return nil
}

func (p Probabilistic) NewDetector(seed uint64) Detector {
	return &probabilistic{p: p, g: rng.NewIdeal(seed, 1)}
}

type probabilistic struct {
	p Probabilistic
	g *rng.Ideal
}

// MarkThreshold returns T(q): a packet is marked iff its 32-bit draw is below
// T(q), out of 2^32.
func (p Probabilistic) MarkThreshold(q int64) uint64 {
	switch {
	case q <= p.Min:
		return 0
	case q >= p.Max:
		return 1 << 32
	}
	hi, lo := bits.Mul64(uint64(q-p.Min), 1<<32)
	t, _ := bits.Div64(hi, lo, uint64(p.Max-p.Min))
	return t
}

func (d *probabilistic) Congested(s PortState) bool {
	r := uint64(d.g.Next())
	return r < d.p.MarkThreshold(s.QueueBytes)
}

// IBCC is InfiniBand congestion-control marking at a switch port (IBA 1.2.1
// annex A10; Gran et al. section II-1 and IV-B).
//
// Entry: a Port VL enters the congestion state when its queue reaches the
// high threshold and it is the root of congestion (it has credits: Credits >
// 0), or its Victim_Mask is set (typically on ports facing HCAs, "as an HCA
// will never detect congestion itself"). A port without credits is a victim
// and does not enter the state.
//
// Threshold: the weight 0..15 is the same for all VLs of the port; 0 marks
// nothing, and 1..15 give uniformly decreasing thresholds. The specification
// leaves the mapping to the switch designer; here the high threshold is
// Capacity*(16-Weight)/16 bytes (weight 1: 15/16 of the buffer; weight 15:
// 1/16), rounded down.
//
// Exit: the port leaves the state when its queue falls below the low threshold,
// high minus Hysteresis bytes (floored at 0). Hysteresis 0 is the single
// threshold of Gran et al. section IV-A (leave as soon as the queue is below
// it); they find that more than one MTU of hysteresis is needed for fairness and
// used a little over 3 MTUs. Losing credits does not leave the state; only the
// queue does.
//
// Marking: while in the state, packets shorter than Packet_Size bytes are not
// eligible; eligible packets are marked (FECN set) either every
// (Marking_Rate+1)-th eligible packet (Counter, a deterministic countdown that
// restarts on entry) or each with probability 1/(Marking_Rate+1), as Gran et
// al.'s footnote 3 does, from the detector's own generator (one rng.Ideal
// draw with l = Marking_Rate+1 per eligible packet). Marking_Rate and
// Packet_Size 0 mark every packet while the state holds.
//
// The state is updated before the packet is judged, from the queue it finds.
type IBCC struct {
	Weight      int   // Threshold, 0..15
	MarkingRate int   // Marking_Rate, 0..65535: mean eligible packets between marks
	PacketSize  int   // Packet_Size in bytes: smaller packets are never marked
	VictimMask  bool  // Victim_Mask for this port
	Hysteresis  int64 // bytes between the entry and exit thresholds
	Counter     bool  // mark every (Marking_Rate+1)-th eligible packet instead of at random
}

func (c IBCC) Name() string {
	mode := "random"
	if c.Counter {
		mode = "counter"
	}
	return fmt.Sprintf("ibcc(weight=%d,marking_rate=%d,packet_size=%d,victim_mask=%t,hysteresis=%d,marking=%s)",
		c.Weight, c.MarkingRate, c.PacketSize, c.VictimMask, c.Hysteresis, mode)
}

func (c IBCC) Validate() error {
	switch {
	case c.Weight < 0 || c.Weight > 15:
		return fmt.Errorf("ibcc: threshold weight %d outside 0..15", c.Weight)
	case c.MarkingRate < 0 || c.MarkingRate > 0xFFFF:
		return fmt.Errorf("ibcc: Marking_Rate %d outside 0..65535 (a 16-bit field)", c.MarkingRate)
	case c.PacketSize < 0:
		return fmt.Errorf("ibcc: negative Packet_Size %d", c.PacketSize)
	case c.Hysteresis < 0:
		return fmt.Errorf("ibcc: negative hysteresis %d bytes", c.Hysteresis)
	}
	return nil
}

// HighThreshold returns the entry threshold in bytes for a buffer of capacity
// bytes; -1 for weight 0 (never).
func (c IBCC) HighThreshold(capacity int64) int64 {
	if c.Weight == 0 {
		return -1
	}
	return capacity * int64(16-c.Weight) / 16
}

// LowThreshold returns the exit threshold in bytes.
func (c IBCC) LowThreshold(capacity int64) int64 {
	return max(c.HighThreshold(capacity)-c.Hysteresis, 0)
}

func (c IBCC) NewDetector(seed uint64) Detector {
	return &ibcc{c: c, g: rng.NewIdeal(seed, c.MarkingRate+1)}
}

type ibcc struct {
	c         IBCC
	g         *rng.Ideal
	congested bool // the Port VL congestion state
	countdown int  // eligible packets still to pass before the next mark (Counter mode)
}

func (d *ibcc) Congested(s PortState) bool {
	if d.c.Weight == 0 {
		return false
	}
	hi := d.c.HighThreshold(s.Capacity)
	if d.congested {
		if s.QueueBytes < d.c.LowThreshold(s.Capacity) {
			d.congested = false
		}
	} else if s.QueueBytes >= hi && (s.Credits > 0 || d.c.VictimMask) {
		d.congested = true
		d.countdown = d.c.MarkingRate
	}
	if !d.congested || s.PacketBytes < d.c.PacketSize {
		return false
	}
	if d.c.Counter {
		if d.countdown == 0 {
			d.countdown = d.c.MarkingRate
			return true
		}
		d.countdown--
		return false
	}
	return d.g.Draw(d.c.MarkingRate + 1)
}

// InState reports whether an ibcc detector is in the congestion state, for
// tests and traces; false for other detectors.
func InState(d Detector) bool {
	c, ok := d.(*ibcc)
	return ok && c.congested
}
