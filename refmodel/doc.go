// Package refmodel is the bit-exact reference model of the reservoir-sampling
// telemetry of Taffet's thesis (chapters 3 and 5), over real IBA header bytes:
//
//	fullid        Alg. 2-4   switch ID and port of the sampled hop and of the sampled congested hop
//	tworeservoir  Alg. 5-7   a one-bit hash H(id, d) for each reservoir (section 5.2)
//	onereservoir  Alg. 8-9   one hash bit, a congested flag, one count (section 5.7): fits BTH Resv6
//
// # Using the model
//
// A Model is a validated Config (DefaultConfig, or ParseConfig of a string
// such as "hash=crc32 generator=lfsr-lut/b16 count-bits=4" with the command
// line's flag names). Its parts are those of a fabric, and each owns what the
// configuration gives it:
//
//	m, err := refmodel.New(refmodel.DefaultConfig())
//	nic := m.NewNIC(0x0101)                                   // a sender NIC (its LID)
//	port, err := m.NewPort(refmodel.Link{Switch: 7, Port: 3}) // a switch output port and its generator
//	pkt, err := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: 1})
//	res, err := port.Stage(pkt, refmodel.Congested)           // one switch stage, in place
//	s, err := m.Receive(pkt)                                  // the receiver's read
//
// For the one-bit schemes, a Tally over the candidate set of a source and
// destination (NewCandidateSet, CandidateSet.Add; Layered; package topo)
// decodes many samples (Tally.Add) into per-link estimates (Tally.Estimates,
// Tally.Counts) with the candidate-link filter of section 5.2 and the
// false-positive threshold of section 5.3; FullIDCounts is the full-ID
// scheme's receiver (Alg. 4). The examples run each step.
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
