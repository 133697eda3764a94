// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// randomPackets builds n sent packets of the model h with SLID lid and
// random fields; the packets at the indices in corrupt get a wrong VCRC.
func randomPackets(t *testing.T, h uintptr, r *rand.Rand, n int, lid uint16, corrupt ...int) [][]byte {
	t.Helper()
	var pkts [][]byte
	for i := range n {
		spec := packetSpec{SLID: lid, DLID: uint16(r.Uint32()), DestQP: r.Uint32() >> 8, PSN: r.Uint32() >> 8,
			Payload: make([]byte, r.IntN(40)), Capacity: 200}
		spec.PayloadLen = len(spec.Payload)
		pkt, st := callBuild(h, spec)
		if st != statusOK || callSend(h, pkt, lid) != statusOK {
			t.Fatalf("packet %d: %s", i, lastError(h))
		}
		if slices.Contains(corrupt, i) {
			pkt[len(pkt)-1] ^= 0x40
		}
		pkts = append(pkts, pkt)
	}
	return pkts
}

// TestBatchMatchesSingle: a batch call gives every packet what its single
// call gives it, for configurations of every scheme and generator kind,
// with the caller's state and with the model's generator for the link, with
// two corrupt packets in the batch (each left as it was, with its status,
// the first named in the message), and the decoder's batch forms.
func TestBatchMatchesSingle(t *testing.T) {
	cfgs := allConfigs()
	step := 8
	if testing.Short() {
		step = 40
	}
	compared := 0
	for ci := 0; ci < len(cfgs); ci += step {
		c := cfgs[ci]
		settings := c.Settings()
		single, batched := mustModel(t, settings), mustModel(t, settings)
		r := rand.New(rand.NewPCG(uint64(ci), 11))
		const n = 40
		pkts := randomPackets(t, single, r, n, 3, 5, 17)
		cong := make([]uint8, n)
		for i := range cong {
			cong[i] = uint8(r.IntN(2))
		}
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
			var wantField []int
			for i, p := range pkts {
				p = bytes.Clone(p)
				_, field, st := callStageField(single, p, l.Switch, l.Port, int(cong[i]), state)
				want, wantSt, wantField = append(want, p), append(wantSt, st), append(wantField, int(field))
			}
			b := newBatch(pkts, cong)
			defer b.free()
			st := callStageBatch(batched, b, l.Switch, l.Port, stateB)
			what := fmt.Sprintf("%s, own generator %v", settings, own)
			if st != errPacket {
				t.Fatalf("%s: batch status %d: %s", what, st, lastError(batched))
			}
			if msg := lastError(batched); !strings.HasPrefix(msg, "packet 5 of 40: ") || !strings.Contains(msg, "VCRC") ||
				!strings.HasSuffix(msg, "(2 of 40 packets failed; the others were processed)") {
				t.Errorf("%s: message %q", what, msg)
			}
			if got := b.statuses(); !slices.Equal(got, wantSt) {
				t.Errorf("%s: statuses %v, want %v", what, got, wantSt)
			}
			got := b.packets()
			fields := b.hopFields()
			for i := range pkts {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("%s: packet %d: batch %x, single %x", what, i, got[i], want[i])
				}
				if wantSt[i] == statusOK && fields[i] != wantField[i] {
					t.Errorf("%s: packet %d: hop field %d, single %d", what, i, fields[i], wantField[i])
				}
			}
			if !slices.Equal(state, stateB) {
				t.Errorf("%s: state after the batch %x, after the singles %x", what, stateB, state)
			}
			if own && in.StateWords > 0 {
				a, bb := make([]uint32, in.StateWords), make([]uint32, in.StateWords)
				callPortState(single, l.Switch, l.Port, a, false)
				callPortState(batched, l.Switch, l.Port, bb, false)
				if !slices.Equal(a, bb) {
					t.Errorf("%s: the link's generator after the batch %x, after the singles %x", what, bb, a)
				}
			}
			compared += n
		}
		// Sending (on two fresh models: with sender draws the NIC's
		// generator has drawn for the packets above): packet 7 is another
		// sender's, refused.
		sender, batchSender := mustModel(t, settings), mustModel(t, settings)
		b := newBatch(pkts, nil)
		defer b.free()
		b.setSLID(7, 4)
		if st := callSendBatch(batchSender, b, 3); st != errArg ||
			!strings.HasPrefix(lastError(batchSender), "packet 7 of 40: ibr_send: the packet's SLID is 0x0004, the NIC's LID 0x0003") {
			t.Errorf("%s: send batch %d: %s", settings, st, lastError(batchSender))
		}
		for i, p := range b.packets() {
			q := bytes.Clone(pkts[i])
			if i == 7 {
				q = bytes.Clone(p) // the packet as the batch had it, SLID 4
			}
			if st := callSend(sender, q, 3); st != b.statuses()[i] || !bytes.Equal(p, q) {
				t.Errorf("%s: sent packet %d: batch %x (%d), single %x (%d)", settings, i, p, b.statuses()[i], q, st)
			}
		}
		if c.Telemetry.Scheme != header.FullID {
			compareDecoders(t, settings, single, batched, pkts)
		}
	}
	t.Logf("%d packets compared", compared)
	if compared == 0 {
		t.Error("nothing compared")
	}
}

