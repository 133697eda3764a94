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
// again).
//
// A raw packet (LNH 0 or 1: no BTH, so no telemetry field) is forwarded with
// no telemetry change and no draw, the generator untouched: a sound one leaves
// as it came (its VCRC recomputed, which is the same), a corrupt one (the same
// three checks) with its VCRC stomped; the result says Raw and nothing else.
//
// A malformed packet (with sender draws, a field of 0 that the stage would
// draw from: docs/spec.md section 4), which Stage refuses, is forwarded with
// no draw and no telemetry change, as a raw one, and stomped when corrupt;
// the result says Malformed and gives ID, D, HashBit and Congested.
//
// The frame must be 4k+2 bytes, at least MinFrame (a raw one at least its
// LRH and VCRC, 10 bytes), of the model's LNH or a raw one; anything else is an error and
// frame is left as it was.
func (m *Model) StageCutThrough(frame []byte, sw uint16, port uint8, congested bool, g rng.Generator) (StageResult, Corruption, error) {
	if err := m.CheckFrame(frame); err != nil {
		return StageResult{}, 0, fmt.Errorf("switch %d port %d: %w", sw, port, err)
	}
	c := FrameCorruption(frame)
	n := len(frame) - header.VCRCLen
	if IsRaw(frame) {
		if err := m.checkLink(sw, port); err != nil {
			return StageResult{}, 0, err
		}
		if c != 0 {
			binary.LittleEndian.PutUint16(frame[n:], ^header.CRC16(frame[:n]))
		}
		return StageResult{Raw: true}, c, nil
	}
	if m.malformed(frame, n, congested) != nil {
		// No draw and no telemetry change.
		if err := m.checkGenerator(sw, port, g); err != nil {
			return StageResult{}, 0, err
		}
		r, err := m.stageHead(frame, sw, port, congested)
		if err != nil {
			return StageResult{}, 0, err
		}
		r.Malformed = true
		if c != 0 {
			binary.LittleEndian.PutUint16(frame[n:], ^header.CRC16(frame[:n]))
		}
		return r, c, nil
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

// IsRaw says the frame is a raw packet: its LRH's LNH (0, raw, or 1, raw
// IPv6) says no BTH follows, so it carries no telemetry field.
func IsRaw(frame []byte) bool { return header.LNHOf(frame) < header.LNHLocal }

// FrameCorruption is step 0's verdict on a frame of 4k+2 bytes (CheckFrame):
// its VCRC, PktLen against its length, PktLen against the longest legal
// packet.
func FrameCorruption(frame []byte) Corruption {
	var c Corruption
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
	return c
}

// CheckFrame refuses a frame StageCutThrough cannot take: shorter than the
// LRH, not 4k+2 bytes, of another transport LNH than the model's (a raw one,
// LNH 0 or 1, is taken), longer than PktLen's 11 bits describe, or too short
// for its headers and ICRC (MinFrame; a raw frame need only hold its LRH and
// VCRC: the stage reads nothing of it beyond the LRH).
func (m *Model) CheckFrame(frame []byte) error {
	if len(frame) < header.LRHLen {
		return fmt.Errorf("a %d-byte frame is shorter than the %d-byte LRH", len(frame), header.LRHLen)
	}
	n := len(frame) - header.VCRCLen
	if n%4 != 0 {
		return fmt.Errorf("a %d-byte frame: the link delivers 4k+2-byte frames", len(frame))
	}
	raw := IsRaw(frame)
	if lnh := header.LNHOf(frame); !raw && lnh != m.cfg.LNH {
		return fmt.Errorf("LRH byte 1: LNH=%d, but the model is configured for LNH=%d packets (or raw ones, LNH 0 and 1)", lnh, m.cfg.LNH)
	}
	if n/4 > header.MaxPktLen {
		return fmt.Errorf("a %d-byte frame is longer than the 11-bit PktLen describes (%d bytes)", len(frame), 4*header.MaxPktLen+header.VCRCLen)
	}
	if min := m.MinFrame(); !raw && len(frame) < min {
		return fmt.Errorf("a %d-byte frame does not reach the end of its headers and ICRC (%d bytes)", len(frame), min)
	}
	return nil
}
