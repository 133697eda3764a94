// SPDX-License-Identifier: Apache-2.0

package refmodel_test

import (
	"fmt"
	"log"

	"ibreservoir/refmodel"
)

// A packet from a sender NIC through a 5-hop path, read by the receiver:
// the model supplies the LNH, the layout, the generators and the CRCs.
//
// Make the ports once, before the packets: the model keeps one generator per
// link for its whole life (asking it for a link again returns the same Port,
// its generator continuing), as each switch port keeps its own.
// RecommendedConfig is the configuration that decodes soundly;
// DefaultConfig, the thesis's Hmult0 over the PSN, does not.
func Example() {
	m, err := refmodel.New(refmodel.RecommendedConfig()) // one-reservoir, 3-bit count, SipHash, lfsr-lut/b16
	if err != nil {
		log.Fatal(err)
	}
	nic := m.NIC(0x0101)
	var path []*refmodel.Port // once, outside any packet loop
	for _, sw := range []uint16{1, 10, 100, 20, 2} {
		port, err := m.Port(refmodel.Link{Switch: sw, Port: 5})
		if err != nil {
			log.Fatal(err)
		}
		path = append(path, port)
	}
	pkt, err := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: 7, Payload: []byte("hello")})
	if err != nil {
		log.Fatal(err)
	}
	for hop, port := range path {
		c := refmodel.Congestion(hop == 2) // the third switch's port is congested
		r, err := port.Stage(pkt, c)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("hop %d %-6s l=%d replaced=%t count=%d\n", hop+1, port.Link(), r.HopL, r.HopReplaced, r.HopCount)
	}
	s, err := m.Receive(pkt) // checks the VCRC and ICRC
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("received: id %d, hop bit %d, congested bit %d, weight %d\n", s.ID, s.HopBit, s.CongBit, s.HopCount)
	// Output:
	// hop 1 1:5    l=1 replaced=true count=1
	// hop 2 10:5   l=2 replaced=false count=2
	// hop 3 100:5  l=3 replaced=true count=3
	// hop 4 20:5   l=4 replaced=false count=4
	// hop 5 2:5    l=5 replaced=false count=5
	// received: id 16842759, hop bit 0, congested bit 1, weight 5
}

// Decoding many packets: 20 000 packets from leaf switch 1 to leaf switch 2
// all take one of the 8 paths of a small fat tree (two switches at each of
// hops 2, 3 and 4), through a congested core port. The receiver knows only
// the candidate links and recovers the path and the congestion: each path
// link's W estimates the 20 000 packets that crossed it, and its congested
// fraction, an estimate too, can stray slightly outside [0, 1].
//
// The path's ports are made once, before the packet loop. RecommendedConfig
// decodes soundly; with DefaultConfig (Hmult0 over the PSN) some links that
// carried nothing pass the threshold on other paths and windows.
func ExampleTally() {
	m, err := refmodel.New(refmodel.RecommendedConfig())
	if err != nil {
		log.Fatal(err)
	}
	set := refmodel.NewCandidateSet(5)
	candidates := [][]refmodel.Link{
		{{Switch: 1, Port: 33}, {Switch: 1, Port: 34}},                                                   // leaf 1 up to switch 10 or 11
		{{Switch: 10, Port: 1}, {Switch: 10, Port: 2}, {Switch: 11, Port: 1}, {Switch: 11, Port: 2}},     // up to core 100 or 101
		{{Switch: 100, Port: 1}, {Switch: 100, Port: 2}, {Switch: 101, Port: 1}, {Switch: 101, Port: 2}}, // down to 20 or 21
		{{Switch: 20, Port: 1}, {Switch: 21, Port: 1}},                                                   // down to leaf 2
		{{Switch: 2, Port: 5}}, // to the receiver
	}
	for hop, links := range candidates {
		if err := set.Add(hop+1, links...); err != nil {
			log.Fatal(err)
		}
	}
	tally, err := m.NewTally(set)
	if err != nil {
		log.Fatal(err)
	}
	var path []*refmodel.Port // the route every packet takes: its ports made once
	for _, l := range []refmodel.Link{{Switch: 1, Port: 33}, {Switch: 10, Port: 1}, {Switch: 100, Port: 2}, {Switch: 21, Port: 1}, {Switch: 2, Port: 5}} {
		p, err := m.Port(l)
		if err != nil {
			log.Fatal(err)
		}
		path = append(path, p)
	}
	nic := m.NIC(0x0101)
	for psn := range uint32(20000) {
		pkt, err := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: psn})
		if err != nil {
			log.Fatal(err)
		}
		for hop, p := range path {
			if _, err := p.Stage(pkt, refmodel.Congestion(hop == 2)); err != nil {
				log.Fatal(err)
			}
		}
		s, err := m.Receive(pkt)
		if err != nil {
			log.Fatal(err)
		}
		tally.Add(s)
	}
	for _, e := range tally.Estimates(5, refmodel.DefaultP) {
		if e.Passed {
			fmt.Printf("hop %d %-6s W=%5d (threshold %.0f) congested fraction %.2f\n", e.Hop, e.Link, e.W, e.Threshold, e.Fraction)
		}
	}
	// Output:
	// hop 1 1:33   W=19500 (threshold 1645) congested fraction -0.03
	// hop 2 10:1   W=20440 (threshold 1645) congested fraction -0.01
	// hop 3 100:2  W=21470 (threshold 1645) congested fraction 0.94
	// hop 4 21:1   W=19220 (threshold 1645) congested fraction 0.01
	// hop 5 2:5    W=19160 (threshold 1645) congested fraction -0.01
}

