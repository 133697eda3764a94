package main

import "testing"

// BenchmarkStage is ibr_stage as a C scoreboard calls it per packet, with
// the caller's generator state: a loop in C (calls.go's stage_loop) over a
// 40-byte-payload packet of the default configuration.
func BenchmarkStage(b *testing.B) {
	h := mustModel(b, "")
	pkt, _ := callBuild(h, packetSpec{SLID: 1, DLID: 2, PSN: 3, Payload: make([]byte, 40), PayloadLen: 40, Capacity: 200})
	callSend(h, pkt, 1)
	state := make([]uint32, 8)
	callPortState(h, 7, 3, state, false)
	b.ResetTimer()
	if st := callStageLoop(h, pkt, state, b.N); st != statusOK {
		b.Fatal(lastError(h))
	}
}

// BenchmarkBuild is ibr_packet_build from a C loop: a packet with a 40-byte
// payload, its CRCs computed.
func BenchmarkBuild(b *testing.B) {
	h := mustModel(b, "")
	b.ResetTimer()
	if st := callBuildLoop(h, b.N); st != statusOK {
		b.Fatal(lastError(h))
	}
}
