package main

import "testing"

// BenchmarkStage is one ibr_stage call with the caller's state, as a
// scoreboard makes per packet, through the C entry point.
func BenchmarkStage(b *testing.B) {
	h := mustModel(b, "")
	pkt, _ := callBuild(h, packetSpec{SLID: 1, DLID: 2, PSN: 3, Payload: make([]byte, 40), PayloadLen: 40, Capacity: 200})
	callSend(h, pkt, 1)
	state := make([]uint32, 8)
	callPortState(h, 3, 4, state, false)
	work := make([]byte, len(pkt))
	b.ResetTimer()
	for i := range b.N {
		copy(work, pkt)
		if _, st := callStage(h, work, 3, 4, i&1, state); st != statusOK {
			b.Fatal(lastError(h))
		}
	}
}
