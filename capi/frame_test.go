// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// The frame kinds of the tests: how a sent packet is damaged on the link.
const (
	frameSound    = iota
	frameVCRC     // a VCRC bit flipped
	frameICRC     // an ICRC bit flipped, the VCRC resealed: sound to the stage
	frameLonger   // PktLen made longer than the frame, the VCRC resealed
	frameShorter  // PktLen made shorter (down to 0), the VCRC resealed
	frameOversize // PktLen beyond the longest legal packet, the frame as long
	frameUnsealed // PktLen changed and the VCRC left: two reasons at once
	numFrameKinds
)

var frameKindNames = [numFrameKinds]string{"sound", "vcrc", "icrc", "longer", "shorter", "oversize", "unsealed"}

// setPktLen writes PktLen into LRH bytes 4-5, keeping Rsv5.
func setPktLen(frame []byte, pl int) {
	v := binary.BigEndian.Uint16(frame[header.LRHPosPktLen:])
	binary.BigEndian.PutUint16(frame[header.LRHPosPktLen:], v&^header.MaxPktLen|uint16(pl))
}

// randomFrame builds and sends a random packet of the model h and damages it
// as kind says (resealing through ibr_frame_seal).
func randomFrame(t *testing.T, h uintptr, r *rand.Rand, kind int) []byte {
	t.Helper()
	spec := packetSpec{SLID: 3, DLID: uint16(r.Uint32()), DestQP: r.Uint32() >> 8, PSN: r.Uint32() >> 8, Resv6: uint8(r.IntN(64)),
		Payload: make([]byte, r.IntN(60)), Capacity: 1 << 13}
	if kind == frameOversize {
		// 4*PktLen bytes: LRH, GRH when global, BTH, payload, pad, ICRC.
		pl := refmodel.MaxLegalPktLen + 1 + r.IntN(header.MaxPktLen-refmodel.MaxLegalPktLen)
		spec.Payload = make([]byte, 4*pl-64-header.ICRCLen)
	}
	for i := range spec.Payload {
		spec.Payload[i] = byte(r.Uint32())
	}
	spec.PayloadLen = len(spec.Payload)
	f, st := callBuild(h, spec)
	if st != statusOK || callSend(h, f, 3) != statusOK {
		t.Fatalf("%s frame: %s", frameKindNames[kind], lastError(h))
	}
	n := len(f) - header.VCRCLen
	pl := int(header.PktLenOf(f))
	seal := func() {
		if st := callFrameSeal(h, f); st != statusOK {
			t.Fatalf("ibr_frame_seal: %s", lastError(h))
		}
	}
	switch kind {
	case frameVCRC:
		f[n+r.IntN(2)] ^= 1 << r.IntN(8)
	case frameICRC:
		f[n-header.ICRCLen+r.IntN(header.ICRCLen)] ^= 1 << r.IntN(8)
		seal()
	case frameLonger, frameUnsealed:
		setPktLen(f, pl+1+r.IntN(header.MaxPktLen-pl))
		if kind == frameLonger {
			seal()
		}
	case frameShorter:
		setPktLen(f, pl-1-r.IntN(pl))
		seal()
	}
	return f
}

// verdict is the spec's step 0 on a frame (docs/spec.md section 5), the
// test's own oracle.
func verdict(f []byte) refmodel.Corruption {
	var c refmodel.Corruption
	n := len(f) - header.VCRCLen
	if binary.LittleEndian.Uint16(f[n:]) != header.CRC16(f[:n]) {
		c |= refmodel.CorruptVCRC
	}
	if pl := int(header.PktLenOf(f)); pl != n/4 {
		c |= refmodel.CorruptLength
	}
	if header.PktLenOf(f) > refmodel.MaxLegalPktLen {
		c |= refmodel.CorruptOversize
	}
	return c
}

// soundCopy is the frame as a sound packet: PktLen describing it and its
// VCRC valid.
func soundCopy(f []byte) []byte {
	s := bytes.Clone(f)
	n := len(s) - header.VCRCLen
	setPktLen(s, n/4)
	binary.LittleEndian.PutUint16(s[n:], header.CRC16(s[:n]))
	return s
}

