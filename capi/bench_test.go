// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"ibreservoir/refmodel"
)

// benchPacket is a 64-byte packet of the default configuration (a 38-byte
// payload padded to 40; 66 bytes with the VCRC: IBA packets are 4k+2 bytes
// long), sent, and the caller's generator state of link 7:3.
func benchPacket(b *testing.B, h uintptr) ([]byte, []uint32) {
	pkt, _ := callBuild(h, packetSpec{SLID: 1, DLID: 2, PSN: 3, Payload: make([]byte, 38), PayloadLen: 38, Capacity: 200})
	if len(pkt) != 66 || callSend(h, pkt, 1) != statusOK {
		b.Fatalf("a %d-byte packet: %s", len(pkt), lastError(h))
	}
	state := make([]uint32, 8)
	callPortState(h, 7, 3, state, false)
	return pkt, state
}

// BenchmarkStage is ibr_stage as a C scoreboard calls it per packet, with
// the caller's generator state: a loop in C (calls.go's stage_loop) over a
// 64-byte packet (benchPacket) of the default configuration. stages/cpu-s
// divides by the process's CPU time (every thread's), as
// BenchmarkStageBatch's.
func BenchmarkStage(b *testing.B) {
	h := mustModel(b, "")
	pkt, state := benchPacket(b, h)
	b.ResetTimer()
	cpu := cpuSeconds()
	if st := callStageLoop(h, pkt, state, b.N); st != statusOK {
		b.Fatal(lastError(h))
	}
	b.ReportMetric(float64(b.N)/(cpuSeconds()-cpu), "stages/cpu-s")
}

// BenchmarkStageBatch is ibr_stage_batch from a C loop (calls.go's
// stage_batch_loop): batches of 1,024 64-byte packets of the default
// configuration, the caller's generator state, alternate packets congested,
// a status array. b.N is rounded up to whole batches; ns/op is per packet.
// stages/cpu-s divides by the CPU time the process spent in the loop (every
// thread's), the rate a core gives it when other work shares the machine.
func BenchmarkStageBatch(b *testing.B) {
	h := mustModel(b, "")
	pkt, state := benchPacket(b, h)
	const n = 1024
	count := (b.N + n - 1) / n * n
	b.ResetTimer()
	st, cpu := callStageBatchLoop(h, pkt, n, state, count)
	if st != statusOK {
		b.Fatal(lastError(h))
	}
	b.StopTimer()
	b.ReportMetric(float64(count)/b.Elapsed().Seconds(), "stages/s")
	b.ReportMetric(float64(count)/cpu, "stages/cpu-s")
}

// BenchmarkDecodeBatch is ibr_decoder_add_packets from a C loop (calls.go's
// add_packets_loop): batches of 1,024 staged 64-byte packets of the default
// configuration, each one's VCRC and ICRC checked and its sample added to a
// decoder of two candidate links. ns/op is per packet.
func BenchmarkDecodeBatch(b *testing.B) {
	h := mustModel(b, "")
	pkt, state := benchPacket(b, h)
	if _, st := callStage(h, pkt, 7, 3, 1, state); st != statusOK {
		b.Fatal(lastError(h))
	}
	d, st := callDecoderNew(h, 1, []refmodel.Link{{Switch: 7, Port: 3}, {Switch: 7, Port: 4}}, []int32{1, 1})
	if st != statusOK {
		b.Fatal(lastError(h))
	}
	defer callFree(d)
	const n = 1024
	count := (b.N + n - 1) / n * n
	b.ResetTimer()
	st, cpu := callAddPacketsLoop(d, pkt, n, count)
	if st != statusOK {
		b.Fatal(lastError(d))
	}
	b.StopTimer()
	b.ReportMetric(float64(count)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(count)/cpu, "packets/cpu-s")
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

// BenchmarkStageGo is the Go stage alone (refmodel.Model.Stage on the same
// packet with the link's generator), the floor under ibr_stage_batch: what
// the batch adds per packet is its copy of the packet and the bookkeeping.
func BenchmarkStageGo(b *testing.B) {
	h := mustModel(b, "")
	pkt, _ := benchPacket(b, h)
	c, _ := refmodel.ParseConfig("")
	m, _ := refmodel.New(c)
	g, _ := c.NewPortGenerator(7, 3)
	work := make([]byte, len(pkt))
	b.ResetTimer()
	cpu := cpuSeconds()
	for i := range b.N {
		copy(work, pkt)
		if _, err := m.Stage(work, 7, 3, i&1 == 1, g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/(cpuSeconds()-cpu), "stages/cpu-s")
}
