// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"context"
	"errors"
	"fmt"

	"ibreservoir/congestion"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
	"ibreservoir/topo"
)

// A packet in flight. bufs holds one copy of the packet's bytes per scheme.
type packet struct {
	bufs      [][]byte
	size      int   // bytes on the wire: credits and serialization
	payload   int32 // payload bytes (Message.After counts them)
	src       int32 // node
	dst       int32
	pathLen   int8
	hop       int8  // hops completed
	readyAt   int64 // when it may leave the input FIFO (header arrival + router delay)
	tailAt    int64 // when its tail is in the current input buffer
	inPort    uint8 // input port at the current switch
	congested uint8 // hops at which it found its port congested
	app       uint8
}

// pktQueue is a FIFO of packets.
type pktQueue struct {
	s    []*packet
	head int
}

func (q *pktQueue) len() int       { return len(q.s) - q.head }
func (q *pktQueue) front() *packet { return q.s[q.head] }
func (q *pktQueue) push(p *packet) {
	if q.head > 0 && len(q.s) == cap(q.s) {
		n := copy(q.s, q.s[q.head:])
		clear(q.s[n:])
		q.s = q.s[:n]
		q.head = 0
	}
	q.s = append(q.s, p)
}
func (q *pktQueue) pop() *packet {
	p := q.s[q.head]
	q.s[q.head] = nil
	q.head++
	if q.head == len(q.s) {
		q.s, q.head = q.s[:0], 0
	}
	return p
}

type inPort struct {
	fifo    pktQueue
	blocked bool // the head waits for room in an output queue
}

type outPort struct {
	link      int // index into the run's link tables
	q         pktQueue
	qBytes    int
	credits   int
	capacity  int // the downstream buffer: credits when empty
	busyUntil int64
	txPending bool    // an evTx is scheduled
	waitSince int64   // start of the current credit stall, -1 when not stalled
	xmitWait  int64   // accumulated stall time (PortXmitWait), ps
	waiters   []int32 // input ports blocked on this queue
	det       congestion.Detector
	gens      []rng.Generator // per scheme
	peer      topo.Port
}

type swState struct {
	in  []inPort
	out []outPort
	rr  uint32 // round-robin start for adaptive ties
}

type nicState struct {
	msgs      []Message
	next      int // index of the current message
	left      int // bytes of it not yet packetized
	sent      int // packets of it sent
	credits   int
	busyUntil int64
	pending   bool  // an evNICTry is scheduled
	waiting   bool  // the next message waits for bytes to arrive (Message.After)
	received  int64 // payload bytes received
	senders   []rng.Generator
}

// Sim is one run. Create it with New, then Run it once.
type Sim struct {
	t       *topo.Topology
	p       Params
	w       *Workload
	models  []*refmodel.Model
	footer  []int
	lnh     uint8
	ev      eventHeap
	seq     uint64
	now     int64
	sw      []swState
	nic     []nicState
	free    []*packet
	zeros   []byte
	maxSize int // largest wire size, for buffer checks

	psn map[uint64]uint32

	links      []topo.Link
	truth      []linkTruth
	samples    []sample
	reads      []refmodel.Sample // len(models) per sample
	recvd      int64
	lastArrive int64
	total      int64 // packets the workload needs
	events     int64
	hdrs       header.Headers

	counters []counterRead
	err      error

	progress func(done, total int64)
}

