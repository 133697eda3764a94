// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/header"
	"ibreservoir/internal/version"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
	"ibreservoir/vectors"
)

// allConfigs is every configuration the project ships vectors for: each RTL
// configuration for local and global packets, and every scheme of the path
// sets.
func allConfigs() []refmodel.Config {
	var cs []refmodel.Config
	for _, c := range vectors.RTLMatrix() {
		cs = append(cs, c.ModelConfig(header.LNHLocal, 5), c.ModelConfig(header.LNHGlobal, 6))
	}
	return append(cs, vectors.PathModels()...)
}

func mustModel(t testing.TB, config string) uintptr {
	t.Helper()
	h, st, msg := callModelNew(config, 512)
	if st != statusOK || h == 0 || msg != "" {
		t.Fatalf("ibr_model_new(%q): status %d handle %d: %s", config, st, h, msg)
	}
	t.Cleanup(func() { callFree(h) })
	return h
}

func lastError(h uintptr) string { _, msg := callLastError(h, 1024); return msg }

// goState converts a port state to the C library's 32-bit words (bit i in
// word i/32), an oracle beside stateToWords.
func goState(st rng.State, words int) []uint32 {
	w := make([]uint32, words)
	for i := range 32 * words {
		if i/64 < len(st) && st[i/64]>>(i%64)&1 == 1 {
			w[i/32] |= 1 << (i % 32)
		}
	}
	return w
}

