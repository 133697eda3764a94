// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"sync"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// The model's parts as a fabric has them: a sender NIC that builds and sends
// packets (NIC), a switch output port with its generator (Port), and the
// receiver (Model.Receive, then a Tally). Each owns what the configuration
// gives it, so a caller never handles generators, LNHs or footer lengths:
//
//	m, _ := refmodel.New(refmodel.RecommendedConfig())
//	nic := m.NIC(0x0101)
//	port, _ := m.Port(refmodel.Link{Switch: 7, Port: 3})
//	pkt, _ := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: 1})
//	port.Stage(pkt, refmodel.Congested)
//	s, _ := m.Receive(pkt)
//
// The model keeps one generator per link (and per sender LID) for its whole
// life, as a switch port keeps its generator: asking for the same link again
// returns the same Port, whose generator continues from its last draw.
//
// Model.Send and Model.Stage, which take the generator as an argument, are
// the layer these are built on.

// Congestion is a port's congested bit c for one packet (section 5.10): set
// when the packet leaves through a congested port.
type Congestion bool

// The two values of the congested bit.
const (
	Uncongested Congestion = false
	Congested   Congestion = true
)

// A Port is one switch output port: its link (switch ID, output port) and,
// with a switch generator, the generator the configuration gives it. A Port
// is safe for concurrent use: its calls are serialised, as a port handles
// one packet at a time; different ports are independent.
type Port struct {
	m    *Model
	link Link
	mu   sync.Mutex
	gen  rng.Generator // nil with sender draws
}

// Port returns the model's output port l. The model keeps one generator per
// link for its whole life: the first call makes the port, its generator
// seeded from the run seed as seed.Derive(Seed, SeedPortGenerator, switch,
// port) (docs/spec.md section 6), and every later call returns the same
// Port, whose generator continues from its last draw. So a packet loop may
// ask for its ports inside the loop or keep them from before it, with the
// same result; the same port of the same configuration draws the same
// numbers in every run. A fresh generator for the link is
// Config.NewPortGenerator (with Model.Stage); a fresh start for every port
// is a new Model.
func (m *Model) Port(l Link) (*Port, error) {
	if err := m.checkLink(l.Switch, l.Port); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.ports[l]; p != nil {
		return p, nil
	}
	g, err := m.cfg.NewPortGenerator(l.Switch, l.Port)
	if err != nil {
		return nil, fmt.Errorf("switch %d port %d: %w", l.Switch, l.Port, err)
	}
	p := &Port{m: m, link: l, gen: g}
	if m.ports == nil {
		m.ports = map[Link]*Port{}
	}
	m.ports[l] = p
	return p, nil
}

// SeedState returns the state the run seed gives link l's generator before
// its first draw, nil with sender draws; the model's own port is left as it
// is.
func (m *Model) SeedState(l Link) (rng.State, error) {
	if err := m.checkLink(l.Switch, l.Port); err != nil {
		return nil, err
	}
	g, err := m.cfg.NewPortGenerator(l.Switch, l.Port)
	if err != nil || g == nil {
		return nil, err
	}
	return g.State(), nil
}

// checkLink refuses a link outside the configured fabric.
func (m *Model) checkLink(sw uint16, port uint8) error {
	if int(sw) > m.cfg.MaxSwitch || int(port) > m.cfg.MaxPort {
		return fmt.Errorf("switch %d port %d: outside the configured fabric (switch IDs to %d, ports to %d)", sw, port, m.cfg.MaxSwitch, m.cfg.MaxPort)
	}
	return nil
}

// Link returns the port's link.
func (p *Port) Link() Link { return p.link }

// Stage runs the switch stage (Alg. 3, 6 or 8) on pkt, in place, for a packet
// leaving through this port with congested bit c: Model.Stage with the port's
// switch ID, port number and generator.
func (p *Port) Stage(pkt []byte, c Congestion) (StageResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Stage(pkt, p.link.Switch, p.link.Port, bool(c), p.gen)
}

// Hop is the port as one hop of Model.Walk, for a packet with congested bit
// c. The Hop holds the port's own generator: a Walk with it draws from the
// port, and must not run while another goroutine uses the port.
func (p *Port) Hop(c Congestion) Hop { return Hop{Link: p.link, Congested: bool(c), Gen: p.gen} }

// StateBits is the width of the port's generator state: 0 with sender draws,
// which keep no state in the switch.
func (p *Port) StateBits() int {
	if p.gen == nil {
		return 0
	}
	return p.gen.StateBits()
}

