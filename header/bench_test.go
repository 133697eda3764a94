// SPDX-License-Identifier: Apache-2.0

package header

import (
	"math/rand/v2"
	"testing"
)

// benchStage is one switch stage's header work in the one-reservoir scheme
// (Alg. 8): read the hop count, write hop bit, congested bit and count,
// recompute the VCRC. The model does this on every hop of every packet.
func benchStage(b *testing.B, size int, ref bool) {
	l, err := TelemetrySpec{Scheme: OneReservoir, CountBits: 3}.Layout()
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	h := Headers{LRH: LRH{LNH: LNHLocal}, BTH: BTH{OpCode: 4, PKey: 0xFFFF}}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	pkt, err := Build(h, data, 0)
	if err != nil {
		b.Fatal(err)
	}
	fr, err := l.Locate(pkt)
	if err != nil {
		b.Fatal(err)
	}
	hb, _ := l.Ref(FieldHopBit)
	cb, _ := l.Ref(FieldCongBit)
	hc, _ := l.Ref(FieldHopCount)
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if ref {
			n := hc.Get(pkt, fr)
			_ = hb.Set(pkt, fr, uint64(i&1))
			_ = cb.Set(pkt, fr, uint64(i>>1&1))
			_ = hc.Set(pkt, fr, min(n+1, 7))
		} else {
			n, _ := l.Get(pkt, fr, FieldHopCount)
			_ = l.Set(pkt, fr, FieldHopBit, uint64(i&1))
			_ = l.Set(pkt, fr, FieldCongBit, uint64(i>>1&1))
			_ = l.Set(pkt, fr, FieldHopCount, min(n+1, 7))
		}
		if err := RecomputeVCRC(pkt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageRef64(b *testing.B)    { benchStage(b, 64, true) }
func BenchmarkStageByName64(b *testing.B) { benchStage(b, 64, false) }
func BenchmarkStageRef256(b *testing.B)   { benchStage(b, 256, true) }
func BenchmarkStageRef4096(b *testing.B)  { benchStage(b, 4096, true) }

func benchGetSet(b *testing.B, byName bool) {
	l, _ := TelemetrySpec{Scheme: FullID, CountBits: 8, SwitchBits: 16, PortBits: 8}.Layout()
	pkt, _ := Build(Headers{LRH: LRH{LNH: LNHLocal}}, make([]byte, 64), l.FooterBytes)
	fr, _ := l.Locate(pkt)
	ref, _ := l.Ref(FieldHopSwitch)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if byName {
			_ = l.Set(pkt, fr, FieldHopSwitch, uint64(i)&0xFFFF)
			v, _ := l.Get(pkt, fr, FieldHopSwitch)
			_ = v
		} else {
			_ = ref.Set(pkt, fr, uint64(i)&0xFFFF)
			_ = ref.Get(pkt, fr)
		}
	}
}

// 16-bit footer field (crosses a byte boundary): one Set and one Get.
func BenchmarkGetSetByName(b *testing.B) { benchGetSet(b, true) }
func BenchmarkGetSetRef(b *testing.B)    { benchGetSet(b, false) }

// sink keeps benchmarked results alive.
var sink uint64

func benchCRC(b *testing.B, n int, f func([]byte) uint64) {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		sink += f(buf)
	}
}

func BenchmarkVCRC64(b *testing.B) {
	benchCRC(b, 64, func(p []byte) uint64 { return uint64(CRC16(p)) })
}
func BenchmarkVCRC4096(b *testing.B) {
	benchCRC(b, 4096, func(p []byte) uint64 { return uint64(CRC16(p)) })
}
func BenchmarkICRC64(b *testing.B) {
	pkt, _ := Build(Headers{LRH: LRH{LNH: LNHLocal}}, make([]byte, 40), 0)
	benchCRC(b, 64, func([]byte) uint64 { c, _ := ICRC(pkt[:len(pkt)-6]); return uint64(c) })
}
func BenchmarkICRC4096(b *testing.B) {
	pkt, _ := Build(Headers{LRH: LRH{LNH: LNHLocal}}, make([]byte, 4072), 0)
	benchCRC(b, 4096, func([]byte) uint64 { c, _ := ICRC(pkt[:len(pkt)-6]); return uint64(c) })
}

func BenchmarkCRC16Simple4096(b *testing.B) {
	benchCRC(b, 4096, func(p []byte) uint64 { return uint64(simpleUpdateCRC16(0xFFFF, p)) })
}
func BenchmarkCRC16Slicing4096(b *testing.B) {
	benchCRC(b, 4096, func(p []byte) uint64 { return uint64(slicingUpdateCRC16(0xFFFF, p)) })
}

// benchPatchStage is benchStage patching the VCRC (PatchVCRC) instead of
// recomputing it.
func benchPatchStage(b *testing.B, size int) {
	l, _ := TelemetrySpec{Scheme: OneReservoir, CountBits: 3}.Layout()
	pkt, _ := Build(Headers{LRH: LRH{LNH: LNHLocal}, BTH: BTH{OpCode: 4, PKey: 0xFFFF}}, make([]byte, size), 0)
	fr, _ := l.Locate(pkt)
	hb, _ := l.Ref(FieldHopBit)
	cb, _ := l.Ref(FieldCongBit)
	hc, _ := l.Ref(FieldHopCount)
	at := fr.BTH + BTHPosFECN
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		old := [1]byte{pkt[at]}
		n := hc.Get(pkt, fr)
		_ = hb.Set(pkt, fr, uint64(i&1))
		_ = cb.Set(pkt, fr, uint64(i>>1&1))
		_ = hc.Set(pkt, fr, min(n+1, 7))
		if err := PatchVCRC(pkt, at, old[:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStagePatch64(b *testing.B)   { benchPatchStage(b, 64) }
func BenchmarkStagePatch4096(b *testing.B) { benchPatchStage(b, 4096) }