// compareDecoders adds pkts to a decoder one by one and to another in one
// batch (then their samples, one with a count above count_max): the
// estimates must be equal.
func compareDecoders(t *testing.T, what string, single, batched uintptr, pkts [][]byte) {
	t.Helper()
	links := []refmodel.Link{{Switch: 1, Port: 1}, {Switch: 2, Port: 2}}
	hops := []int32{1, 2}
	d1, st1 := callDecoderNew(single, 2, links, hops)
	d2, st2 := callDecoderNew(batched, 2, links, hops)
	if st1 != statusOK || st2 != statusOK {
		t.Fatalf("%s: decoders: %s %s", what, lastError(single), lastError(batched))
	}
	defer callFree(d1)
	defer callFree(d2)
	var samples []refmodel.Sample
	for _, p := range pkts {
		if callDecoderAddPacket(d1, p) == statusOK {
			s, _ := callReceive(single, p)
			samples = append(samples, s)
		}
	}
	b := newBatch(pkts, nil)
	defer b.free()
	if st := callDecoderAddPackets(d2, b); st != errPacket || !strings.HasPrefix(lastError(d2), "packet 5 of 40: ") {
		t.Errorf("%s: add_packets %d: %s", what, st, lastError(d2))
	}
	in, _ := callInfo(single)
	over := refmodel.Sample{HopCount: int(in.CountMax) + 1}
	for _, s := range samples {
		callDecoderAddSample(d1, s)
	}
	st, sts := callDecoderAddSamples(d2, append(slices.Clone(samples), over))
	if st != errArg || sts[len(sts)-1] != errArg || slices.ContainsFunc(sts[:len(samples)], func(s status) bool { return s != statusOK }) {
		t.Errorf("%s: add_samples %d %v: %s", what, st, sts, lastError(d2))
	}
	if msg := lastError(d2); !strings.HasPrefix(msg, fmt.Sprintf("sample %d of %d: ", len(samples), len(samples)+1)) ||
		!strings.Contains(msg, "count_max") {
		t.Errorf("%s: add_samples message %q", what, msg)
	}
	e1, _, _ := callDecoderEstimates(d1, 2, 0.99, 2)
	e2, _, _ := callDecoderEstimates(d2, 2, 0.99, 2)
	if len(e1) != 2 || !slices.Equal(e1, e2) {
		t.Errorf("%s: estimates one by one %+v, in batches %+v", what, e1, e2)
	}
}

// TestBatchLayout: a batch whose layout is wrong is refused before any
// packet is touched, naming the packet.
func TestBatchLayout(t *testing.T) {
	h := mustModel(t, "")
	r := rand.New(rand.NewPCG(1, 2))
	pkts := randomPackets(t, h, r, 6, 1)
	cong := make([]uint8, len(pkts))
	cong[5] = 2
	for _, tc := range []struct {
		name string
		edit func(b *batchArgs)
		want string
	}{
		{"packet 2 of length 0", func(b *batchArgs) { b.setLen(2, 0) }, "ibr_stage_batch: packet 2: length 0"},
		{"packet 3 past the end", func(b *batchArgs) { b.setOff(3, b.size-10) }, "ibr_stage_batch: packet 3: bytes "},
		{"packet 1 overlapping packet 0", func(b *batchArgs) { b.setOff(1, 4) }, "ibr_stage_batch: packet 1: at byte 4, before the end of packet 0"},
		{"packet 4 longer than any packet", func(b *batchArgs) { b.setLen(4, 1<<16+1) }, "ibr_stage_batch: packet 4: length 65537"},
		{"congested 2 at packet 5", func(b *batchArgs) { b.cong = newBatch(nil, cong).cong }, "ibr_stage_batch: packet 5: congested is 2, want 0 or 1"},
		{"a NULL offset array", func(b *batchArgs) { b.off = nil }, "off or len is NULL with 6 packets"},
		{"a NULL data", func(b *batchArgs) { b.data = nil }, "data is NULL with 6 packets"},
		{"too many packets", func(b *batchArgs) { b.n = maxBatch + 1 }, "16777217 packets, more than a batch's 16777216"},
	} {
		b := newBatch(pkts, nil)
		b.fillStatus(99)
		keep := *b
		tc.edit(b)
		st := callStageBatch(h, b, 1, 1, nil)
		if msg := lastError(h); st != errArg || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: status %d %q, want %d with %q", tc.name, st, msg, errArg, tc.want)
		}
		if !bytes.Equal(keep.bytes(), bytes.Join(pkts, nil)) {
			t.Errorf("%s: a refused batch changed its packets", tc.name)
		}
		if slices.ContainsFunc(keep.statuses(), func(s status) bool { return s != 99 }) {
			t.Errorf("%s: a refused batch wrote statuses %v", tc.name, keep.statuses())
		}
		keep.free()
	}
}
