// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"fmt"
	"math/bits"
	"os"
	"strings"
	"testing"

	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/lfsr"
	"ibreservoir/rng"
)

// This file holds docs/spec.md to the code. The functions below are the
// specification's sections 4 and 6 written again from the text alone, so that
// the test vectors of its section 7 are checked twice: against this second
// implementation (the text is complete and says what it means) and against
// the code (the code does what the text says).

const specGamma = 0x9E3779B97F4A7C15

// specMix is section 6's Mix.
func specMix(z uint64) uint64 {
	z += specGamma
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// specDerive is section 6's Derive.
func specDerive(s uint64, tags ...uint64) uint64 {
	x := specMix(s)
	for _, t := range tags {
		x = specMix(x ^ specMix(t+specGamma))
	}
	return x
}

// specOutput is output j of the SplitMix64 sequence of state x.
func specOutput(x uint64, j int) uint64 { return specMix(x + uint64(j)*specGamma) }

// specXoshiro is section 4's xoshiro128** over s0..s3.
type specXoshiro [4]uint32

func (s *specXoshiro) next() uint32 {
	r := bits.RotateLeft32(s[1]*5, 7) * 9
	t := s[1] << 9
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft32(s[3], 11)
	return r
}

// draw is section 4's rejection rule.
func (s *specXoshiro) draw(l uint64) bool {
	z := (uint64(1) << 32) / l
	for {
		if r := uint64(s.next()); r < z*l {
			return r < z
		}
	}
}

// specIdeal seeds xoshiro128** as section 6 says.
func specIdeal(x uint64) specXoshiro {
	a, b := specOutput(x, 0), specOutput(x, 1)
	s := specXoshiro{uint32(a), uint32(a >> 32), uint32(b), uint32(b >> 32)}
	if s == (specXoshiro{}) {
		s[0] = 1
	}
	return s
}

// hex renders the ideal state as state_in does: s3 s2 s1 s0.
func (s specXoshiro) hex() string { return fmt.Sprintf("%08x%08x%08x%08x", s[3], s[2], s[1], s[0]) }

// specLFSRMask is section 4's mask for the taps of XAPP052 as printed.
func specLFSRMask(taps ...int) uint32 {
	m := uint32(1) // c0
	for _, t := range taps[1:] {
		m |= 1 << t
	}
	return m
}

func specLFSRStep(s, mask uint32, b int) uint32 {
	return s>>1 | uint32(bits.OnesCount32(s&mask)&1)<<(b-1)
}

// specLFSRSeed is the first non-zero output's low b bits.
func specLFSRSeed(x uint64, b int) uint32 {
	for j := 0; ; j++ {
		if s := uint32(specOutput(x, j)) & (1<<b - 1); s != 0 {
			return s
		}
	}
}

// specShiftReg returns the positions of the 0 in r_1..r_maxL.
func specShiftReg(x uint64, maxL int) []int {
	pos := make([]int, maxL)
	for l := 1; l <= maxL; l++ {
		pos[l-1] = int(specOutput(x, l-1) % uint64(l))
	}
	return pos
}

// specShiftRegHex renders the registers, then countBits of draw count 0, as
// state_in does.
func specShiftRegHex(pos []int, countBits int) string {
	n := len(pos)*(len(pos)+1)/2 + countBits
	st := make([]byte, n) // bit i, '0' or '1'
	for i := range st {
		st[i] = '0'
	}
	for l := 1; l <= len(pos); l++ {
		for i := range l {
			if i != pos[l-1] {
				st[l*(l-1)/2+i] = '1'
			}
		}
	}
	var b strings.Builder
	for d := (n+3)/4 - 1; d >= 0; d-- {
		v := 0
		for k := 3; k >= 0; k-- {
			v <<= 1
			if i := 4*d + k; i < n && st[i] == '1' {
				v |= 1
			}
		}
		fmt.Fprintf(&b, "%x", v)
	}
	return b.String()
}

// specSenderField fills b0..b(L-1) and the sentinel from an ideal generator.
func specSenderField(g *specXoshiro, L int) uint64 {
	f := uint64(1)
	for i := range L {
		if !g.draw(uint64(i + 1)) {
			f |= 1 << (L - i)
		}
	}
	return f
}

func hexWords(ws ...uint64) string {
	var s []string
	for _, w := range ws {
		s = append(s, fmt.Sprintf("%#x", w))
	}
	return strings.Join(s, " ")
}

func hex32s(ws ...uint32) string {
	var s []string
	for _, w := range ws {
		s = append(s, fmt.Sprintf("%#08x", w))
	}
	return strings.Join(s, " ")
}

func hex16s(ws ...uint32) string {
	var s []string
	for _, w := range ws {
		s = append(s, fmt.Sprintf("%#04x", w))
	}
	return strings.Join(s, " ")
}

func ints(v []int) string { return strings.Trim(fmt.Sprint(v), "[]") }

// specVectors reads the test-vector table of docs/spec.md section 7: the
// first cell (without its backquotes) names the quantity, the second cell's
// code span is its value.
func specVectors(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(doc, []byte("<!-- spec test vectors: begin -->"))
	table, _, ok2 := bytes.Cut(rest, []byte("<!-- spec test vectors: end -->"))
	if !ok || !ok2 {
		t.Fatal("docs/spec.md: no test-vector table between the markers")
	}
	value := func(cell string) string {
		_, after, ok := strings.Cut(cell, "`")
		v, _, ok2 := strings.Cut(after, "`")
		if !ok || !ok2 {
			t.Fatalf("docs/spec.md: cell %q has no code span", cell)
		}
		return v
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(table), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 2 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") || strings.TrimSpace(cells[0]) == "quantity" {
			continue
		}
		out[strings.ReplaceAll(strings.TrimSpace(cells[0]), "`", "")] = value(cells[1])
	}
	return out
}

