// SPDX-License-Identifier: Apache-2.0

package header

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/internal/golden"
)

// standardSpecs are the telemetry specs the tests sweep: every scheme with 3-
// and 4-bit counts and with sender draws, the thesis's two full-ID sizes, in
// every placement.
func standardSpecs() []TelemetrySpec {
	var out []TelemetrySpec
	for _, p := range []Placement{PlaceAuto, PlaceResv6, PlaceReservedGlobal, PlaceFooter} {
		for _, sc := range []Scheme{OneReservoir, TwoReservoir} {
			for _, c := range []int{3, 4} {
				out = append(out, TelemetrySpec{Scheme: sc, CountBits: c, Placement: p})
			}
			out = append(out, TelemetrySpec{Scheme: sc, SenderL: 3, Placement: p}, TelemetrySpec{Scheme: sc, SenderL: 7, Placement: p})
		}
		out = append(out,
			TelemetrySpec{Scheme: FullID, CountBits: 8, SwitchBits: 16, PortBits: 8, Placement: p},
			TelemetrySpec{Scheme: FullID, CountBits: 4, SwitchBits: 10, PortBits: 6, Placement: p},
			TelemetrySpec{Scheme: FullID, SenderL: 7, SwitchBits: 10, PortBits: 6, Placement: p})
	}
	return out
}