// TestStageFrame runs frames of every kind through ibr_stage_frame, for
// configurations of every scheme and generator kind, with the caller's state
// and with the handle's own port, and checks each against a second handle
// that runs ibr_stage on the frame made sound (PktLen describing it, a valid
// VCRC): the same result, hop field and generator state, and the same bytes
// but for a corrupt frame's own PktLen and its VCRC, stomped (the complement
// of the valid one); the corruption reasons are the spec's. The library's
// answer is refmodel.StageCutThrough's.
func TestStageFrame(t *testing.T) {
	cfgs := allConfigs()
	step := 2
	if testing.Short() {
		step = 30
	}
	counts := map[string]int{}
	for ci := 0; ci < len(cfgs); ci += step {
		c := cfgs[ci]
		settings := c.Settings()
		h, ref := mustModel(t, settings), mustModel(t, settings)
		m, err := refmodel.New(c)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := callInfo(h)
		r := rand.New(rand.NewPCG(uint64(ci), 13))
		l := refmodel.Link{Switch: uint16(r.IntN(c.MaxSwitch + 1)), Port: uint8(1 + r.IntN(c.MaxPort))}
		var state, refState []uint32
		port, err := m.Port(l)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 4 * numFrameKinds {
			kind := i % numFrameKinds
			own := i/numFrameKinds%2 == 1 // the handle's own port, or the caller's state
			state, refState = nil, nil
			if in.StateWords > 0 {
				state = goState(port.State(), int(in.StateWords))
				if own {
					// The handles' own ports start where the model's is.
					if callPortState(h, l.Switch, l.Port, state, true) != statusOK || callPortState(ref, l.Switch, l.Port, state, true) != statusOK {
						t.Fatal(lastError(h))
					}
					state = nil
				} else {
					refState = slices.Clone(state)
				}
			}
			f := randomFrame(t, h, r, kind)
			orig, cong := bytes.Clone(f), r.IntN(2)
			what := fmt.Sprintf("%s: frame %d (%s, own port %v)", settings, i, frameKindNames[kind], own)
			res, field, raw, st := callStageFrame(h, f, l.Switch, l.Port, cong, state, false)
			corrupt := refmodel.Corruption(raw)
			// The model itself, on the same frame from the same generator.
			mf := bytes.Clone(orig)
			mres, mc, merr := m.StageCutThrough(mf, l.Switch, l.Port, cong == 1, port.Hop(refmodel.Congestion(cong == 1)).Gen)
			if merr != nil || st != statusOK {
				t.Fatalf("%s: status %d (%s), model %v", what, st, lastError(h), merr)
			}
			if mres.Malformed {
				// A malformed sender field (spec section 4): forwarded with
				// no draw and no telemetry change, stomped when corrupt. The
				// C result says so by its hop field of 0.
				want := bytes.Clone(orig)
				if mc != 0 {
					n := len(want) - header.VCRCLen
					binary.LittleEndian.PutUint16(want[n:], ^header.CRC16(want[:n]))
				}
				mres.Malformed = false
				if !bytes.Equal(f, want) || !bytes.Equal(mf, want) || res != mres || field != 0 || raw != uint32(mc) || mc != verdict(orig) {
					t.Fatalf("%s: a malformed frame:\n in    %x\n got   %x\n want  %x\n result %+v field %d corrupt %v; model %+v %v",
						what, orig, f, want, res, field, corrupt, mres, mc)
				}
				counts["malformed"]++
				continue
			}
			want := soundCopy(orig)
			wantRes, wantField, wantSt := callStageField(ref, want, l.Switch, l.Port, cong, refState)
			if wantSt != statusOK {
				t.Fatalf("%s: ibr_stage on the sound copy: %d (%s)", what, wantSt, lastError(ref))
			}
			if wantC := verdict(orig); raw != uint32(wantC) || mc != wantC {
				t.Fatalf("%s: corrupt %v, model %v, the spec %v", what, corrupt, mc, wantC)
			}
			counts[corrupt.String()]++
			if corrupt != 0 {
				// The sound copy's output, with the frame's own PktLen and the VCRC stomped.
				copy(want[header.LRHPosPktLen:], orig[header.LRHPosPktLen:header.LRHPosPktLen+2])
				n := len(want) - header.VCRCLen
				binary.LittleEndian.PutUint16(want[n:], ^header.CRC16(want[:n]))
			}
			if !bytes.Equal(f, want) || !bytes.Equal(f, mf) {
				t.Fatalf("%s:\n in    %x\n got   %x\n want  %x\n model %x", what, orig, f, want, mf)
			}
			if res != wantRes || res != mres || field != wantField {
				t.Fatalf("%s: result %+v field %d; sound copy %+v field %d; model %+v", what, res, field, wantRes, wantField, mres)
			}
			if !slices.Equal(state, refState) {
				t.Fatalf("%s: state %x, sound copy %x", what, state, refState)
			}
			if in.StateWords > 0 {
				if !own && !slices.Equal(state, goState(port.State(), len(state))) {
					t.Fatalf("%s: state %x, model %x", what, state, goState(port.State(), len(state)))
				}
				if own {
					a, b := make([]uint32, in.StateWords), make([]uint32, in.StateWords)
					callPortState(h, l.Switch, l.Port, a, false)
					callPortState(ref, l.Switch, l.Port, b, false)
					if !slices.Equal(a, b) || !slices.Equal(a, goState(port.State(), len(a))) {
						t.Fatalf("%s: own port %x, sound copy's %x, model %x", what, a, b, goState(port.State(), len(a)))
					}
				}
			}
		}
	}
	t.Logf("frames by verdict: %v", counts)
	for _, v := range []string{"sound", "vcrc", "length", "length+oversize", "oversize", "vcrc+length"} {
		if counts[v] == 0 && !testing.Short() {
			t.Errorf("no frame came out %s: %v", v, counts)
		}
	}
}