// New prepares a run of workload w on topology t.
func New(t *topo.Topology, w *Workload, p Params) (*Sim, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(w.PerNode) != t.Nodes() {
		return nil, fmt.Errorf("workload %s is for %d nodes, topology %s has %d", w.Name, len(w.PerNode), t.Name, t.Nodes())
	}
	if p.Perspective >= len(w.Apps) {
		return nil, fmt.Errorf("perspective %d: workload %s has applications 0..%d", p.Perspective, w.Name, len(w.Apps)-1)
	}
	s := &Sim{t: t, p: p, w: w, psn: map[uint64]uint32{}, zeros: make([]byte, p.MTU)}
	s.lnh = p.Schemes[0].LNH
	for i, c := range p.Schemes {
		c.MaxSwitch = max(c.MaxSwitch, len(t.Switches)-1)
		c.MaxPort = max(c.MaxPort, t.MaxPort())
		m, err := refmodel.New(c)
		if err != nil {
			return nil, fmt.Errorf("scheme %d (%s): %w", i, c, err)
		}
		s.models = append(s.models, m)
		s.footer = append(s.footer, m.Layout().FooterBytes)
	}
	// Links: every switch output port, indexed densely.
	s.sw = make([]swState, len(t.Switches))
	for i := range t.Switches {
		sw := &t.Switches[i]
		st := &s.sw[i]
		st.in = make([]inPort, len(sw.Ports))
		st.out = make([]outPort, len(sw.Ports))
		for j, pt := range sw.Ports {
			o := &st.out[j]
			o.peer = pt
			o.waitSince = -1
			if pt.Kind == topo.Unconnected {
				o.link = -1
				continue
			}
			o.link = len(s.links)
			s.links = append(s.links, topo.Link{Switch: uint16(i), Port: uint8(j + 1)})
			if pt.Kind == topo.ToNode {
				o.capacity = p.NICBuffer
			} else {
				o.capacity = p.InputBuffer
			}
			o.credits = o.capacity
			o.det = p.Congestion.NewDetector(seed.Derive(p.Seed, SeedDetector, uint64(i), uint64(j+1)))
			for _, c := range p.Schemes {
				g, err := c.NewPortGenerator(uint16(i), uint8(j+1))
				if err != nil {
					return nil, err
				}
				o.gens = append(o.gens, g)
			}
		}
	}
	s.truth = make([]linkTruth, len(s.links))
	s.nic = make([]nicState, t.Nodes())
	for n := range s.nic {
		nc := &s.nic[n]
		nc.msgs = w.PerNode[n]
		nc.credits = p.InputBuffer
		for _, m := range nc.msgs {
			if m.Dst == n || m.Dst < 0 || m.Dst >= t.Nodes() {
				return nil, fmt.Errorf("workload %s: node %d sends to node %d (want another node of 0..%d)", w.Name, n, m.Dst, t.Nodes()-1)
			}
			if m.Bytes < 1 {
				return nil, fmt.Errorf("workload %s: node %d sends an empty message to node %d", w.Name, n, m.Dst)
			}
			s.total += int64((m.Bytes + p.MTU - 1) / p.MTU)
		}
		for _, c := range p.Schemes {
			if g := c.NewSenderGenerator(t.LID(n)); g != nil {
				nc.senders = append(nc.senders, g)
			} else {
				nc.senders = append(nc.senders, nil)
			}
		}
	}
	maxFooter := 0
	for _, f := range s.footer {
		maxFooter = max(maxFooter, f)
	}
	bth, _ := header.BTHOffset(s.lnh)
	s.maxSize = bth + header.BTHLen + p.MTU + header.ICRCLen + maxFooter + header.VCRCLen
	return s, nil
}

// SetProgress installs a callback told, now and then, how many packets have
// arrived of the total.
func (s *Sim) SetProgress(f func(done, total int64)) { s.progress = f }

func (s *Sim) schedule(t int64, k evKind, a, b int32, p *packet) {
	s.seq++
	s.ev.push(event{t: t, seq: s.seq, kind: k, a: a, b: b, p: p})
}

func (s *Sim) scheduleCredit(t int64, k evKind, a, b int32, n int) {
	s.seq++
	s.ev.push(event{t: t, seq: s.seq, kind: k, a: a, b: b, n: int32(n)})
}

// Run runs the simulation to completion (every packet delivered) and
// decodes what the receivers read. It stops early, with the context's error,
// when ctx is cancelled.
func (s *Sim) Run(ctx context.Context) (*Result, error) {
	if s.events > 0 {
		return nil, errors.New("fabric: a Sim runs once")
	}
	for n := range s.nic {
		if len(s.nic[n].msgs) > 0 {
			s.nic[n].pending = true
			s.schedule(s.nic[n].msgs[0].Start, evNICTry, int32(n), 0, nil)
		}
	}
	s.schedule(s.p.CounterInterval, evCounter, 0, 0, nil)
	for len(s.ev) > 0 && s.err == nil {
		e := s.ev.pop()
		if e.kind == evCounter && s.recvd == s.total {
			continue
		}
		s.now = e.t
		s.events++
		if s.events&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if s.progress != nil {
				s.progress(s.recvd, s.total)
			}
		}
		switch e.kind {
		case evNICTry:
			s.nicTry(int(e.a))
		case evNICArrive:
			s.nicArrive(e.p)
		case evNICCredit:
			s.nic[e.a].credits += int(e.n)
			s.kickNIC(int(e.a))
		case evArrive:
			s.arrive(uint16(e.a), uint8(e.b), e.p)
		case evXbar:
			s.xbar(uint16(e.a), uint8(e.b))
		case evTx:
			o := &s.sw[e.a].out[e.b-1]
			o.txPending = false
			s.tx(uint16(e.a), uint8(e.b))
		case evCredit:
			s.sw[e.a].out[e.b-1].credits += int(e.n)
			s.kickTx(uint16(e.a), uint8(e.b))
		case evCounter:
			s.readCounters()
			if s.recvd < s.total {
				s.schedule(s.now+s.p.CounterInterval, evCounter, 0, 0, nil)
			}
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if s.progress != nil {
		s.progress(s.recvd, s.total)
	}
	if s.recvd != s.total {
		return nil, fmt.Errorf("fabric: the run stopped with %d of %d packets delivered (a flow-control deadlock?)", s.recvd, s.total)
	}
	s.now = s.lastArrive
	s.readCounters()
	return s.result()
}