// TestMatchesModel drives the C library and package refmodel with the same
// random packets, for every configuration: packet building, the sender
// step, switch stages with the caller's state and with the handle's own
// ports, the receiver, the field accessors and the decoder must agree byte
// for byte.
func TestMatchesModel(t *testing.T) {
	cfgs := allConfigs()
	if testing.Short() {
		cfgs = cfgs[:8]
	}
	stages, decoded := 0, 0
	defer func() {
		// Every configuration ran its packets through its hops (a repeated
		// random link skips a decoder, and with it nothing else).
		if want := len(cfgs) * 16 * 3; stages != want || decoded < len(cfgs)/2 {
			t.Errorf("%d stages compared, want %d; %d decoders compared", stages, want, decoded)
		}
		t.Logf("%d configurations, %d stages, %d decoders compared", len(cfgs), stages, decoded)
	}()
	for ci, c := range cfgs {
		settings := c.Settings()
		h := mustModel(t, settings)
		m, err := refmodel.New(c)
		if err != nil {
			t.Fatal(err)
		}
		if got, st := callString(h, false, 1024); st != statusOK || got != settings {
			t.Fatalf("configuration %q read back as %q (%d)", settings, got, st)
		}
		if got, st := callString(h, true, 65); st != statusOK || got != c.Digest() {
			t.Fatalf("%s: digest %q (%d), want %s", settings, got, st, c.Digest())
		}
		in, st := callInfo(h)
		if st != statusOK || in.LNH != int32(c.LNH) || in.CountMax != int32(c.CountMax()) || in.FooterBytes != int32(m.Layout().FooterBytes) {
			t.Fatalf("%s: info %+v (%d)", settings, in, st)
		}
		r := rand.New(rand.NewPCG(uint64(ci), 7))
		nics := map[uint16]*refmodel.NIC{}
		ports := map[refmodel.Link]*refmodel.Port{}
		var set refmodel.CandidateSet
		var pathLinks []refmodel.Link
		for hop := 1; hop <= 3; hop++ {
			pathLinks = append(pathLinks, refmodel.Link{Switch: uint16(r.IntN(c.MaxSwitch + 1)), Port: uint8(1 + r.IntN(c.MaxPort))})
		}
		var cd uintptr
		var tally *refmodel.Tally
		if c.Telemetry.Scheme != header.FullID {
			set = refmodel.NewCandidateSet(3)
			var hops []int32
			for i, l := range pathLinks {
				if err := set.Add(i+1, l); err == nil {
					hops = append(hops, int32(i+1))
				}
			}
			if len(hops) == 3 {
				if cd, st = callDecoderNew(h, 3, set.Links, hops); st != statusOK {
					t.Fatalf("%s: decoder: %s", settings, lastError(h))
				}
				defer callFree(cd)
				if tally, err = m.NewTally(set); err != nil {
					t.Fatal(err)
				}
			}
		}
		for k := range 16 {
			lid := uint16(r.IntN(3)) // the sender NIC's LID, the packet's SLID
			spec := packetSpec{SLID: lid, DLID: uint16(r.Uint32()), SL: uint8(r.IntN(16)), VL: uint8(r.IntN(16)),
				OpCode: uint8(r.Uint32()), PKey: uint16(r.Uint32()), DestQP: r.Uint32() >> 8, PSN: r.Uint32() >> 8,
				Resv6: uint8(r.IntN(64)), TClass: uint8(r.Uint32()), FlowLabel: r.Uint32() >> 12, HopLimit: uint8(r.Uint32()),
				Payload: make([]byte, r.IntN(40)), Capacity: 200}
			for i := range spec.Payload {
				spec.Payload[i] = byte(r.Uint32())
			}
			spec.PayloadLen = len(spec.Payload)
			spec.SGID[3], spec.DGID[15] = byte(k), byte(ci)
			pkt, st := callBuild(h, spec)
			if st != statusOK {
				t.Fatalf("%s: build: %s", settings, lastError(h))
			}
			want, err := m.BuildPacket(header.Headers{
				LRH: header.LRH{VL: spec.VL, SL: spec.SL, DLID: spec.DLID, SLID: spec.SLID},
				GRH: header.GRH{TClass: spec.TClass, FlowLabel: spec.FlowLabel, HopLmt: spec.HopLimit, SGID: spec.SGID, DGID: spec.DGID},
				BTH: header.BTH{OpCode: spec.OpCode, PKey: spec.PKey, Resv6: spec.Resv6, DestQP: spec.DestQP, PSN: spec.PSN},
			}, spec.Payload)
			if err != nil || !bytes.Equal(pkt, want) {
				t.Fatalf("%s: built %x, model %x (%v)", settings, pkt, want, err)
			}
			if st := callSend(h, pkt, lid); st != statusOK {
				t.Fatalf("%s: send: %s", settings, lastError(h))
			}
			if nics[lid] == nil {
				nics[lid] = m.NIC(lid)
			}
			if err := nics[lid].Send(want); err != nil || !bytes.Equal(pkt, want) {
				t.Fatalf("%s: sent %x, model %x (%v)", settings, pkt, want, err)
			}
			for hop, l := range pathLinks {
				cong := r.IntN(2)
				if ports[l] == nil {
					if ports[l], err = m.Port(l); err != nil {
						t.Fatal(err)
					}
				}
				var got refmodel.StageResult
				if k%2 == 0 {
					// The caller holds the state, as an RTL testbench does.
					words := goState(ports[l].State(), int(in.StateWords)+r.IntN(3))
					var field uint64
					got, field, st = callStageField(h, pkt, l.Switch, l.Port, cong, words)
					if st == statusOK {
						wantRes, err := ports[l].Stage(want, refmodel.Congestion(cong == 1))
						if err != nil || got != wantRes || !bytes.Equal(pkt, want) {
							t.Fatalf("%s: packet %d hop %d: C %+v %x, model %+v %x (%v)", settings, k, hop, got, pkt, wantRes, want, err)
						}
						if wf, err := m.Field(want, m.HopFieldName()); err != nil || wf != field {
							t.Fatalf("%s: hop_field %d, model %d (%v)", settings, field, wf, err)
						}
						if ws := goState(ports[l].State(), len(words)); !slices.Equal(words, ws) {
							t.Fatalf("%s: state after the stage %x, model %x", settings, words, ws)
						}
						// Keep the handle's own port in step for the odd packets.
						if st := callPortState(h, l.Switch, l.Port, words, true); st != statusOK {
							t.Fatalf("%s: set port state: %s", settings, lastError(h))
						}
					}
				} else {
					got, st = callStage(h, pkt, l.Switch, l.Port, cong, nil)
					if st == statusOK {
						wantRes, err := ports[l].Stage(want, refmodel.Congestion(cong == 1))
						if err != nil || got != wantRes || !bytes.Equal(pkt, want) {
							t.Fatalf("%s: packet %d hop %d (own port): C %+v, model %+v (%v)", settings, k, hop, got, wantRes, err)
						}
					}
				}
				stages++
				if st != statusOK {
					// Only a packet the model refuses: a malformed sender field.
					_, err := ports[l].Stage(bytes.Clone(want), refmodel.Congestion(cong == 1))
					if st != errPacket || err == nil {
						t.Fatalf("%s: stage status %d (%s), model %v", settings, st, lastError(h), err)
					}
					break
				}
			}
			s, st := callReceive(h, pkt)
			ws, err := m.Receive(want)
			if (st == statusOK) != (err == nil) || (err == nil && s != ws) {
				t.Fatalf("%s: received %+v (%d: %s), model %+v (%v)", settings, s, st, lastError(h), ws, err)
			}
			for _, f := range m.Layout().Fields {
				v, st := callField(h, pkt, f.Name, false, 0)
				wv, err := m.Field(want, f.Name)
				if st != statusOK || err != nil || v != wv {
					t.Fatalf("%s: field %s: %d (%d), model %d (%v)", settings, f.Name, v, st, wv, err)
				}
			}
			if cd != 0 && err == nil {
				if st := callDecoderAddPacket(cd, pkt); st != statusOK {
					t.Fatalf("%s: decoder: %s", settings, lastError(cd))
				}
				tally.Add(ws)
			}
		}
		if cd != 0 {
			es, n, st := callDecoderEstimates(cd, 3, 0.9, 3)
			if st != statusOK || n != 3 {
				t.Fatalf("%s: estimates: %d %s", settings, st, lastError(cd))
			}
			if diff := cmp.Diff(tally.Estimates(3, 0.9), es); diff != "" {
				t.Fatalf("%s: estimates (-model +C):\n%s", settings, diff)
			}
			decoded++
		}
	}
}

