// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"ibreservoir/header"
)

// TestStageCutThrough: a sound frame goes through Stage unchanged in
// behaviour; each corruption is named, the telemetry is updated exactly as
// for the sound packet (same draw), every other byte but the VCRC passes,
// and the VCRC is the complement of the valid one, so a second stage finds it
// corrupt and stomps it again. Frames outside the contract are refused, untouched.
func TestStageCutThrough(t *testing.T) {
	m, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	nic := m.NIC(0x0101)
	sound, err := nic.Packet(PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: 7, Payload: make([]byte, 40)})
	if err != nil {
		t.Fatal(err)
	}
	n := len(sound) - header.VCRCLen
	run := func(pkt []byte) ([]byte, StageResult, Corruption, error) {
		p, err := m.Port(Link{Switch: 7, Port: 3})
		if err != nil {
			t.Fatal(err)
		}
		out := append([]byte(nil), pkt...)
		res, c, err := m.StageCutThrough(out, 7, 3, true, p.gen)
		return out, res, c, err
	}
	want, wantRes, c, err := run(sound)
	if err != nil || c != 0 {
		t.Fatalf("sound frame: %v, %v", c, err)
	}
	ref := append([]byte(nil), sound...)
	p, _ := m.Port(Link{Switch: 7, Port: 3})
	if _, err := p.Stage(ref, Congested); err != nil || !bytes.Equal(ref, want) {
		t.Fatalf("sound frame: StageCutThrough differs from Stage (%v)", err)
	}
	setPL := func(b []byte, pl int) {
		v := binary.BigEndian.Uint16(b[header.LRHPosPktLen:])
		binary.BigEndian.PutUint16(b[header.LRHPosPktLen:], v&^0x7FF|uint16(pl))
		binary.LittleEndian.PutUint16(b[len(b)-2:], header.CRC16(b[:len(b)-2]))
	}
	cases := []struct {
		name string
		mod  func([]byte)
		want Corruption
	}{
		{"vcrc", func(b []byte) { b[n] ^= 1 }, CorruptVCRC},
		{"payload", func(b []byte) { b[n-10] ^= 0x80 }, CorruptVCRC},
		{"longer", func(b []byte) { setPL(b, n/4+1) }, CorruptLength},
		{"shorter", func(b []byte) { setPL(b, n/4-1) }, CorruptLength},
		{"zero", func(b []byte) { setPL(b, 0) }, CorruptLength},
		{"oversize", func(b []byte) { setPL(b, MaxLegalPktLen+1) }, CorruptLength | CorruptOversize},
		{"oversize+vcrc", func(b []byte) { setPL(b, 2047); b[n+1] ^= 4 }, CorruptLength | CorruptOversize | CorruptVCRC},
	}
	for _, tc := range cases {
		in := append([]byte(nil), sound...)
		tc.mod(in)
		out, res, c, err := run(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c != tc.want {
			t.Errorf("%s: corruption %v, want %v", tc.name, c, tc.want)
		}
		if res != wantRes {
			t.Errorf("%s: result %+v, want the sound packet's %+v", tc.name, res, wantRes)
		}
		for i := range n {
			w := in[i]
			if i == 12 { // BTH byte 4 of a local packet: as the sound packet leaves
				w = want[i]
			}
			if out[i] != w {
				t.Errorf("%s: byte %d is %#02x, want %#02x", tc.name, i, out[i], w)
			}
		}
		valid := header.CRC16(out[:n])
		if got := binary.LittleEndian.Uint16(out[n:]); got != ^valid {
			t.Errorf("%s: VCRC %#04x, want the stomped %#04x", tc.name, got, ^valid)
		}
		again, _, c2, err := run(out)
		if err != nil || c2&CorruptVCRC == 0 || binary.LittleEndian.Uint16(again[n:]) != ^header.CRC16(again[:n]) {
			t.Errorf("%s: a second stage gives %v, VCRC % x, %v; want it stomped again", tc.name, c2, again[n:], err)
		}
	}
	for _, bad := range [][]byte{sound[:n], sound[:n+1], sound[:20], append(append([]byte(nil), sound...), make([]byte, 4*2048)...)} {
		in := append([]byte(nil), bad...)
		if _, _, _, err := run(in); err == nil {
			t.Errorf("a %d-byte frame was taken", len(bad))
		}
		if !bytes.Equal(in, bad) {
			t.Errorf("a refused %d-byte frame was changed", len(bad))
		}
	}
}

