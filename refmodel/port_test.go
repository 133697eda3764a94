// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

// TestPortAndNIC runs the same packets through the newcomer's path (NIC,
// Port) and through Send and Stage with the generators the configuration
// gives, for every test configuration: the two must agree byte for byte,
// and the packets must be of the model's kind and pass the receiver.
func TestPortAndNIC(t *testing.T) {
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		nic := m.NIC(0x0101)
		ports := make([]*Port, 5)
		gens := make([]Hop, 5)
		for i := range ports {
			l := Link{uint16(3 + i), uint8(1 + i)}
			var err error
			if ports[i], err = m.Port(l); err != nil {
				t.Fatal(err)
			}
			g, err := c.NewPortGenerator(l.Switch, l.Port)
			must(t, err)
			gens[i] = Hop{Link: l, Gen: g}
			if ports[i].Link() != l || ports[i].StateBits() != stateBits(g) {
				t.Fatalf("%s: port %s: link %s, %d state bits", c, l, ports[i].Link(), ports[i].StateBits())
			}
		}
		senderGen := c.NewSenderGenerator(0x0101)
		r := rand.New(rand.NewPCG(1, 2))
		for k := range 50 {
			spec := PacketSpec{DLID: uint16(r.Uint32()), DestQP: r.Uint32() >> 8, PSN: r.Uint32() >> 8, Payload: make([]byte, r.IntN(20))}
			pkt, err := nic.Packet(spec)
			must(t, err)
			if pkt[1]&3 != c.LNH {
				t.Fatalf("%s: packet LNH %d", c, pkt[1]&3)
			}
			if _, err := header.DecodePacket(pkt, m.Layout().FooterBytes); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			want, err := m.BuildPacket(header.Headers{
				LRH: header.LRH{DLID: spec.DLID, SLID: 0x0101},
				BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: spec.DestQP, PSN: spec.PSN},
			}, spec.Payload)
			must(t, err)
			must(t, m.Send(want, senderGen))
			for i, p := range ports {
				cong := Congestion((k+i)%3 == 0)
				got, err := p.Stage(pkt, cong)
				must(t, err)
				res, err := m.Stage(want, gens[i].Link.Switch, gens[i].Link.Port, bool(cong), gens[i].Gen)
				must(t, err)
				if got != res || !bytes.Equal(pkt, want) {
					t.Fatalf("%s: packet %d hop %d: port %+v %x, model %+v %x", c, k, i, got, pkt, res, want)
				}
				if !slices.Equal(p.State(), stateOf(gens[i].Gen)) {
					t.Fatalf("%s: hop %d: port state %v, generator %v", c, i, p.State(), stateOf(gens[i].Gen))
				}
			}
			if _, err := m.Receive(pkt); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
		}
	}
}

func stateBits(g rng.Generator) int {
	if g == nil {
		return 0
	}
	return g.StateBits()
}

func stateOf(g rng.Generator) rng.State {
	if g == nil {
		return nil
	}
	return g.State()
}

func TestPortErrors(t *testing.T) {
	m := mustModel(t, DefaultConfig())
	if _, err := m.Port(Link{1024, 1}); err == nil || !strings.Contains(err.Error(), "outside the configured fabric") {
		t.Errorf("switch 1024 of a fabric to 1023: %v", err)
	}
	if _, err := m.Port(Link{1, 49}); err == nil {
		t.Error("port 49 of a fabric to 48 accepted")
	}
	p, err := m.Port(Link{1, 1})
	must(t, err)
	if err := p.SetState(make([]uint64, 2)); err == nil {
		t.Error("the all-zero xoshiro128** state accepted")
	}
	c := DefaultConfig()
	c.Telemetry.SenderL, c.Generator = 3, GeneratorSender
	ms := mustModel(t, c)
	ps, err := ms.Port(Link{1, 1})
	must(t, err)
	if ps.StateBits() != 0 || ps.State() != nil || ps.SetState(nil) != nil {
		t.Error("a sender-draw port has a state")
	}
	if err := ps.SetState([]uint64{1}); err == nil || !strings.Contains(err.Error(), "sender draws") {
		t.Errorf("a state for a sender-draw port: %v", err)
	}
	global := DefaultConfig()
	global.LNH = header.LNHGlobal
	if _, err := m.BuildPacket(header.Headers{LRH: header.LRH{LNH: header.LNHGlobal}}, nil); err == nil || !strings.Contains(err.Error(), "LNH=3") {
		t.Errorf("a global packet for a local model: %v", err)
	}
	pkt, err := mustModel(t, global).BuildPacket(header.Headers{}, []byte{1, 2, 3})
	must(t, err)
	if p, err := header.DecodePacket(pkt, 0); err != nil || p.GRH.IPVer != header.IPVer6 || p.GRH.NxtHdr != header.NxtHdrBTH {
		t.Errorf("global packet: %v %+v", err, p)
	}
}

