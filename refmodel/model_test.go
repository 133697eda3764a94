// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

// testConfigs covers every scheme, count width class, placement and LNH the
// model serves, with switch generators and sender draws.
func testConfigs() []Config {
	var cs []Config
	base := DefaultConfig()
	add := func(f func(c *Config)) {
		c := base
		f(&c)
		cs = append(cs, c)
	}
	for _, b := range []int{1, 2, 3, 4} {
		add(func(c *Config) { c.Telemetry.CountBits = b })
	}
	add(func(c *Config) { c.Telemetry.Placement = header.PlaceFooter; c.Telemetry.CountBits = 8 })
	add(func(c *Config) { c.LNH = header.LNHGlobal })
	add(func(c *Config) { c.Generator = "lfsr-lut/b16" })
	add(func(c *Config) { c.Generator = "shiftreg/per-packet"; c.Telemetry.CountBits = 2 })
	add(func(c *Config) { c.Telemetry.SenderL = 3; c.Generator = GeneratorSender })
	add(func(c *Config) { c.Telemetry.SenderL = 7; c.Generator = GeneratorSender; c.Hash = hash.New(hash.CRC32) })
	add(func(c *Config) {
		c.Telemetry.Scheme = header.TwoReservoir
		c.Telemetry.CountBits = 2
		c.Hash = hash.New(hash.SipHash)
		c.ID = hash.IDPSNSLID
	})
	add(func(c *Config) {
		c.Telemetry.Scheme = header.TwoReservoir
		c.Telemetry.CountBits = 3
		c.Telemetry.Placement = header.PlaceReservedGlobal
		c.LNH = header.LNHGlobal
	})
	add(func(c *Config) {
		c.Telemetry.Scheme = header.TwoReservoir
		c.Telemetry.SenderL = 5
		c.Generator = GeneratorSender
		c.Link = hash.LinkWide
		c.MaxPort = 200
	})
	add(func(c *Config) { // the thesis's 64-bit layout (section 5.1)
		c.Telemetry.Scheme = header.FullID
		c.Telemetry.CountBits = 8
		c.MaxSwitch = 65535
		c.MaxPort = 254
	})
	add(func(c *Config) { // the thesis's 40-bit layout
		c.Telemetry.Scheme = header.FullID
		c.Telemetry.CountBits, c.Telemetry.SwitchBits, c.Telemetry.PortBits = 4, 10, 6
		c.MaxSwitch, c.MaxPort = 1023, 63
	})
	add(func(c *Config) {
		c.Telemetry.Scheme = header.FullID
		c.Telemetry.SenderL = 6
		c.Generator = GeneratorSender
		c.Telemetry.SwitchBits, c.Telemetry.PortBits = 10, 6
		c.MaxSwitch, c.MaxPort = 1023, 63
		c.LNH = header.LNHGlobal
	})
	return cs
}

func mustModel(t testing.TB, c Config) *Model {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatalf("New(%s): %v", c, err)
	}
	return m
}

func footerOf(m *Model) int { return m.Layout().FooterBytes }

// TestFieldAccessorsMatchLayout holds the compiled accessors equal to
// header.Layout.Get and Set on random values, both ways.
func TestFieldAccessorsMatchLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		l := m.Layout()
		for _, payload := range []int{0, 5, 64, 257} {
			pkt := testPacket(c.LNH, 1, 2, 3, 4, payload, footerOf(m))
			fr, err := header.FrameOf(pkt)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range l.Fields {
				acc, err := compileField(l, c.LNH, f.Name)
				if err != nil {
					t.Fatal(err)
				}
				w := f.Width()
				for range 20 {
					v := r.Uint64() >> (64 - w)
					acc.set(pkt, fr.PktLen, v)
					if got, _ := l.Get(pkt, fr, f.Name); got != v {
						t.Fatalf("%s field %s: accessor wrote %#x, layout reads %#x", l.Name, f.Name, v, got)
					}
					v = r.Uint64() >> (64 - w)
					if err := l.Set(pkt, fr, f.Name, v); err != nil {
						t.Fatal(err)
					}
					if got := acc.get(pkt, fr.PktLen); got != v {
						t.Fatalf("%s field %s: layout wrote %#x, accessor reads %#x", l.Name, f.Name, v, got)
					}
				}
			}
		}
	}
}

