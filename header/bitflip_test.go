// SPDX-License-Identifier: Apache-2.0

package header_test

import (
	"bytes"
	"fmt"
	"testing"

	"ibreservoir/header"
)

// variantBits is IBA Vol. 1 section 7.8.1 (docs/spec.md §1) written out
// independently of the package: for each header byte (offset from LRH byte 0),
// the bits the ICRC counts as ones.
func variantBits(lnh uint8) map[int]byte {
	if lnh == header.LNHLocal {
		return map[int]byte{
			0:     0xF0, // LRH VL
			8 + 4: 0xFF, // BTH byte 4: FECN, BECN, Resv6
		}
	}
	m := map[int]byte{
		8 + 0:  0x0F, // GRH TClass, high nibble
		8 + 1:  0xFF, // GRH TClass low nibble, FlowLabel
		8 + 2:  0xFF, // GRH FlowLabel
		8 + 3:  0xFF, // GRH FlowLabel
		8 + 7:  0xFF, // GRH HopLmt
		48 + 4: 0xFF, // BTH byte 4
	}
	for i := range 8 {
		m[i] = 0xFF // the whole LRH
	}
	return m
}

func TestInvariantMask(t *testing.T) {
	for _, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
		m, err := header.InvariantMask(lnh)
		if err != nil {
			t.Fatal(err)
		}
		want := variantBits(lnh)
		for i, got := range m {
			if got != want[i] {
				t.Errorf("LNH=%d byte %d: mask %#02x, want %#02x", lnh, i, got, want[i])
			}
		}
	}
	for _, lnh := range []uint8{0, 1, 4} {
		if _, err := header.InvariantMask(lnh); err == nil {
			t.Errorf("LNH=%d: no error", lnh)
		}
	}
}

// flipPackets are the packets the bit-flip test runs on: the two fixtures,
// and built packets of both kinds with a pad and with a telemetry footer.
func flipPackets(t *testing.T) map[string]struct {
	b      []byte
	footer int
} {
	out := map[string]struct {
		b      []byte
		footer int
	}{
		"captured-local":  {fixtureLocal, 0},
		"captured-global": {fixtureGlobal, 0},
	}
	for _, g := range []bool{false, true} {
		h := wantLocal.Headers
		kind := "local"
		if g {
			h = wantGlobal.Headers
			kind = "global"
		}
		for _, footer := range []int{0, 8} {
			b, err := header.Build(h, []byte("reservoir"), footer)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("built-%s-footer%d", kind, footer)] = struct {
				b      []byte
				footer int
			}{b, footer}
		}
	}
	return out
}

// TestBitFlips flips every bit of the LRH, GRH and BTH of local and global
// packets: a bit the ICRC counts as variant leaves the ICRC unchanged, any
// other bit changes it; every flip breaks the VCRC.
func TestBitFlips(t *testing.T) {
	for name, fp := range flipPackets(t) {
		t.Run(name, func(t *testing.T) {
			lnh := fp.b[1] & 3
			variant := variantBits(lnh)
			hdr := header.LRHLen + header.BTHLen
			if lnh == header.LNHGlobal {
				hdr += header.GRHLen
			}
			icrcAt := len(fp.b) - header.VCRCLen - fp.footer - header.ICRCLen
			base, err := header.ICRC(fp.b[:icrcAt])
			if err != nil {
				t.Fatal(err)
			}
			var nVariant, nCovered int
			for i := range hdr {
				for bit := range 8 {
					b := bytes.Clone(fp.b)
					b[i] ^= 1 << bit
					if i == 1 && bit < 2 {
						// LNH: the flipped packet is another kind of packet
						// (raw, or with/without a GRH); ICRC's view of it
						// differs by construction. It must still not pass.
						c, err := header.Check(b, fp.footer)
						if err == nil && c.Err() == nil {
							t.Errorf("LNH bit %d flipped: packet still checks clean", bit)
						}
						continue
					}
					if i == 4 && bit < 3 || i == 5 {
						// PktLen: the packet no longer matches its length and
						// must not pass; the ICRC over the same bytes below
						// still shows whether the bit is covered.
						if c, err := header.Check(b, fp.footer); err == nil && c.Err() == nil {
							t.Errorf("PktLen byte %d bit %d flipped: packet still checks clean", i, bit)
						}
					}
					got, err := header.ICRC(b[:icrcAt])
					if err != nil {
						t.Fatal(err)
					}
					isVariant := variant[i]>>bit&1 == 1
					switch {
					case isVariant && got != base:
						t.Errorf("byte %d bit %d is variant but changes the ICRC (%#08x -> %#08x)", i, bit, base, got)
					case !isVariant && got == base:
						t.Errorf("byte %d bit %d is covered but leaves the ICRC unchanged", i, bit)
					}
					if isVariant {
						nVariant++
					} else {
						nCovered++
					}
					if header.VCRC(b[:len(b)-header.VCRCLen]) == header.VCRC(fp.b[:len(fp.b)-header.VCRCLen]) {
						t.Errorf("byte %d bit %d: VCRC unchanged", i, bit)
					}
				}
			}
			if nVariant == 0 || nCovered == 0 {
				t.Errorf("%d variant and %d covered bits tested", nVariant, nCovered)
			}
		})
	}
}

// TestResv6Rewrite rewrites BTH Resv6 to every value and recomputes only the
// VCRC, as a switch does: the packet checks clean, ICRC untouched. Rewriting
// FECN and BECN is the same. Rewriting Resv7 (ICRC-covered) breaks the ICRC.
func TestResv6Rewrite(t *testing.T) {
	for name, fp := range flipPackets(t) {
		t.Run(name, func(t *testing.T) {
			bth := header.LRHLen
			if fp.b[1]&3 == header.LNHGlobal {
				bth += header.GRHLen
			}
			for v := range 256 {
				b := bytes.Clone(fp.b)
				b[bth+header.BTHPosFECN] = byte(v) // FECN, BECN, Resv6
				if v != int(fp.b[bth+header.BTHPosFECN]) {
					if c, _ := header.Check(b, fp.footer); c.VCRCOK() {
						t.Fatalf("byte 4 = %#02x: VCRC still good before recomputing", v)
					}
				}
				if err := header.RecomputeVCRC(b); err != nil {
					t.Fatal(err)
				}
				c, err := header.Check(b, fp.footer)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Err(); err != nil {
					t.Fatalf("BTH byte 4 = %#02x: %v", v, err)
				}
				if !bytes.Equal(b[:bth+4], fp.b[:bth+4]) || !bytes.Equal(b[bth+5:len(b)-2], fp.b[bth+5:len(fp.b)-2]) {
					t.Fatalf("BTH byte 4 = %#02x: bytes other than byte 4 and the VCRC changed", v)
				}
			}
			b := bytes.Clone(fp.b)
			b[bth+header.BTHPosAckReq] ^= 0x01 // Resv7 bit 0
			if err := header.RecomputeVCRC(b); err != nil {
				t.Fatal(err)
			}
			if c, _ := header.Check(b, fp.footer); c.ICRCOK() || !c.VCRCOK() {
				t.Errorf("Resv7 rewritten: ICRC ok=%v VCRC ok=%v, want bad and good", c.ICRCOK(), c.VCRCOK())
			}
		})
	}
}
