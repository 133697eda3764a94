// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"ibreservoir/header"
	"ibreservoir/rng"
)

// The packets of the vectors are valid IBA transport packets, so that a
// packet analyser (tshark, in the tests) dissects every frame of the pcaps
// to its ICRC and VCRC: a transport opcode whose extended headers come first
// in the payload, a data length that opcode allows, and header fields in their
// valid ranges. Only BTH byte 4's telemetry bits and the VCRC matter to a
// switch stage; the rest is realistic traffic around them.

// A transportOp is an IBA transport opcode (Vol. 1 section 9.2, table 38) the
// vectors use: its extended transport headers (section 9.3), which open the
// payload, and what data may follow them.
type transportOp struct {
	code uint8
	ext  int      // bytes of extended headers: RETH 16, AETH 4, ImmDt 4, AtomicAckETH 8, AtomicETH 28
	data dataRule // the data after them
	lead extHeader
}

// extHeader names the extended header that opens the payload when its
// contents are constrained: an AETH's syndrome must be a defined one, an
// AtomicETH's virtual address 8-byte aligned.
type extHeader uint8

const (
	anyHeader extHeader = iota
	aeth
	atomicETH
)

type dataRule uint8

const (
	noData   dataRule = iota // requests and acknowledgements: the extended headers alone
	onlyData                 // an Only packet: no data, or 2 bytes or more
	lastData                 // a Last packet: 2 bytes or more
)

// transportOps are the opcodes of the vectors: the reliable (RC) and
// unreliable (UC) connected services' Only and Last packets, requests and
// acknowledgements. Left out: First and Middle packets (IBA makes them a
// full path MTU, 256 bytes or more, longer than a vector's packet), the
// datagram services (their DETH and RDETH), and RC SEND Last and Only
// without immediate data (tshark 4.0 reads their data as RPC-over-RDMA and
// reports a short one malformed). Data is never 1 byte: tshark reads one
// data byte and its three zero pad bytes as an Ethertype header.
var transportOps = []transportOp{
	{0x03, 4, lastData, anyHeader},  // RC SEND Last with Immediate: ImmDt
	{0x05, 4, onlyData, anyHeader},  // RC SEND Only with Immediate: ImmDt
	{0x08, 0, lastData, anyHeader},  // RC RDMA WRITE Last
	{0x09, 4, lastData, anyHeader},  // RC RDMA WRITE Last with Immediate: ImmDt
	{0x0A, 16, onlyData, anyHeader}, // RC RDMA WRITE Only: RETH
	{0x0B, 20, onlyData, anyHeader}, // RC RDMA WRITE Only with Immediate: RETH, ImmDt
	{0x0C, 16, noData, anyHeader},   // RC RDMA READ Request: RETH
	{0x0F, 4, lastData, aeth},       // RC RDMA READ Response Last: AETH
	{0x10, 4, onlyData, aeth},       // RC RDMA READ Response Only: AETH
	{0x11, 4, noData, aeth},         // RC Acknowledge: AETH
	{0x12, 12, noData, aeth},        // RC ATOMIC Acknowledge: AETH, AtomicAckETH
	{0x13, 28, noData, atomicETH},   // RC CmpSwap: AtomicETH
	{0x14, 28, noData, atomicETH},   // RC FetchAdd: AtomicETH
	{0x22, 0, lastData, anyHeader},  // UC SEND Last
	{0x23, 4, lastData, anyHeader},  // UC SEND Last with Immediate: ImmDt
	{0x24, 0, onlyData, anyHeader},  // UC SEND Only
	{0x25, 4, onlyData, anyHeader},  // UC SEND Only with Immediate: ImmDt
	{0x28, 0, lastData, anyHeader},  // UC RDMA WRITE Last
	{0x29, 4, lastData, anyHeader},  // UC RDMA WRITE Last with Immediate: ImmDt
	{0x2A, 16, onlyData, anyHeader}, // UC RDMA WRITE Only: RETH
	{0x2B, 20, onlyData, anyHeader}, // UC RDMA WRITE Only with Immediate: RETH, ImmDt
}

