// SPDX-License-Identifier: Apache-2.0

package header

import (
	"encoding/binary"
	"fmt"
)

// The three headers of an IBA transport packet (IBA Vol. 1 chapter 9, section
// 7.7 for the LRH, 8.3 for the GRH, 9.2 for the BTH). Fields are named as the
// specification names them (P_Key becomes PKey); multi-byte fields are
// big-endian. The diagrams number bits as the specification does, 31..0 within
// each 4-byte word, byte 0 of the header holding bits 31..24 of word 0.

// A FieldError reports a header field, or a length, that is wrong in a buffer
// being decoded or too wide for the field in a value being serialized.
type FieldError struct {
	Header string // "LRH", "GRH", "BTH" or "packet"
	Field  string // the IBA field name
	Offset int    // byte offset of the field, from LRH byte 0 when decoding a packet
	Msg    string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s (byte %d): %s", e.Header, e.Field, e.Offset, e.Msg)
}

// tooWide checks v < 2^width for the serializers.
func tooWide(hdr, field string, off int, v uint64, width uint) error {
	if v>>width != 0 {
		return &FieldError{hdr, field, off, fmt.Sprintf("value %d (%#x) does not fit the %d-bit field (at most %d)", v, v, width, uint64(1)<<width-1)}
	}
	return nil
}

func shortBuffer(hdr string, base, have, need int) error {
	return &FieldError{hdr, "length", base, fmt.Sprintf("%d bytes remain, the %s needs %d", have, hdr, need)}
}

// LRH field offsets (bytes from LRH byte 0).
const (
	LRHPosVL     = 0 // VL (bits 7..4), LVer (bits 3..0)
	LRHPosSL     = 1 // SL (bits 7..4), Rsv2 (bits 3..2), LNH (bits 1..0)
	LRHPosDLID   = 2 // DLID, 2 bytes
	LRHPosPktLen = 4 // Rsv5 (byte 4 bits 7..3), PktLen (byte 4 bits 2..0, byte 5)
	LRHPosSLID   = 6 // SLID, 2 bytes
)

// Single fields read from packet bytes, for the per-packet paths that do not
// decode whole headers (the switch stage, the receiver, the CRCs). pkt starts
// at LRH byte 0 and holds at least the LRH; bth starts at BTH byte 0 and holds
// at least the BTH. The decoders below read the same fields through these.

// LNHOf returns the LRH's LNH, byte 1 bits 1..0.
func LNHOf(pkt []byte) uint8 { return pkt[LRHPosSL] & 3 }

// PktLenOf returns the LRH's PktLen in 4-byte words, the low 11 bits of bytes
// 4-5.
func PktLenOf(pkt []byte) uint16 { return binary.BigEndian.Uint16(pkt[LRHPosPktLen:]) & 0x7FF }

// DLIDOf returns the LRH's DLID, bytes 2-3.
func DLIDOf(pkt []byte) uint16 { return binary.BigEndian.Uint16(pkt[LRHPosDLID:]) }

// SLIDOf returns the LRH's SLID, bytes 6-7.
func SLIDOf(pkt []byte) uint16 { return binary.BigEndian.Uint16(pkt[LRHPosSLID:]) }

// DestQPOf returns the BTH's DestQP, bytes 5-7.
func DestQPOf(bth []byte) uint32 { return binary.BigEndian.Uint32(bth[BTHPosFECN:]) & 0xFFFFFF }

// PSNOf returns the BTH's PSN, bytes 9-11.
func PSNOf(bth []byte) uint32 { return binary.BigEndian.Uint32(bth[BTHPosAckReq:]) & 0xFFFFFF }

// LRH is the Local Route Header (IBA Vol. 1 section 7.7), 8 bytes, present in
// every packet:
//
//	        byte 0          byte 1          byte 2          byte 3
//	word 0 |31  28|27  24|23  20|19|18|17 16|15                            0|
//	       |  VL  | LVer |  SL  | Rsv2| LNH |             DLID             |
//	word 1 |31     27|26            16|15                                0|
//	       |  Rsv5   |      PktLen    |               SLID                 |
//
// Rsv2 is the 2-bit field the specification calls Reserve; Rsv5 is 5 bits.
// PktLen counts 4-byte words from LRH byte 0 through the ICRC (and the
// telemetry footer, if any), not the VCRC.
type LRH struct {
	VL     uint8  // virtual lane, 4 bits
	LVer   uint8  // link version, 4 bits; 0
	SL     uint8  // service level, 4 bits
	Rsv2   uint8  // reserved, 2 bits
	LNH    uint8  // link next header, 2 bits (LNHLocal, LNHGlobal, ...)
	DLID   uint16 // destination local ID
	Rsv5   uint8  // reserved, 5 bits
	PktLen uint16 // packet length in 4-byte words, 11 bits
	SLID   uint16 // source local ID
}

