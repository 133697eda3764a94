// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"

	"ibreservoir/congestion"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/topo"
)

// RC SEND opcodes (IBA Vol. 1 section 9.2, table 38).
const (
	opSendFirst  = 0x00
	opSendMiddle = 0x01
	opSendLast   = 0x02
	opSendOnly   = 0x04
)

// newPacket takes a packet from the free list or makes one.
func (s *Sim) newPacket() *packet {
	if n := len(s.free); n > 0 {
		p := s.free[n-1]
		s.free = s.free[:n-1]
		return p
	}
	p := &packet{bufs: make([][]byte, len(s.models))}
	for i := range p.bufs {
		p.bufs[i] = make([]byte, 0, s.maxSize)
	}
	return p
}

// kickNIC schedules an injection attempt now unless one is pending.
func (s *Sim) kickNIC(n int) {
	nc := &s.nic[n]
	if nc.pending {
		return
	}
	nc.pending = true
	s.schedule(max(s.now, nc.busyUntil), evNICTry, int32(n), 0, nil)
}

// nicTry is the sending HCA: the next packet of the current message, if the
// link is free, the message may start, and the leaf's input buffer has credit.
func (s *Sim) nicTry(n int) {
	nc := &s.nic[n]
	nc.pending = false
	if nc.next >= len(nc.msgs) || s.now < nc.busyUntil {
		if nc.next < len(nc.msgs) {
			s.kickNIC(n)
		}
		return
	}
	m := &nc.msgs[nc.next]
	if nc.received < m.After {
		nc.waiting = true // nicArrive will call again
		return
	}
	if s.now < m.Start {
		nc.pending = true
		s.schedule(m.Start, evNICTry, int32(n), 0, nil)
		return
	}
	if nc.sent == 0 && nc.left == 0 {
		nc.left = m.Bytes
	}
	payload := min(nc.left, s.p.MTU)
	size := s.wireSize(payload)
	if nc.credits < size {
		return // an evNICCredit will call again
	}
	p := s.newPacket()
	if err := s.build(p, n, m, payload, nc); err != nil {
		s.err = err
		return
	}
	nc.credits -= p.size
	nc.left -= payload
	nc.sent++
	if nc.left == 0 {
		nc.next++
		nc.sent = 0
	}
	leaf, port := s.t.LeafOf(n)
	ser := s.p.serialize(p.size)
	p.tailAt = s.now + s.p.LinkLatency + ser
	s.schedule(s.now+s.p.LinkLatency, evArrive, int32(leaf), int32(port), p)
	nc.busyUntil = s.now + ser
	if nc.next < len(nc.msgs) {
		nc.pending = true
		s.schedule(nc.busyUntil, evNICTry, int32(n), 0, nil)
	}
}

// wireSize is the size of a packet with the given payload: the headers, the
// payload padded to 4 bytes, the ICRC, the largest telemetry footer among the
// schemes (so every scheme's copy sees the same timing) and the VCRC.
func (s *Sim) wireSize(payload int) int {
	bth, _ := header.BTHOffset(s.lnh)
	f := 0
	for _, x := range s.footer {
		f = max(f, x)
	}
	return bth + header.BTHLen + (payload+3)&^3 + header.ICRCLen + f + header.VCRCLen
}