// A configuration string names settings as the command line's flags do
// (refmodel.Settings lists them, separated by spaces); Settings writes one
// back, and Digest identifies the configuration.
func ExampleParseConfig() {
	c, err := refmodel.ParseConfig("hash=crc32 generator=lfsr-lut/b16 count-bits=4 max-switch=2000")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Settings())
	fmt.Println(c.Digest())
	if _, err := refmodel.ParseConfig("generator=sender sender-draws=3 count-bits=3"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// scheme=onereservoir count-bits=4 placement=auto global=false hash=crc32 id=psn link=thesis generator=lfsr-lut/b16 seed=1 max-switch=2000 max-port=48
	// b4b6c8fdad2ac2ab7e6c6426fd7da1075090fcfc5004aa01bdaaf017ed251b61
	// configuration "generator=sender sender-draws=3 count-bits=3": count-bits has no effect here: the sender draws replace the counts
}

// A port's generator state is the RTL's gen_state_i/gen_state_o (bit i of
// the state is bit i of the port): two ports loaded with the same state
// decide alike. Every packet here comes from a first hop (the same port
// twice), so the ports draw with l = 2.
func ExamplePort_SetState() {
	m, err := refmodel.New(refmodel.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	a, _ := m.Port(refmodel.Link{Switch: 1, Port: 1})
	b, _ := m.Port(refmodel.Link{Switch: 2, Port: 2})
	fmt.Printf("%d-bit state %s\n", a.StateBits(), a.State().Hex(a.StateBits()))
	if err := b.SetState(a.State()); err != nil {
		log.Fatal(err)
	}
	first, _ := m.Port(refmodel.Link{Switch: 3, Port: 3})
	nic := m.NIC(1)
	for psn := range uint32(6) {
		var got []bool
		for _, p := range []*refmodel.Port{a, b} {
			pkt, _ := nic.Packet(refmodel.PacketSpec{DLID: 2, PSN: psn})
			_, _ = first.Stage(pkt, refmodel.Uncongested) // l = 1: always replaces
			r, err := p.Stage(pkt, refmodel.Uncongested)
			if err != nil {
				log.Fatal(err)
			}
			got = append(got, r.HopReplaced)
		}
		fmt.Println(got)
	}
	// Output:
	// 128-bit state 435083edc18bb9947ab4ff04f64a9796
	// [false false]
	// [false false]
	// [true true]
	// [true true]
	// [false false]
	// [true true]
}