// TestTallyCountsNotStale reads the counts while packets are still batched
// (fewer than a batch, so Add has flushed nothing): Counts and Count must
// complete the batch and agree with the reference decode.
func TestTallyCountsNotStale(t *testing.T) {
	for _, scheme := range []header.Scheme{header.OneReservoir, header.TwoReservoir} {
		c := DefaultConfig()
		c.Telemetry.Scheme = scheme
		m := mustModel(t, c)
		r := rand.New(rand.NewPCG(3, 4))
		set := randomSet(r, 40, 5)
		fast, err := m.NewTally(set)
		must(t, err)
		ref, err := m.NewTally(set)
		must(t, err)
		for round := range 3 {
			for range 10 + round {
				s := Sample{ID: r.Uint32(), HopBit: uint8(r.IntN(2)), CongBit: uint8(r.IntN(2)), HopCount: r.IntN(8), CongCount: r.IntN(8)}
				fast.Add(s)
				ref.Packets++
				ref.addReference(s)
			}
			w, cg := fast.Counts()
			if !slices.Equal(w, ref.counts) || !slices.Equal(cg, ref.congested) {
				t.Fatalf("%s round %d: Counts %v %v, reference %v %v", scheme, round, w[:4], cg[:4], ref.counts[:4], ref.congested[:4])
			}
			w[0]++ // the caller's copy
			if w0, c0 := fast.Count(0); w0 != ref.counts[0] || c0 != ref.congested[0] {
				t.Fatalf("%s: Count(0) = %d %d, reference %d %d", scheme, w0, c0, ref.counts[0], ref.congested[0])
			}
		}
	}
}

func TestCandidateSetAdd(t *testing.T) {
	s := NewCandidateSet(3)
	must(t, s.Add(1, Link{1, 1}))
	must(t, s.Add(2, Link{2, 1}, Link{2, 2}))
	must(t, s.Add(3, Link{3, 1}))
	must(t, s.Validate())
	if diff := cmp.Diff([]int{1, 2, 2, 3}, s.Hops); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []struct {
		hop   int
		links []Link
		want  string
	}{{0, []Link{{9, 9}}, "outside 1..3"}, {4, []Link{{9, 9}}, "outside 1..3"}, {2, []Link{{2, 2}}, "twice"}, {2, []Link{{8, 8}, {8, 8}}, "twice"}} {
		if err := s.Add(bad.hop, bad.links...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Add(%d, %v): %v, want %q", bad.hop, bad.links, err, bad.want)
		}
	}
	if len(s.Links) != 4 || len(s.Hops) != 4 {
		t.Errorf("a refused Add changed the set: %+v", s)
	}
}

