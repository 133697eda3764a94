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
