// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// FuzzCAPI calls the C entry points with fuzzed configuration strings,
// packet buffers, links, congested flags and generator states. Every call
// must end in a status (never IBR_ERR_INTERNAL, which is a recovered panic),
// and a switch stage the library accepts must be the Go model's, byte for
// byte. With op bit 0 set the packet's VCRC is made right first, so that
// mutated packets reach the stage and not only the VCRC check.
func FuzzCAPI(f *testing.F) {
	for _, config := range []string{"", "generator=sender sender-draws=3", "scheme=fullid count-bits=4 max-switch=1000",
		"scheme=tworeservoir count-bits=2 hash=siphash global=true", "hash=crc32 generator=lfsr-lut/b16 count-bits=4",
		"generator=shiftreg/free/7:3", "count-bits=", "hash=mult0 hash=mult0", "=", "global", "\x00", "seed=-1"} {
		c, err := refmodel.ParseConfig(config)
		pkt := []byte{1, 2, 3}
		if err == nil {
			m, _ := refmodel.New(c)
			pkt, _ = m.NIC(1).Packet(refmodel.PacketSpec{DLID: 2, PSN: 3, Payload: []byte("fuzz")})
		}
		for op := range uint8(8) {
			f.Add(config, pkt, uint16(1), uint8(1), int8(op%3), []byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 1}, op)
		}
	}
	f.Fuzz(func(t *testing.T, config string, pkt []byte, sw uint16, port uint8, cong int8, stateBytes []byte, op uint8) {
		h, st, msg := callModelNew(config, 256)
		ok := func(what string, st status) {
			t.Helper()
			if st < statusOK || st > errInternal || st == errInternal {
				_, m := callLastError(h, 2048)
				t.Fatalf("%s: status %d: %s", what, st, m)
			}
		}
		ok("ibr_model_new "+msg, st)
		if st != statusOK {
			if h != 0 {
				t.Fatalf("failed ibr_model_new left handle %d", h)
			}
			return
		}
		defer callFree(h)
		if i := strings.IndexByte(config, 0); i >= 0 {
			config = config[:i] // what C passed: the string ends at its NUL
		}
		c, err := refmodel.ParseConfig(config)
		if err != nil {
			t.Fatalf("the library took %q, refmodel refuses it: %v", config, err)
		}
		m, _ := refmodel.New(c)
		pkt = slices.Clone(pkt)
		if op&1 == 1 {
			_ = header.RecomputeVCRC(pkt)
		}
		words := make([]uint32, (len(stateBytes)+3)/4)
		for i, b := range stateBytes {
			words[i/4] |= uint32(b) << (8 * (i % 4))
		}
		in := slices.Clone(pkt)
		switch op >> 1 % 6 {
		case 0: // a stage with the caller's state, against the model
			before := slices.Clone(words)
			r, st := callStage(h, pkt, sw, port, int(cong), words)
			ok("ibr_stage", st)
			if st != statusOK {
				if !bytes.Equal(pkt, in) || !slices.Equal(words, before) {
					t.Fatal("a failing stage changed its outputs")
				}
				return
			}
			p, err := m.Port(refmodel.Link{Switch: sw, Port: port})
			if err != nil {
				t.Fatalf("the library staged on a port the model refuses: %v", err)
			}
			st0, _ := stateFromWords(before, p.StateBits(), nil)
			if err := p.SetState(st0); err != nil {
				t.Fatalf("the library took a state the model refuses: %v", err)
			}
			want := slices.Clone(in)
			wr, err := p.Stage(want, refmodel.Congestion(cong == 1))
			if err != nil || wr != r || !bytes.Equal(want, pkt) {
				t.Fatalf("library %+v %x, model %+v %x (%v)", r, pkt, wr, want, err)
			}
		case 1:
			_, st := callStage(h, pkt, sw, port, int(cong), nil)
			ok("ibr_stage (own port)", st)
		case 2:
			_, st := callReceive(h, pkt)
			ok("ibr_receive", st)
			d, st := callDecoderNew(h, 1+int(port%4), []refmodel.Link{{Switch: sw, Port: port}}, []int32{int32(cong)})
			ok("ibr_decoder_new", st)
			if st == statusOK {
				ok("ibr_decoder_add_packet", callDecoderAddPacket(d, pkt))
				_, _, st := callDecoderEstimates(d, int(port), float64(cong)/3, 4)
				ok("ibr_decoder_estimates", st)
				ok("ibr_free", callFree(d))
			}
		case 3:
			name := string(stateBytes)
			v, st := callField(h, pkt, name, false, 0)
			ok("ibr_field_get", st)
			ok("ibr_field_set", func() status { _, st := callField(h, pkt, name, true, v+uint64(cong)); return st }())
		case 4:
			ok("ibr_send", callSend(h, pkt, sw))
			_, st := callDiff(h, pkt, in, int(port))
			ok("ibr_diff", st)
		case 5:
			spec := packetSpec{SLID: sw, DLID: uint16(port), PSN: uint32(len(pkt)), Resv6: uint8(cong), Payload: pkt, PayloadLen: len(pkt), Capacity: int(sw % 512)}
			if len(stateBytes) > 0 {
				spec.PayloadLen = int(binary.LittleEndian.Uint16(append(slices.Clone(stateBytes), 0)))
				if spec.PayloadLen > len(pkt) {
					spec.PayloadLen = len(pkt) // the C caller's length is the truth: never beyond the buffer
				}
			}
			_, st := callBuild(h, spec)
			ok("ibr_packet_build", st)
			ok("ibr_port_set_state", callPortState(h, sw, port, words, true))
			ok("ibr_port_state", callPortState(h, sw, port, words, false))
		}
	})
}