// DecodeFromBytes decodes the LRH at the start of b. It refuses a short buffer
// and a link version other than 0; any LNH is accepted here (DecodePacket
// accepts only IBA transport packets).
func (h *LRH) DecodeFromBytes(b []byte) error { return h.decode(b, 0) }

func (h *LRH) decode(b []byte, base int) error {
	if len(b) < LRHLen {
		return shortBuffer("LRH", base, len(b), LRHLen)
	}
	if lver := b[LRHPosVL] & 0xF; lver != 0 {
		return &FieldError{"LRH", "LVer", base + LRHPosVL, fmt.Sprintf("link version %d, want 0", lver)}
	}
	*h = LRH{
		VL:     b[LRHPosVL] >> 4,
		LVer:   b[LRHPosVL] & 0xF,
		SL:     b[LRHPosSL] >> 4,
		Rsv2:   b[LRHPosSL] >> 2 & 3,
		LNH:    LNHOf(b),
		DLID:   DLIDOf(b),
		Rsv5:   b[LRHPosPktLen] >> 3,
		PktLen: PktLenOf(b),
		SLID:   SLIDOf(b),
	}
	return nil
}

// SerializeTo writes the LRH into b[:LRHLen]. It refuses a value too wide for
// its field and a buffer shorter than the header.
func (h *LRH) SerializeTo(b []byte) error { return h.serialize(b, 0) }

func (h *LRH) serialize(b []byte, base int) error {
	if len(b) < LRHLen {
		return shortBuffer("LRH", base, len(b), LRHLen)
	}
	for _, c := range [...]struct {
		name  string
		off   int
		v     uint64
		width uint
	}{
		{"VL", LRHPosVL, uint64(h.VL), 4},
		{"LVer", LRHPosVL, uint64(h.LVer), 4},
		{"SL", LRHPosSL, uint64(h.SL), 4},
		{"Rsv2", LRHPosSL, uint64(h.Rsv2), 2},
		{"LNH", LRHPosSL, uint64(h.LNH), 2},
		{"Rsv5", LRHPosPktLen, uint64(h.Rsv5), 5},
		{"PktLen", LRHPosPktLen, uint64(h.PktLen), 11},
	} {
		if err := tooWide("LRH", c.name, base+c.off, c.v, c.width); err != nil {
			return err
		}
	}
	b[LRHPosVL] = h.VL<<4 | h.LVer
	b[LRHPosSL] = h.SL<<4 | h.Rsv2<<2 | h.LNH
	binary.BigEndian.PutUint16(b[LRHPosDLID:], h.DLID)
	binary.BigEndian.PutUint16(b[LRHPosPktLen:], uint16(h.Rsv5)<<11|h.PktLen)
	binary.BigEndian.PutUint16(b[LRHPosSLID:], h.SLID)
	return nil
}

// GRH field offsets (bytes from GRH byte 0).
const (
	GRHPosIPVer     = 0  // IPVer (bits 7..4), TClass high nibble (bits 3..0)
	GRHPosFlowLabel = 1  // TClass low nibble (bits 7..4), FlowLabel (byte 1 bits 3..0, bytes 2-3)
	GRHPosPayLen    = 4  // PayLen, 2 bytes
	GRHPosNxtHdr    = 6  // NxtHdr
	GRHPosHopLmt    = 7  // HopLmt
	GRHPosSGID      = 8  // SGID, 16 bytes
	GRHPosDGID      = 24 // DGID, 16 bytes
)

// GRH constants (IBA Vol. 1 section 8.3.1).
const (
	IPVer6    = 6    // the only GRH version
	NxtHdrBTH = 0x1B // NxtHdr of an IBA transport packet: a BTH follows
)