// oracleStage is docs/spec.md section 5 written out again, slowly, over
// header.Layout.Get and Set: the independent definition Stage is checked
// against.
func oracleStage(t *testing.T, c Config, pkt []byte, sw uint16, port uint8, cong bool, g rng.Generator) {
	t.Helper()
	l, _ := c.Telemetry.Layout()
	fr, _ := header.FrameOf(pkt)
	get := func(name string) uint64 { v, err := l.Get(pkt, fr, name); must(t, err); return v }
	set := func(name string, v uint64) { must(t, l.Set(pkt, fr, name, v)) }
	bth := fr.BTH
	psn := uint32(pkt[bth+9])<<16 | uint32(pkt[bth+10])<<8 | uint32(pkt[bth+11])
	qp := uint32(pkt[bth+5])<<16 | uint32(pkt[bth+6])<<8 | uint32(pkt[bth+7])
	id := c.ID.ID(binary.BigEndian.Uint16(pkt[6:]), qp, psn)
	d, _ := c.Link.Encode(sw, port)
	h := uint64(c.Hash.Bit(id, d))
	countMax := uint64(1)<<c.Telemetry.CountBits - 1
	L := c.Telemetry.SenderL
	// draw returns z for the reservoir whose count field is count (or *_rand field rnd).
	draw := func(count, rnd string) bool {
		if L == 0 {
			n := get(count)
			z := g.Draw(int(n) + 1)
			set(count, min(n+1, countMax))
			return z
		}
		v := get(rnd)
		if v == 1<<L {
			return false
		}
		z := v>>L == 0
		set(rnd, (v<<1)&(1<<(L+1)-1))
		return z
	}
	switch c.Telemetry.Scheme {
	case header.OneReservoir:
		if draw(header.FieldHopCount, header.FieldHopRand) {
			set(header.FieldHopBit, h)
			set(header.FieldCongBit, b2u(cong))
		}
	case header.TwoReservoir:
		if draw(header.FieldHopCount, header.FieldHopRand) {
			set(header.FieldHopBit, h)
		}
		if cong && draw(header.FieldCongCount, header.FieldCongRand) {
			set(header.FieldCongBit, h)
		}
	case header.FullID:
		if draw(header.FieldHopCount, header.FieldHopRand) {
			set(header.FieldHopSwitch, uint64(sw))
			set(header.FieldHopPort, uint64(port))
		}
		if cong && draw(header.FieldCongCount, header.FieldCongRand) {
			set(header.FieldCongSwitch, uint64(sw))
			set(header.FieldCongPort, uint64(port))
		}
	}
	n := fr.PktLen
	binary.LittleEndian.PutUint16(pkt[n:], header.VCRC(pkt[:n]))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStageMatchesOracle runs random paths through Stage and through the
// oracle with cloned generators and compares the packets byte for byte after
// every hop; then checks that the receiver accepts the ICRC (nothing it
// covers changed) and reads the counts the stages reported.
func TestStageMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		for trial := range 300 {
			pkt := testPacket(c.LNH, uint16(r.Uint32()), uint16(r.Uint32()), r.Uint32()&0xFFFFFF, r.Uint32()&0xFFFFFF, r.IntN(80), footerOf(m))
			nic := c.NewSenderGenerator(uint16(trial))
			must(t, m.Send(pkt, nic))
			ref := bytes.Clone(pkt)
			hops := 1 + r.IntN(12)
			hopsDone, congDone := 0, 0
			for hop := range hops {
				sw := uint16(r.IntN(c.MaxSwitch + 1))
				port := uint8(1 + r.IntN(c.MaxPort))
				cong := r.IntN(3) == 0
				g, err := c.NewPortGenerator(sw, port)
				must(t, err)
				var gRef rng.Generator
				if g != nil {
					for range r.IntN(5) { // start the port's stream somewhere
						g.Draw(1)
					}
					gRef = g.Clone()
				}
				res, err := m.Stage(pkt, sw, port, cong, g)
				if err != nil {
					t.Fatalf("%s trial %d hop %d: %v", c, trial, hop, err)
				}
				oracleStage(t, c, ref, sw, port, cong, gRef)
				if !bytes.Equal(pkt, ref) {
					t.Fatalf("%s trial %d hop %d (switch %d port %d congested %t): stage and oracle differ\nstage  %x\noracle %x",
						c, trial, hop, sw, port, cong, pkt, ref)
				}
				if g != nil && !cmp.Equal(g.State(), gRef.State()) {
					t.Fatalf("%s trial %d hop %d: generator states differ: %v vs %v", c, trial, hop, g.State(), gRef.State())
				}
				hopsDone++
				if cong {
					congDone++
				}
				wantDraws := 1
				if c.SenderMode() {
					wantDraws = 0
				} else if cong && c.Telemetry.Scheme != header.OneReservoir {
					wantDraws = 2
				}
				if res.Draws != wantDraws {
					t.Fatalf("%s: stage reported %d draws, want %d", c, res.Draws, wantDraws)
				}
			}
			s, err := m.Receive(pkt)
			if err != nil {
				t.Fatalf("%s trial %d: receiver: %v", c, trial, err)
			}
			if want := min(hopsDone, c.CountMax()); s.HopCount != want {
				t.Fatalf("%s: receiver hop count %d after %d hops, want %d", c, s.HopCount, hopsDone, want)
			}
			if c.Telemetry.Scheme != header.OneReservoir {
				if want := min(congDone, c.CountMax()); s.CongCount != want {
					t.Fatalf("%s: receiver congested count %d after %d congested hops, want %d", c, s.CongCount, congDone, want)
				}
			}
		}
	}
}

