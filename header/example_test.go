// SPDX-License-Identifier: Apache-2.0

package header_test

import (
	"fmt"

	"ibreservoir/header"
)

// A sender builds a packet, a switch rewrites the one-reservoir fields in BTH
// Resv6 (thesis Alg. 8) and recomputes only the VCRC, and the receiver's
// check still passes.
func ExampleBuild() {
	l, err := header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: 3}.Layout()
	if err != nil {
		panic(err)
	}
	h := header.Headers{
		LRH: header.LRH{LNH: header.LNHLocal, DLID: 0x12, SLID: 0x34},
		BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 0x42, PSN: 7},
	}
	pkt, err := header.Build(h, []byte("hello"), l.FooterBytes)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes, PktLen %d, PadCnt %d\n", len(pkt), pkt[5], pkt[9]>>4&3)

	// One switch hop.
	fr, err := l.Locate(pkt)
	if err != nil {
		panic(err)
	}
	hopBit, _ := l.Ref(header.FieldHopBit)
	count, _ := l.Ref(header.FieldHopCount)
	hopBit.Set(pkt, fr, 1)
	count.Set(pkt, fr, count.Get(pkt, fr)+1)
	if err := header.RecomputeVCRC(pkt); err != nil {
		panic(err)
	}

	c, err := header.Check(pkt, l.FooterBytes)
	if err != nil {
		panic(err)
	}
	fmt.Printf("BTH byte 4 = %#02x, ICRC ok %v, VCRC ok %v\n", pkt[header.LRHLen+header.BTHPosFECN], c.ICRCOK(), c.VCRCOK())
	// Output:
	// 34 bytes, PktLen 8, PadCnt 3
	// BTH byte 4 = 0x11, ICRC ok true, VCRC ok true
}

// Where the telemetry fields of a layout lie: the one-reservoir scheme with a
// 3-bit count, in BTH byte 4, outside the ICRC.
func ExampleLayout_BitMap() {
	l, err := header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: 3}.Layout()
	if err != nil {
		panic(err)
	}
	for _, r := range l.BitMap(header.LNHLocal) {
		fmt.Printf("%-9s %s byte %d bits %-4s %s, ICRC covered %t\n", r.Field, r.Header, r.Byte, r.Bits, r.IBAField, r.ICRCCovered)
	}
	// Output:
	// hop_bit   BTH byte 4 bits 4    BTH Resv6, ICRC covered false
	// cong_bit  BTH byte 4 bits 3    BTH Resv6, ICRC covered false
	// hop_count BTH byte 4 bits 2..0 BTH Resv6, ICRC covered false
}

// Decoding a packet's headers, then checking its CRCs.
func ExampleDecodePacket() {
	pkt, err := header.Build(header.Headers{
		LRH: header.LRH{LNH: header.LNHLocal, DLID: 0x12, SLID: 0x34},
		BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 0x42, PSN: 7, Resv6: 0x15},
	}, []byte("hello"), 0)
	if err != nil {
		panic(err)
	}
	p, err := header.DecodePacket(pkt, 0)
	if err != nil {
		panic(err)
	}
	c, err := header.Check(pkt, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("SLID %#x DLID %#x DestQP %#x PSN %d Resv6 %#x data %q CRCs: %v\n",
		p.LRH.SLID, p.LRH.DLID, p.BTH.DestQP, p.BTH.PSN, p.BTH.Resv6, p.Data(), c.Err())
	// Output:
	// SLID 0x34 DLID 0x12 DestQP 0x42 PSN 7 Resv6 0x15 data "hello" CRCs: <nil>
}