// TestParseConfig reads back every test configuration from its Settings
// and checks the configuration string and the command line agree.
func TestParseConfig(t *testing.T) {
	cs := testConfigs()
	keyed := DefaultConfig()
	keyed.Hash = hash.NewKeyed(hash.SipHash, [16]byte{15: 0xAB})
	cs = append(cs, keyed)
	digests := map[string]string{}
	for _, c := range cs {
		s := c.Settings()
		got, err := ParseConfig(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got.String() != c.String() || got.Digest() != c.Digest() {
			t.Errorf("%s read back as %s", c, got)
		}
		if other, ok := digests[c.Digest()]; ok {
			t.Errorf("%s and %s share a digest", other, c)
		}
		digests[c.Digest()] = c.String()
		// Each setting's Get reads back through its Set (the command
		// line's flags are these Settings).
		for _, st := range Settings() {
			fl := DefaultConfig()
			must(t, st.Set(&fl, st.Get(&c)))
			if st.Get(&fl) != st.Get(&c) {
				t.Errorf("%s: Set(Get) gave %s, want %s", st.Name, st.Get(&fl), st.Get(&c))
			}
		}
	}
	if c, err := ParseConfig(""); err != nil || c.String() != DefaultConfig().String() {
		t.Errorf("empty string: %v %s", err, c)
	}
	if c, err := ParseConfig("  siphash-key=000102030405060708090a0b0c0d0eff\thash=siphash "); err != nil || c.Hash.Key()[15] != 0xFF {
		t.Errorf("key before the hash: %v %x", err, c.Hash.Key())
	}
	for _, tc := range []struct{ s, want string }{
		{"hash=md5", "unknown hash"},
		{"hash", "not name=value"},
		{"--hash=crc32", "not name=value"},
		{"colour=red", `unknown setting "colour"`},
		{"hash=crc32 hash=crc16", "hash given twice"},
		{"count-bits=x", "count-bits=x"},
		{"count-bits=3 generator=sender sender-draws=3", "count-bits has no effect"},
		{"switch-bits=10", "switch-bits has no effect"},
		{"siphash-key=000102030405060708090a0b0c0d0e0f", "siphash-key has no effect"},
		{"siphash-key=0001 hash=siphash", "32 hex digits"},
		{"max-port=100", "link encoding wide"},
		{"generator=sender", "sender L"},
		{"global=maybe", "global=maybe"},
		{"hash=crc32,count-bits=4", "separated by spaces, not commas (hash=crc32 count-bits=4)"},
	} {
		if _, err := ParseConfig(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%q): %v, want an error with %q", tc.s, err, tc.want)
		}
	}
}