// TestStageFrameErrors gives ibr_stage_frame and ibr_frame_seal frames they
// cannot take: each must return its status, keep its message and change
// none of its outputs; and NULL result and corrupt are allowed.
func TestStageFrameErrors(t *testing.T) {
	h := mustModel(t, "")
	in, _ := callInfo(h)
	r := rand.New(rand.NewPCG(1, 2))
	sound := randomFrame(t, h, r, frameSound)
	state := make([]uint32, in.StateWords)
	if st := callPortSeedState(h, 1, 1, state); st != statusOK {
		t.Fatal(lastError(h))
	}
	origState := slices.Clone(state)
	global := mustModel(t, "global=true")
	globalFrame := randomFrame(t, global, r, frameSound)
	for _, tc := range []struct {
		what  string
		frame []byte
		cong  int
		sw    uint16
		want  status
		msg   string
	}{
		{"a frame of 4k+1 bytes", sound[:len(sound)-1], 0, 1, errPacket, "the link delivers 4k+2-byte frames"},
		{"a frame of 4k bytes", append(bytes.Clone(sound), 0, 0), 0, 1, errPacket, "4k+2-byte frames"},
		{"a 22-byte frame", sound[:22], 0, 1, errPacket, "does not reach the end of its headers and ICRC (26 bytes)"},
		{"a 6-byte frame", sound[:6], 0, 1, errPacket, "shorter than the 8-byte LRH"},
		{"a global frame to a local model", globalFrame, 0, 1, errPacket, "LNH=3"},
		{"a frame of 8194 bytes", append(bytes.Clone(sound), make([]byte, 8194-len(sound))...), 0, 1, errPacket, "longer than the 11-bit PktLen describes (8190 bytes)"},
		{"a buffer of 70,000 bytes", make([]byte, 70000), 0, 1, errArg, "more than any IBA packet"},
		{"no frame", nil, 0, 1, errArg, "length 0"},
		{"congested 2", sound, 2, 1, errArg, "ibr_stage_frame: congested is 2"},
		{"a switch outside the fabric", sound, 0, 1024, errArg, "outside the configured fabric"},
	} {
		f := bytes.Clone(tc.frame)
		_, _, c, st := callStageFrame(h, f, tc.sw, 1, tc.cong, state, false)
		code, msg := callLastError(h, 1024)
		if st != tc.want || code != tc.want || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: status %d (last error %d %q), want %d with %q", tc.what, st, code, msg, tc.want, tc.msg)
		}
		if !bytes.Equal(f, tc.frame) || !slices.Equal(state, origState) || c != 0xdead {
			t.Errorf("%s: a failing call changed its outputs (corrupt %#x)", tc.what, c)
			copy(state, origState)
		}
		if tc.frame == nil || len(tc.frame) > maxBuffer || tc.cong != 0 || tc.sw != 1 {
			continue
		}
		// ibr_frame_seal refuses the frames ibr_stage_frame refuses.
		if st := callFrameSeal(h, f); st != tc.want || !bytes.Equal(f, tc.frame) {
			t.Errorf("ibr_frame_seal of %s: status %d, want %d; changed %v", tc.what, st, tc.want, !bytes.Equal(f, tc.frame))
		}
	}
	// NULL result and corrupt: the same frame out.
	f, g := randomFrame(t, h, r, frameLonger), []byte(nil)
	g = bytes.Clone(f)
	s1, s2 := slices.Clone(state), slices.Clone(state)
	_, _, c, st1 := callStageFrame(h, f, 1, 1, 1, s1, false)
	_, _, _, st2 := callStageFrame(h, g, 1, 1, 1, s2, true)
	if st1 != statusOK || st2 != statusOK || !bytes.Equal(f, g) || !slices.Equal(s1, s2) || c&uint32(refmodel.CorruptLength) == 0 {
		t.Errorf("with and without result and corrupt: %d %d, frames equal %v, states equal %v, corrupt %v", st1, st2, bytes.Equal(f, g), slices.Equal(s1, s2), c)
	}
	// ibr_frame_seal writes the CRC-16 of the bytes before the frame's last two.
	f = randomFrame(t, h, r, frameUnsealed)
	if st := callFrameSeal(h, f); st != statusOK || verdict(f)&refmodel.CorruptVCRC != 0 {
		t.Errorf("ibr_frame_seal: %d, the frame's verdict %v", st, verdict(f))
	}

	// With sender draws, a frame whose hop field is 0 is malformed (spec
	// section 4): ibr_stage refuses it; ibr_stage_frame forwards it with no
	// telemetry change (a hop field of 0 in the result), its VCRC stomped
	// when it is corrupt.
	sender := mustModel(t, "generator=sender sender-draws=3")
	for _, kind := range []int{frameSound, frameVCRC} {
		f := randomFrame(t, sender, r, frameSound)
		if _, st := callField(sender, f, "hop_rand", true, 0); st != statusOK {
			t.Fatal(lastError(sender))
		}
		if kind == frameVCRC {
			f[len(f)-1] ^= 4
		}
		orig := bytes.Clone(f)
		if _, _, st := callStageField(sender, bytes.Clone(f), 1, 1, 0, nil); kind == frameSound && (st != errPacket || !strings.Contains(lastError(sender), "hop_rand")) {
			t.Errorf("ibr_stage on a malformed %s frame: status %d (%s)", frameKindNames[kind], st, lastError(sender))
		}
		want := bytes.Clone(orig)
		if kind == frameVCRC {
			n := len(want) - header.VCRCLen
			binary.LittleEndian.PutUint16(want[n:], ^header.CRC16(want[:n]))
		}
		res, field, c, st := callStageFrame(sender, f, 1, 1, 0, nil, false)
		if st != statusOK || !bytes.Equal(f, want) || field != 0 || res.HopReplaced || res.HopL != 0 || (c != 0) != (kind == frameVCRC) {
			t.Errorf("ibr_stage_frame on a malformed %s frame: status %d (%s), result %+v field %d corrupt %d, frame as wanted %v",
				frameKindNames[kind], st, lastError(sender), res, field, c, bytes.Equal(f, want))
		}
	}
}

