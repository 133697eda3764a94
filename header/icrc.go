// SPDX-License-Identifier: Apache-2.0

package header

import (
	"fmt"
	"hash/crc32"
)

// Link Next Header values (LRH byte 1, bits 1..0), IBA Vol. 1 section 7.7.
const (
	LNHRaw      = 0 // Raw: no IBA transport header
	LNHIPv6Raw  = 1 // Raw IPv6 datagram
	LNHLocal    = 2 // IBA local: LRH, BTH
	LNHGlobal   = 3 // IBA global: LRH, GRH, BTH
	LRHLen      = 8
	GRHLen      = 40
	BTHLen      = 12
	ICRCLen     = 4
	VCRCLen     = 2
	bthByteResv = 4 // BTH byte 4: FECN, BECN, Resv6 (variant, not in the ICRC)
)

// BTHOffset returns the offset of the BTH in a packet whose LRH says lnh,
// or an error for the non-IBA-transport LNH values.
func BTHOffset(lnh uint8) (int, error) {
	switch lnh {
	case LNHLocal:
		return LRHLen, nil
	case LNHGlobal:
		return LRHLen + GRHLen, nil
	}
	return 0, fmt.Errorf("LRH byte 1: LNH=%d carries no BTH (want 2, IBA local, or 3, IBA global)", lnh)
}

// ICRC returns the invariant CRC of an IBA transport packet. covered holds the
// bytes the ICRC protects, from LRH byte 0 through the last pad byte: for a
// packet of PktLen words with no telemetry footer, that is pkt[:4*PktLen-4].
//
// The variant fields are counted as all ones (IBA Vol. 1 section 7.8.1):
//
//	LNH=2 (local):  LRH VL (byte 0, bits 7..4) and BTH byte 4 (FECN, BECN, Resv6).
//	LNH=3 (global): the whole LRH; GRH TClass (byte 0 bits 3..0, byte 1 bits 7..4),
//	                FlowLabel (byte 1 bits 3..0, bytes 2-3) and HopLmt (byte 7);
//	                and BTH byte 4.
//
// Only these bytes differ from the plain CRC-32 of covered, so the CRC runs over
// the headers with their variant bits set and continues over the rest in place.
func ICRC(covered []byte) (uint32, error) {
	if len(covered) < LRHLen {
		return 0, fmt.Errorf("ICRC: packet is %d bytes, shorter than the %d-byte LRH", len(covered), LRHLen)
	}
	lnh := LNHOf(covered)
	bth, err := BTHOffset(lnh)
	if err != nil {
		return 0, fmt.Errorf("ICRC: %w", err)
	}
	hdrLen := bth + BTHLen
	if len(covered) < hdrLen {
		return 0, fmt.Errorf("ICRC: packet is %d bytes, shorter than its headers (%d bytes for LNH=%d)",
			len(covered), hdrLen, lnh)
	}
	// The bytes with variant bits go one by one through the CRC's own
	// table, their variant bits set; the runs between them, and the rest of
	// the packet, through crc32.Update in place. (A masked copy of the
	// headers would be moved to the heap by crc32.Update: one allocation a
	// packet.)
	mask := &variantMask[lnh-LNHLocal]
	crc := uint32(0)
	for i := 0; i < hdrLen; {
		if mask[i] != 0 {
			c := ^crc
			crc = ^(icrcTable[byte(c)^(covered[i]|mask[i])] ^ c>>8)
			i++
			continue
		}
		j := i + 1
		for j < hdrLen && mask[j] == 0 {
			j++
		}
		if j == hdrLen {
			j = len(covered) // the run reaches the end of the headers: the payload follows in the same call
		}
		crc = crc32.Update(crc, icrcTable, covered[i:j])
		i = j
	}
	return crc, nil
}

// variantMask is maskVariant applied to zero headers, for LNH=2 and LNH=3:
// maskVariant only sets bits, so a header byte b masked is b|variantMask[i].
var variantMask = func() (v [2][LRHLen + GRHLen + BTHLen]byte) {
	maskVariant(v[0][:], LNHLocal)
	maskVariant(v[1][:], LNHGlobal)
	return v
}()

// maskVariant sets the ICRC-variant bits of the headers in m to ones.
// m starts at LRH byte 0 and holds at least the headers up to the BTH.
func maskVariant(m []byte, lnh uint8) {
	bth := LRHLen
	if lnh == LNHGlobal {
		for i := range LRHLen {
			m[i] = 0xFF
		}
		g := m[LRHLen:]
		g[0] |= 0x0F // TClass high nibble (IPVer stays)
		g[1] = 0xFF  // TClass low nibble, FlowLabel high nibble
		g[2] = 0xFF  // FlowLabel
		g[3] = 0xFF  // FlowLabel
		g[7] = 0xFF  // HopLmt
		bth = LRHLen + GRHLen
	} else {
		m[0] |= 0xF0 // VL
	}
	m[bth+bthByteResv] = 0xFF
}

// InvariantMask returns, for a packet with the given LNH, a byte mask over the
// headers (LRH through BTH) whose set bits are the ones the ICRC treats as
// variant (counted as ones). Bits clear in the mask are covered by the ICRC.
func InvariantMask(lnh uint8) ([]byte, error) {
	bth, err := BTHOffset(lnh)
	if err != nil {
		return nil, err
	}
	m := make([]byte, bth+BTHLen)
	maskVariant(m, lnh)
	return m, nil
}

// VCRC returns the variant CRC over pkt, which must run from LRH byte 0 through
// the last byte before the VCRC (the ICRC, or the telemetry footer if any).
func VCRC(pkt []byte) uint16 { return CRC16(pkt) }