// TestErrors gives every entry point bad arguments: each must return its
// status, keep its message, and change none of its outputs.
func TestErrors(t *testing.T) {
	if v := callVersion(); v != version.String() {
		t.Errorf("version %q, want %q", v, version.String())
	}
	for _, tc := range []struct {
		config string
		want   string
	}{{"hash=md5", "unknown hash"}, {"count-bits=3 count-bits=4", "twice"}, {"max-port=300", "max-port"}} {
		h, st, msg := callModelNew(tc.config, 256)
		if st != errConfig || h != 0 || !strings.Contains(msg, tc.want) {
			t.Errorf("ibr_model_new(%q): %d %d %q", tc.config, st, h, msg)
		}
	}
	if h, st, _ := callModelNew("hash=md5", 0); st != errConfig || h != 0 {
		t.Errorf("no error buffer: %d %d", st, h)
	}
	if _, st, msg := callModelNew("hash=md5 "+strings.Repeat("x", 300), 16); st != errConfig || len(msg) != 15 {
		t.Errorf("a long message in a short buffer: %d %q", st, msg)
	}

	h := mustModel(t, "")
	in, _ := callInfo(h)
	spec := packetSpec{SLID: 1, DLID: 2, PSN: 3, Capacity: 100}
	pkt, st := callBuild(h, spec)
	if st != statusOK {
		t.Fatal(lastError(h))
	}
	if st := callSend(h, pkt, 1); st != statusOK {
		t.Fatal(lastError(h))
	}
	state := make([]uint32, in.StateWords)
	if st := callPortState(h, 1, 1, state, false); st != statusOK {
		t.Fatal(lastError(h))
	}
	orig, origState := bytes.Clone(pkt), slices.Clone(state)
	check := func(what string, got, want status, msgPart string) {
		t.Helper()
		code, msg := callLastError(h, 1024)
		if got != want || code != want || !strings.Contains(msg, msgPart) {
			t.Errorf("%s: status %d (last error %d %q), want %d with %q", what, got, code, msg, want, msgPart)
		}
		if !bytes.Equal(pkt, orig) || !slices.Equal(state, origState) {
			t.Errorf("%s: a failing call changed its outputs", what)
			copy(pkt, orig)
			copy(state, origState)
		}
	}
	_, st = callStage(h, pkt, 1, 1, 2, state)
	check("congested 2", st, errArg, "congested is 2")
	_, st = callStage(h, pkt, 1024, 1, 0, state)
	check("switch outside the fabric", st, errArg, "outside the configured fabric")
	_, st = callStage(h, pkt, 1, 1, 0, state[:3])
	check("3 state words", st, errArg, "need 4")
	big := append(slices.Clone(state), 1)
	_, st = callStage(h, pkt, 1, 1, 0, big)
	check("a state bit above the state", st, errState, "bits from 128 up must be 0")
	_, st = callStage(h, pkt, 1, 1, 0, make([]uint32, 4))
	check("the zero state", st, errState, "fixed point")
	_, st = callStage(h, pkt[:20], 1, 1, 0, state)
	check("a short buffer", st, errPacket, "PktLen")
	bad := bytes.Clone(pkt)
	bad[9] ^= 0x80 // BTH byte 1 (P_Key): the VCRC no longer matches
	pkt, orig = bad, bad
	_, st = callStage(h, pkt, 1, 1, 0, state)
	check("a corrupt packet", st, errPacket, "VCRC")
	_, st = callReceive(h, pkt)
	check("receive a corrupt packet", st, errPacket, "VCRC")
	pkt, orig = bytes.Clone(origPacket(t, h, spec)), origPacket(t, h, spec)
	_, st = callStage(h, nil, 1, 1, 0, state)
	check("no packet", st, errArg, "length 0")
	_, st = callField(h, pkt, "hop_count", true, 8)
	check("a value too wide", st, errPacket, "")
	_, st = callField(h, pkt, "hop_port", false, 0)
	check("no such field", st, errPacket, "hop_port")
	if _, st := callBuild(h, packetSpec{Capacity: 10}); st != errSpace {
		t.Errorf("build into 10 bytes: %d", st)
	}
	if _, st := callBuild(h, packetSpec{NullSpec: true, Capacity: 100}); st != errArg {
		t.Errorf("build a NULL spec: %d", st)
	}
	if _, st := callBuild(h, packetSpec{PayloadLen: 5, Capacity: 100}); st != errArg {
		t.Errorf("build a NULL payload of 5 bytes: %d", st)
	}
	if _, st := callBuild(h, packetSpec{NullBuffer: true, Capacity: 100}); st != errArg {
		t.Errorf("build into a NULL buffer: %d", st)
	}
	if _, st := callBuild(h, packetSpec{Payload: make([]byte, 9000), PayloadLen: 9000, Capacity: 100}); st != errArg {
		t.Errorf("a payload past the 11-bit PktLen: %d", st)
	}
	if s, st := callString(h, true, 64); st != errSpace || s != "" {
		t.Errorf("a digest in 64 bytes: %d %q", st, s)
	}
	if d, st := callDiff(h, pkt, bad, 20); st != errSpace || len(d) != 19 {
		t.Errorf("a diff in 20 bytes: %d %q", st, d)
	}
	if d, st := callDiff(h, pkt, pkt, 20); st != statusOK || d != "" {
		t.Errorf("diff of equal packets: %d %q", st, d)
	}
	n := callErrorCount(h)
	if n < 10 {
		t.Errorf("%d errors counted", n)
	}
	if callClearErrors(h) != statusOK || callErrorCount(h) != 0 {
		t.Error("errors not cleared")
	}
	if code, msg := callLastError(h, 100); code != statusOK || msg != "" {
		t.Errorf("after clearing: %d %q", code, msg)
	}

	// Decoders.
	if _, st := callDecoderNew(h, 2, []refmodel.Link{{Switch: 1, Port: 1}}, []int32{3}); st != errArg {
		t.Errorf("a hop outside the path: %d", st)
	}
	if _, st := callDecoderNew(h, 2, []refmodel.Link{{Switch: 1, Port: 1}}, nil); st != errArg {
		t.Errorf("NULL hops: %d", st)
	}
	d, st := callDecoderNew(h, 1, []refmodel.Link{{Switch: 1, Port: 1}}, []int32{1})
	if st != statusOK {
		t.Fatal(lastError(h))
	}
	if _, n, st := callDecoderEstimates(d, 1, 0.99, 0); st != errSpace || n != 1 {
		t.Errorf("estimates into 0 entries: %d %d", st, n)
	}
	if _, _, st := callDecoderEstimates(d, 1, 1.5, 1); st != errArg {
		t.Errorf("p = 1.5: %d", st)
	}
	if st := callDecoderAddSample(d, refmodel.Sample{HopBit: 2}); st != errArg {
		t.Errorf("hop bit 2: %d", st)
	}
	if st := callDecoderAddPacket(d, bad); st != errPacket {
		t.Errorf("a corrupt packet: %d", st)
	}
	fullID := mustModel(t, "scheme=fullid count-bits=4")
	if _, st := callDecoderNew(fullID, 1, []refmodel.Link{{Switch: 1, Port: 1}}, []int32{1}); st != errArg || !strings.Contains(lastError(fullID), "FullIDCounts") {
		t.Errorf("a full-ID decoder: %d %s", st, lastError(fullID))
	}

	// Handles.
	if _, st := callStage(d, pkt, 1, 1, 0, nil); st != errHandle || !strings.Contains(lastError(d), "decoder, not a model") {
		t.Errorf("a decoder as a model: %d %s", st, lastError(d))
	}
	if st := callDecoderAddPacket(h, pkt); st != errHandle {
		t.Errorf("a model as a decoder: %d", st)
	}
	if callFree(d) != statusOK || callFree(d) != errHandle {
		t.Error("double free of a decoder")
	}
	for _, bogus := range []uintptr{0, 1 << 40, ^uintptr(0)} {
		if _, st := callStage(bogus, pkt, 1, 1, 0, nil); st != errHandle {
			t.Errorf("handle %#x: %d", bogus, st)
		}
		if code, msg := callLastError(bogus, 100); code != errHandle || !strings.Contains(msg, "not a live") {
			t.Errorf("last error of handle %#x: %d %q", bogus, code, msg)
		}
		if callErrorCount(bogus) != 0 || callFree(bogus) != errHandle {
			t.Errorf("handle %#x counted or freed", bogus)
		}
	}
}

