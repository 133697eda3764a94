// SPDX-License-Identifier: Apache-2.0

package header_test

import (
	"bytes"
	"testing"

	"ibreservoir/header"
)

// FuzzDecodePacket: any buffer either fails to decode with a FieldError (or a
// footer error) or decodes to a packet whose serialization is the buffer,
// whose Check agrees with its carried CRCs, and which rebuilds from headers
// and data to a packet with good CRCs.
func FuzzDecodePacket(f *testing.F) {
	f.Add(fixtureLocal, 0)  // captured RC Acknowledge
	f.Add(fixtureGlobal, 0) // captured global UD send
	f.Add(fixtureGlobal, 4) // the same, read as carrying a 4-byte footer
	f.Add(fixtureLocal[:8], 0)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, b []byte, footer int) {
		footer &= 0x3C // 0..60, multiples of 4: the footers a layout can have
		p, err := header.DecodePacket(b, footer)
		if err != nil {
			return
		}
		re, err := p.AppendTo(nil)
		if err != nil {
			t.Fatalf("decoded packet does not serialize: %v", err)
		}
		if !bytes.Equal(re, b) {
			t.Fatalf("round trip:\n% x\n% x", b, re)
		}
		c, err := header.Check(b, footer)
		if err != nil {
			t.Fatalf("decodes but Check fails: %v", err)
		}
		if c.ICRC != p.ICRC || c.VCRC != p.VCRC {
			t.Fatalf("Check reads CRCs %#x/%#x, DecodePacket %#x/%#x", c.ICRC, c.VCRC, p.ICRC, p.VCRC)
		}
		built, err := header.Build(p.Headers, p.Data(), footer)
		if err != nil {
			return // e.g. the packet's Data with a new pad would overflow PktLen
		}
		if c, err := header.Check(built, footer); err != nil || c.Err() != nil {
			t.Fatalf("rebuilt packet: %v %v", err, c.Err())
		}
		q, err := header.DecodePacket(built, footer)
		if err != nil {
			t.Fatalf("rebuilt packet does not decode: %v", err)
		}
		if !bytes.Equal(q.Data(), p.Data()) {
			t.Fatalf("rebuilt data differs")
		}
	})
}

// FuzzHeaders decodes each header from the same bytes and serializes it back.
func FuzzHeaders(f *testing.F) {
	f.Add(fixtureLocal)
	f.Add(fixtureGlobal[8:])
	f.Add(fixtureGlobal[48:])
	f.Fuzz(func(t *testing.T, b []byte) {
		var l header.LRH
		if l.DecodeFromBytes(b) == nil {
			out := make([]byte, header.LRHLen)
			if err := l.SerializeTo(out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b[:header.LRHLen]) {
				t.Fatalf("LRH round trip: % x -> % x", b[:header.LRHLen], out)
			}
		}
		var g header.GRH
		if g.DecodeFromBytes(b) == nil {
			out := make([]byte, header.GRHLen)
			if err := g.SerializeTo(out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b[:header.GRHLen]) {
				t.Fatalf("GRH round trip: % x -> % x", b[:header.GRHLen], out)
			}
		}
		var h header.BTH
		if h.DecodeFromBytes(b) == nil {
			out := make([]byte, header.BTHLen)
			if err := h.SerializeTo(out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b[:header.BTHLen]) {
				t.Fatalf("BTH round trip: % x -> % x", b[:header.BTHLen], out)
			}
		}
	})
}
