// SPDX-License-Identifier: Apache-2.0

package header_test

import (
	"bytes"
	"fmt"
	"testing"

	"ibreservoir/capture"
	"ibreservoir/header"
)

// hcaCapture is the capture of a real HCA's traffic that package capture's
// tests also read: 43 packets with the ICRC and VCRC the hardware wrote.
const hcaCapture = "../capture/testdata/infiniband-hca-capture.pcap"

// captured reads hcaCapture.
func captured(t testing.TB) []*capture.Packet {
	t.Helper()
	ps, err := capture.ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 43 {
		t.Fatalf("capture holds %d packets, want 43", len(ps))
	}
	return ps
}

// TestCapture holds the header model to real hardware: every captured
// packet decodes, both CRCs verify, and serializing the decoded headers
// reproduces the captured bytes exactly.
func TestCapture(t *testing.T) {
	var local, global, vl15 int
	for _, cp := range captured(t) {
		t.Run(fmt.Sprintf("record%02d", cp.Record), func(t *testing.T) {
			b := cp.Data
			if cp.Truncated() {
				t.Fatalf("captured %d of %d bytes", len(b), cp.WireLen)
			}
			p, err := header.DecodePacket(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			c, err := header.Check(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !c.ICRCOK() {
				t.Errorf("ICRC: carried %#08x, computed %#08x", c.ICRC, c.WantICRC)
			}
			if !c.VCRCOK() {
				t.Errorf("VCRC: carried %#04x, computed %#04x", c.VCRC, c.WantVCRC)
			}
			if p.ICRC != c.WantICRC || p.VCRC != c.WantVCRC {
				t.Errorf("decoded CRCs %#08x/%#04x differ from computed %#08x/%#04x", p.ICRC, p.VCRC, c.WantICRC, c.WantVCRC)
			}
			// The headers alone, serialized, give the header bytes.
			hdr := make([]byte, p.Len())
			if err := p.LRH.SerializeTo(hdr); err != nil {
				t.Fatal(err)
			}
			bth := header.LRHLen
			if p.Global() {
				if err := p.GRH.SerializeTo(hdr[header.LRHLen:]); err != nil {
					t.Fatal(err)
				}
				bth += header.GRHLen
			}
			if err := p.BTH.SerializeTo(hdr[bth:]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(hdr, b[:len(hdr)]) {
				t.Errorf("headers re-serialized:\n% x\ncaptured:\n% x", hdr, b[:len(hdr)])
			}
			// The whole packet, serialized, and rebuilt from headers and data.
			re, err := p.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(re, b) {
				t.Errorf("packet re-serialized:\n% x\ncaptured:\n% x", re, b)
			}
			built, err := header.Build(p.Headers, p.Data(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(built, b) {
				t.Errorf("packet rebuilt:\n% x\ncaptured:\n% x", built, b)
			}
		})
		b := cp.Data
		switch {
		case b[1]&3 == header.LNHGlobal:
			global++
		default:
			local++
		}
		if b[0]>>4 == 15 {
			vl15++
		}
	}
	// The capture exercises both LNH values and subnet management on VL15.
	if local == 0 || global == 0 || vl15 == 0 {
		t.Errorf("capture has %d local, %d global, %d VL15 packets; want some of each", local, global, vl15)
	}
}
