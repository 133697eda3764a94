// SPDX-License-Identifier: Apache-2.0

package header

import (
	"encoding/binary"
	"fmt"
)

// A packet on the wire, as this package builds and checks it:
//
//	LRH | GRH (LNH=3 only) | BTH | payload | pad | ICRC | footer | VCRC
//	 8       40               12     ...    PadCnt   4      F        2
//
// PktLen (LRH) counts 4-byte words from LRH byte 0 through the footer, so the
// packet is 4*PktLen+2 bytes. The footer (F bytes, a multiple of 4, usually 0)
// is the telemetry footer of a Layout; nothing in the packet says whether it is
// there, so every function that needs to find the ICRC is told F.

// Headers are the headers of an IBA transport packet. GRH is used only when
// LRH.LNH is LNHGlobal.
type Headers struct {
	LRH LRH
	GRH GRH
	BTH BTH
}

// Len is the length of the headers in bytes (LRH through BTH).
func (h *Headers) Len() int {
	if h.LRH.LNH == LNHGlobal {
		return LRHLen + GRHLen + BTHLen
	}
	return LRHLen + BTHLen
}

// A Packet is a decoded IBA transport packet. Serializing a decoded packet
// reproduces its bytes exactly, CRCs included, whether or not they are right.
type Packet struct {
	Headers
	// Payload is every byte between the BTH and the ICRC: extended transport
	// headers, data and the BTH.PadCnt pad bytes at its end.
	Payload []byte
	ICRC    uint32 // as carried (sent least-significant byte first)
	Footer  []byte // the telemetry footer, F bytes
	VCRC    uint16 // as carried (sent least-significant byte first)
}

// Data is the payload without its pad bytes.
func (p *Packet) Data() []byte {
	n := len(p.Payload) - int(p.BTH.PadCnt)
	if n < 0 {
		n = 0
	}
	return p.Payload[:n]
}

// Global reports whether the packet carries a GRH.
func (p *Packet) Global() bool { return p.LRH.LNH == LNHGlobal }

// checkFooter validates a footer length given to the decoders and builders.
func checkFooter(footerBytes int) error {
	if footerBytes < 0 || footerBytes%4 != 0 {
		return fmt.Errorf("telemetry footer of %d bytes: PktLen counts 4-byte words, so it must be a non-negative multiple of 4", footerBytes)
	}
	return nil
}

// DecodePacket decodes a whole packet, LRH byte 0 through the VCRC, whose
// telemetry footer is footerBytes long (0 for none). It checks the structure:
// LVer, LNH (2 or 3), PktLen against the buffer, the GRH's IPVer, NxtHdr and
// PayLen, TVer, and PadCnt against the payload. It does not check the CRCs
// (Check does). Payload and Footer alias b.
func DecodePacket(b []byte, footerBytes int) (*Packet, error) {
	if err := checkFooter(footerBytes); err != nil {
		return nil, err
	}
	p := new(Packet)
	if err := p.LRH.decode(b, 0); err != nil {
		return nil, err
	}
	if _, err := BTHOffset(p.LRH.LNH); err != nil {
		return nil, &FieldError{"LRH", "LNH", LRHPosSL, fmt.Sprintf("LNH=%d carries no BTH; only IBA transport packets (LNH=2 local, 3 global) are decoded", p.LRH.LNH)}
	}
	n := 4 * int(p.LRH.PktLen)
	if n+VCRCLen != len(b) {
		return nil, &FieldError{"LRH", "PktLen", LRHPosPktLen, fmt.Sprintf("PktLen=%d words says %d bytes with the VCRC, but the packet is %d bytes", p.LRH.PktLen, n+VCRCLen, len(b))}
	}
	hdr := p.Len()
	if min := hdr + ICRCLen + footerBytes; n < min {
		return nil, &FieldError{"LRH", "PktLen", LRHPosPktLen, fmt.Sprintf("PktLen=%d words (%d bytes) is shorter than the headers, ICRC and %d-byte footer (%d bytes)", p.LRH.PktLen, n, footerBytes, min)}
	}
	bth := LRHLen
	if p.Global() {
		if err := p.GRH.decode(b[LRHLen:], LRHLen); err != nil {
			return nil, err
		}
		if want := n - LRHLen - GRHLen; int(p.GRH.PayLen) != want {
			return nil, &FieldError{"GRH", "PayLen", LRHLen + GRHPosPayLen, fmt.Sprintf("PayLen=%d bytes, but PktLen=%d words leaves %d bytes after the GRH", p.GRH.PayLen, p.LRH.PktLen, want)}
		}
		bth += GRHLen
	}
	if err := p.BTH.decode(b[bth:], bth); err != nil {
		return nil, err
	}
	icrc := n - footerBytes - ICRCLen
	p.Payload = b[hdr:icrc:icrc]
	if int(p.BTH.PadCnt) > len(p.Payload) {
		return nil, &FieldError{"BTH", "PadCnt", bth + BTHPosSE, fmt.Sprintf("PadCnt=%d, but the payload is %d bytes", p.BTH.PadCnt, len(p.Payload))}
	}
	p.ICRC = binary.LittleEndian.Uint32(b[icrc:])
	p.Footer = b[n-footerBytes : n : n]
	p.VCRC = binary.LittleEndian.Uint16(b[n:])
	return p, nil
}