// GRH is the Global Route Header (IBA Vol. 1 section 8.3), 40 bytes, present
// when the LRH says LNH=3:
//
//	        byte 0          byte 1          byte 2          byte 3
//	word 0 |31  28|27          20|19                                    0|
//	       | IPVer|    TClass    |               FlowLabel               |
//	word 1 |31                          16|15            8|7             0|
//	       |            PayLen            |    NxtHdr     |    HopLmt     |
//	words 2-5                     SGID (128 bits)
//	words 6-9                     DGID (128 bits)
//
// PayLen counts the bytes after the GRH up to the VCRC: the BTH, payload, pad,
// ICRC and the telemetry footer if any, so 4*PktLen = 8 + 40 + PayLen as for
// every IBA global packet.
type GRH struct {
	IPVer     uint8  // IP version, 4 bits; 6
	TClass    uint8  // traffic class
	FlowLabel uint32 // flow label, 20 bits
	PayLen    uint16 // payload length in bytes
	NxtHdr    uint8  // next header; NxtHdrBTH
	HopLmt    uint8  // hop limit
	SGID      [16]byte
	DGID      [16]byte
}

// DecodeFromBytes decodes the GRH at the start of b. It refuses a short buffer,
// an IPVer other than 6 and a NxtHdr other than a BTH (0x1B).
func (h *GRH) DecodeFromBytes(b []byte) error { return h.decode(b, 0) }

func (h *GRH) decode(b []byte, base int) error {
	if len(b) < GRHLen {
		return shortBuffer("GRH", base, len(b), GRHLen)
	}
	if v := b[GRHPosIPVer] >> 4; v != IPVer6 {
		return &FieldError{"GRH", "IPVer", base + GRHPosIPVer, fmt.Sprintf("IP version %d, want %d", v, IPVer6)}
	}
	if nh := b[GRHPosNxtHdr]; nh != NxtHdrBTH {
		return &FieldError{"GRH", "NxtHdr", base + GRHPosNxtHdr, fmt.Sprintf("next header %#02x is not a BTH (%#02x)", nh, NxtHdrBTH)}
	}
	w0 := binary.BigEndian.Uint32(b)
	*h = GRH{
		IPVer:     uint8(w0 >> 28),
		TClass:    uint8(w0 >> 20),
		FlowLabel: w0 & 0xFFFFF,
		PayLen:    binary.BigEndian.Uint16(b[GRHPosPayLen:]),
		NxtHdr:    b[GRHPosNxtHdr],
		HopLmt:    b[GRHPosHopLmt],
	}
	copy(h.SGID[:], b[GRHPosSGID:])
	copy(h.DGID[:], b[GRHPosDGID:])
	return nil
}

// SerializeTo writes the GRH into b[:GRHLen], refusing a value too wide for
// its field and a short buffer.
func (h *GRH) SerializeTo(b []byte) error { return h.serialize(b, 0) }

func (h *GRH) serialize(b []byte, base int) error {
	if len(b) < GRHLen {
		return shortBuffer("GRH", base, len(b), GRHLen)
	}
	if err := tooWide("GRH", "IPVer", base+GRHPosIPVer, uint64(h.IPVer), 4); err != nil {
		return err
	}
	if err := tooWide("GRH", "FlowLabel", base+GRHPosFlowLabel, uint64(h.FlowLabel), 20); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(b, uint32(h.IPVer)<<28|uint32(h.TClass)<<20|h.FlowLabel)
	binary.BigEndian.PutUint16(b[GRHPosPayLen:], h.PayLen)
	b[GRHPosNxtHdr] = h.NxtHdr
	b[GRHPosHopLmt] = h.HopLmt
	copy(b[GRHPosSGID:], h.SGID[:])
	copy(b[GRHPosDGID:], h.DGID[:])
	return nil
}

// BTH field offsets (bytes from BTH byte 0).
const (
	BTHPosOpCode = 0 // OpCode
	BTHPosSE     = 1 // SE (bit 7), M (bit 6), PadCnt (bits 5..4), TVer (bits 3..0)
	BTHPosPKey   = 2 // P_Key, 2 bytes
	BTHPosFECN   = 4 // FECN (bit 7), BECN (bit 6), Resv6 (bits 5..0); variant, outside the ICRC
	BTHPosDestQP = 5 // DestQP, 3 bytes
	BTHPosAckReq = 8 // AckReq (bit 7), Resv7 (bits 6..0)
	BTHPosPSN    = 9 // PSN, 3 bytes
)