// TestStageFrameBatch: ibr_stage_frame_batch gives every frame what its
// single call gives it (frame, status, result, corruption reasons, the
// state after), for configurations of every scheme, with a frame the stage
// cannot take in the batch.
func TestStageFrameBatch(t *testing.T) {
	cfgs := allConfigs()
	compared := 0
	for ci := 0; ci < len(cfgs); ci += 11 {
		c := cfgs[ci]
		settings := c.Settings()
		single, batched := mustModel(t, settings), mustModel(t, settings)
		r := rand.New(rand.NewPCG(uint64(ci), 17))
		const n = 3 * numFrameKinds
		var frames [][]byte
		cong := make([]uint8, n)
		for i := range n {
			frames = append(frames, randomFrame(t, single, r, i%numFrameKinds))
			cong[i] = uint8(r.IntN(2))
		}
		frames[4] = frames[4][:len(frames[4])-1] // not 4k+2 bytes
		l := refmodel.Link{Switch: uint16(r.IntN(c.MaxSwitch + 1)), Port: uint8(1 + r.IntN(c.MaxPort))}
		in, _ := callInfo(single)
		for _, own := range []bool{false, true} {
			var state, stateB []uint32
			if !own {
				state = make([]uint32, in.StateWords)
				if callPortSeedState(single, l.Switch, l.Port, state) != statusOK {
					t.Fatal(lastError(single))
				}
				stateB = slices.Clone(state)
			}
			var want [][]byte
			var wantSt []status
			var wantC []refmodel.Corruption
			for i, f := range frames {
				f = bytes.Clone(f)
				_, _, c, st := callStageFrame(single, f, l.Switch, l.Port, int(cong[i]), state, false)
				if st != statusOK {
					c = 0 // not written: the batch's array keeps its 0
				}
				want, wantSt, wantC = append(want, f), append(wantSt, st), append(wantC, refmodel.Corruption(c))
			}
			b := newBatch(frames, cong)
			defer b.free()
			st := callStageFrameBatch(batched, b, l.Switch, l.Port, stateB)
			what := fmt.Sprintf("%s, own generator %v", settings, own)
			if st != errPacket || !strings.HasPrefix(lastError(batched), "packet 4 of 21: ") {
				t.Fatalf("%s: batch status %d: %s", what, st, lastError(batched))
			}
			if got := b.statuses(); !slices.Equal(got, wantSt) {
				t.Errorf("%s: statuses %v, want %v", what, got, wantSt)
			}
			if got := b.corruptions(); !slices.Equal(got, wantC) {
				t.Errorf("%s: corruptions %v, want %v", what, got, wantC)
			}
			for i, f := range b.packets() {
				if !bytes.Equal(f, want[i]) {
					t.Fatalf("%s: frame %d: batch %x, single %x", what, i, f, want[i])
				}
			}
			if !slices.Equal(state, stateB) {
				t.Errorf("%s: state after the batch %x, after the singles %x", what, stateB, state)
			}
			compared += n
		}
	}
	if compared == 0 {
		t.Error("no frame compared")
	}
}

