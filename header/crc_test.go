// SPDX-License-Identifier: Apache-2.0

package header

import (
	"math/rand/v2"
	"testing"
)

// Known answers. The CRC-32 check value of "123456789" is the catalogued one
// of CRC-32/ISO-HDLC (IEEE 802.3), whose parameters the ICRC uses. The CRC-16
// value is frozen from the bit-serial definition; the 43 captured packets
// (TestCapture) are its independent check.
func TestCRCKnownAnswers(t *testing.T) {
	check := []byte("123456789")
	if got := CRC32(check); got != 0xCBF43926 {
		t.Errorf("CRC32(123456789) = %#08x, want 0xcbf43926", got)
	}
	if got := CRC16(check); got != 0x0A3D {
		t.Errorf("CRC16(123456789) = %#04x, want 0x0a3d", got)
	}
	if got := CRC16(nil); got != 0 {
		t.Errorf("CRC16(empty) = %#04x, want 0 (init and final XOR cancel)", got)
	}
}

// TestCRCImplementations holds the table-driven and slicing-by-16 forms to the
// bit-serial definitions on random inputs whose lengths straddle the 16-byte
// stride, at every alignment, so that no tail or offset path goes unchecked.
func TestCRCImplementations(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 4200)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	lengths := []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 290, 4096, 4100}
	for range 200 {
		lengths = append(lengths, r.IntN(300))
	}
	for _, n := range lengths {
		for off := range 8 {
			b := buf[off : off+n]
			want16 := crc16Bitwise(b)
			if got := ^simpleUpdateCRC16(0xFFFF, b); got != want16 {
				t.Fatalf("len %d off %d: simple %#04x, bitwise %#04x", n, off, got, want16)
			}
			if got := CRC16(b); got != want16 {
				t.Fatalf("len %d off %d: slicing-by-16 %#04x, bitwise %#04x", n, off, got, want16)
			}
			if got, want := CRC32(b), crc32Bitwise(b); got != want {
				t.Fatalf("len %d off %d: CRC32 %#08x, bitwise %#08x", n, off, got, want)
			}
		}
	}
	// Continuing the register across a split gives the same CRC.
	for range 100 {
		n := r.IntN(300)
		k := r.IntN(n + 1)
		b := buf[:n]
		if got, want := ^slicingUpdateCRC16(slicingUpdateCRC16(0xFFFF, b[:k]), b[k:]), CRC16(b); got != want {
			t.Fatalf("len %d split at %d: %#04x, want %#04x", n, k, got, want)
		}
	}
}

// TestICRCAllocs: the receiver checks the ICRC of every packet it reads.
func TestICRCAllocs(t *testing.T) {
	for _, lnh := range []uint8{LNHLocal, LNHGlobal} {
		b := make([]byte, 128)
		b[1] = lnh
		if a := testing.AllocsPerRun(100, func() { ICRC(b) }); a != 0 {
			t.Errorf("LNH=%d: %.1f allocations per ICRC", lnh, a)
		}
	}
}

// TestICRCMasking computes the ICRC the long way, the plain CRC-32 of a copy
// with the variant bits set to ones, and compares.
func TestICRCMasking(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, lnh := range []uint8{LNHLocal, LNHGlobal} {
		mask, err := InvariantMask(lnh)
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			b := make([]byte, len(mask)+r.IntN(100))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			b[1] = b[1]&^3 | lnh
			m := append([]byte(nil), b...)
			for i := range mask {
				m[i] |= mask[i]
			}
			got, err := ICRC(b)
			if err != nil {
				t.Fatal(err)
			}
			if want := crc32Bitwise(m); got != want {
				t.Fatalf("LNH=%d: ICRC %#08x, CRC-32 of the masked copy %#08x", lnh, got, want)
			}
		}
	}
	for _, c := range []struct {
		b    []byte
		what string
	}{
		{make([]byte, 7), "shorter than the 8-byte LRH"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0}, "LNH=0 carries no BTH"},
		{[]byte{0, 2, 0, 0, 0, 0, 0, 0, 0}, "shorter than its headers"},
	} {
		if _, err := ICRC(c.b); err == nil {
			t.Errorf("ICRC(% x): no error, want %q", c.b, c.what)
		}
	}
}

// TestFoldConstants holds foldConstants to the IEEE CRC-32's constants as
// Intel's paper and hash/crc32's amd64 kernel give them (k1..k5, P', mu),
// and gives the VCRC's (the fold of crc16_amd64.s) for the record.
func TestFoldConstants(t *testing.T) {
	want := [7]uint64{0x154442bd4, 0x1c6e41596, 0x1751997d0, 0x0ccaa009e, 0x163cd6124, 0x1db710641, 0x1f7011641}
	if got := foldConstants(1<<32 | ICRCPoly); got != want {
		t.Errorf("IEEE: %#x, want %#x", got, want)
	}
	vcrc := [7]uint64{0x9c2, 0x64b0, 0x1f9ea, 0x1e9de, 0x15864, 0x1a011, 0x1b4b0b111}
	if got := foldConstants(1<<32 | VCRCPoly<<16); got != vcrc {
		t.Errorf("VCRC: %#x, want %#x", got, vcrc)
	}
}
