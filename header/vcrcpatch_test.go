// SPDX-License-Identifier: Apache-2.0

package header

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func TestMulMod16(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 1000 {
		a, b, c := uint16(r.Uint32()), uint16(r.Uint32()), uint16(r.Uint32())
		if mulMod16(a, b) != mulMod16(b, a) {
			t.Fatalf("not commutative: %#x %#x", a, b)
		}
		if mulMod16(a, 0x8000) != a {
			t.Fatalf("1 is not the identity for %#x", a)
		}
		if mulMod16(a, b^c) != mulMod16(a, b)^mulMod16(a, c) {
			t.Fatalf("not distributive")
		}
	}
	// Advancing the register through z zero bytes the long way.
	for _, z := range []int{0, 1, 2, 7, 100, maxPacketBytes} {
		reg := uint16(0x1234)
		want := reg
		for range z {
			want = simpleUpdateCRC16(want, []byte{0})
		}
		if got := mulMod16(reg, vcrcZeroPow[z]); got != want {
			t.Fatalf("z=%d: %#04x, want %#04x", z, got, want)
		}
	}
}

// TestPatchVCRC rewrites random runs of bytes of random packets and holds the
// patched VCRC to the recomputed one.
func TestPatchVCRC(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 3000 {
		lnh := uint8(LNHLocal + i%2)
		data := make([]byte, r.IntN(300))
		if i%100 == 0 {
			data = make([]byte, 4*MaxPktLen-LRHLen-GRHLen-BTHLen-ICRCLen-8-3) // the longest packet
		}
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		pkt, err := Build(Headers{LRH: LRH{LNH: lnh}, GRH: GRH{IPVer: 6, NxtHdr: NxtHdrBTH}}, data, 4*r.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		n := len(pkt) - VCRCLen
		k := 1 + r.IntN(9)
		off := r.IntN(n - k + 1)
		old := bytes.Clone(pkt[off : off+k])
		for j := range k {
			if o := off + j; o != 1 && o != 4 && o != 5 { // LNH and PktLen locate the VCRC
				pkt[o] = byte(r.Uint32())
			}
		}
		if err := PatchVCRC(pkt, off, old); err != nil {
			t.Fatal(err)
		}
		got := binary.LittleEndian.Uint16(pkt[n:])
		if want := CRC16(pkt[:n]); got != want {
			t.Fatalf("packet %d (%d bytes), bytes %d..%d: patched %#04x, recomputed %#04x", i, len(pkt), off, off+k-1, got, want)
		}
	}
	pkt, _ := Build(Headers{LRH: LRH{LNH: LNHLocal}}, nil, 0)
	if err := PatchVCRC(pkt, len(pkt)-3, []byte{0, 0}); err == nil {
		t.Error("patching the VCRC's own bytes accepted")
	}
	if err := PatchVCRC(pkt, -1, []byte{0}); err == nil {
		t.Error("negative offset accepted")
	}
	// PatchVCRCAt takes the VCRC's place from its caller: refused past the
	// packet's end or before its start.
	for _, n := range []int{len(pkt) - 1, len(pkt), -1} {
		if err := PatchVCRCAt(pkt, n, 0, []byte{0}); err == nil {
			t.Errorf("a VCRC at byte %d of a %d-byte packet accepted", n, len(pkt))
		}
	}
}

// TestAdvanceVCRC holds advanceVCRC (PatchVCRC's table-driven advance
// through zero bytes) to its definition, mulMod16 by x^(8z), for every
// distance z a packet has and random registers (0 and all ones among
// them).
func TestAdvanceVCRC(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for z := range maxPacketBytes + 1 {
		for i := range 4 {
			reg := []uint16{0, 0xFFFF, uint16(r.Uint32()), 1 << (z % 16)}[i]
			if got, want := advanceVCRC(reg, z), mulMod16(reg, vcrcZeroPow[z]); got != want {
				t.Fatalf("z=%d, register %#04x: advanceVCRC %#04x, mulMod16 %#04x", z, reg, got, want)
			}
		}
	}
}
