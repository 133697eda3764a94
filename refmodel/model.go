// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

// A Model is a validated Config compiled for fast access to the packet's
// telemetry fields, with the fabric's ports and NICs (Model.Port, Model.NIC):
// one generator per link and per sender LID for the model's whole life. One
// Model may serve any number of goroutines; Send, Stage and Receive hold no
// state beyond the generator they are given.
type Model struct {
	mu    sync.Mutex
	ports map[Link]*Port
	nics  map[uint16]*NIC

	cfg    Config
	layout *header.Layout
	bth    int // BTH offset for the configured LNH
	f      struct {
		hopBit, congBit, hopCount, congCount, hopRand, congRand fieldAcc
		hopSwitch, hopPort, congSwitch, congPort                fieldAcc
	}
	countMax uint64 // 2^b - 1 (switch generator) or L (sender draws)
	spent    uint64 // sender draws: the field when only the sentinel is left, 1<<L
	// touched is every byte a telemetry field occupies (chunk positions;
	// shift and width unused), read before the stage writes so that it can
	// patch the VCRC it has just checked instead of recomputing it; nil when
	// there are more than maxTouched (the stage then recomputes).
	touched []chunk
}

// maxTouched bounds the field bytes a stage patches the VCRC for: the widest
// layout (full-ID with sender draws, L = 62, in a footer) has 24.
const maxTouched = 32

// New validates cfg and compiles it.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l, err := cfg.Telemetry.Layout()
	if err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, layout: l, countMax: uint64(cfg.CountMax())}
	m.bth, _ = header.BTHOffset(cfg.LNH)
	if cfg.SenderMode() {
		m.spent = 1 << cfg.Telemetry.SenderL
	}
	for _, x := range []struct {
		acc  *fieldAcc
		name string
	}{
		{&m.f.hopBit, header.FieldHopBit}, {&m.f.congBit, header.FieldCongBit},
		{&m.f.hopCount, header.FieldHopCount}, {&m.f.congCount, header.FieldCongCount},
		{&m.f.hopRand, header.FieldHopRand}, {&m.f.congRand, header.FieldCongRand},
		{&m.f.hopSwitch, header.FieldHopSwitch}, {&m.f.hopPort, header.FieldHopPort},
		{&m.f.congSwitch, header.FieldCongSwitch}, {&m.f.congPort, header.FieldCongPort},
	} {
		if *x.acc, err = compileField(l, cfg.LNH, x.name); err != nil {
			return nil, err
		}
		for _, c := range x.acc.chunks {
			if pos := (chunk{off: c.off, fromEnd: c.fromEnd}); !slices.Contains(m.touched, pos) {
				m.touched = append(m.touched, pos)
			}
		}
	}
	if len(m.touched) > maxTouched {
		m.touched = nil
	}
	return m, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Layout returns the telemetry layout the model writes.
func (m *Model) Layout() *header.Layout { return m.layout }

// frame checks that pkt is a whole packet of the configured kind and returns
// 4*PktLen, the offset of the VCRC.
func (m *Model) frame(pkt []byte) (int, error) {
	if len(pkt) < header.LRHLen {
		return 0, fmt.Errorf("packet is %d bytes, shorter than the %d-byte LRH", len(pkt), header.LRHLen)
	}
	if lnh := header.LNHOf(pkt); lnh != m.cfg.LNH {
		return 0, fmt.Errorf("LRH byte 1: LNH=%d, but the model is configured for LNH=%d packets (layout %s)", lnh, m.cfg.LNH, m.layout.Name)
	}
	fr, err := header.FrameOf(pkt)
	if err != nil {
		return 0, err
	}
	if min := m.bth + header.BTHLen + header.ICRCLen + m.layout.FooterBytes; fr.PktLen < min {
		return 0, fmt.Errorf("LRH bytes 4-5: PktLen=%d words (%d bytes) cannot hold the headers, ICRC and the %d-byte telemetry footer of layout %s",
			fr.PktLen/4, fr.PktLen, m.layout.FooterBytes, m.layout.Name)
	}
	return fr.PktLen, nil
}