// TestSpecDocument checks every test vector of docs/spec.md section 7 against
// the second implementation above and against the code, and that the table
// has no row this test does not check.
func TestSpecDocument(t *testing.T) {
	const run = 1
	cfg := DefaultConfig()
	portGen := func(name string) rng.Generator {
		c := cfg
		c.Generator = name
		g, err := c.NewPortGenerator(3, 4)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	portSeed := specDerive(run, 1, 3, 4)
	fromSpec := map[string]func() (spec, code string){
		"Mix(0), SplitMix64's first output from state 0": func() (string, string) { return hexWords(specMix(0)), hexWords(seed.Mix(0)) },
		"Derive(1)": func() (string, string) {
			return hexWords(specDerive(run)), hexWords(seed.Derive(run))
		},
		"Derive(1, 1, 3, 4): the seed of switch 3, port 4's generator": func() (string, string) {
			return hexWords(portSeed), hexWords(seed.Derive(run, SeedPortGenerator, 3, 4))
		},
		"Derive(1, 2, 1): the seed of LID 1's sender draws": func() (string, string) {
			return hexWords(specDerive(run, 2, 1)), hexWords(seed.Derive(run, SeedSenderNIC, 1))
		},
		"xoshiro128** from s0..s3 = 1, 2, 3, 4: the first three outputs": func() (string, string) {
			s := specXoshiro{1, 2, 3, 4}
			g := rng.NewIdeal(1, 8)
			must(t, g.SetState(rng.State{1 | 2<<32, 3 | 4<<32}))
			return hex32s(s.next(), s.next(), s.next()), hex32s(g.Next(), g.Next(), g.Next())
		},
		"ideal, switch 3 port 4: s0 s1 s2 s3": func() (string, string) {
			s := specIdeal(portSeed)
			st := portGen("ideal").State()
			return hex32s(s[:]...), hex32s(uint32(st[0]), uint32(st[0]>>32), uint32(st[1]), uint32(st[1]>>32))
		},
		"ideal, switch 3 port 4: state_in": func() (string, string) {
			g := portGen("ideal")
			return specIdeal(portSeed).hex(), g.State().Hex(g.StateBits())
		},
		"ideal, switch 3 port 4: the first three outputs": func() (string, string) {
			s := specIdeal(portSeed)
			g := portGen("ideal").(*rng.Ideal)
			return hex32s(s.next(), s.next(), s.next()), hex32s(g.Next(), g.Next(), g.Next())
		},
		"lfsr-lut/b16, switch 3 port 4: state_in": func() (string, string) {
			g := portGen("lfsr-lut/b16")
			return fmt.Sprintf("%04x", specLFSRSeed(portSeed, 16)), g.State().Hex(g.StateBits())
		},
		"lfsr-lut/b16 from state 0x0001: the next five states": func() (string, string) {
			mask := specLFSRMask(16, 15, 13, 4)
			var sp, co []uint32
			s := uint32(1)
			r, err := lfsr.NewFibonacci(16, 1)
			must(t, err)
			for range 5 {
				s = specLFSRStep(s, mask, 16)
				r.Step()
				sp, co = append(sp, s), append(co, r.State())
			}
			return hex16s(sp...), hex16s(co...)
		},
		"lfsr-lut/b16: T[1] T[2] T[3] T[8]": func() (string, string) {
			m := uint64(1)<<16 - 1
			var sp []int
			for _, l := range []uint64{1, 2, 3, 8} {
				sp = append(sp, int((2*m+l)/(2*l)))
			}
			tab := rng.LUT(16, 8)
			return ints(sp), ints([]int{int(tab[1]), int(tab[2]), int(tab[3]), int(tab[8])})
		},
		"shiftreg/per-draw, switch 3 port 4: positions of the 0 in r_1..r_8": func() (string, string) {
			st := portGen("shiftreg/per-draw").State()
			var pos []int
			for l := 1; l <= 8; l++ {
				for i := range l {
					if b := l*(l-1)/2 + i; st[b/64]>>(b%64)&1 == 0 {
						pos = append(pos, i)
					}
				}
			}
			return ints(specShiftReg(portSeed, 8)), ints(pos)
		},
		"shiftreg/per-draw, switch 3 port 4: state_in": func() (string, string) {
			g := portGen("shiftreg/per-draw")
			return specShiftRegHex(specShiftReg(portSeed, 8), 0), g.State().Hex(g.StateBits())
		},
		"shiftreg/free/7:3, switch 3 port 4: state_in": func() (string, string) {
			g := portGen("shiftreg/free/7:3")
			return specShiftRegHex(specShiftReg(portSeed, 8), 2), g.State().Hex(g.StateBits())
		},
		"ideal, reset state: state_in": func() (string, string) {
			g := portGen("ideal")
			g.(rng.Resetter).Reset()
			return specXoshiro{1, 0, 0, 0}.hex(), g.State().Hex(g.StateBits())
		},
		"ideal, from its reset state: the first three outputs": func() (string, string) {
			s := specXoshiro{1, 0, 0, 0}
			g := portGen("ideal").(*rng.Ideal)
			g.Reset()
			return hex32s(s.next(), s.next(), s.next()), hex32s(g.Next(), g.Next(), g.Next())
		},
		"lfsr-lut/b16, reset state: state_in": func() (string, string) {
			g := portGen("lfsr-lut/b16")
			g.(rng.Resetter).Reset()
			return fmt.Sprintf("%04x", 1), g.State().Hex(g.StateBits())
		},
		"shiftreg/free/7:3, reset state: state_in": func() (string, string) {
			g := portGen("shiftreg/free/7:3")
			g.(rng.Resetter).Reset()
			return specShiftRegHex(make([]int, 8), 2), g.State().Hex(g.StateBits())
		},
		"sender draws, L = 3, LID 1: the first packet's hop_rand": func() (string, string) {
			s := specIdeal(specDerive(run, 2, 1))
			c := cfg
			c.Generator, c.Telemetry.SenderL = GeneratorSender, 3
			f, err := rng.Fill(3, c.NewSenderGenerator(1))
			must(t, err)
			return fmt.Sprintf("0b%04b", specSenderField(&s, 3)), fmt.Sprintf("0b%04b", f)
		},
	}
	doc := specVectors(t)
	for key, want := range doc {
		f, ok := fromSpec[key]
		if !ok {
			t.Errorf("docs/spec.md section 7 has a row %q this test does not check", key)
			continue
		}
		spec, code := f()
		if spec != want || code != want {
			t.Errorf("%s: docs/spec.md says %s; its definitions give %s, the code %s", key, want, spec, code)
		}
	}
	for key := range fromSpec {
		if _, ok := doc[key]; !ok {
			t.Errorf("docs/spec.md section 7 lost its row %q", key)
		}
	}
}

// TestSpecStatements checks the statements of docs/spec.md sections 2, 4 and
// 5 that are not test vectors: the footer size and alignment, reserved-global's
// alignment in Rsv5, the LFSR masks, the state widths, and what saturated and
// l mean.
func TestSpecStatements(t *testing.T) {
	// Section 2: F = 4*ceil(T/32) bytes, MSB-aligned; reserved-global packs
	// each group LSB-aligned in its own region.
	for _, c := range []struct {
		s header.TelemetrySpec
		f int
	}{
		{header.TelemetrySpec{Scheme: header.TwoReservoir, CountBits: 3, Placement: header.PlaceFooter}, 4},
		{header.TelemetrySpec{Scheme: header.FullID, CountBits: 8, SwitchBits: 16, PortBits: 8, Placement: header.PlaceAuto}, 8},
		{header.TelemetrySpec{Scheme: header.FullID, CountBits: 4, SwitchBits: 10, PortBits: 6, Placement: header.PlaceAuto}, 8},
		{header.TelemetrySpec{Scheme: header.OneReservoir, SenderL: 7, Placement: header.PlaceAuto}, 4},
	} {
		l, err := c.s.Layout()
		must(t, err)
		if l.FooterBytes != c.f || l.Fields[0].Segments[0].Hi != 8*c.f-1 {
			t.Errorf("%s: footer %d bytes, first field from region bit %d; want %d bytes from bit %d", l.Name, l.FooterBytes, l.Fields[0].Segments[0].Hi, c.f, 8*c.f-1)
		}
	}
	l, err := header.TelemetrySpec{Scheme: header.TwoReservoir, CountBits: 3, Placement: header.PlaceReservedGlobal}.Layout()
	must(t, err)
	want := map[string]header.Segment{
		header.FieldHopBit: {Region: header.BTHResv6, Hi: 3, Lo: 3}, header.FieldHopCount: {Region: header.BTHResv6, Hi: 2, Lo: 0},
		header.FieldCongBit: {Region: header.LRHRsv5, Hi: 3, Lo: 3}, header.FieldCongCount: {Region: header.LRHRsv5, Hi: 2, Lo: 0},
	}
	for _, f := range l.Fields {
		if len(f.Segments) != 1 || f.Segments[0] != want[f.Name] {
			t.Errorf("reserved-global %s: %+v, want %+v", f.Name, f.Segments, want[f.Name])
		}
	}
	// Section 4: the LFSR masks, and the shift registers' state widths.
	for _, c := range []struct {
		b    int
		mask uint32
	}{{16, 0xA011}, {8, 0x71}} {
		r, err := lfsr.NewFibonacci(c.b, 1)
		must(t, err)
		taps, err := lfsr.Taps(c.b)
		must(t, err)
		if r.Mask() != c.mask || specLFSRMask(taps...) != c.mask {
			t.Errorf("b%d: mask %#x (from the taps %v: %#x), docs/spec.md says %#x", c.b, r.Mask(), taps, specLFSRMask(taps...), c.mask)
		}
	}
	for _, c := range []struct {
		name      string
		maxL, bit int
	}{{"shiftreg/free/7:3", 8, 38}, {"shiftreg/free/7:3", 16, 138}, {"shiftreg/per-draw", 8, 36}, {"shiftreg/free/5:1", 8, 36}, {"ideal", 8, 128}, {"lfsr-lut/b16", 8, 16}} {
		g, err := rng.New(c.name, 1, c.maxL)
		must(t, err)
		if g.StateBits() != c.bit {
			t.Errorf("%s for l up to %d: %d state bits, docs/spec.md says %d", c.name, c.maxL, g.StateBits(), c.bit)
		}
	}

	// Section 5: the count grows whether or not the draw replaces; saturated
	// means the incoming count was 2^b-1, and that draw still has l = 2^b.
	m := mustModel(t, DefaultConfig())
	g, err := DefaultConfig().NewPortGenerator(1, 1)
	must(t, err)
	pkt := testPacket(header.LNHLocal, 1, 2, 3, 4, 8, 0)
	must(t, m.Send(pkt, nil))
	kept := false
	for hop := 1; hop <= 10; hop++ {
		r, err := m.Stage(pkt, 1, 1, false, g)
		must(t, err)
		kept = kept || !r.HopReplaced
		if r.HopCount != min(hop, 7) || r.HopL != min(hop, 8) || r.HopSaturated != (hop > 7) {
			t.Fatalf("hop %d: count %d, l %d, saturated %v; want %d, %d, %v", hop, r.HopCount, r.HopL, r.HopSaturated, min(hop, 7), min(hop, 8), hop > 7)
		}
	}
	if !kept {
		t.Error("every draw replaced: the count's growth without a replacement went unchecked")
	}
	// With sender draws, l is the hop served, and 0 with saturated set when
	// the field arrived spent; the draw that spends it is not saturated.
	c := DefaultConfig()
	c.Generator, c.Telemetry.SenderL = GeneratorSender, 3
	ms := mustModel(t, c)
	pkt = testPacket(header.LNHLocal, 1, 2, 3, 4, 8, 0)
	must(t, ms.Send(pkt, c.NewSenderGenerator(1)))
	for hop := 1; hop <= 5; hop++ {
		r, err := ms.Stage(pkt, 1, 1, false, nil)
		must(t, err)
		wantL, sat := hop, false
		if hop > 3 {
			wantL, sat = 0, true
		}
		if r.HopL != wantL || r.HopSaturated != sat || r.HopCount != min(hop, 3) || (sat && r.HopReplaced) {
			t.Fatalf("sender hop %d: l %d, saturated %v, count %d, replaced %v; want l %d, saturated %v, count %d", hop, r.HopL, r.HopSaturated, r.HopCount, r.HopReplaced, wantL, sat, min(hop, 3))
		}
	}
	// Two reservoirs: with c = 0 no second draw is made and the congested
	// count stays.
	c = DefaultConfig()
	c.Telemetry.Scheme, c.Telemetry.Placement = header.TwoReservoir, header.PlaceFooter
	mt := mustModel(t, c)
	g, err = c.NewPortGenerator(1, 1)
	must(t, err)
	pkt = testPacket(header.LNHLocal, 1, 2, 3, 4, 8, mt.Layout().FooterBytes)
	must(t, mt.Send(pkt, nil))
	for hop := 1; hop <= 4; hop++ {
		cong := hop%2 == 0
		r, err := mt.Stage(pkt, 1, 1, cong, g)
		must(t, err)
		wantDraws, wantCong := 1, hop/2
		if cong {
			wantDraws = 2
		}
		if r.Draws != wantDraws || r.CongCount != wantCong {
			t.Fatalf("two reservoirs, hop %d, congested %v: %d draws, congested count %d; want %d, %d", hop, cong, r.Draws, r.CongCount, wantDraws, wantCong)
		}
	}
}