// packetSpec is what varies between the packets of the vectors.
type packetSpec struct {
	lnh           uint8
	slid, dlid    uint16
	destQP, psn   uint32
	fecn, becn    bool
	resv6         uint8 // the whole Resv6 field, telemetry and any bit it leaves free
	payload       int   // bytes after the BTH before the pad: extended headers and data
	vl, sl        uint8
	pkey          uint16
	opcode        uint8
	lead          extHeader // the extended header that opens the payload
	payloadByte   byte
	flowLabel     uint32
	tclass, hoplm uint8
	footer        int // telemetry footer bytes of the layout
}

// randomPacket draws a valid packet of the given LNH with at most maxPayload
// bytes after the BTH (a multiple of 4, at least 28, so that every opcode
// fits), and a random Resv6.
func randomPacket(r *rng.Ideal, lnh uint8, maxPayload int) packetSpec {
	u := func(n uint32) uint32 { return r.Next() % n }
	p := packetSpec{
		lnh:  lnh,
		slid: uint16(1 + u(0xBFFF)), dlid: uint16(1 + u(0xBFFF)), // unicast LIDs, 0x0001..0xBFFF
		destQP: 2 + u(1<<24-3), // not QP0, QP1 (management) or 0xFFFFFF (multicast)
		psn:    u(1 << 24),
		fecn:   u(2) == 1, becn: u(2) == 1, resv6: uint8(u(64)),
		vl: uint8(u(15)), sl: uint8(u(16)), // VL15 carries subnet management packets only
		pkey:        uint16(r.Next()) | 1, // never 0x0000 or 0x8000, the invalid P_Keys
		payloadByte: byte(r.Next()), flowLabel: u(1 << 20), tclass: uint8(r.Next()), hoplm: uint8(r.Next()),
	}
	op := transportOps[u(uint32(len(transportOps)))]
	p.opcode, p.lead = op.code, op.lead
	room := maxPayload - op.ext // data bytes the packet may carry
	switch op.data {
	case noData:
		p.payload = op.ext
	case onlyData:
		d := int(u(uint32(room)))
		if d == 1 {
			d = 0
		}
		p.payload = op.ext + d
	case lastData:
		p.payload = op.ext + 2 + int(u(uint32(room-1)))
	}
	return p
}

// build returns the packet's wire bytes with correct ICRC and VCRC.
func (p packetSpec) build(dst []byte) ([]byte, error) {
	var h header.Headers
	h.LRH = header.LRH{VL: p.vl, SL: p.sl, LNH: p.lnh, DLID: p.dlid, SLID: p.slid}
	if p.lnh == header.LNHGlobal {
		h.GRH = header.GRH{IPVer: header.IPVer6, TClass: p.tclass, FlowLabel: p.flowLabel, NxtHdr: header.NxtHdrBTH, HopLmt: p.hoplm}
		for i := range h.GRH.SGID {
			h.GRH.SGID[i] = byte(0xFE ^ i)
			h.GRH.DGID[i] = byte(p.slid) + byte(i)
		}
	}
	h.BTH = header.BTH{OpCode: p.opcode, PKey: p.pkey, FECN: p.fecn, BECN: p.becn, Resv6: p.resv6, DestQP: p.destQP, PSN: p.psn}
	var data [MaxPacket]byte
	for i := range p.payload {
		data[i] = p.payloadByte + byte(i*37)
	}
	switch p.lead {
	case aeth:
		data[0] &= 0x1F // syndrome: ACK (bits 6..5 zero), the credit count in bits 4..0
	case atomicETH:
		data[7] &^= 7 // the virtual address of an atomic is 8-byte aligned
	}
	return header.AppendBuild(dst, h, data[:p.payload], p.footer)
}
