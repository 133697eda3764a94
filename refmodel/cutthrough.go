// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"encoding/binary"
	"fmt"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// MaxLegalPktLen is the PktLen (4-byte words) of the longest legal IBA
// packet: a 4096-byte payload (the largest MTU) behind the largest header set,
// LRH 8 + GRH 40 + BTH 12 bytes and the extended transport headers of an RD
// RDMA WRITE Only with Immediate (RDETH 4 + DETH 8 + RETH 16 + ImmDt 4), then
// the 4-byte ICRC: 4192 bytes, 1048 words (4194 bytes with the VCRC). The
// 11-bit field holds up to 2047; a cut-through stage treats anything beyond
// 1048 as a corrupt packet (docs/spec.md section 5, step 0).
const MaxLegalPktLen = (header.LRHLen + header.GRHLen + header.BTHLen + 4 + 8 + 16 + 4 + 4096 + header.ICRCLen) / 4

// Corruption says why a cut-through stage stomped a packet's VCRC; 0 is a
// sound packet. Several reasons may hold at once.
type Corruption uint8

const (
	// CorruptVCRC: the frame's last two bytes are not the VCRC of the bytes
	// before them.
	CorruptVCRC Corruption = 1 << iota
	// CorruptLength: PktLen disagrees with the frame's length (4·PktLen+2
	// bytes), longer or shorter.
	CorruptLength
	// CorruptOversize: PktLen is beyond MaxLegalPktLen.
	CorruptOversize
)

func (c Corruption) String() string {
	if c == 0 {
		return "sound"
	}
	s := ""
	for _, n := range []struct {
		bit  Corruption
		name string
	}{{CorruptVCRC, "vcrc"}, {CorruptLength, "length"}, {CorruptOversize, "oversize"}} {
		if c&n.bit != 0 {
			if s != "" {
				s += "+"
			}
			s += n.name
		}
	}
	return s
}

// MinFrame is the shortest frame StageCutThrough takes for a model: the
// headers (LRH, GRH when global, BTH), the ICRC and the VCRC. A cut-through
// stage reads the BTH's byte 4 and PSN from the frame itself, so a frame must
// reach them whatever its PktLen says.
func (m *Model) MinFrame() int {
	return m.bth + header.BTHLen + header.ICRCLen + m.layout.FooterBytes + header.VCRCLen
}

// StageCutThrough is the switch stage as a cut-through datapath (the RTL of
// package verilog) runs it on a frame the link delivered: frame is the whole
// packet as the link delimits it, its last two bytes its VCRC (docs/spec.md
// section 5, step 0). A sound frame (PktLen describes it, PktLen is at most
// MaxLegalPktLen, its VCRC is right) goes through Stage. A corrupt one cannot
// be refused, since its head has left before its end arrives: its telemetry
// is updated exactly as Stage updates a sound packet with the same header
// (the generator draws the same), every other byte passes unchanged, and its
// last two bytes become the complement of the valid VCRC of the bytes before
// them (stomped: never valid, so a second stage finds it corrupt and stomps it
// again). The frame
// must be 4k+2 bytes, at least MinFrame, of the model's LNH; anything else is
// an error and frame is left as it was.
func (m *Model) StageCutThrough(frame []byte, sw uint16, port uint8, congested bool, g rng.Generator) (StageResult, Corruption, error) {
	var c Corruption
	if err := m.CheckFrame(frame); err != nil {
		return StageResult{}, c, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	n := len(frame) - header.VCRCLen
	pl := int(header.PktLenOf(frame))
	if pl != n/4 {
		c |= CorruptLength
	}
	if pl > MaxLegalPktLen {
		c |= CorruptOversize
	}
	if binary.LittleEndian.Uint16(frame[n:]) != header.CRC16(frame[:n]) {
		c |= CorruptVCRC
	}
	if c == 0 {
		r, err := m.Stage(frame, sw, port, congested, g)
		return r, 0, err
	}
	// The stage's decision on a sound copy: PktLen made to describe the
	// frame and a valid VCRC, so that Stage reads the same header and draws.
	cp := append([]byte(nil), frame...)
	binary.BigEndian.PutUint16(cp[header.LRHPosPktLen:], binary.BigEndian.Uint16(cp[header.LRHPosPktLen:])&^0x7FF|uint16(n/4))
	binary.LittleEndian.PutUint16(cp[n:], header.CRC16(cp[:n]))
	r, err := m.Stage(cp, sw, port, congested, g)
	if err != nil {
		return r, c, err
	}
	// Every byte the stage changed in the copy (the telemetry bits; its VCRC
	// is replaced below), never LRH bytes 4-5, which the copy rewrote.
	for i := range n {
		if i != header.LRHPosPktLen && i != header.LRHPosPktLen+1 {
			frame[i] = cp[i]
		}
	}
	binary.LittleEndian.PutUint16(frame[n:], ^header.CRC16(frame[:n]))
	return r, c, nil
}

// CheckFrame refuses a frame StageCutThrough cannot take: shorter than the
// LRH, not 4k+2 bytes, of another LNH than the model's, longer than PktLen's
// 11 bits describe, or too short for its headers and ICRC (MinFrame).
func (m *Model) CheckFrame(frame []byte) error {
	if len(frame) < header.LRHLen {
		return fmt.Errorf("a %d-byte frame is shorter than the %d-byte LRH", len(frame), header.LRHLen)
	}
	n := len(frame) - header.VCRCLen
	if n%4 != 0 {
		return fmt.Errorf("a %d-byte frame: the link delivers 4k+2-byte frames", len(frame))
	}
	if lnh := header.LNHOf(frame); lnh != m.cfg.LNH {
		return fmt.Errorf("LRH byte 1: LNH=%d, but the model is configured for LNH=%d packets", lnh, m.cfg.LNH)
	}
	if n/4 > header.MaxPktLen {
		return fmt.Errorf("a %d-byte frame is longer than the 11-bit PktLen describes (%d bytes)", len(frame), 4*header.MaxPktLen+header.VCRCLen)
	}
	if len(frame) < m.MinFrame() {
		return fmt.Errorf("a %d-byte frame does not reach the end of its headers and ICRC (%d bytes)", len(frame), m.MinFrame())
	}
	return nil
}
