// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"encoding/binary"
	"fmt"

	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// The traffic of the switch-stage vectors beyond the telemetry cases: packets
// of every legal length (the shortest IBA packet to the longest legal one,
// refmodel.MaxLegalPktLen words, and PktLen values beyond it), and corrupt
// packets, which the stage forwards with the VCRC stomped (docs/spec.md
// section 5, step 0; refmodel.StageCutThrough).

// A corruption is one way a packet arrives damaged.
type corruption uint8

const (
	corruptNone    corruption = iota
	corruptVCRC               // one bit of the VCRC flipped
	corruptPayload            // one bit of a byte after the BTH (a raw packet: of its payload) flipped, VCRC left as it was
	corruptICRC               // one bit of the ICRC flipped, the VCRC resealed: the stage's VCRC check passes
	corruptLonger             // PktLen 1.. words more than the frame, the VCRC resealed
	corruptShorter            // PktLen 1.. words fewer than the frame (down to 0), the VCRC resealed
	numCorruptions
)

var corruptionNames = [numCorruptions]string{"none", "vcrc", "payload", "icrc", "pktlen-longer", "pktlen-shorter"}

// sealEnd writes the VCRC of the frame's bytes into its last two bytes,
// wherever PktLen puts it.
func sealEnd(pkt []byte) {
	n := len(pkt) - header.VCRCLen
	binary.LittleEndian.PutUint16(pkt[n:], header.CRC16(pkt[:n]))
}

// corrupt damages a built packet as c says; r picks the bit, byte or length.
func corrupt(pkt []byte, c corruption, r *rng.Ideal) {
	n := len(pkt) - header.VCRCLen
	bth, _ := header.BTHOffset(lnhOf(pkt))
	bit := byte(1) << (r.Next() % 8)
	switch c {
	case corruptVCRC:
		pkt[n+int(r.Next()%2)] ^= bit
	case corruptPayload:
		// A byte after the BTH's first eight (the telemetry byte is BTH byte 4),
		// before the VCRC: the ICRC, pad or payload; of a raw packet, a byte
		// of its payload.
		lo := bth + header.BTHLen
		if lnh := lnhOf(pkt); lnh < header.LNHLocal {
			lo = rawHeaderLen(lnh)
		}
		pkt[lo+int(r.Next()%uint32(n-lo))] ^= bit
	case corruptICRC:
		pkt[n-header.ICRCLen+int(r.Next()%header.ICRCLen)] ^= bit
		sealEnd(pkt)
	case corruptLonger, corruptShorter:
		pl := int(header.PktLenOf(pkt))
		if pl == header.MaxPktLen {
			c = corruptShorter // nothing is longer
		}
		if c == corruptLonger {
			pl += 1 + int(r.Next()%uint32(header.MaxPktLen-pl))
		} else {
			pl -= 1 + int(r.Next()%uint32(pl))
		}
		setPktLen(pkt, pl)
		sealEnd(pkt)
	}
}

// setPktLen writes PktLen into LRH bytes 4-5, keeping Rsv5.
func setPktLen(pkt []byte, pl int) {
	v := binary.BigEndian.Uint16(pkt[header.LRHPosPktLen:])
	binary.BigEndian.PutUint16(pkt[header.LRHPosPktLen:], v&^header.MaxPktLen|uint16(pl))
}

// lengthPacket is a packet of exactly pl words (LRH byte 0 through the ICRC):
// a UC SEND Only whose data fill the room after the BTH, no pad. pl must
// leave room for the headers and ICRC.
func lengthPacket(r *rng.Ideal, lnh uint8, pl int) packetSpec {
	p := randomPacket(r, lnh, MaxPayload)
	bth, _ := header.BTHOffset(lnh)
	p.opcode, p.lead = 0x24, anyHeader // UC SEND Only: data alone
	p.payload = 4*pl - bth - header.BTHLen - header.ICRCLen
	return p
}

// minPktLen is the shortest packet of an LNH, in words: headers and ICRC.
func minPktLen(lnh uint8) int {
	bth, _ := header.BTHOffset(lnh)
	return (bth + header.BTHLen + header.ICRCLen) / 4
}

// randomTraffic draws a random vector's packet from the realistic mix: mostly
// short packets (acknowledgements, requests, small sends), some medium ones,
// some of every length up to the longest legal packet, a few beyond it; and
// one packet in eight corrupt in one of the ways above.
func randomTraffic(r *rng.Ideal, lnh uint8) (packetSpec, corruption) {
	var p packetSpec
	switch c := r.Next() % 64; {
	case c < 40:
		p = randomPacket(r, lnh, MaxPayload)
	case c < 54:
		p = randomPacket(r, lnh, 512)
	case c < 63:
		p = randomPacket(r, lnh, MaxLegalPayload)
	default: // PktLen beyond the longest legal packet, the frame as long
		p = lengthPacket(r, lnh, refmodel.MaxLegalPktLen+1+int(r.Next()%uint32(header.MaxPktLen-refmodel.MaxLegalPktLen)))
	}
	c := corruptNone
	if r.Next()%8 == 0 {
		c = corruption(1 + r.Next()%uint32(numCorruptions-1))
	}
	return p, c
}