// TestStageInvariants: nothing the ICRC covers changes, and the VCRC is right.
func TestStageInvariants(t *testing.T) {
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		pkt := testPacket(c.LNH, 7, 9, 0x123456, 0xABCDEF, 33, footerOf(m))
		must(t, m.Send(pkt, c.NewSenderGenerator(7)))
		mask, _ := header.InvariantMask(c.LNH)
		before := bytes.Clone(pkt)
		for hop := range 9 {
			g, _ := c.NewPortGenerator(uint16(hop), 1)
			if _, err := m.Stage(pkt, uint16(hop), 1, hop%2 == 0, g); err != nil {
				t.Fatal(err)
			}
		}
		n := len(pkt) - header.VCRCLen
		for i := range n - m.Layout().FooterBytes {
			var variant byte
			if i < len(mask) {
				variant = mask[i]
			}
			if (pkt[i]^before[i])&^variant != 0 {
				t.Fatalf("%s: byte %d changed in ICRC-covered bits: %#02x -> %#02x", c, i, before[i], pkt[i])
			}
		}
		if got, want := binary.LittleEndian.Uint16(pkt[n:]), header.VCRC(pkt[:n]); got != want {
			t.Fatalf("%s: VCRC %#x, want %#x", c, got, want)
		}
	}
}