// PacketID returns the packet id (the first argument of H) from the LRH SLID
// and the BTH DestQP and PSN, by the configured id option.
func (m *Model) PacketID(pkt []byte) uint32 {
	bth := pkt[m.bth:]
	return m.cfg.ID.ID(header.SLIDOf(pkt), header.DestQPOf(bth), header.PSNOf(bth))
}

func (m *Model) checkVCRC(pkt []byte, n int) error {
	got := binary.LittleEndian.Uint16(pkt[n:])
	if want := header.VCRC(pkt[:n]); got != want {
		return fmt.Errorf("VCRC %#04x does not match the packet (computed %#04x): the packet was corrupted before this point", got, want)
	}
	return nil
}

func (m *Model) writeVCRC(pkt []byte, n int) {
	binary.LittleEndian.PutUint16(pkt[n:], header.VCRC(pkt[:n]))
}

// fieldBytes is the packet's field bytes (Model.touched) before a stage.
type fieldBytes [maxTouched]byte

func (m *Model) readFieldBytes(pkt []byte, n int, old *fieldBytes) {
	for i, c := range m.touched {
		old[i] = pkt[c.index(n)]
	}
}

// patchVCRC brings a VCRC that was right when old was read up to date with
// the field bytes changed since: a CRC is linear, so only the changed bytes
// count (header.PatchVCRC), in time independent of the packet's length. The
// result equals writeVCRC's.
func (m *Model) patchVCRC(pkt []byte, n int, old *fieldBytes) {
	if m.touched == nil {
		m.writeVCRC(pkt, n)
		return
	}
	for i, c := range m.touched {
		if j := c.index(n); pkt[j] != old[i] {
			if err := header.PatchVCRCAt(pkt, n, j, old[i:i+1]); err != nil {
				m.writeVCRC(pkt, n) // not reached: j lies before the VCRC and PktLen is unchanged
				return
			}
		}
	}
}

// Send is the sender NIC (Alg. 2 and 5): every telemetry field 0, except that
// with the sender draws of section 5.9 each *_rand field is filled as
// b0 b1 ... b(L-1) 1 (most significant first) with P(bi = 0) = 1/(i+1), drawn
// from nic in the order i = 0..L-1, the hop reservoir's field first, then the
// congested reservoir's (docs/spec.md section 4). The VCRC is recomputed; the
// ICRC covers none of the fields. nic is nil unless the configuration uses
// sender draws.
func (m *Model) Send(pkt []byte, nic rng.Generator) error {
	n, err := m.frame(pkt)
	if err != nil {
		return fmt.Errorf("sender NIC: %w", err)
	}
	if m.cfg.SenderMode() != (nic != nil) {
		if nic == nil {
			return fmt.Errorf("sender NIC: the sender draws of section 5.9 need the NIC's generator (Config.NewSenderGenerator)")
		}
		return fmt.Errorf("sender NIC: a switch-generator configuration takes no NIC generator")
	}
	for _, f := range m.layout.Fields {
		if err := m.layout.Set(pkt, header.Frame{BTH: m.bth, PktLen: n}, f.Name, 0); err != nil {
			return fmt.Errorf("sender NIC: %w", err)
		}
	}
	if nic != nil {
		L := m.cfg.Telemetry.SenderL
		for _, acc := range []*fieldAcc{&m.f.hopRand, &m.f.congRand} {
			if !acc.ok {
				continue
			}
			f, err := rng.Fill(L, nic)
			if err != nil {
				return fmt.Errorf("sender NIC: %w", err)
			}
			acc.set(pkt, n, f)
		}
	}
	m.writeVCRC(pkt, n)
	return nil
}