// build writes the packet's bytes for every scheme, as the sending HCA does:
// LRH (VL 0, SL 0, LNH, DLID, SLID), GRH for global packets, BTH (RC SEND
// opcodes, P_Key 0xFFFF, DestQP, PSN, AckReq on the last packet), zero
// payload, ICRC and VCRC; then the scheme's sender initialisation (Alg. 2, 5).
// The QP on the destination is 0x100 + the source node (one RC QP per peer);
// each QP's first PSN is drawn from the run seed, and PSNs then count up
// modulo 2^24 (IBA 9.7.1).
func (s *Sim) build(p *packet, n int, m *Message, payload int, nc *nicState) error {
	key := uint64(n)<<32 | uint64(m.Dst)
	psn, ok := s.psn[key]
	if !ok {
		psn = uint32(seed.Derive(s.p.Seed, SeedPSN, uint64(n), uint64(m.Dst))) & 0xFFFFFF
	}
	s.psn[key] = (psn + 1) & 0xFFFFFF
	last := nc.left == payload
	op := uint8(opSendMiddle)
	switch {
	case nc.sent == 0 && last:
		op = opSendOnly
	case nc.sent == 0:
		op = opSendFirst
	case last:
		op = opSendLast
	}
	h := &s.hdrs
	*h = header.Headers{}
	h.LRH.LNH = s.lnh
	h.LRH.DLID = s.t.LID(m.Dst)
	h.LRH.SLID = s.t.LID(n)
	if s.lnh == header.LNHGlobal {
		h.GRH = header.GRH{IPVer: header.IPVer6, NxtHdr: header.NxtHdrBTH, HopLmt: 1}
		h.GRH.SGID[15], h.GRH.DGID[15] = byte(n), byte(m.Dst)
	}
	h.BTH = header.BTH{OpCode: op, PKey: 0xFFFF, DestQP: 0x100 + uint32(n), PSN: psn, AckReq: last}
	for i, mdl := range s.models {
		b, err := header.AppendBuild(p.bufs[i][:0], *h, s.zeros[:payload], s.footer[i])
		if err != nil {
			return fmt.Errorf("HCA %d: building a packet for node %d: %w", n, m.Dst, err)
		}
		if err := mdl.Send(b, nc.senders[i]); err != nil {
			return fmt.Errorf("HCA %d: %w", n, err)
		}
		p.bufs[i] = b
	}
	p.size = s.wireSize(payload)
	p.payload = int32(payload)
	p.src, p.dst = int32(n), int32(m.Dst)
	p.pathLen = int8(s.t.PathLen(n, m.Dst))
	p.hop = 0
	p.congested = 0
	p.app = m.App
	return nil
}

// arrive: a packet's header reaches input port in of switch sw. Its bytes were
// reserved in the input buffer when the upstream port sent it (credits).
func (s *Sim) arrive(sw uint16, in uint8, p *packet) {
	ip := &s.sw[sw].in[in-1]
	p.inPort = in
	p.readyAt = s.now + s.p.RouterDelay
	ip.fifo.push(p)
	if ip.fifo.len() == 1 {
		s.schedule(p.readyAt, evXbar, int32(sw), int32(in), nil)
	}
}

// xbar tries to move the head of input port in's FIFO into an output queue:
// adaptive routing picks, among the minimal next hops with room, the port whose
// queue plus unreturned credit is smallest, ties broken round-robin.
func (s *Sim) xbar(sw uint16, in uint8) {
	st := &s.sw[sw]
	ip := &st.in[in-1]
	if ip.fifo.len() == 0 {
		return
	}
	p := ip.fifo.front()
	if s.now < p.readyAt {
		s.schedule(p.readyAt, evXbar, int32(sw), int32(in), nil)
		return
	}
	ports, _ := s.t.Route(sw, int(p.dst))
	best := -1
	bestOcc := 0
	n := len(ports)
	start := 0
	if n > 1 {
		start = int(st.rr % uint32(n))
	}
	for i := range n {
		port := ports[(start+i)%n]
		o := &st.out[port-1]
		if o.qBytes+p.size > s.p.OutputBuffer {
			continue
		}
		occ := o.qBytes + o.capacity - o.credits
		if best < 0 || occ < bestOcc {
			best, bestOcc = int(port), occ
		}
	}
	if best < 0 {
		// No room: wait on every candidate output.
		if !ip.blocked {
			ip.blocked = true
			for _, port := range ports {
				o := &st.out[port-1]
				o.waiters = append(o.waiters, int32(in))
			}
		}
		return
	}
	if n > 1 {
		st.rr++
	}
	ip.fifo.pop()
	s.enqueue(sw, uint8(best), p)
	// The input buffer frees once the tail is in and the packet has left it.
	free := max(s.now, p.tailAt)
	if up := s.upstream(sw, in); up.kind == toNIC {
		s.scheduleCredit(free+s.p.LinkLatency, evNICCredit, up.id, 0, p.size)
	} else {
		s.scheduleCredit(free+s.p.LinkLatency, evCredit, up.id, up.port, p.size)
	}
	if ip.fifo.len() > 0 {
		s.schedule(max(s.now, ip.fifo.front().readyAt), evXbar, int32(sw), int32(in), nil)
	}
}

type upRef struct {
	kind     uint8
	id, port int32
}

const (
	toNIC = iota
	toSwitch
)

// upstream names the transmitter feeding input port in of switch sw.
func (s *Sim) upstream(sw uint16, in uint8) upRef {
	pt := s.t.Switches[sw].Ports[in-1]
	if pt.Kind == topo.ToNode {
		return upRef{kind: toNIC, id: int32(pt.Peer)}
	}
	return upRef{kind: toSwitch, id: int32(pt.Peer), port: int32(pt.PeerPort)}
}