// trafficCases are the directed length and corruption cases. The short ones
// come for local and global packets; the long ones, which cost simulation
// time in proportion to their length, once (local for the MTUs and the word
// counter, global for the longest packets, where the largest header set is):
//
//	len/end/<pl>          PktLen from the shortest packet up 16 words: the
//	                      VCRC in each lane at every end word position
//	len/mtu/<m>[±4]       a payload of each IBA MTU (256..4096 bytes), and 4
//	                      bytes either side (local)
//	len/count/<pl>        the VCRC word at 2^k-1 (lane 0) and 2^k (lane 4),
//	                      k = 3..10: every carry of the word counter (local)
//	len/max/<pl>          the longest legal packet, one word more (corrupt),
//	                      and the most PktLen holds (corrupt) (global)
//	corrupt/<kind>/short  each corruption on a short packet
//	corrupt/<kind>/long   each corruption on a longest legal packet (global)
func (d *directed) trafficCases(ln string, lnh uint8) error {
	bth, _ := header.BTHOffset(lnh)
	lo := minPktLen(lnh)
	var pls []struct {
		name string
		pl   int
	}
	add := func(name string, pl int) {
		if pl >= lo && pl <= header.MaxPktLen {
			pls = append(pls, struct {
				name string
				pl   int
			}{name, pl})
		}
	}
	for pl := lo; pl < lo+16; pl++ {
		add(fmt.Sprintf("len/end/%d", pl), pl)
	}
	if lnh == header.LNHLocal {
		for m := 256; m <= 4096; m *= 2 {
			pl := (bth + header.BTHLen + m + header.ICRCLen) / 4
			add(fmt.Sprintf("len/mtu/%d-4", m), pl-1)
			add(fmt.Sprintf("len/mtu/%d", m), pl)
			add(fmt.Sprintf("len/mtu/%d+4", m), pl+1)
		}
		for k := 3; k <= 10; k++ {
			// The VCRC word is PktLen/2; PktLen odd puts it in lane 4.
			add(fmt.Sprintf("len/count/%d", 2*(1<<k-1)), 2*(1<<k-1))
			add(fmt.Sprintf("len/count/%d", 2*(1<<k)+1), 2*(1<<k)+1)
		}
	} else {
		add(fmt.Sprintf("len/max/%d", refmodel.MaxLegalPktLen), refmodel.MaxLegalPktLen)
		add(fmt.Sprintf("len/max/%d", refmodel.MaxLegalPktLen+1), refmodel.MaxLegalPktLen+1)
		add(fmt.Sprintf("len/max/%d", header.MaxPktLen), header.MaxPktLen)
	}
	for _, x := range pls {
		if err := d.frame(ln+"/"+x.name, lengthPacket(d.src, lnh, x.pl), corruptNone); err != nil {
			return err
		}
	}
	for c := corruptVCRC; c < numCorruptions; c++ {
		for _, size := range []string{"short", "long"} {
			p := d.packet(lnh)
			if size == "long" {
				if lnh == header.LNHLocal {
					continue
				}
				p = lengthPacket(d.src, lnh, refmodel.MaxLegalPktLen)
			}
			if err := d.frame(fmt.Sprintf("%s/corrupt/%s/%s", ln, corruptionNames[c], size), p, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// frame stages packet p, damaged as c says, at a random link with a fresh
// port generator.
func (d *directed) frame(name string, p packetSpec, c corruption) error {
	pkt, _, err := d.set.buildPacket(nil, p, nil)
	if err != nil {
		return fmt.Errorf("directed case %s: %w", name, err)
	}
	corrupt(pkt, c, d.src)
	return d.stageAtRandomLink(name, pkt)
}

// stageAtRandomLink stages the built packet pkt at a random link with a
// fresh port generator, loaded before it.
func (d *directed) stageAtRandomLink(name string, pkt []byte) error {
	mc := d.set.Config.Model
	l := refmodel.Link{Switch: uint16(d.src.Next() % uint32(mc.MaxSwitch+1)), Port: uint8(1 + d.src.Next()%uint32(mc.MaxPort))}
	var g rng.Generator
	if !mc.SenderMode() {
		pc := mc
		d.tries++
		pc.Seed = seed.Derive(d.set.Config.Seed, seedTagDirect, d.set.Digest, d.tries)
		var err error
		if g, err = pc.NewPortGenerator(l.Switch, l.Port); err != nil {
			return err
		}
	}
	v, err := d.set.stage(name, pkt, nil, l.Switch, l.Port, d.src.Next()%2 == 1, g, true)
	if err != nil {
		return err
	}
	d.out = append(d.out, v)
	return nil
}