// StageResult says what one switch stage did, for coverage and traces.
type StageResult struct {
	ID      uint32 // the packet id
	D       uint32 // the link's encoding (one-bit schemes)
	HashBit uint8  // H(id, d) (one-bit schemes)

	HopL         int  // l of the hop draw (count+1); with sender draws, the hop the field served (0: spent)
	HopReplaced  bool // the hop reservoir took this link
	HopSaturated bool // the hop count was already at its maximum (2^b-1, or L spent)
	HopCount     int  // the hop count after the stage (implied by hop_rand with sender draws)

	Congested     bool // the port's congested bit c
	CongDrew      bool // tworeservoir, fullid: c was set, so a second draw was made
	CongL         int
	CongReplaced  bool // the congested reservoir took this link (onereservoir: cong_bit was written)
	CongSaturated bool
	CongCount     int
	Draws         int // generator draws consumed: 1 or 2 (0 with sender draws)

	// Raw: the packet carries no BTH (LNH 0 or 1: a raw IPv6 datagram or a
	// raw packet); the stage made no draw and changed no telemetry
	// (StageCutThrough alone takes such packets). Every field above is zero.
	Raw bool
	// Malformed: with sender draws, a *_rand field of 0 (docs/spec.md
	// section 4). Stage refuses such a packet; StageCutThrough forwards it
	// with no draw and no telemetry change, as the RTL does (stat_malformed_o),
	// and reports ID, D, HashBit and Congested only.
	Malformed bool
}