// AppendTo appends the packet's wire bytes to dst, exactly as its fields say
// (CRCs as carried). It refuses a field too wide for its place and a PktLen,
// PayLen or PadCnt that disagrees with the lengths of the parts.
func (p *Packet) AppendTo(dst []byte) ([]byte, error) {
	if _, err := BTHOffset(p.LRH.LNH); err != nil {
		return dst, &FieldError{"LRH", "LNH", LRHPosSL, err.Error()}
	}
	if err := checkFooter(len(p.Footer)); err != nil {
		return dst, err
	}
	hdr := p.Len()
	n := hdr + len(p.Payload) + ICRCLen + len(p.Footer)
	if n != 4*int(p.LRH.PktLen) {
		return dst, &FieldError{"LRH", "PktLen", LRHPosPktLen, fmt.Sprintf("PktLen=%d words, but the parts add up to %d bytes", p.LRH.PktLen, n)}
	}
	if p.Global() && int(p.GRH.PayLen) != n-LRHLen-GRHLen {
		return dst, &FieldError{"GRH", "PayLen", LRHLen + GRHPosPayLen, fmt.Sprintf("PayLen=%d, but %d bytes follow the GRH", p.GRH.PayLen, n-LRHLen-GRHLen)}
	}
	if int(p.BTH.PadCnt) > len(p.Payload) {
		return dst, &FieldError{"BTH", "PadCnt", hdr - BTHLen + BTHPosSE, fmt.Sprintf("PadCnt=%d, but the payload is %d bytes", p.BTH.PadCnt, len(p.Payload))}
	}
	start := len(dst)
	dst = append(dst, make([]byte, n+VCRCLen)...)
	b := dst[start:]
	if err := p.serializeHeaders(b); err != nil {
		return dst[:start], err
	}
	copy(b[hdr:], p.Payload)
	binary.LittleEndian.PutUint32(b[hdr+len(p.Payload):], p.ICRC)
	copy(b[n-len(p.Footer):], p.Footer)
	binary.LittleEndian.PutUint16(b[n:], p.VCRC)
	return dst, nil
}

// serializeHeaders writes LRH, GRH (if global) and BTH at the start of b.
func (h *Headers) serializeHeaders(b []byte) error {
	if err := h.LRH.serialize(b, 0); err != nil {
		return err
	}
	bth := LRHLen
	if h.LRH.LNH == LNHGlobal {
		if err := h.GRH.serialize(b[LRHLen:], LRHLen); err != nil {
			return err
		}
		bth += GRHLen
	}
	return h.BTH.serialize(b[bth:], bth)
}

// MaxPktLen is the largest PktLen the 11-bit field holds, in words.
const MaxPktLen = 1<<11 - 1

// Build returns the wire bytes of a packet with headers h, payload data
// (extended transport headers and data), a zero telemetry footer of
// footerBytes, and correct CRCs. It computes, overriding what h holds:
// BTH.PadCnt (data is padded with zeros to a 4-byte boundary), LRH.PktLen,
// GRH.PayLen for global packets, the ICRC and the VCRC. Every other field is
// serialized as given, and refused if too wide.
func Build(h Headers, data []byte, footerBytes int) ([]byte, error) {
	return AppendBuild(nil, h, data, footerBytes)
}

