// SPDX-License-Identifier: Apache-2.0

// Package refmodel is the bit-exact reference model of the reservoir-sampling
// telemetry of Taffet's thesis (chapters 3 and 5), over real IBA header bytes:
//
//	fullid        Alg. 2-4   switch ID and port of the sampled hop and of the sampled congested hop
//	tworeservoir  Alg. 5-7   a one-bit hash H(id, d) for each reservoir (section 5.2)
//	onereservoir  Alg. 8-9   one hash bit, a congested flag, one count (section 5.7): fits BTH Resv6
//
// # Using the model
//
// A Model is a validated Config: RecommendedConfig (the configuration that
// decodes soundly: SipHash, id psn-slid, the lfsr-lut/b16 generator),
// DefaultConfig (the thesis's Hmult0 over the PSN, which the golden vectors
// use and which does NOT decode soundly: links that carried nothing pass
// the threshold), or ParseConfig of a string such as
// "hash=siphash id=psn-slid generator=lfsr-lut/b16 count-bits=4" (Settings
// names the settings, the command line's flag names). Its parts are those of
// a fabric. The model keeps one generator per link for its whole life, as a
// switch port does: make the ports once, before the packet loop (asking again
// for a link returns the same Port, its generator continuing). A quick start,
// from sender to estimates:
//
//	m, err := refmodel.New(refmodel.RecommendedConfig())
//	nic := m.NIC(0x0101)                                   // a sender NIC (its LID)
//	port, err := m.Port(refmodel.Link{Switch: 7, Port: 3}) // a switch output port and its generator
//	set := refmodel.NewCandidateSet(1)                     // the links the receiver considers, by hop
//	err = set.Add(1, port.Link(), refmodel.Link{Switch: 7, Port: 4})
//	tally, err := m.NewTally(set)
//	for psn := range uint32(10000) {
//		pkt, err := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: psn})
//		_, err = port.Stage(pkt, refmodel.Congested)   // one switch stage, in place
//		s, err := m.Receive(pkt)                       // the receiver's read (CRCs checked)
//		tally.Add(s)
//	}
//	for _, e := range tally.Estimates(1, refmodel.DefaultP) {
//		fmt.Println(e.Link, e.Passed, e.W, e.Fraction) // W estimates the packets that crossed the link
//	}
//
// (error checks left out). For the one-bit schemes, a Tally over the
// candidate set of a source and destination (NewCandidateSet,
// CandidateSet.Add; Layered; package topo) decodes many samples (Tally.Add)
// into per-link estimates (Tally.Estimates, Tally.Counts) with the
// candidate-link filter of section 5.2 and the false-positive threshold of
// section 5.3; FullIDCounts is the full-ID scheme's receiver (Alg. 4). The
// package's examples (example_test.go; go test -run Example -v) run each
// step on a 5-hop path and a small fat tree.
//
// To depend on the model from another module: the module path ibreservoir
// is not fetchable, so point it at a checkout, with a go.work
// (go work init . ../ibreservoir) or a replace directive
// (go mod edit -require ibreservoir@v0.0.0 -replace ibreservoir=../ibreservoir).
//
// Beneath these, each scheme has three steps on packet bytes (docs/spec.md
// section 5): the sender NIC initialising the fields (Model.Send), one switch
// stage rewriting them in place and recomputing the VCRC (Model.Stage), and
// the receiver NIC reading them (Model.Receive). Send and Stage take the
// generator as an argument (Config.NewSenderGenerator,
// Config.NewPortGenerator); Model.Walk makes the same draws without packet
// bytes, for Monte Carlo studies.
//
// Beside the model are its statistics: the exact distribution of the sampled
// hop under saturating counts, hardware generators and sender draws (section
// 5.6, saturation.go), and the analytic moments of the estimators (sections 3.3
// and 5.3, and the one-reservoir scheme's, which section 6.1 leaves open:
// moments.go and docs/onereservoir-moments.md).
package refmodel