// BTH is the Base Transport Header (IBA Vol. 1 section 9.2), 12 bytes:
//
//	        byte 0          byte 1          byte 2          byte 3
//	word 0 |31          24|23|22|21 20|19 16|15                           0|
//	       |    OpCode    |SE| M|PadCnt| TVer|             P_Key           |
//	word 1 |31|30|29    24|23                                             0|
//	       |F |B |  Resv6 |                  DestQP                        |
//	word 2 |31|30       24|23                                             0|
//	       |A |   Resv7   |                    PSN                         |
//
// F is FECN, B is BECN, A is AckReq. Byte 4 (FECN, BECN, Resv6) is variant:
// switches may change it, and the ICRC counts it as all ones.
type BTH struct {
	OpCode uint8
	SE     bool   // solicited event
	M      bool   // MigReq
	PadCnt uint8  // pad bytes at the end of the payload, 2 bits
	TVer   uint8  // transport header version, 4 bits; 0
	PKey   uint16 // P_Key, the partition key
	FECN   bool   // forward explicit congestion notification
	BECN   bool   // backward explicit congestion notification
	Resv6  uint8  // reserved, 6 bits; the telemetry field of the default layouts
	DestQP uint32 // destination queue pair, 24 bits
	AckReq bool   // acknowledge request
	Resv7  uint8  // reserved, 7 bits
	PSN    uint32 // packet sequence number, 24 bits
}

// DecodeFromBytes decodes the BTH at the start of b. It refuses a short buffer
// and a transport version other than 0.
func (h *BTH) DecodeFromBytes(b []byte) error { return h.decode(b, 0) }

func (h *BTH) decode(b []byte, base int) error {
	if len(b) < BTHLen {
		return shortBuffer("BTH", base, len(b), BTHLen)
	}
	if tv := b[BTHPosSE] & 0xF; tv != 0 {
		return &FieldError{"BTH", "TVer", base + BTHPosSE, fmt.Sprintf("transport version %d, want 0", tv)}
	}
	*h = BTH{
		OpCode: b[BTHPosOpCode],
		SE:     b[BTHPosSE]&0x80 != 0,
		M:      b[BTHPosSE]&0x40 != 0,
		PadCnt: b[BTHPosSE] >> 4 & 3,
		TVer:   b[BTHPosSE] & 0xF,
		PKey:   binary.BigEndian.Uint16(b[BTHPosPKey:]),
		FECN:   b[BTHPosFECN]&0x80 != 0,
		BECN:   b[BTHPosFECN]&0x40 != 0,
		Resv6:  b[BTHPosFECN] & 0x3F,
		DestQP: DestQPOf(b),
		AckReq: b[BTHPosAckReq]&0x80 != 0,
		Resv7:  b[BTHPosAckReq] & 0x7F,
		PSN:    PSNOf(b),
	}
	return nil
}

// SerializeTo writes the BTH into b[:BTHLen], refusing a value too wide for
// its field and a short buffer.
func (h *BTH) SerializeTo(b []byte) error { return h.serialize(b, 0) }

func (h *BTH) serialize(b []byte, base int) error {
	if len(b) < BTHLen {
		return shortBuffer("BTH", base, len(b), BTHLen)
	}
	for _, c := range [...]struct {
		name  string
		off   int
		v     uint64
		width uint
	}{
		{"PadCnt", BTHPosSE, uint64(h.PadCnt), 2},
		{"TVer", BTHPosSE, uint64(h.TVer), 4},
		{"Resv6", BTHPosFECN, uint64(h.Resv6), 6},
		{"DestQP", BTHPosDestQP, uint64(h.DestQP), 24},
		{"Resv7", BTHPosAckReq, uint64(h.Resv7), 7},
		{"PSN", BTHPosPSN, uint64(h.PSN), 24},
	} {
		if err := tooWide("BTH", c.name, base+c.off, c.v, c.width); err != nil {
			return err
		}
	}
	b[BTHPosOpCode] = h.OpCode
	b[BTHPosSE] = bit(h.SE, 7) | bit(h.M, 6) | h.PadCnt<<4 | h.TVer
	binary.BigEndian.PutUint16(b[BTHPosPKey:], h.PKey)
	binary.BigEndian.PutUint32(b[BTHPosFECN:], uint32(bit(h.FECN, 7)|bit(h.BECN, 6)|h.Resv6)<<24|h.DestQP)
	binary.BigEndian.PutUint32(b[BTHPosAckReq:], uint32(bit(h.AckReq, 7)|h.Resv7)<<24|h.PSN)
	return nil
}

func bit(v bool, n uint) uint8 {
	if v {
		return 1 << n
	}
	return 0
}
