// SPDX-License-Identifier: Apache-2.0

package header_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/header"
)

// The fixtures' expected contents, written out field by field from the hex
// dumps in fixture_test.go, so that a decoder bug cannot hide in both.
var (
	wantLocal = &header.Packet{
		Headers: header.Headers{
			LRH: header.LRH{VL: 0, LVer: 0, SL: 0, Rsv2: 0, LNH: header.LNHLocal, DLID: 0x0004, Rsv5: 0, PktLen: 7, SLID: 0x0001},
			BTH: header.BTH{OpCode: 0x11, SE: false, M: true, PadCnt: 0, TVer: 0, PKey: 0xFFFF, FECN: false, BECN: false,
				Resv6: 0, DestQP: 0x870408, AckReq: false, Resv7: 0, PSN: 0xD40A55},
		},
		Payload: []byte{0x1f, 0x00, 0x00, 0x01}, // AETH: syndrome 0x1f, MSN 1
		ICRC:    0x505503a8,
		Footer:  []byte{},
		VCRC:    0x8130,
	}
	wantGlobal = &header.Packet{
		Headers: header.Headers{
			LRH: header.LRH{VL: 0, LVer: 0, SL: 0, Rsv2: 0, LNH: header.LNHGlobal, DLID: 0xC000, Rsv5: 0, PktLen: 0x21, SLID: 0x0004},
			GRH: header.GRH{IPVer: 6, TClass: 0, FlowLabel: 0, PayLen: 0x54, NxtHdr: 0x1B, HopLmt: 0,
				SGID: [16]byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36},
				DGID: [16]byte{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}},
			BTH: header.BTH{OpCode: 0x64, SE: false, M: true, PadCnt: 0, TVer: 0, PKey: 0xFFFF, FECN: false, BECN: false,
				Resv6: 0, DestQP: 0xFFFFFF, AckReq: false, Resv7: 0, PSN: 0x0020AF},
		},
		Payload: fixtureGlobal[60:128], // DETH, then an IPoIB ARP request
		ICRC:    0xa8d66bbd,
		Footer:  []byte{},
		VCRC:    0x8388,
	}
)

func TestDecodeFixtures(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want *header.Packet
	}{{"local", fixtureLocal, wantLocal}, {"global", fixtureGlobal, wantGlobal}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := header.DecodePacket(tc.b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("decoded packet differs (-want +got):\n%s", d)
			}
			re, err := got.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.b, re); d != "" {
				t.Errorf("re-serialized bytes differ (-captured +serialized):\n%s", d)
			}
			c, err := header.Check(tc.b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Err(); err != nil {
				t.Error(err)
			}
			// Rebuilding from headers and data alone gives the captured bytes.
			built, err := header.Build(got.Headers, got.Data(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.b, built); d != "" {
				t.Errorf("Build differs from the capture (-captured +built):\n%s", d)
			}
		})
	}
}

// randHeaders returns headers with every field random within its width.
func randHeaders(r *rand.Rand, lnh uint8) header.Headers {
	var h header.Headers
	h.LRH = header.LRH{VL: uint8(r.IntN(16)), SL: uint8(r.IntN(16)), Rsv2: uint8(r.IntN(4)), LNH: lnh,
		DLID: uint16(r.Uint32()), Rsv5: uint8(r.IntN(32)), PktLen: uint16(r.IntN(2048)), SLID: uint16(r.Uint32())}
	if lnh == header.LNHGlobal {
		h.GRH = header.GRH{IPVer: 6, TClass: uint8(r.Uint32()), FlowLabel: r.Uint32() & 0xFFFFF, PayLen: uint16(r.Uint32()),
			NxtHdr: header.NxtHdrBTH, HopLmt: uint8(r.Uint32())}
		for i := range 16 {
			h.GRH.SGID[i], h.GRH.DGID[i] = byte(r.Uint32()), byte(r.Uint32())
		}
	}
	h.BTH = header.BTH{OpCode: uint8(r.Uint32()), SE: r.IntN(2) == 1, M: r.IntN(2) == 1, PadCnt: uint8(r.IntN(4)),
		PKey: uint16(r.Uint32()), FECN: r.IntN(2) == 1, BECN: r.IntN(2) == 1, Resv6: uint8(r.IntN(64)),
		DestQP: r.Uint32() & 0xFFFFFF, AckReq: r.IntN(2) == 1, Resv7: uint8(r.IntN(128)), PSN: r.Uint32() & 0xFFFFFF}
	return h
}

func TestHeaderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		h := randHeaders(r, uint8(2+i%2))
		var lb [header.LRHLen]byte
		var gb [header.GRHLen]byte
		var bb [header.BTHLen]byte
		if err := h.LRH.SerializeTo(lb[:]); err != nil {
			t.Fatal(err)
		}
		if err := h.GRH.SerializeTo(gb[:]); err != nil && h.LRH.LNH == header.LNHGlobal {
			t.Fatal(err)
		}
		if err := h.BTH.SerializeTo(bb[:]); err != nil {
			t.Fatal(err)
		}
		var l header.LRH
		var b header.BTH
		if err := l.DecodeFromBytes(lb[:]); err != nil {
			t.Fatal(err)
		}
		if err := b.DecodeFromBytes(bb[:]); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(h.LRH, l); d != "" {
			t.Fatalf("LRH round trip (-want +got):\n%s", d)
		}
		if d := cmp.Diff(h.BTH, b); d != "" {
			t.Fatalf("BTH round trip (-want +got):\n%s", d)
		}
		if h.LRH.LNH == header.LNHGlobal {
			var g header.GRH
			if err := g.DecodeFromBytes(gb[:]); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(h.GRH, g); d != "" {
				t.Fatalf("GRH round trip (-want +got):\n%s", d)
			}
		}
	}
}

// TestSerializeTooWide sets each field one past its width and expects the
// serializer to refuse it, naming the field.
func TestSerializeTooWide(t *testing.T) {
	type tc struct {
		field string
		set   func(*header.Headers)
		which string // LRH, GRH or BTH
	}
	cases := []tc{
		{"VL", func(h *header.Headers) { h.LRH.VL = 16 }, "LRH"},
		{"LVer", func(h *header.Headers) { h.LRH.LVer = 16 }, "LRH"},
		{"SL", func(h *header.Headers) { h.LRH.SL = 16 }, "LRH"},
		{"Rsv2", func(h *header.Headers) { h.LRH.Rsv2 = 4 }, "LRH"},
		{"LNH", func(h *header.Headers) { h.LRH.LNH = 4 }, "LRH"},
		{"Rsv5", func(h *header.Headers) { h.LRH.Rsv5 = 32 }, "LRH"},
		{"PktLen", func(h *header.Headers) { h.LRH.PktLen = 2048 }, "LRH"},
		{"IPVer", func(h *header.Headers) { h.GRH.IPVer = 16 }, "GRH"},
		{"FlowLabel", func(h *header.Headers) { h.GRH.FlowLabel = 1 << 20 }, "GRH"},
		{"PadCnt", func(h *header.Headers) { h.BTH.PadCnt = 4 }, "BTH"},
		{"TVer", func(h *header.Headers) { h.BTH.TVer = 16 }, "BTH"},
		{"Resv6", func(h *header.Headers) { h.BTH.Resv6 = 64 }, "BTH"},
		{"DestQP", func(h *header.Headers) { h.BTH.DestQP = 1 << 24 }, "BTH"},
		{"Resv7", func(h *header.Headers) { h.BTH.Resv7 = 128 }, "BTH"},
		{"PSN", func(h *header.Headers) { h.BTH.PSN = 1 << 24 }, "BTH"},
	}
	for _, c := range cases {
		t.Run(c.which+"."+c.field, func(t *testing.T) {
			h := wantGlobal.Headers
			c.set(&h)
			var buf [header.GRHLen]byte
			var err error
			switch c.which {
			case "LRH":
				err = h.LRH.SerializeTo(buf[:])
			case "GRH":
				err = h.GRH.SerializeTo(buf[:])
			case "BTH":
				err = h.BTH.SerializeTo(buf[:])
			}
			var fe *header.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || fe.Header != c.which {
				t.Fatalf("got %v, want a FieldError for %s %s", err, c.which, c.field)
			}
			if !strings.Contains(err.Error(), "does not fit") {
				t.Errorf("error %q does not say the value is too wide", err)
			}
			// Build refuses it too (except the fields Build computes).
			if c.field == "PktLen" || c.field == "PadCnt" || (c.field == "LNH") {
				return
			}
			if _, err := header.Build(h, []byte{1, 2, 3}, 0); !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("Build: got %v, want a FieldError for %s", err, c.field)
			}
		})
	}
}