func TestStageErrors(t *testing.T) {
	c := DefaultConfig()
	m := mustModel(t, c)
	pkt := testPacket(c.LNH, 1, 2, 3, 4, 8, 0)
	g, _ := c.NewPortGenerator(1, 1)
	bad := bytes.Clone(pkt)
	bad[len(bad)-1] ^= 1
	for _, tc := range []struct {
		name string
		pkt  []byte
		sw   uint16
		port uint8
		g    rng.Generator
		want string
	}{
		{"corrupt VCRC", bad, 1, 1, g, "VCRC"},
		{"short", pkt[:6], 1, 1, g, "shorter than"},
		{"truncated", pkt[:len(pkt)-3], 1, 1, g, "PktLen"},
		{"global packet to a local model", testPacket(header.LNHGlobal, 1, 2, 3, 4, 8, 0), 1, 1, g, "LNH=3"},
		{"port outside fabric", pkt, 1, 60, g, "outside the configured fabric"},
		{"no generator", pkt, 1, 1, nil, "no generator"},
	} {
		_, err := m.Stage(bytes.Clone(tc.pkt), tc.sw, tc.port, false, tc.g)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// Sender draws: a zeroed hop_rand is malformed.
	cs := c
	cs.Telemetry.SenderL, cs.Generator = 3, GeneratorSender
	ms := mustModel(t, cs)
	p := testPacket(cs.LNH, 1, 2, 3, 4, 8, 0)
	if _, err := ms.Stage(p, 1, 1, false, nil); err == nil || !strings.Contains(err.Error(), "sentinel") {
		t.Errorf("stage on a hop_rand of 0: %v", err)
	}
	if _, err := ms.Receive(p); err == nil || !strings.Contains(err.Error(), "sentinel") {
		t.Errorf("receive of a hop_rand of 0: %v", err)
	}
}

func TestReceiveChecksICRC(t *testing.T) {
	c := DefaultConfig()
	m := mustModel(t, c)
	pkt := testPacket(c.LNH, 1, 2, 3, 4, 8, 0)
	pkt[header.LRHLen+header.BTHLen] ^= 0x10 // a payload bit
	n := len(pkt) - 2
	binary.LittleEndian.PutUint16(pkt[n:], header.VCRC(pkt[:n]))
	if _, err := m.Receive(pkt); err == nil || !strings.Contains(err.Error(), "ICRC") {
		t.Errorf("receive of a packet with a changed payload: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"sender generator without L", func(c *Config) { c.Generator = GeneratorSender }, "sender L"},
		{"L without sender generator", func(c *Config) { c.Telemetry.SenderL = 4 }, "use generator sender"},
		{"unknown generator", func(c *Config) { c.Generator = "dice" }, "unknown generator"},
		{"bad generator parameter", func(c *Config) { c.Generator = "lfsr-lut/b99" }, "lfsr-lut"},
		{"reserved-global in a local packet", func(c *Config) {
			c.Telemetry.Scheme = header.TwoReservoir
			c.Telemetry.Placement = header.PlaceReservedGlobal
		}, "LNH=2"},
		{"port too wide for thesis encoding", func(c *Config) { c.MaxPort = 64 }, "link encoding wide"},
		{"switch too wide for wide encoding", func(c *Config) { c.Link = hash.LinkWide; c.MaxSwitch = 40000 }, "too wide for link encoding wide"},
		{"full-ID port field", func(c *Config) {
			c.Telemetry.Scheme = header.FullID
			c.Telemetry.PortBits = 5
		}, "5-bit port field"},
		{"too many bits for resv6", func(c *Config) { c.Telemetry.Placement = header.PlaceResv6; c.Telemetry.CountBits = 5 }, "Resv6"},
		{"port 255", func(c *Config) { c.MaxPort = 255 }, "1..254"},
	} {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
}

func TestConfigJSONRoundTrip(t *testing.T) {
	cs := testConfigs()
	key := [16]byte{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	c := DefaultConfig()
	c.Hash = hash.NewKeyed(hash.SipHash, key)
	cs = append(cs, c)
	for _, c := range cs {
		b, err := json.Marshal(c)
		must(t, err)
		var back Config
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back != c {
			t.Errorf("JSON round trip of %s gave %s", c, back)
		}
		if back.String() != c.String() {
			t.Errorf("String after round trip: %q vs %q", back.String(), c.String())
		}
	}
	var x Config
	if err := json.Unmarshal([]byte(`{"scheme":"onereservoir","bogus":1}`), &x); err == nil {
		t.Error("unknown JSON field accepted")
	}
}

// TestStageAllocs: the stage runs on every hop of every simulated packet.
func TestStageAllocs(t *testing.T) {
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		pkt := testPacket(c.LNH, 1, 2, 3, 4, 64, footerOf(m))
		must(t, m.Send(pkt, c.NewSenderGenerator(1)))
		g, _ := c.NewPortGenerator(1, 1)
		a := testing.AllocsPerRun(100, func() {
			if _, err := m.Stage(pkt, 1, 1, true, g); err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Errorf("%s: %.1f allocations per stage", c, a)
		}
	}
}

// TestReceiveAllocs: the receiver reads every packet a decoder is fed (the
// C library's and the Python package's batch decode call it per packet).
func TestReceiveAllocs(t *testing.T) {
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		pkt := receivePacket(t, m)
		a := testing.AllocsPerRun(100, func() {
			if _, err := m.Receive(pkt); err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Errorf("%s: %.1f allocations per receive", c, a)
		}
	}
}

// receivePacket is a packet with a 64-byte payload sent and staged over
// three hops (switches 1 to 3, the last one's port congested).
func receivePacket(t testing.TB, m *Model) []byte {
	t.Helper()
	c := m.Config()
	pkt := testPacket(c.LNH, 1, 2, 3, 4, 64, footerOf(m))
	if err := m.Send(pkt, c.NewSenderGenerator(1)); err != nil {
		t.Fatal(err)
	}
	for sw := uint16(1); sw <= 3; sw++ {
		g, _ := c.NewPortGenerator(sw, 1)
		if _, err := m.Stage(pkt, sw, 1, sw == 3, g); err != nil {
			t.Fatal(err)
		}
	}
	return pkt
}

// BenchmarkReceive is the receiver's read of a staged packet with a 64-byte
// payload (CRCs checked, the sample read), per scheme and draw source.
func BenchmarkReceive(b *testing.B) {
	cs := testConfigs()
	for _, c := range []Config{cs[2], cs[8], cs[10], cs[13], cs[15]} {
		b.Run(c.Telemetry.Name(), func(b *testing.B) {
			m := mustModel(b, c)
			pkt := receivePacket(b, m)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Receive(pkt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSenderDraws: the sender field is b0..b(L-1) then the sentinel, with b0
// always 0 (P = 1/1) and trailing zeros counting the hops.
func TestSenderDraws(t *testing.T) {
	c := DefaultConfig()
	c.Telemetry.SenderL, c.Generator = 4, GeneratorSender
	m := mustModel(t, c)
	l := m.Layout()
	for lid := range 50 {
		pkt := testPacket(c.LNH, 1, 2, 3, uint32(lid), 0, footerOf(m))
		must(t, m.Send(pkt, c.NewSenderGenerator(uint16(lid))))
		fr, _ := header.FrameOf(pkt)
		v, _ := l.Get(pkt, fr, header.FieldHopRand)
		if v&1 != 1 || v>>4 != 0 {
			t.Fatalf("hop_rand %05b: want b0=0 and the sentinel last", v)
		}
		for hop := 1; hop <= 6; hop++ {
			if _, err := m.Stage(pkt, 1, 1, false, nil); err != nil {
				t.Fatal(err)
			}
			v, _ = l.Get(pkt, fr, header.FieldHopRand)
			if got, want := bits.TrailingZeros64(v), min(hop, 4); got != want {
				t.Fatalf("after %d hops hop_rand %05b has %d trailing zeros, want %d", hop, v, got, want)
			}
		}
	}
}

// BenchmarkStage runs the switch stage on packets with a 64-byte payload,
// and with a 4096-byte one (an MTU-size packet: the stage's cost would grow
// with the packet if it recomputed the VCRC rather than patching it).
func BenchmarkStage(b *testing.B) {
	cs := testConfigs()
	for _, x := range []struct {
		c       Config
		payload int
	}{{cs[2], 64}, {cs[8], 64}, {cs[11], 64}, {cs[2], 4096}} {
		c := x.c
		b.Run(fmt.Sprintf("%s/%d", c.Telemetry.Name(), x.payload), func(b *testing.B) {
			m := mustModel(b, c)
			// A fresh packet from the sender every four hops, so sender
			// draws are never spent and counts cycle as on real paths.
			sent := testPacket(c.LNH, 1, 2, 3, 4, x.payload, footerOf(m))
			if err := m.Send(sent, c.NewSenderGenerator(1)); err != nil {
				b.Fatal(err)
			}
			pkt := slices.Clone(sent)
			g, _ := c.NewPortGenerator(1, 1)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i&3 == 0 {
					copy(pkt, sent)
				}
				if _, err := m.Stage(pkt, 1, 1, i&3 == 0, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