// TestStandardLayouts checks, for each standard spec, whether it has a layout
// and for which packets it validates, against a table worked out by hand
// from docs/spec.md §2.
func TestStandardLayouts(t *testing.T) {
	type want struct {
		bits          int    // total field bits
		layoutErr     string // substring of the Layout error; "" for none
		local, global bool   // validates for LNH=2, LNH=3
		footer        int
	}
	table := map[string]want{
		"onereservoir-c3@auto":                 {5, "", true, true, 0},
		"onereservoir-c4@auto":                 {6, "", true, true, 0},
		"onereservoir-sender3@auto":            {6, "", true, true, 0},
		"onereservoir-sender7@auto":            {10, "", true, true, 4},
		"tworeservoir-c3@auto":                 {8, "", true, true, 4},
		"tworeservoir-c4@auto":                 {10, "", true, true, 4},
		"tworeservoir-sender3@auto":            {10, "", true, true, 4},
		"tworeservoir-sender7@auto":            {18, "", true, true, 4},
		"fullid-s16p8-c8@auto":                 {64, "", true, true, 8},
		"fullid-s10p6-c4@auto":                 {40, "", true, true, 8},
		"fullid-s10p6-sender7@auto":            {48, "", true, true, 8},
		"onereservoir-c3@resv6":                {5, "", true, true, 0},
		"onereservoir-c4@resv6":                {6, "", true, true, 0},
		"onereservoir-sender3@resv6":           {6, "", true, true, 0},
		"onereservoir-sender7@resv6":           {10, "BTH Resv6 has 6", false, false, 0},
		"tworeservoir-c3@resv6":                {8, "BTH Resv6 has 6", false, false, 0},
		"tworeservoir-c4@resv6":                {10, "BTH Resv6 has 6", false, false, 0},
		"tworeservoir-sender3@resv6":           {10, "BTH Resv6 has 6", false, false, 0},
		"tworeservoir-sender7@resv6":           {18, "BTH Resv6 has 6", false, false, 0},
		"fullid-s16p8-c8@resv6":                {64, "BTH Resv6 has 6", false, false, 0},
		"fullid-s10p6-c4@resv6":                {40, "BTH Resv6 has 6", false, false, 0},
		"fullid-s10p6-sender7@resv6":           {48, "BTH Resv6 has 6", false, false, 0},
		"onereservoir-c3@reserved-global":      {5, "", false, true, 0},
		"onereservoir-c4@reserved-global":      {6, "", false, true, 0},
		"onereservoir-sender3@reserved-global": {6, "", false, true, 0},
		"onereservoir-sender7@reserved-global": {10, "do not fit BTH Resv6", false, false, 0},
		"tworeservoir-c3@reserved-global":      {8, "", false, true, 0},
		"tworeservoir-c4@reserved-global":      {10, "", false, true, 0},
		"tworeservoir-sender3@reserved-global": {10, "", false, true, 0},
		"tworeservoir-sender7@reserved-global": {18, "do not fit BTH Resv6", false, false, 0},
		"fullid-s16p8-c8@reserved-global":      {64, "do not fit BTH Resv6", false, false, 0},
		"fullid-s10p6-c4@reserved-global":      {40, "do not fit BTH Resv6", false, false, 0},
		"fullid-s10p6-sender7@reserved-global": {48, "do not fit BTH Resv6", false, false, 0},
		"onereservoir-c3@footer":               {5, "", true, true, 4},
		"onereservoir-c4@footer":               {6, "", true, true, 4},
		"onereservoir-sender3@footer":          {6, "", true, true, 4},
		"onereservoir-sender7@footer":          {10, "", true, true, 4},
		"tworeservoir-c3@footer":               {8, "", true, true, 4},
		"tworeservoir-c4@footer":               {10, "", true, true, 4},
		"tworeservoir-sender3@footer":          {10, "", true, true, 4},
		"tworeservoir-sender7@footer":          {18, "", true, true, 4},
		"fullid-s16p8-c8@footer":               {64, "", true, true, 8},
		"fullid-s10p6-c4@footer":               {40, "", true, true, 8},
		"fullid-s10p6-sender7@footer":          {48, "", true, true, 8},
	}
	seen := 0
	for _, s := range standardSpecs() {
		key := s.Name() + "@" + s.Placement.String()
		w, ok := table[key]
		if !ok {
			t.Errorf("%s: not in the table", key)
			continue
		}
		seen++
		l, err := s.Layout()
		if w.layoutErr != "" {
			if err == nil || !strings.Contains(err.Error(), w.layoutErr) {
				t.Errorf("%s: Layout error %v, want one containing %q", key, err, w.layoutErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		bits := 0
		for _, f := range l.Fields {
			bits += f.Width()
		}
		if bits != w.bits || l.FooterBytes != w.footer {
			t.Errorf("%s: %d bits, %d-byte footer; want %d, %d", key, bits, l.FooterBytes, w.bits, w.footer)
		}
		for _, c := range []struct {
			lnh uint8
			ok  bool
		}{{LNHLocal, w.local}, {LNHGlobal, w.global}} {
			err := l.Validate(c.lnh)
			if (err == nil) != c.ok {
				t.Errorf("%s: Validate(LNH=%d) = %v, want ok=%v", key, c.lnh, err, c.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "global (LNH=3) packets only") {
				t.Errorf("%s: Validate(LNH=%d) = %v, want the global-only reason", key, c.lnh, err)
			}
		}
	}
	if seen != len(table) {
		t.Errorf("swept %d specs, table has %d", seen, len(table))
	}
}

// TestResv6Placement pins the bit positions docs/spec.md §2 gives for the
// one-reservoir layouts.
func TestResv6Placement(t *testing.T) {
	for _, c := range []struct {
		count int
		want  map[string]Segment
	}{
		{3, map[string]Segment{FieldHopBit: {BTHResv6, 4, 4}, FieldCongBit: {BTHResv6, 3, 3}, FieldHopCount: {BTHResv6, 2, 0}}},
		{4, map[string]Segment{FieldHopBit: {BTHResv6, 5, 5}, FieldCongBit: {BTHResv6, 4, 4}, FieldHopCount: {BTHResv6, 3, 0}}},
	} {
		l, err := TelemetrySpec{Scheme: OneReservoir, CountBits: c.count}.Layout()
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Fields) != 3 {
			t.Fatalf("b=%d: %d fields", c.count, len(l.Fields))
		}
		for _, f := range l.Fields {
			if len(f.Segments) != 1 || f.Segments[0] != c.want[f.Name] || f.Writer != SwitchWritten {
				t.Errorf("b=%d: %s at %+v by %s, want %+v by switch", c.count, f.Name, f.Segments, f.Writer, c.want[f.Name])
			}
		}
	}
}

// TestValidateErrors builds layouts by hand that break each rule and checks
// the reason given.
func TestValidateErrors(t *testing.T) {
	sw := func(name string, segs ...Segment) Field {
		return Field{Name: name, Writer: SwitchWritten, Segments: segs}
	}
	for _, c := range []struct {
		name        string
		l           Layout
		local, glob string // substring of the error; "" for valid
	}{
		{"switch field in LRH Rsv5", Layout{Fields: []Field{sw("x", Segment{LRHRsv5, 4, 0})}},
			"covered by the ICRC in local (LNH=2) packets", ""},
		{"switch field in LRH Rsv2", Layout{Fields: []Field{sw("x", Segment{LRHRsv2, 1, 0})}},
			"covered by the ICRC in local (LNH=2) packets", ""},
		{"switch field in BTH Resv7", Layout{Fields: []Field{sw("x", Segment{BTHResv7, 6, 0})}},
			"LRH Rsv2|BTH Resv7 is covered by the ICRC in local", "BTH Resv7 is covered by the ICRC in global"},
		{"sender field in BTH Resv7", Layout{Fields: []Field{{Name: "x", Writer: SenderWritten, Segments: []Segment{{BTHResv7, 6, 0}}}}},
			"", ""},
		{"overlap", Layout{Fields: []Field{sw("a", Segment{BTHResv6, 3, 0}), sw("b", Segment{BTHResv6, 5, 3})}},
			"bth.resv6 bit 3 used by both a and b", "bth.resv6 bit 3 used by both a and b"},
		{"outside region", Layout{Fields: []Field{sw("a", Segment{BTHResv6, 6, 0})}},
			"bits 6..0 outside bth.resv6 (bits 5..0)", "outside bth.resv6"},
		{"too wide", Layout{FooterBytes: 12, Fields: []Field{sw("a", Segment{Footer, 64, 0})}},
			"is 65 bits wide", "is 65 bits wide"},
		{"footer not words", Layout{FooterBytes: 6, Fields: []Field{sw("a", Segment{Footer, 7, 0})}},
			"must be a multiple of 4", "must be a multiple of 4"},
		{"footer missing", Layout{Fields: []Field{sw("a", Segment{Footer, 7, 0})}},
			"outside footer", "outside footer"},
		{"duplicate name", Layout{Fields: []Field{sw("a", Segment{BTHResv6, 0, 0}), sw("a", Segment{BTHResv6, 1, 1})}},
			"two fields are named a", "two fields are named a"},
		{"global only", Layout{Packets: GlobalPacket, Fields: []Field{sw("a", Segment{LRHRsv5, 0, 0})}},
			"global (LNH=3) packets only", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.l.Name = "test"
			for _, v := range []struct {
				lnh  uint8
				want string
			}{{LNHLocal, c.local}, {LNHGlobal, c.glob}} {
				err := c.l.Validate(v.lnh)
				switch {
				case v.want == "" && err != nil:
					t.Errorf("LNH=%d: %v", v.lnh, err)
				case v.want != "" && err == nil:
					t.Errorf("LNH=%d: valid, want an error containing %q", v.lnh, v.want)
				case v.want != "" && !containsAny(err.Error(), v.want):
					t.Errorf("LNH=%d: %v, want %q", v.lnh, err, v.want)
				}
			}
		})
	}
	if err := (&Layout{}).Validate(LNHRaw); err == nil {
		t.Error("LNH=0 accepted")
	}
}

// containsAny reports whether s contains one of the |-separated substrings.
func containsAny(s, subs string) bool {
	for _, sub := range strings.Split(subs, "|") {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// testPacket builds a packet for layout l with random headers and data.
func testPacket(t testing.TB, r *rand.Rand, l *Layout, lnh uint8) []byte {
	h := Headers{
		LRH: LRH{VL: uint8(r.IntN(15)), SL: uint8(r.IntN(16)), LNH: lnh, DLID: uint16(r.Uint32()), SLID: uint16(r.Uint32())},
		GRH: GRH{IPVer: IPVer6, NxtHdr: NxtHdrBTH, TClass: uint8(r.Uint32()), FlowLabel: r.Uint32() & 0xFFFFF, HopLmt: 64},
		BTH: BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: r.Uint32() & 0xFFFFFF, PSN: r.Uint32() & 0xFFFFFF},
	}
	data := make([]byte, r.IntN(64))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	b, err := Build(h, data, l.FooterBytes)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGetSet sets every field of every valid standard layout to random
// values, in random packets: Get returns what Set wrote, the chunked Get/Set,
// FieldRef and the bit-at-a-time definitions agree, Set touches only the
// field's bits, too-wide values are refused, and the ICRC stays valid.
func TestGetSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range standardSpecs() {
		l, err := s.Layout()
		if err != nil {
			continue
		}
		for _, lnh := range []uint8{LNHLocal, LNHGlobal} {
			if l.Validate(lnh) != nil {
				continue
			}
			t.Run(fmt.Sprintf("%s/lnh%d", l.Name, lnh), func(t *testing.T) {
				for range 50 {
					pkt := testPacket(t, r, l, lnh)
					fr, err := l.Locate(pkt)
					if err != nil {
						t.Fatal(err)
					}
					for i := range l.Fields {
						f := &l.Fields[i]
						w := f.Width()
						v := r.Uint64() >> (64 - w)
						before := bytes.Clone(pkt)
						if err := l.Set(pkt, fr, f.Name, v); err != nil {
							t.Fatal(err)
						}
						if got, _ := l.Get(pkt, fr, f.Name); got != v {
							t.Fatalf("%s: set %#x, got %#x", f.Name, v, got)
						}
						if got := f.getBits(pkt, fr); got != v {
							t.Fatalf("%s: set %#x, bitwise get %#x", f.Name, v, got)
						}
						ref, err := l.Ref(f.Name)
						if err != nil {
							t.Fatal(err)
						}
						if got := ref.Get(pkt, fr); got != v {
							t.Fatalf("%s: set %#x, FieldRef get %#x", f.Name, v, got)
						}
						// Set through FieldRef and bitwise on copies: same bytes.
						a, b := bytes.Clone(before), bytes.Clone(before)
						if err := ref.Set(a, fr, v); err != nil {
							t.Fatal(err)
						}
						f.setBits(b, fr, v)
						if !bytes.Equal(a, pkt) || !bytes.Equal(b, pkt) {
							t.Fatalf("%s = %#x: Set, FieldRef.Set and setBits disagree:\n% x\n% x\n% x", f.Name, v, pkt, a, b)
						}
						// Only the field's bits changed.
						mask := make([]byte, len(pkt))
						f.setBits(mask, fr, 1<<w-1)
						for j := range pkt {
							if (pkt[j]^before[j])&^mask[j] != 0 {
								t.Fatalf("%s: Set changed byte %d outside the field", f.Name, j)
							}
						}
						if w < 64 {
							if err := l.Set(pkt, fr, f.Name, 1<<w); err == nil {
								t.Fatalf("%s: %d-bit field took %#x", f.Name, w, uint64(1)<<w)
							}
							if err := ref.Set(pkt, fr, 1<<w); err == nil {
								t.Fatalf("%s: FieldRef took %#x", f.Name, uint64(1)<<w)
							}
						}
					}
					if err := RecomputeVCRC(pkt); err != nil {
						t.Fatal(err)
					}
					c, err := Check(pkt, l.FooterBytes)
					if err != nil {
						t.Fatal(err)
					}
					if err := c.Err(); err != nil {
						t.Fatalf("after setting every field: %v", err)
					}
				}
			})
		}
	}
}

func TestGetSetErrors(t *testing.T) {
	l, err := TelemetrySpec{Scheme: TwoReservoir, CountBits: 3, Placement: PlaceFooter}.Layout()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	pkt := testPacket(t, r, l, LNHLocal)
	fr, err := l.Locate(pkt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Get(pkt, fr, "nope"); err == nil || !strings.Contains(err.Error(), "no field nope") {
		t.Errorf("Get unknown field: %v", err)
	}
	if err := l.Set(pkt, fr, "nope", 0); err == nil {
		t.Error("Set unknown field accepted")
	}
	if _, err := l.Ref("nope"); err == nil {
		t.Error("Ref unknown field accepted")
	}
	// A packet built without the footer has no room for it.
	small, err := Build(Headers{LRH: LRH{LNH: LNHLocal}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Locate(small); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("Locate on a packet without room for the footer: %v", err)
	}
	sfr, _ := FrameOf(small)
	if _, err := l.Get(small, sfr, FieldHopBit); err == nil {
		t.Error("Get on a packet without room for the footer accepted")
	}
	// A global-only layout on a local packet.
	g, err := TelemetrySpec{Scheme: TwoReservoir, CountBits: 3, Placement: PlaceReservedGlobal}.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Locate(pkt); err == nil || !strings.Contains(err.Error(), "global") {
		t.Errorf("global-only layout located in a local packet: %v", err)
	}
}

// renderBitMap is the golden form of a layout's bit map.
func renderBitMap(l *Layout, lnh uint8) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s LNH=%d footer=%d\n", l.Name, lnh, l.FooterBytes)
	for _, r := range l.BitMap(lnh) {
		fmt.Fprintf(&b, "  %-11s %-6s %-6s byte %-2d bits %-6s %-16s icrc=%-5v %s\n",
			r.Field, r.Writer, r.Header, r.Byte, r.Bits, r.IBAField, r.ICRCCovered, r.Meaning)
	}
	return b.String()
}

// TestBitMapGolden freezes the bit maps of every standard layout in
// testdata/bitmap.golden (go test -run TestBitMapGolden -update rewrites it),
// rendered twice to show them stable.
func TestBitMapGolden(t *testing.T) {
	render := func() string {
		var b strings.Builder
		for _, s := range standardSpecs() {
			l, err := s.Layout()
			if err != nil {
				fmt.Fprintf(&b, "%s@%s: %v\n", s.Name(), s.Placement, err)
				continue
			}
			for _, lnh := range []uint8{LNHLocal, LNHGlobal} {
				if err := l.Validate(lnh); err != nil {
					fmt.Fprintf(&b, "%s LNH=%d: invalid\n", l.Name, lnh)
					continue
				}
				b.WriteString(renderBitMap(l, lnh))
			}
		}
		return b.String()
	}
	golden.CheckStable(t, filepath.Join("testdata", "bitmap.golden"), func() []byte { return []byte(render()) })
}