// Stage is one switch (Alg. 3, 6, 8; docs/spec.md section 5): it rewrites the
// telemetry fields of pkt in place for the packet leaving switch sw through
// output port, whose congested bit is congested, drawing from the port's
// generator g (nil with sender draws). It checks the incoming VCRC, brings it
// up to date (patched from the field bytes that changed, which equals
// recomputing it over the packet), and changes nothing the ICRC covers. It
// does not allocate.
func (m *Model) Stage(pkt []byte, sw uint16, port uint8, congested bool, g rng.Generator) (StageResult, error) {
	var r StageResult
	n, err := m.frame(pkt)
	if err != nil {
		return r, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	if err := m.checkGenerator(sw, port, g); err != nil {
		return r, err
	}
	if err := m.checkVCRC(pkt, n); err != nil {
		return r, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	if err := m.malformed(pkt, n, congested); err != nil {
		return r, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	var old fieldBytes
	m.readFieldBytes(pkt, n, &old)
	if r, err = m.stageHead(pkt, sw, port, congested); err != nil {
		return r, err
	}
	scheme := m.cfg.Telemetry.Scheme

	// The hop reservoir: Alg. 3 lines 2-5, Alg. 6 lines 2-5, Alg. 8 lines 2-9.
	var replace bool
	replace, r.HopL, r.HopCount, r.HopSaturated, err = m.draw(pkt, n, &m.f.hopCount, &m.f.hopRand, g, &r.Draws)
	if err != nil {
		return r, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	r.HopReplaced = replace
	if replace {
		switch scheme {
		case header.OneReservoir:
			m.f.hopBit.set(pkt, n, uint64(r.HashBit))
			m.f.congBit.set(pkt, n, b2u(congested))
			r.CongReplaced = true
		case header.TwoReservoir:
			m.f.hopBit.set(pkt, n, uint64(r.HashBit))
		case header.FullID:
			if err := m.setLink(pkt, n, &m.f.hopSwitch, &m.f.hopPort, sw, port); err != nil {
				return r, err
			}
		}
	}
	// The congested reservoir: Alg. 3 lines 6-10, Alg. 6 lines 6-10.
	if scheme != header.OneReservoir && congested {
		r.CongDrew = true
		replace, r.CongL, r.CongCount, r.CongSaturated, err = m.draw(pkt, n, &m.f.congCount, &m.f.congRand, g, &r.Draws)
		if err != nil {
			return r, fmt.Errorf("switch %d port %d: %w", sw, port, err)
		}
		r.CongReplaced = replace
		if replace {
			if scheme == header.TwoReservoir {
				m.f.congBit.set(pkt, n, uint64(r.HashBit))
			} else if err := m.setLink(pkt, n, &m.f.congSwitch, &m.f.congPort, sw, port); err != nil {
				return r, err
			}
		}
	} else if scheme != header.OneReservoir {
		r.CongCount = m.count(pkt, n, &m.f.congCount, &m.f.congRand)
	}
	m.patchVCRC(pkt, n, &old)
	return r, nil
}

// checkGenerator refuses a generator that does not fit the configuration: a
// switch generator needs one, sender draws take none.
func (m *Model) checkGenerator(sw uint16, port uint8, g rng.Generator) error {
	switch {
	case m.cfg.SenderMode() && g != nil:
		return fmt.Errorf("switch %d port %d: the configuration uses sender draws; the switch takes no generator", sw, port)
	case !m.cfg.SenderMode() && g == nil:
		return fmt.Errorf("switch %d port %d: no generator for the port (Config.NewPortGenerator)", sw, port)
	}
	return nil
}

// stageHead is what a stage reads before its draws (steps 0-1 of
// docs/spec.md section 5): the link checked, the packet id, the link's
// encoding and H(id, d) (one-bit schemes), and the congested bit.
func (m *Model) stageHead(pkt []byte, sw uint16, port uint8, congested bool) (StageResult, error) {
	if err := m.checkLink(sw, port); err != nil {
		return StageResult{}, err
	}
	r := StageResult{ID: m.PacketID(pkt), Congested: congested}
	if m.cfg.Telemetry.Scheme != header.FullID {
		var err error
		if r.D, err = m.cfg.Link.Encode(sw, port); err != nil {
			return StageResult{}, fmt.Errorf("switch %d port %d: %w", sw, port, err)
		}
		r.HashBit = uint8(hashBit(m.cfg.Hash, r.ID, r.D))
	}
	return r, nil
}

// malformed returns the sender-draw field of 0 (docs/spec.md section 4) the
// stage would draw from in pkt (pktLen bytes before its VCRC), with its
// error, or nil: hop_rand, and with two reservoirs cong_rand when the
// congested bit is set.
func (m *Model) malformed(pkt []byte, pktLen int, congested bool) error {
	if !m.cfg.SenderMode() {
		return nil
	}
	f := &m.f.hopRand
	if !f.ok || f.get(pkt, pktLen) != 0 {
		f = &m.f.congRand
		if !congested || !f.ok || m.cfg.Telemetry.Scheme == header.OneReservoir || f.get(pkt, pktLen) != 0 {
			return nil
		}
	}
	_, err := rng.Hops(0, m.cfg.Telemetry.SenderL)
	return fmt.Errorf("%s: %w (malformed packet)", f.name(m), err)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// draw makes one reservoir's draw and advances its count: with a switch
// generator, Draw(count+1) and a saturating increment; with sender draws, the
// leading bit of the *_rand field, then a shift (docs/spec.md section 4).
func (m *Model) draw(pkt []byte, n int, count, rnd *fieldAcc, g rng.Generator, draws *int) (replace bool, l, after int, saturated bool, err error) {
	if g != nil {
		c := count.get(pkt, n)
		l = int(c) + 1
		replace = g.Draw(l)
		*draws++
		saturated = c == m.countMax
		if !saturated {
			c++
		}
		count.set(pkt, n, c)
		return replace, l, int(c), saturated, nil
	}
	v := rnd.get(pkt, n)
	L := m.cfg.Telemetry.SenderL
	k, err := rng.Hops(v, L) // hops already served
	if err != nil {
		return false, 0, 0, false, fmt.Errorf("%s: %w (malformed packet)", rnd.name(m), err)
	}
	if v == m.spent {
		return false, 0, L, true, nil
	}
	replace, next, _ := rng.Consume(v, L) // v was checked by Hops
	rnd.set(pkt, n, next)
	return replace, k + 1, k + 1, false, nil
}

func (a *fieldAcc) name(m *Model) string {
	if a == &m.f.congRand {
		return header.FieldCongRand
	}
	return header.FieldHopRand
}

// count reads a reservoir's count: the field, or the trailing zeros of *_rand,
// or 0 when the layout has neither (the one-reservoir scheme's congestion
// reservoir), without asking rng.Hops about a field that is not there (its
// error would be built and dropped on every packet).
func (m *Model) count(pkt []byte, n int, count, rnd *fieldAcc) int {
	if count.ok {
		return int(count.get(pkt, n))
	}
	if !rnd.ok {
		return 0
	}
	k, err := rng.Hops(rnd.get(pkt, n), m.cfg.Telemetry.SenderL)
	if err != nil {
		return 0 // a malformed field carries no sample; Stage and Receive report it
	}
	return k
}

func (m *Model) setLink(pkt []byte, n int, swf, pf *fieldAcc, sw uint16, port uint8) error {
	if uint64(sw)>>swf.width != 0 || uint64(port)>>pf.width != 0 {
		return fmt.Errorf("switch %d port %d: does not fit the full-ID fields (%d-bit switch, %d-bit port)", sw, port, swf.width, pf.width)
	}
	swf.set(pkt, n, uint64(sw))
	pf.set(pkt, n, uint64(port))
	return nil
}

// A Link is a switch output port: the (switch ID, output port) tuple of
// Alg. 3 line 4.
type Link struct {
	Switch uint16
	Port   uint8
}

func (l Link) String() string { return fmt.Sprintf("%d:%d", l.Switch, l.Port) }

// Less orders links by switch, then port.
func (l Link) Less(o Link) bool {
	return l.Switch < o.Switch || l.Switch == o.Switch && l.Port < o.Port
}

// A Sample is what the receiver NIC reads from one packet.
type Sample struct {
	SLID, DLID uint16
	ID         uint32
	HopBit     uint8 // one-bit schemes
	CongBit    uint8
	HopCount   int  // the weight w: saturated count, or trailing zeros of hop_rand
	CongCount  int  // tworeservoir, fullid
	HopLink    Link // fullid
	CongLink   Link // fullid
}

// Receive is the receiver NIC's read of a packet (the input of Alg. 4, 7, 9):
// it checks the VCRC and the ICRC and returns the telemetry sample.
func (m *Model) Receive(pkt []byte) (Sample, error) {
	var s Sample
	n, err := m.frame(pkt)
	if err != nil {
		return s, fmt.Errorf("receiver NIC: %w", err)
	}
	if err := m.checkVCRC(pkt, n); err != nil {
		return s, fmt.Errorf("receiver NIC: %w", err)
	}
	icrcAt := n - m.layout.FooterBytes - header.ICRCLen
	want, err := header.ICRC(pkt[:icrcAt])
	if err != nil {
		return s, fmt.Errorf("receiver NIC: %w", err)
	}
	if got := binary.LittleEndian.Uint32(pkt[icrcAt:]); got != want {
		return s, fmt.Errorf("receiver NIC: ICRC %#08x does not match the packet (computed %#08x): an invariant field changed in flight", got, want)
	}
	s.SLID = header.SLIDOf(pkt)
	s.DLID = header.DLIDOf(pkt)
	s.ID = m.PacketID(pkt)
	s.HopBit = uint8(m.f.hopBit.get(pkt, n))
	s.CongBit = uint8(m.f.congBit.get(pkt, n))
	for _, c := range []struct {
		count, rnd *fieldAcc
		out        *int
	}{{&m.f.hopCount, &m.f.hopRand, &s.HopCount}, {&m.f.congCount, &m.f.congRand, &s.CongCount}} {
		if c.rnd.ok && c.rnd.get(pkt, n) == 0 {
			return s, fmt.Errorf("receiver NIC: %s is 0: sender draws need their sentinel bit (malformed packet)", c.rnd.name(m))
		}
		*c.out = m.count(pkt, n, c.count, c.rnd)
	}
	if m.cfg.Telemetry.Scheme == header.FullID {
		s.HopLink = Link{uint16(m.f.hopSwitch.get(pkt, n)), uint8(m.f.hopPort.get(pkt, n))}
		s.CongLink = Link{uint16(m.f.congSwitch.get(pkt, n)), uint8(m.f.congPort.get(pkt, n))}
	}
	return s, nil
}

// hashBit is H(id, d), evaluated through hash.Form where the hash has one
// (package hash holds Form equal to Func.Bit; the stage's oracle test uses
// Bit), which neither allocates nor runs a CRC over bytes.
func hashBit(f hash.Func, id, d uint32) uint32 {
	if p, ok := f.FormD(id); ok {
		return p.Eval(d)
	}
	return f.Bit(id, d)
}

// Hash returns H(id, d) under the model's hash, for decoders and tests.
func (m *Model) Hash() hash.Func { return m.cfg.Hash }