// FuzzBatch gives ibr_stage_batch fuzzed layouts (offsets and lengths from
// the fuzzer, anywhere in or past the buffer), packets and congested flags:
// every call ends in a status (never IBR_ERR_INTERNAL); a refused layout
// changes nothing; otherwise each packet is what ibr_stage gives it, on a
// second model staged one packet at a time.
func FuzzBatch(f *testing.F) {
	c, _ := refmodel.ParseConfig("")
	m, _ := refmodel.New(c)
	nic := m.NIC(1)
	var good []byte
	for i := range 3 {
		p, _ := nic.Packet(refmodel.PacketSpec{DLID: 2, PSN: uint32(i), Payload: make([]byte, 4*i)})
		good = append(good, p...)
	}
	f.Add(good, []byte{0, 0, 30, 0, 30, 0, 34, 0, 64, 0, 38, 0}, []byte{0, 1, 0}, uint16(7), uint8(3))
	f.Add(good, []byte{0, 0, 30, 0, 4, 0, 30, 0}, []byte{1, 2}, uint16(7), uint8(3))
	f.Add(good[:50], []byte{40, 0, 30, 0}, []byte(nil), uint16(70), uint8(3))
	f.Fuzz(func(t *testing.T, data, layout, cong []byte, sw uint16, port uint8) {
		n := len(layout) / 4
		if n == 0 || len(data) == 0 {
			return
		}
		h, batched := mustModel(t, ""), mustModel(t, "")
		var flags []uint8
		if len(cong) >= n {
			flags = cong[:n]
		}
		b := newLayout(data, n, flags)
		defer b.free()
		for i := range n {
			b.setOff(i, int(binary.LittleEndian.Uint16(layout[4*i:])))
			b.setLen(i, int(binary.LittleEndian.Uint16(layout[4*i+2:])))
		}
		before := b.bytes()
		b.fillStatus(99)
		st := callStageBatch(batched, b, sw, port, nil)
		if st == errInternal || st < statusOK || st > errInternal {
			t.Fatalf("status %d: %s", st, lastError(batched))
		}
		if refused := strings.HasPrefix(lastError(batched), "ibr_stage_batch: "); refused != (b.statuses()[0] == 99) ||
			refused && (st != errArg || !bytes.Equal(b.bytes(), before) || slices.ContainsFunc(b.statuses(), func(s status) bool { return s != 99 })) {
			t.Fatalf("status %d %v: %s", st, b.statuses(), lastError(batched))
		} else if refused {
			return
		}
		// The layout was accepted: the packets lie in order, apart.
		got, sts := b.packets(), b.statuses()
		for i := range n {
			o := int(binary.LittleEndian.Uint16(layout[4*i:]))
			want := bytes.Clone(before[o : o+len(got[i])])
			cg := 0
			if b.cong != nil {
				cg = int(cong[i])
			}
			_, s := callStage(h, want, sw, port, cg, nil)
			if s != sts[i] || !bytes.Equal(want, got[i]) {
				t.Fatalf("packet %d: batch %x (%d), single %x (%d)", i, got[i], sts[i], want, s)
			}
		}
	})
}