// AppendBuild is Build appending to dst.
func AppendBuild(dst []byte, h Headers, data []byte, footerBytes int) ([]byte, error) {
	if _, err := BTHOffset(h.LRH.LNH); err != nil {
		return dst, &FieldError{"LRH", "LNH", LRHPosSL, err.Error()}
	}
	if err := checkFooter(footerBytes); err != nil {
		return dst, err
	}
	pad := -len(data) & 3
	hdr := h.Len()
	n := hdr + len(data) + pad + ICRCLen + footerBytes
	if n/4 > MaxPktLen {
		return dst, &FieldError{"LRH", "PktLen", LRHPosPktLen, fmt.Sprintf("the packet needs %d words, more than the 11-bit PktLen holds (%d)", n/4, MaxPktLen)}
	}
	h.BTH.PadCnt = uint8(pad)
	h.LRH.PktLen = uint16(n / 4)
	if h.LRH.LNH == LNHGlobal {
		h.GRH.PayLen = uint16(n - LRHLen - GRHLen)
	}
	start := len(dst)
	dst = append(dst, make([]byte, n+VCRCLen)...)
	b := dst[start:]
	if err := h.serializeHeaders(b); err != nil {
		return dst[:start], err
	}
	copy(b[hdr:], data)
	if err := seal(b, footerBytes); err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// seal computes and writes the ICRC and VCRC of a packet whose LRH is right.
func seal(pkt []byte, footerBytes int) error {
	if err := RecomputeICRC(pkt, footerBytes); err != nil {
		return err
	}
	return RecomputeVCRC(pkt)
}

// icrcOffset locates the ICRC of pkt, checking that pkt holds the packet the
// LRH describes with room for the footer.
func icrcOffset(pkt []byte, footerBytes int) (Frame, int, error) {
	if err := checkFooter(footerBytes); err != nil {
		return Frame{}, 0, err
	}
	fr, err := FrameOf(pkt)
	if err != nil {
		return Frame{}, 0, err
	}
	at := fr.PktLen - footerBytes - ICRCLen
	if at < fr.BTH+BTHLen {
		return Frame{}, 0, &FieldError{"LRH", "PktLen", LRHPosPktLen, fmt.Sprintf("PktLen=%d words (%d bytes) leaves no room for the headers, ICRC and %d-byte footer", fr.PktLen/4, fr.PktLen, footerBytes)}
	}
	return fr, at, nil
}

// RecomputeICRC writes the correct ICRC into pkt, a packet with a telemetry
// footer of footerBytes. A sender NIC does this; a switch never does.
func RecomputeICRC(pkt []byte, footerBytes int) error {
	_, at, err := icrcOffset(pkt, footerBytes)
	if err != nil {
		return err
	}
	c, err := ICRC(pkt[:at])
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(pkt[at:], c)
	return nil
}

// RecomputeVCRC writes the correct VCRC into pkt, as every switch does after
// changing a variant field (IBA Vol. 1 section 7.8.2). It needs no footer
// length: the VCRC covers everything PktLen counts.
func RecomputeVCRC(pkt []byte) error {
	fr, err := FrameOf(pkt)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint16(pkt[fr.PktLen:], VCRC(pkt[:fr.PktLen]))
	return nil
}

// A CRCCheck holds the CRCs a packet carries and the ones its bytes call for.
type CRCCheck struct {
	ICRC, WantICRC uint32
	VCRC, WantVCRC uint16
}

// ICRCOK reports whether the carried ICRC is right.
func (c CRCCheck) ICRCOK() bool { return c.ICRC == c.WantICRC }

// VCRCOK reports whether the carried VCRC is right.
func (c CRCCheck) VCRCOK() bool { return c.VCRC == c.WantVCRC }

// Err returns nil if both CRCs are right, or an error naming each one that is
// not, with the carried and the computed value.
func (c CRCCheck) Err() error {
	switch {
	case c.ICRCOK() && c.VCRCOK():
		return nil
	case c.VCRCOK():
		return fmt.Errorf("ICRC bad: carried %#08x, computed %#08x", c.ICRC, c.WantICRC)
	case c.ICRCOK():
		return fmt.Errorf("VCRC bad: carried %#04x, computed %#04x", c.VCRC, c.WantVCRC)
	}
	return fmt.Errorf("ICRC bad: carried %#08x, computed %#08x; VCRC bad: carried %#04x, computed %#04x",
		c.ICRC, c.WantICRC, c.VCRC, c.WantVCRC)
}

// Check computes both CRCs of pkt, a whole packet (LRH byte 0 through the
// VCRC) with a telemetry footer of footerBytes, and returns them beside the
// carried ones. The error is for a packet too malformed to locate its CRCs;
// bad CRCs are reported by the result (CRCCheck.Err).
func Check(pkt []byte, footerBytes int) (CRCCheck, error) {
	fr, at, err := icrcOffset(pkt, footerBytes)
	if err != nil {
		return CRCCheck{}, err
	}
	want, err := ICRC(pkt[:at])
	if err != nil {
		return CRCCheck{}, err
	}
	return CRCCheck{
		ICRC:     binary.LittleEndian.Uint32(pkt[at:]),
		WantICRC: want,
		VCRC:     binary.LittleEndian.Uint16(pkt[fr.PktLen:]),
		WantVCRC: VCRC(pkt[:fr.PktLen]),
	}, nil
}
