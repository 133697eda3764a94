// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"strings"
	"testing"

	"ibreservoir/refmodel"
)

// TestLimits: the library's limits end in a clear error or a correct
// result, never in a silently cut or wrapped value.
func TestLimits(t *testing.T) {
	// A configuration string just under the limit is read whole; one over
	// it is refused, not cut (a cut one read "seed=123" here).
	long := strings.Repeat(" ", maxString-len("seed=123456")) + "seed=123456"
	h := mustModel(t, long)
	if got, _ := callString(h, false, 1024); !strings.Contains(got, "seed=123456 ") {
		t.Errorf("a configuration of %d bytes read as %q", len(long), got)
	}
	for _, config := range []string{" " + long, strings.Repeat(" ", 200000) + "count-bits=4"} {
		h, st, msg := callModelNew(config, 512)
		if st != errArg || h != 0 || !strings.Contains(msg, "configuration: longer than 65536 bytes") {
			t.Errorf("a configuration of %d bytes: status %d handle %d %q", len(config), st, h, msg)
		}
	}

	h = mustModel(t, "")
	// A zeroed spec is refused; ibr_packet_spec_init's defaults are the Go
	// API's.
	if _, st := callBuild(h, packetSpec{Zeroed: true, Capacity: 100}); st != errArg || !strings.Contains(lastError(h), "call ibr_packet_spec_init first") {
		t.Errorf("a zeroed spec: %d %q", st, lastError(h))
	}
	// An output buffer of any size.
	pkt, st := callBuild(h, packetSpec{SLID: 1, DLID: 2, OpCode: 4, PKey: 0xFFFF, Capacity: 1 << 20})
	if st != statusOK {
		t.Fatalf("a 1 MiB output buffer: %s", lastError(h))
	}
	c, _ := refmodel.ParseConfig("")
	m, _ := refmodel.New(c)
	want, _ := m.NIC(1).Packet(refmodel.PacketSpec{DLID: 2})
	if callSend(h, pkt, 1) != statusOK || !bytes.Equal(pkt, want) {
		t.Errorf("C's default packet %x, Go's %x (%s)", pkt, want, lastError(h))
	}
	// One LID: the packet's SLID is the NIC's.
	if st := callSend(h, pkt, 2); st != errArg || !strings.Contains(lastError(h), "the packet's SLID is 0x0001, the NIC's LID 0x0002") {
		t.Errorf("a packet of another sender: %d %q", st, lastError(h))
	}
	// Sample counts up to count_max (7 with 3-bit counts).
	d, st := callDecoderNew(h, 1, []refmodel.Link{{Switch: 1, Port: 1}}, []int32{1})
	if st != statusOK {
		t.Fatal(lastError(h))
	}
	defer callFree(d)
	for _, tc := range []struct {
		s    refmodel.Sample
		want status
	}{{refmodel.Sample{HopCount: 7, CongCount: 7}, statusOK}, {refmodel.Sample{HopCount: 8}, errArg},
		{refmodel.Sample{HopCount: 1<<31 - 1}, errArg}, {refmodel.Sample{CongCount: 8}, errArg}} {
		if st := callDecoderAddSample(d, tc.s); st != tc.want || st != statusOK && !strings.Contains(lastError(d), "counts 0 to the model's count_max 7") {
			t.Errorf("sample %+v: %d %q", tc.s, st, lastError(d))
		}
	}
}

// TestOneGeneratorPerLink: a C program and the same Go program give the same
// bits: a model keeps one generator per link for its whole life, so asking
// for a link's port again continues its generator.
func TestOneGeneratorPerLink(t *testing.T) {
	for _, config := range []string{"", "hash=crc32 generator=lfsr-lut/b16 count-bits=4", "scheme=fullid count-bits=4"} {
		h := mustModel(t, config)
		c, _ := refmodel.ParseConfig(config)
		m, _ := refmodel.New(c)
		a, b := refmodel.Link{Switch: 7, Port: 3}, refmodel.Link{Switch: 9, Port: 1}
		nic := m.NIC(1)
		var goBits, cBits []byte
		path := []refmodel.Link{a, b, {Switch: 11, Port: 2}, a}
		for i := range 12 {
			pkt, _ := nic.Packet(refmodel.PacketSpec{DLID: 2, PSN: uint32(i)})
			cpkt := bytes.Clone(pkt)
			for hop, l := range path {
				p, err := m.Port(l) // the program asks for each hop's port again
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Stage(pkt, refmodel.Congestion(hop == 1)); err != nil {
					t.Fatal(err)
				}
				if _, st := callStage(h, cpkt, l.Switch, l.Port, b2i(hop == 1), nil); st != statusOK {
					t.Fatal(lastError(h))
				}
			}
			goBits, cBits = append(goBits, pkt...), append(cBits, cpkt...)
		}
		if !bytes.Equal(goBits, cBits) {
			t.Errorf("%q: the Go program's packets %x, the C program's %x", config, goBits, cBits)
		}
	}
}
