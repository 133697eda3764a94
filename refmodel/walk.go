// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// A Hop is one switch on a packet's path: the link it leaves by, whether that
// port is congested for this packet, and the port's generator (nil with sender
// draws).
type Hop struct {
	Link      Link
	Congested bool
	Gen       rng.Generator
}

// Walk carries one packet with id over hops without packet bytes: the sender
// NIC's initialisation (drawing from nic with sender draws), one switch stage
// per hop, and the receiver's read. It makes the same draws, in the same order,
// as Send, Stage and Receive on real bytes (a test holds them equal), for the
// Monte Carlo studies that need millions of packets.
func (m *Model) Walk(id uint32, hops []Hop, nic rng.Generator) (Sample, error) {
	s := Sample{ID: id}
	scheme := m.cfg.Telemetry.Scheme
	L := m.cfg.Telemetry.SenderL
	var hopRand, congRand uint64
	if m.cfg.SenderMode() {
		if nic == nil {
			return s, fmt.Errorf("walk: the sender draws of section 5.9 need the NIC's generator")
		}
		var err error
		if hopRand, err = rng.Fill(L, nic); err != nil {
			return s, fmt.Errorf("walk: %w", err)
		}
		if scheme != header.OneReservoir {
			if congRand, err = rng.Fill(L, nic); err != nil {
				return s, fmt.Errorf("walk: %w", err)
			}
		}
	}
	form, hasForm := m.cfg.Hash.FormD(id)
	// draw is Model.draw on registers instead of bytes.
	draw := func(count *int, rnd *uint64, g rng.Generator) bool {
		if !m.cfg.SenderMode() {
			z := g.Draw(*count + 1)
			*count = min(*count+1, int(m.countMax))
			return z
		}
		z, next, err := rng.Consume(*rnd, L)
		if err != nil {
			panic("refmodel: walk: " + err.Error()) // the field came from rng.Fill
		}
		*rnd = next
		*count, _ = rng.Hops(next, L)
		return z
	}
	for i, h := range hops {
		if m.cfg.SenderMode() == (h.Gen != nil) {
			return s, fmt.Errorf("walk: hop %d: generator %v with sender draws %t", i+1, h.Gen, m.cfg.SenderMode())
		}
		var hb uint8
		if scheme != header.FullID {
			d, err := m.cfg.Link.Encode(h.Link.Switch, h.Link.Port)
			if err != nil {
				return s, fmt.Errorf("walk: hop %d: %w", i+1, err)
			}
			if hasForm {
				hb = uint8(form.Eval(d))
			} else {
				hb = uint8(m.cfg.Hash.Bit(id, d))
			}
		}
		if draw(&s.HopCount, &hopRand, h.Gen) {
			s.HopBit, s.HopLink = hb, h.Link
			if scheme == header.OneReservoir {
				s.CongBit = uint8(b2u(h.Congested))
			}
		}
		if scheme != header.OneReservoir && h.Congested && draw(&s.CongCount, &congRand, h.Gen) {
			s.CongBit, s.CongLink = hb, h.Link
		}
	}
	if scheme != header.FullID {
		s.HopLink, s.CongLink = Link{}, Link{}
	}
	return s, nil
}
