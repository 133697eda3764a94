// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"encoding/binary"
	"fmt"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// Raw packets: the LRH says no BTH follows (LNH 0, a raw packet with a Raw
// Header and an EtherType, or LNH 1, a raw IPv6 datagram; IBA Vol. 1 section
// 7.7.4), so they carry no telemetry field. A switch stage forwards them with
// no telemetry change and no draw, checks their VCRC and frame as any other's,
// and stomps a corrupt one (docs/spec.md section 5, step 0;
// refmodel.StageCutThrough). They have no ICRC: PktLen counts LRH byte 0
// through the last payload byte.

// Raw packet constants.
const (
	rwhLen        = 4      // the Raw Header: 2 reserved bytes, then the EtherType
	rawEtherType  = 0x88B5 // IEEE 802 local experimental EtherType 1
	ipv6NoNextHdr = 59     // IPv6 "No Next Header": the payload is opaque
)

// rawSpec is what varies between the raw packets of the vectors.
type rawSpec struct {
	lnh         uint8 // header.LNHRaw or header.LNHIPv6Raw
	lrh         header.LRH
	payload     int // bytes after the raw header, a multiple of 4
	payloadByte byte
	grh         header.GRH // the IPv6 header (LNH 1)
}

// rawHeaderLen is the bytes of a raw packet before its payload.
func rawHeaderLen(lnh uint8) int {
	if lnh == header.LNHIPv6Raw {
		return header.LRHLen + header.GRHLen
	}
	return header.LRHLen + rwhLen
}

// randomRaw draws a raw packet of the given LNH with a payload of whole words
// up to maxPayload bytes, never so short that the frame is shorter than
// MinPacket.
func randomRaw(r *rng.Ideal, lnh uint8, maxPayload int) rawSpec {
	u := func(n uint32) uint32 { return r.Next() % n }
	lo := max(4, MinPacket-header.VCRCLen-rawHeaderLen(lnh))
	p := rawSpec{
		lnh: lnh,
		lrh: header.LRH{VL: uint8(u(15)), SL: uint8(u(16)), LNH: lnh, DLID: uint16(1 + u(0xBFFF)), SLID: uint16(1 + u(0xBFFF))},
		// The payload: lo..maxPayload bytes, whole 4-byte words.
		payload:     (lo + int(u(uint32(max(1, maxPayload-lo+1))))) &^ 3,
		payloadByte: byte(r.Next()),
	}
	if lnh == header.LNHIPv6Raw {
		p.grh = header.GRH{IPVer: header.IPVer6, TClass: uint8(r.Next()), FlowLabel: u(1 << 20), NxtHdr: ipv6NoNextHdr, HopLmt: uint8(r.Next())}
		for i := range p.grh.SGID {
			p.grh.SGID[i] = byte(0xFE ^ i)
			p.grh.DGID[i] = byte(p.lrh.SLID) + byte(i)
		}
	}
	return p
}

// build appends the raw packet's wire bytes, its VCRC correct.
func (p rawSpec) build(dst []byte) ([]byte, error) {
	h := rawHeaderLen(p.lnh)
	n := h + p.payload
	if p.payload%4 != 0 || n+header.VCRCLen > MaxPacket {
		return dst, fmt.Errorf("raw packet: a %d-byte payload (want whole words, the frame at most %d bytes)", p.payload, MaxPacket)
	}
	start := len(dst)
	dst = append(dst, make([]byte, n+header.VCRCLen)...)
	b := dst[start:]
	lrh := p.lrh
	lrh.LNH, lrh.PktLen = p.lnh, uint16(n/4)
	if err := lrh.SerializeTo(b); err != nil {
		return dst, err
	}
	if p.lnh == header.LNHIPv6Raw {
		g := p.grh
		g.PayLen = uint16(p.payload)
		if err := g.SerializeTo(b[header.LRHLen:]); err != nil {
			return dst, err
		}
	} else {
		binary.BigEndian.PutUint16(b[header.LRHLen+2:], rawEtherType)
	}
	for i := range p.payload {
		b[h+i] = p.payloadByte + byte(i*37)
	}
	sealEnd(b)
	return dst, nil
}

// rawName is a raw packet's kind in vector names.
func rawName(lnh uint8) string {
	if lnh == header.LNHIPv6Raw {
		return "ipv6"
	}
	return "ethertype"
}

// rawCorruptions are the corruptions a raw packet can arrive with (it has no
// ICRC to damage).
var rawCorruptions = []corruption{corruptVCRC, corruptPayload, corruptLonger, corruptShorter}

// randomRawTraffic draws a raw packet of the realistic mix: mostly short,
// some of every length to the largest MTU's payload; one in eight corrupt.
func randomRawTraffic(r *rng.Ideal, lnh uint8) (rawSpec, corruption) {
	var p rawSpec
	if r.Next()%4 == 0 {
		p = randomRaw(r, lnh, 4096)
	} else {
		p = randomRaw(r, lnh, MaxPayload)
	}
	c := corruptNone
	if r.Next()%8 == 0 {
		c = rawCorruptions[r.Next()%uint32(len(rawCorruptions))]
	}
	return p, c
}

// rawCases are the directed raw-packet cases, for each raw LNH:
//
//	raw/<ethertype|ipv6>/short           the shortest payload
//	raw/<ethertype|ipv6>/mtu             a 4096-byte payload
//	raw/<ethertype|ipv6>/corrupt/<kind>  each corruption a raw packet can have
func (d *directed) rawCases() error {
	for _, lnh := range []uint8{header.LNHRaw, header.LNHIPv6Raw} {
		ln := "raw/" + rawName(lnh)
		short := randomRaw(d.src, lnh, 0)
		long := randomRaw(d.src, lnh, 4096)
		long.payload = 4096
		for _, x := range []struct {
			name string
			p    rawSpec
		}{{"short", short}, {"mtu", long}} {
			if err := d.raw(ln+"/"+x.name, x.p, corruptNone); err != nil {
				return err
			}
		}
		for _, c := range rawCorruptions {
			if err := d.raw(fmt.Sprintf("%s/corrupt/%s", ln, corruptionNames[c]), randomRaw(d.src, lnh, MaxPayload), c); err != nil {
				return err
			}
		}
	}
	return nil
}

// raw stages raw packet p, damaged as c says, at a random link with a fresh
// port generator (which the packet leaves as it was).
func (d *directed) raw(name string, p rawSpec, c corruption) error {
	pkt, err := p.build(nil)
	if err != nil {
		return fmt.Errorf("directed case %s: %w", name, err)
	}
	corrupt(pkt, c, d.src)
	return d.stageAtRandomLink(name, pkt)
}