func origPacket(t *testing.T, h uintptr, spec packetSpec) []byte {
	pkt, st := callBuild(h, spec)
	if st != statusOK || callSend(h, pkt, 1) != statusOK {
		t.Fatal(lastError(h))
	}
	return pkt
}

// TestPortSeedState: the seed's state of a port is a fresh port's, whatever
// the handle's own port has drawn since.
func TestPortSeedState(t *testing.T) {
	h := mustModel(t, "hash=crc32 generator=lfsr-lut/b16 count-bits=4 seed=9")
	c, _ := refmodel.ParseConfig("hash=crc32 generator=lfsr-lut/b16 count-bits=4 seed=9")
	m, _ := refmodel.New(c)
	p, err := m.Port(refmodel.Link{Switch: 5, Port: 6})
	if err != nil {
		t.Fatal(err)
	}
	want := goState(p.State(), 2)
	pkt, _ := callBuild(h, packetSpec{Capacity: 100})
	callSend(h, pkt, 1)
	for range 3 {
		if _, st := callStage(h, pkt, 5, 6, 0, nil); st != statusOK {
			t.Fatal(lastError(h))
		}
	}
	seed, own := make([]uint32, 2), make([]uint32, 2)
	if st := callPortSeedState(h, 5, 6, seed); st != statusOK || !slices.Equal(seed, want) {
		t.Errorf("seed state %x (%d), want %x", seed, st, want)
	}
	if callPortState(h, 5, 6, own, false) != statusOK || slices.Equal(own, want) {
		t.Errorf("the own port's state %x did not move from the seed's", own)
	}
	if st := callPortSeedState(h, 5, 49, seed); st != errArg {
		t.Errorf("port 49 of 48: %d", st)
	}
}