// TestStageFrameRaw: a raw frame (LNH 0 or 1: no BTH) passes ibr_stage_frame
// with no telemetry change and no draw, the result all zero; a corrupt one
// is stomped and its reason reported, as refmodel.StageCutThrough does.
func TestStageFrameRaw(t *testing.T) {
	h := mustModel(t, "")
	in, _ := callInfo(h)
	for _, lnh := range []uint8{header.LNHRaw, header.LNHIPv6Raw} {
		for _, bad := range []bool{false, true} {
			f := make([]byte, 30)
			for i := range f {
				f[i] = byte(7*i + 1)
			}
			f[header.LRHPosSL] = f[header.LRHPosSL]&^3 | lnh
			setPktLen(f, 7)
			n := len(f) - header.VCRCLen
			binary.LittleEndian.PutUint16(f[n:], header.CRC16(f[:n]))
			if bad {
				f[n] ^= 4
			}
			want := bytes.Clone(f)
			if bad {
				binary.LittleEndian.PutUint16(want[n:], ^header.CRC16(want[:n]))
			}
			state := make([]uint32, in.StateWords)
			if st := callPortSeedState(h, 1, 1, state); st != statusOK {
				t.Fatal(lastError(h))
			}
			before := slices.Clone(state)
			res, field, c, st := callStageFrame(h, f, 1, 1, 1, state, false)
			what := fmt.Sprintf("LNH %d, corrupt %t", lnh, bad)
			if st != statusOK {
				t.Fatalf("%s: %s", what, lastError(h))
			}
			if !bytes.Equal(f, want) || !slices.Equal(state, before) || field != 0 || res != (refmodel.StageResult{}) {
				t.Errorf("%s: frame % x (want % x), state drew %t, field %d, result %+v", what, f, want, !slices.Equal(state, before), field, res)
			}
			if wantC := uint32(0); bad && c != uint32(refmodel.CorruptVCRC) || !bad && c != wantC {
				t.Errorf("%s: corrupt %d", what, c)
			}
		}
	}
}