// State returns the port's generator state (the RTL's gen_state_o: bit i of
// the state is bit i of the port), nil with sender draws.
func (p *Port) State() rng.State {
	if p.gen == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen.State()
}

// SetState loads the port's generator state (the RTL's gen_state_i with
// gen_load_i). With sender draws only an empty state is accepted.
func (p *Port) SetState(st rng.State) error {
	if p.gen == nil {
		if len(st) != 0 {
			return fmt.Errorf("switch %d port %d: the configuration uses sender draws; the port keeps no generator state", p.link.Switch, p.link.Port)
		}
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.gen.SetState(st); err != nil {
		return fmt.Errorf("switch %d port %d: %w", p.link.Switch, p.link.Port, err)
	}
	return nil
}

// A NIC is a sender host channel adapter: its LID (the packets' SLID) and,
// with the sender draws of section 5.9, its generator. A NIC is safe for
// concurrent use; its calls are serialised.
type NIC struct {
	m   *Model
	lid uint16
	mu  sync.Mutex
	gen rng.Generator // nil unless sender draws
}

// NIC returns the model's sender NIC with the given LID. As with Port, the
// model keeps one NIC per LID for its whole life: its generator (sender
// draws only) is seeded once, as seed.Derive(Seed, SeedSenderNIC, lid), and
// every later call returns the same NIC, whose generator continues.
func (m *Model) NIC(lid uint16) *NIC {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := m.nics[lid]; n != nil {
		return n
	}
	n := &NIC{m: m, lid: lid, gen: m.cfg.NewSenderGenerator(lid)}
	if m.nics == nil {
		m.nics = map[uint16]*NIC{}
	}
	m.nics[lid] = n
	return n
}

// LID returns the NIC's LID.
func (n *NIC) LID() uint16 { return n.lid }

// Send initialises the telemetry fields of pkt as the sender NIC does
// (Alg. 2 and 5; Model.Send) and recomputes the VCRC.
func (n *NIC) Send(pkt []byte) error {
	if n.gen == nil {
		return n.m.Send(pkt, nil)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.m.Send(pkt, n.gen)
}

// A PacketSpec is what a sender chooses about a packet; the model supplies
// everything else (NIC.Packet).
type PacketSpec struct {
	DLID    uint16 // destination LID
	DestQP  uint32 // destination queue pair, 24 bits
	PSN     uint32 // packet sequence number, 24 bits
	Payload []byte // extended transport headers and data
}

// Packet builds a packet from this NIC (SLID = its LID) to p.DLID and sends
// it: an RC SEND Only (OpCode 0x04) in the default partition (P_Key 0xFFFF),
// of the model's kind (LNH, GRH for global packets, telemetry footer), its
// telemetry fields initialised by Send, its ICRC and VCRC right.
func (n *NIC) Packet(p PacketSpec) ([]byte, error) {
	pkt, err := n.m.BuildPacket(header.Headers{
		LRH: header.LRH{DLID: p.DLID, SLID: n.lid},
		BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: p.DestQP, PSN: p.PSN},
	}, p.Payload)
	if err != nil {
		return nil, err
	}
	if err := n.Send(pkt); err != nil {
		return nil, err
	}
	return pkt, nil
}

// BuildPacket returns the wire bytes of a packet with headers h and payload
// data (header.Build), made for the model: its LNH is the model's (h's must
// be 0 or the same); a global packet's GRH gets IPVer 6 and NxtHdr BTH when h
// leaves them 0; the telemetry footer of the model's layout is added, zero;
// the pad, PktLen, PayLen, ICRC and VCRC are computed. The telemetry bits in
// the headers (BTH Resv6, LRH Rsv5) are written as h gives them: NIC.Send or
// Model.Send initialise them.
func (m *Model) BuildPacket(h header.Headers, data []byte) ([]byte, error) {
	switch h.LRH.LNH {
	case 0:
		h.LRH.LNH = m.cfg.LNH
	case m.cfg.LNH:
	default:
		return nil, fmt.Errorf("build packet: LNH=%d, but the model is configured for LNH=%d packets (layout %s)", h.LRH.LNH, m.cfg.LNH, m.layout.Name)
	}
	if h.LRH.LNH == header.LNHGlobal {
		if h.GRH.IPVer == 0 {
			h.GRH.IPVer = header.IPVer6
		}
		if h.GRH.NxtHdr == 0 {
			h.GRH.NxtHdr = header.NxtHdrBTH
		}
	}
	pkt, err := header.Build(h, data, m.layout.FooterBytes)
	if err != nil {
		return nil, fmt.Errorf("build packet: %w", err)
	}
	return pkt, nil
}