func TestFieldsAndDiff(t *testing.T) {
	m := mustModel(t, DefaultConfig())
	pkt, err := m.NIC(1).Packet(PacketSpec{DLID: 2, PSN: 5})
	must(t, err)
	want := bytes.Clone(pkt)
	must(t, m.SetField(pkt, header.FieldHopCount, 6))
	if v, err := m.Field(pkt, header.FieldHopCount); err != nil || v != 6 {
		t.Fatalf("hop_count %d %v", v, err)
	}
	if v, err := m.HopField(pkt); err != nil || v != 6 || m.HopFieldName() != header.FieldHopCount {
		t.Fatalf("HopField %d %v", v, err)
	}
	if _, err := m.Receive(pkt); err != nil {
		t.Fatalf("SetField left a bad VCRC: %v", err)
	}
	if err := m.SetField(pkt, header.FieldHopCount, 8); err == nil {
		t.Error("a 4-bit value in a 3-bit field accepted")
	}
	if _, err := m.Field(pkt, "hop_port"); err == nil {
		t.Error("a field the layout lacks read")
	}
	pkt[3] ^= 1 // DLID, under the ICRC
	d := m.Diff(pkt, want)
	for _, s := range []string{"BTH.Resv6: got 0x6, want 0x0", "LRH.DLID: got 0x3, want 0x2", "telemetry hop_count (BTH Resv6): got 6, want 0", "VCRC: got", "byte 3: got 03, want 02"} {
		if !strings.Contains(d, s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	if strings.Contains(d, "ICRC") || m.Diff(want, want) != "" {
		t.Errorf("diff of equal parts:\n%s", d)
	}
	if d := m.Diff(pkt[:10], want); !strings.Contains(d, "length: got 10 bytes") || !strings.Contains(d, "got does not decode") {
		t.Errorf("short packet:\n%s", d)
	}
}

// TestPortOncePerLink: a model keeps one generator per link and per sender
// LID for its whole life. The pattern that once decoded garbage, asking the
// model for the path's ports (and the NIC) afresh for every packet, must
// make the same bytes as ports made once before the loop, and decode right:
// every path link near the packets that crossed it, the congested hop near
// 1 and the others near 0. (When every request restarted the generator from
// the seed, hop 1 read 5 times its traffic and the congested hop 0.)
func TestPortOncePerLink(t *testing.T) {
	path := []Link{{1, 33}, {10, 1}, {100, 2}, {21, 1}, {2, 5}}
	set := NewCandidateSet(len(path))
	for hop, l := range path {
		must(t, set.Add(hop+1, l, Link{l.Switch, l.Port + 1}))
	}
	sender := RecommendedConfig()
	sender.Telemetry.SenderL, sender.Generator = 5, GeneratorSender
	for _, c := range []Config{RecommendedConfig(), sender} {
		const packets = 20000
		once, fresh := mustModel(t, c), mustModel(t, c)
		if p, q := mustPort(t, fresh, path[0]), mustPort(t, fresh, path[0]); p != q || fresh.NIC(7) != fresh.NIC(7) {
			t.Errorf("%s: the same link gave two ports", c.Settings())
		}
		var ports []*Port
		for _, l := range path {
			ports = append(ports, mustPort(t, once, l))
		}
		nic := once.NIC(0x0101)
		tally, err := fresh.NewTally(set)
		must(t, err)
		differed := false
		for psn := range uint32(packets) {
			spec := PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: psn}
			want, err := nic.Packet(spec)
			must(t, err)
			got, err := fresh.NIC(0x0101).Packet(spec) // the misuse: a NIC per packet
			must(t, err)
			for hop, l := range path {
				cong := Congestion(hop == 2)
				_, err := ports[hop].Stage(want, cong)
				must(t, err)
				_, err = mustPort(t, fresh, l).Stage(got, cong) // the misuse: ports per packet
				must(t, err)
			}
			if !bytes.Equal(got, want) && !differed {
				differed = true // the first packet that differs; the decode below says the rest
				t.Errorf("%s: packet %d: ports asked for per packet made %x, ports made once %x", c.Settings(), psn, got, want)
			}
			s, err := fresh.Receive(got)
			must(t, err)
			tally.Add(s)
		}
		for _, e := range tally.Estimates(len(path), DefaultP) {
			onPath := slices.Contains(path, e.Link)
			wantF := 0.0
			if e.Hop == 3 {
				wantF = 1
			}
			switch {
			case onPath && (!e.Passed || e.W < packets*9/10 || e.W > packets*11/10 || math.Abs(e.Fraction-wantF) > 0.1):
				t.Errorf("%s: hop %d %s: W=%d passed=%t fraction %.2f, want W near %d and fraction near %.0f",
					c.Settings(), e.Hop, e.Link, e.W, e.Passed, e.Fraction, packets, wantF)
			case !onPath && e.Passed:
				t.Errorf("%s: hop %d %s carried nothing but passed (W=%d)", c.Settings(), e.Hop, e.Link, e.W)
			}
		}
	}
}

func mustPort(t *testing.T, m *Model, l Link) *Port {
	t.Helper()
	p, err := m.Port(l)
	must(t, err)
	return p
}

// TestPortConcurrent: goroutines sharing a model ask for the same ports and
// stage through them at once (go test -race checks the locking); every
// port's generator makes exactly the draws it was asked for.
func TestPortConcurrent(t *testing.T) {
	c := RecommendedConfig()
	m := mustModel(t, c)
	const workers, packets = 4, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for psn := range uint32(packets) {
				pkt, err := m.NIC(uint16(w)).Packet(PacketSpec{DLID: 9, PSN: psn})
				if err != nil {
					t.Error(err)
					return
				}
				for _, l := range []Link{{1, 1}, {2, 2}} {
					p, err := m.Port(l)
					if err == nil {
						_, err = p.Stage(pkt, Uncongested)
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	// Each port drew once per packet: the same number of draws from a fresh
	// generator leaves the same state (the draws' l differ by hop, so replay
	// them in the ports' order of use: hop 1 always draws for l = 1).
	g, err := c.NewPortGenerator(1, 1)
	must(t, err)
	for range workers * packets {
		g.Draw(1)
	}
	if p := mustPort(t, m, Link{1, 1}); !slices.Equal(p.State(), g.State()) {
		t.Errorf("port 1:1 after %d concurrent stages: state %v, want %v", workers*packets, p.State(), g.State())
	}
}