// TestDecodeErrors corrupts the fixtures and expects an error naming the
// field and its byte offset from LRH byte 0.
func TestDecodeErrors(t *testing.T) {
	type tc struct {
		name   string
		base   []byte
		mutate func([]byte) []byte
		field  string
		offset int
	}
	set := func(i int, v byte) func([]byte) []byte {
		return func(b []byte) []byte { b[i] = v; return b }
	}
	cases := []tc{
		{"empty", fixtureLocal, func(b []byte) []byte { return b[:0] }, "length", 0},
		{"short LRH", fixtureLocal, func(b []byte) []byte { return b[:7] }, "length", 0},
		{"LVer", fixtureLocal, set(0, 0x01), "LVer", 0},
		{"LNH raw", fixtureLocal, set(1, 0x00), "LNH", 1},
		{"LNH IPv6", fixtureLocal, set(1, 0x01), "LNH", 1},
		{"PktLen long", fixtureLocal, set(5, 0x08), "PktLen", 4},
		{"PktLen short", fixtureLocal, set(5, 0x06), "PktLen", 4},
		{"truncated", fixtureLocal, func(b []byte) []byte { return b[:len(b)-1] }, "PktLen", 4},
		{"trailing byte", fixtureLocal, func(b []byte) []byte { return append(b, 0) }, "PktLen", 4},
		{"PktLen below headers", fixtureLocal, func(b []byte) []byte {
			b[5] = 4 // 16 bytes: less than LRH+BTH+ICRC
			return b[:18]
		}, "PktLen", 4},
		{"TVer", fixtureLocal, set(8+1, 0x41), "TVer", 9},
		{"PadCnt", fixtureLocal, set(8+1, 0x40|0x30), "", 0}, // 3 pad bytes in a 4-byte payload: fine
		{"IPVer", fixtureGlobal, set(8, 0x40), "IPVer", 8},
		{"NxtHdr", fixtureGlobal, set(8+6, 0x11), "NxtHdr", 14},
		{"PayLen", fixtureGlobal, set(8+5, 0x55), "PayLen", 12},
		{"global TVer", fixtureGlobal, set(48+1, 0x42), "TVer", 49},
		{"global short", fixtureGlobal, func(b []byte) []byte {
			b[5] = 10 // 40 bytes: inside the GRH
			return b[:42]
		}, "PktLen", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.mutate(append([]byte(nil), c.base...))
			_, err := header.DecodePacket(b, 0)
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var fe *header.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FieldError for %s", err, c.field)
			}
			if fe.Field != c.field || fe.Offset != c.offset {
				t.Errorf("got %s at byte %d (%v), want %s at byte %d", fe.Field, fe.Offset, err, c.field, c.offset)
			}
		})
	}
	// A payload too short for PadCnt.
	p := *wantLocal
	p.Payload = nil
	p.LRH.PktLen = 6
	p.BTH.PadCnt = 1
	b, err := p.AppendTo(nil)
	if err == nil {
		t.Fatalf("AppendTo accepted PadCnt=1 with no payload: % x", b)
	}
	p.BTH.PadCnt = 0
	b, err = p.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	b[9] |= 0x10
	if _, err := header.DecodePacket(b, 0); err == nil || !strings.Contains(err.Error(), "PadCnt") {
		t.Errorf("PadCnt=1 with an empty payload: got %v", err)
	}
	// A footer that is not whole words, or longer than the packet.
	if _, err := header.DecodePacket(fixtureLocal, 2); err == nil {
		t.Error("footer of 2 bytes accepted")
	}
	if _, err := header.DecodePacket(fixtureLocal, 8); err == nil {
		t.Error("footer of 8 bytes in a packet with a 4-byte payload accepted")
	}
}