// TestStageCutThroughRaw: a raw packet (LNH 0 or 1, no BTH) passes with no
// telemetry change and no draw; a corrupt one is stomped like any other.
func TestStageCutThroughRaw(t *testing.T) {
	m, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, lnh := range []uint8{header.LNHRaw, header.LNHIPv6Raw} {
		for _, size := range []int{10, 26, 90} {
			sound := make([]byte, size)
			for i := range sound {
				sound[i] = byte(i*29 + 3)
			}
			sound[header.LRHPosSL] = sound[header.LRHPosSL]&^3 | lnh
			binary.BigEndian.PutUint16(sound[header.LRHPosPktLen:], uint16((size-header.VCRCLen)/4))
			n := size - header.VCRCLen
			binary.LittleEndian.PutUint16(sound[n:], header.CRC16(sound[:n]))
			for _, tc := range []struct {
				name string
				mod  func([]byte)
				want Corruption
			}{
				{"sound", func([]byte) {}, 0},
				{"vcrc", func(b []byte) { b[n+1] ^= 0x10 }, CorruptVCRC},
				{"byte", func(b []byte) { b[n-1] ^= 1 }, CorruptVCRC},
			} {
				p, err := m.Port(Link{Switch: 9, Port: 2})
				if err != nil {
					t.Fatal(err)
				}
				st := p.gen.State()
				in := append([]byte(nil), sound...)
				tc.mod(in)
				out := append([]byte(nil), in...)
				res, c, err := m.StageCutThrough(out, 9, 2, true, p.gen)
				name := fmt.Sprintf("LNH %d, %d bytes, %s", lnh, size, tc.name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if c != tc.want || res != (StageResult{Raw: true}) {
					t.Errorf("%s: %v, %+v; want %v and a raw result", name, c, res, tc.want)
				}
				if !slices.Equal(p.gen.State(), st) {
					t.Errorf("%s: the generator drew", name)
				}
				want := append([]byte(nil), in...)
				if tc.want != 0 {
					binary.LittleEndian.PutUint16(want[n:], ^header.CRC16(want[:n]))
				}
				if !bytes.Equal(out, want) {
					t.Errorf("%s: left as % x, want % x", name, out, want)
				}
			}
		}
	}
	// A raw frame still has the link's shape, and the link must be in the fabric.
	short := make([]byte, 9)
	if _, _, err := m.StageCutThrough(short, 1, 1, false, nil); err == nil {
		t.Error("a 9-byte raw frame was taken")
	}
	raw := make([]byte, 10)
	if _, _, err := m.StageCutThrough(raw, 1, 1, false, nil); err != nil {
		t.Errorf("a 10-byte raw frame: %v", err)
	}
	if _, _, err := m.StageCutThrough(raw, 1024, 1, false, nil); err == nil || !strings.Contains(err.Error(), "outside the configured fabric") {
		t.Errorf("a raw frame at switch 1024: %v, want it refused", err)
	}
}

// TestStageCutThroughMalformed: with sender draws, a field of 0 that the
// stage would draw from is malformed (docs/spec.md section 4). Stage refuses
// the packet, untouched; StageCutThrough forwards it with no telemetry change,
// reports its id, link, hash bit and congested bit, and stomps it when it is
// also corrupt. A cong_rand of 0 is read only by a congested two-reservoir
// stage.
func TestStageCutThroughMalformed(t *testing.T) {
	for _, scheme := range []header.Scheme{header.OneReservoir, header.TwoReservoir} {
		c := DefaultConfig()
		c.Telemetry.Scheme = scheme
		c.Telemetry.SenderL, c.Generator = 3, GeneratorSender
		m := mustModel(t, c)
		zero := func(field string) []byte {
			p := testPacket(c.LNH, 1, 2, 3, 4, 8, m.Layout().FooterBytes) // every field 0
			if field != "" {
				f, err := m.Layout().Ref(field)
				if err != nil {
					t.Fatal(err)
				}
				fr, err := header.FrameOf(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Set(p, fr, 1<<c.Telemetry.SenderL); err != nil { // spent: sound
					t.Fatal(err)
				}
				if err := header.RecomputeVCRC(p); err != nil {
					t.Fatal(err)
				}
			}
			return p
		}
		type tc struct {
			name      string
			pkt       []byte
			congested bool
			malformed bool
		}
		cases := []tc{
			{"hop_rand 0", zero(""), false, true},
			{"hop_rand 0, congested", zero(""), true, true},
		}
		if scheme == header.TwoReservoir {
			cases = append(cases,
				tc{"cong_rand 0, not congested", zero(header.FieldHopRand), false, false},
				tc{"cong_rand 0, congested", zero(header.FieldHopRand), true, true})
		}
		for _, k := range cases {
			for _, corrupt := range []bool{false, true} {
				name := fmt.Sprintf("%v, %s, corrupt %t", scheme, k.name, corrupt)
				in := bytes.Clone(k.pkt)
				n := len(in) - header.VCRCLen
				if corrupt {
					in[n-5] ^= 0x20
				}
				_, serr := m.Stage(bytes.Clone(in), 5, 2, k.congested, nil)
				out := bytes.Clone(in)
				res, cor, err := m.StageCutThrough(out, 5, 2, k.congested, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if (cor != 0) != corrupt || res.Malformed != k.malformed {
					t.Errorf("%s: corruption %v, malformed %t", name, cor, res.Malformed)
				}
				if !k.malformed {
					continue
				}
				if !corrupt && (serr == nil || !strings.Contains(serr.Error(), "malformed")) {
					t.Errorf("%s: Stage took it (%v)", name, serr)
				}
				d, err := c.Link.Encode(5, 2)
				if err != nil {
					t.Fatal(err)
				}
				id := m.PacketID(in)
				want := StageResult{ID: id, D: d, HashBit: uint8(hashBit(c.Hash, id, d)), Congested: k.congested, Malformed: true}
				if res != want {
					t.Errorf("%s: result %+v, want %+v", name, res, want)
				}
				wantOut := bytes.Clone(in)
				if corrupt {
					binary.LittleEndian.PutUint16(wantOut[n:], ^header.CRC16(wantOut[:n]))
				}
				if !bytes.Equal(out, wantOut) {
					t.Errorf("%s: left as % x, want % x", name, out, wantOut)
				}
			}
		}
	}
}
