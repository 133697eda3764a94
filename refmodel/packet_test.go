// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"encoding/binary"
	"testing"

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
		g[0] = 0x60                                                                                // IPVer 6
		binary.BigEndian.PutUint16(g[4:], uint16(header.BTHLen+payload+pad+header.ICRCLen+footer)) // PayLen: as header.Build counts it, footer included
		g[6] = 0x1B                                                                                // NxtHdr: IBA transport
		g[7] = 0x40                                                                                // HopLmt
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

// TestHeaderBuilderAgrees builds the same packets with package header's
// builder and compares them with testPacket byte for byte, then runs the
// model over them and has header's checker confirm both CRCs.
func TestHeaderBuilderAgrees(t *testing.T) {
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		f := footerOf(m)
		for _, payload := range []int{0, 3, 64} {
			want := testPacket(c.LNH, 0x1234, 0x0042, 0xABCDE, 0x7654, payload, f)
			h := header.Headers{
				LRH: header.LRH{LNH: c.LNH, DLID: 0x0042, SLID: 0x1234},
				BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 0xABCDE, PSN: 0x7654},
			}
			if c.LNH == header.LNHGlobal {
				h.GRH = header.GRH{IPVer: 6, NxtHdr: 0x1B, HopLmt: 0x40}
				for i := range 16 {
					h.GRH.SGID[i], h.GRH.DGID[i] = byte((i+8)*7), byte((i+24)*7)
				}
			}
			data := make([]byte, payload)
			for i := range data {
				data[i] = byte(i*31 + 7)
			}
			pkt, err := header.Build(h, data, f)
			must(t, err)
			if !bytes.Equal(pkt, want) {
				t.Fatalf("%s payload %d: header.Build and testPacket differ\nbuild %x\ntest  %x", c, payload, pkt, want)
			}
			must(t, m.Send(pkt, c.NewSenderGenerator(1)))
			for hop := range 6 {
				g, _ := c.NewPortGenerator(uint16(hop), 2)
				if _, err := m.Stage(pkt, uint16(hop), 2, hop == 3, g); err != nil {
					t.Fatal(err)
				}
			}
			chk, err := header.Check(pkt, f)
			must(t, err)
			if err := chk.Err(); err != nil {
				t.Fatalf("%s: after the stages header.Check says %v", c, err)
			}
		}
	}
}
