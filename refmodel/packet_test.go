package refmodel

import (
	"encoding/binary"

	"ibreservoir/header"
)

// testPacket builds an IBA transport packet byte by byte (IBA Vol. 1 sections
// 7.7 and 9.2) with correct ICRC and VCRC: LRH, a GRH when lnh is 3, BTH
// (RC SEND Only, opcode 0x04), payload bytes (padded to a word), ICRC, a
// zeroed telemetry footer of footer bytes, VCRC.
//
//	LRH  0: VL(7..4) LVer(3..0)      1: SL(7..4) Rsv2(3..2) LNH(1..0)
//	     2-3: DLID                   4: Rsv5(7..3) PktLen(2..0)  5: PktLen
//	     6-7: SLID
//	BTH  0: OpCode  1: SE M PadCnt(5..4) TVer  2-3: P_Key  4: FECN BECN Resv6
//	     5-7: DestQP  8: A Resv7  9-11: PSN
func testPacket(lnh uint8, slid, dlid uint16, destQP, psn uint32, payload, footer int) []byte {
	bth := header.LRHLen
	if lnh == header.LNHGlobal {
		bth += header.GRHLen
	}
	pad := (4 - payload%4) % 4
	icrcAt := bth + header.BTHLen + payload + pad
	n := icrcAt + header.ICRCLen + footer
	pkt := make([]byte, n+header.VCRCLen)
	pkt[0] = 0x00 // VL 0, LVer 0
	pkt[1] = 0x00 | lnh
	binary.BigEndian.PutUint16(pkt[2:], dlid)
	binary.BigEndian.PutUint16(pkt[4:], uint16(n/4))
	binary.BigEndian.PutUint16(pkt[6:], slid)
	if lnh == header.LNHGlobal {
		g := pkt[header.LRHLen:]
		g[0] = 0x60 // IPVer 6
		binary.BigEndian.PutUint16(g[4:], uint16(header.BTHLen+payload+pad+header.ICRCLen))
		g[6] = 0x1B // NxtHdr: IBA transport
		g[7] = 0x40 // HopLmt
		for i := 8; i < 40; i++ {
			g[i] = byte(i * 7)
		}
	}
	b := pkt[bth:]
	b[0] = 0x04
	b[1] = byte(pad) << 4
	binary.BigEndian.PutUint16(b[2:], 0xFFFF)
	b[5], b[6], b[7] = byte(destQP>>16), byte(destQP>>8), byte(destQP)
	b[9], b[10], b[11] = byte(psn>>16), byte(psn>>8), byte(psn)
	for i := range payload {
		pkt[bth+header.BTHLen+i] = byte(i*31 + 7)
	}
	icrc, err := header.ICRC(pkt[:icrcAt])
	if err != nil {
		panic(err)
	}
	binary.LittleEndian.PutUint32(pkt[icrcAt:], icrc)
	binary.LittleEndian.PutUint16(pkt[n:], header.VCRC(pkt[:n]))
	return pkt
}