// TestSenderState: with sender draws there is no switch state; a state
// array must be all zero and stays so.
func TestSenderState(t *testing.T) {
	h := mustModel(t, "generator=sender sender-draws=3")
	in, _ := callInfo(h)
	if in.StateBits != 0 || in.StateWords != 0 || in.SenderL != 3 || in.CountBits != 0 {
		t.Fatalf("info %+v", in)
	}
	pkt, st := callBuild(h, packetSpec{SLID: 9, DLID: 1, Capacity: 100})
	if st != statusOK || callSend(h, pkt, 9) != statusOK {
		t.Fatal(lastError(h))
	}
	words := make([]uint32, 8)
	if _, st := callStage(h, pkt, 1, 1, 0, words); st != statusOK || slices.ContainsFunc(words, func(w uint32) bool { return w != 0 }) {
		t.Errorf("stage: %d %x %s", st, words, lastError(h))
	}
	words[7] = 1
	if _, st := callStage(h, pkt, 1, 1, 0, words); st != errState {
		t.Errorf("a nonzero state with sender draws: %d", st)
	}
}

// TestConcurrent runs stages on one handle from several goroutines (the
// library serialises them) and on separate handles at once; run with -race.
func TestConcurrent(t *testing.T) {
	shared := mustModel(t, "")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := mustModel(t, fmt.Sprintf("seed=%d", g))
			for i := range 200 {
				for _, h := range []uintptr{shared, own} {
					pkt, st := callBuild(h, packetSpec{SLID: 1, PSN: uint32(i), Capacity: 100})
					if st != statusOK || callSend(h, pkt, 1) != statusOK {
						t.Error(lastError(h))
						return
					}
					if _, st := callStage(h, pkt, uint16(g), 1, i%2, nil); st != statusOK {
						t.Error(lastError(h))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestStateWords(t *testing.T) {
	for _, bits := range []int{1, 31, 32, 33, 64, 127, 128, 136, 200} {
		r := rand.New(rand.NewPCG(uint64(bits), 1))
		st := make(rng.State, (bits+63)/64)
		for i := range bits {
			if r.IntN(2) == 1 {
				st[i/64] |= 1 << (i % 64)
			}
		}
		words := make([]uint32, (bits+31)/32+1)
		stateToWords(st, words)
		if want := goState(st, len(words)); !slices.Equal(words, want) {
			t.Errorf("%d bits: words %x, want %x", bits, words, want)
		}
		back, err := stateFromWords(words, bits, nil)
		if err != nil || !slices.Equal(back, st) {
			t.Errorf("%d bits: read back %x (%v), want %x", bits, back, err, st)
		}
		words[bits/32] |= 1 << (bits % 32)
		if _, err := stateFromWords(words, bits, nil); err == nil {
			t.Errorf("%d bits: bit %d accepted", bits, bits)
		}
	}
}