// enqueue adds p to output port out of switch sw. This is where the thesis
// measures congestion (section 3.2: "at the time a packet is added to the
// queue"; section 5.10 discusses the alternatives), and where every scheme's
// switch stage rewrites the packet (Alg. 3, 6, 8).
func (s *Sim) enqueue(sw uint16, out uint8, p *packet) {
	o := &s.sw[sw].out[out-1]
	c := o.det.Congested(congestion.PortState{
		QueueBytes:   int64(o.qBytes),
		QueuePackets: o.q.len(),
		Capacity:     int64(s.p.OutputBuffer),
		Credits:      int64(o.credits),
		PacketBytes:  p.size,
		FacesHCA:     o.peer.Kind == topo.ToNode,
		Time:         s.now,
	})
	for i, m := range s.models {
		if _, err := m.Stage(p.bufs[i], sw, out, c, o.gens[i]); err != nil {
			s.err = fmt.Errorf("t=%d ps: %w", s.now, err)
			return
		}
	}
	s.truth[o.link].add(p, c, s.now, s.p.Perspective)
	p.hop++
	if c {
		p.congested++
	}
	o.q.push(p)
	o.qBytes += p.size
	s.kickTx(sw, out)
}

// kickTx schedules a transmit attempt on an output port unless one is pending.
func (s *Sim) kickTx(sw uint16, out uint8) {
	o := &s.sw[sw].out[out-1]
	if o.txPending || o.q.len() == 0 {
		return
	}
	o.txPending = true
	s.schedule(max(s.now, o.busyUntil), evTx, int32(sw), int32(out), nil)
}

// tx starts sending the head of an output queue when the link is free and the
// downstream buffer has credit for the whole packet (virtual cut-through).
// Time spent with a packet ready but no credit is the port's PortXmitWait.
func (s *Sim) tx(sw uint16, out uint8) {
	o := &s.sw[sw].out[out-1]
	if o.q.len() == 0 || s.now < o.busyUntil {
		s.kickTx(sw, out)
		return
	}
	p := o.q.front()
	if o.credits < p.size {
		if o.waitSince < 0 {
			o.waitSince = s.now
		}
		return // an evCredit will call again
	}
	if o.waitSince >= 0 {
		o.xmitWait += s.now - o.waitSince
		o.waitSince = -1
	}
	o.q.pop()
	o.qBytes -= p.size
	o.credits -= p.size
	ser := s.p.serialize(p.size)
	o.busyUntil = s.now + ser
	s.truth[o.link].bytes += int64(p.size)
	switch o.peer.Kind {
	case topo.ToNode:
		s.schedule(s.now+s.p.LinkLatency+ser, evNICArrive, 0, 0, p)
	case topo.ToSwitch:
		p.tailAt = s.now + s.p.LinkLatency + ser
		s.schedule(s.now+s.p.LinkLatency, evArrive, int32(o.peer.Peer), int32(o.peer.PeerPort), p)
	}
	// Room in the queue: wake the inputs waiting for it.
	if len(o.waiters) > 0 {
		st := &s.sw[sw]
		for _, in := range o.waiters {
			ip := &st.in[in-1]
			if ip.blocked {
				ip.blocked = false
				s.schedule(s.now, evXbar, int32(sw), in, nil)
			}
		}
		o.waiters = o.waiters[:0]
	}
	s.kickTx(sw, out)
}

// nicArrive: the packet's tail is at the receiving HCA, which reads every
// scheme's fields (refmodel's receiver checks both CRCs) and frees the buffer
// at once.
func (s *Sim) nicArrive(p *packet) {
	dst := int(p.dst)
	if int(p.hop) != int(p.pathLen) {
		s.err = fmt.Errorf("packet %d->%d arrived after %d hops, its minimal path has %d", p.src, p.dst, p.hop, p.pathLen)
		return
	}
	for i, m := range s.models {
		r, err := m.Receive(p.bufs[i])
		if err != nil {
			s.err = fmt.Errorf("HCA %d at t=%d ps: %w", dst, s.now, err)
			return
		}
		s.reads = append(s.reads, r)
	}
	s.samples = append(s.samples, sample{src: p.src, dst: p.dst, at: s.now, pathLen: p.pathLen, size: int32(p.size), app: p.app})
	s.recvd++
	s.lastArrive = s.now
	nc := &s.nic[dst]
	nc.received += int64(p.payload)
	if nc.waiting {
		nc.waiting = false
		s.kickNIC(dst)
	}
	leaf, port := s.t.LeafOf(dst)
	s.scheduleCredit(s.now+s.p.LinkLatency, evCredit, int32(leaf), int32(port), p.size)
	s.free = append(s.free, p)
}
