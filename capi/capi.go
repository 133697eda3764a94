// SPDX-License-Identifier: Apache-2.0

// Command capi is libibreservoir, the reference model (package refmodel) as
// a C library with the interface of ibreservoir.h:
//
//	go build -buildmode=c-shared  -o out/lib/libibreservoir.so ./capi
//	go build -buildmode=c-archive -o out/lib/libibreservoir.a  ./capi
//
// It is a thin layer: the public C functions (wrappers.c) call the ibrgo_*
// functions below, which check and convert their arguments (lengths, null
// pointers, the generator state's words) and make one call of package
// refmodel each; handle.go keeps the handles and their errors. Every entry
// recovers a panic into IBR_ERR_INTERNAL, and no Go pointer reaches C:
// handles are runtime/cgo Handles, and every output is copied into the
// caller's memory. docs/testbench.md documents the library.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include "ibreservoir.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"

	"ibreservoir/header"
	"ibreservoir/internal/version"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

func main() {}

// maxBuffer bounds the packet buffers the library reads: an IBA packet is at
// most 4*2047+2 bytes (an 11-bit PktLen), so a longer buffer is a wrong
// length, not a packet. maxString bounds the strings it reads (a
// configuration, a field name); a longer one is refused, never cut.
// maxBatch bounds a batch's packets. ibreservoir.h states them as limits.
const (
	maxBuffer = 1 << 16
	maxString = 1 << 16
	maxBatch  = 1 << 24
)

// specInit is IBR_PACKET_SPEC_INIT, the mark ibr_packet_spec_init leaves.
const specInit = C.IBR_PACKET_SPEC_INIT

var versionString = C.CString(version.String()) // static, never freed

//export ibrgo_version
func ibrgo_version() *C.char { return versionString }

// bytesOf is the caller's buffer p of n bytes as a slice (nil for n = 0).
// The slice is C memory: it is used during the call only.
func bytesOf(p *C.uint8_t, n C.size_t, what string) ([]byte, error) {
	switch {
	case n == 0:
		return nil, nil
	case p == nil:
		return nil, failf(errArg, "%s: NULL pointer with length %d", what, n)
	case n > maxBuffer:
		return nil, failf(errArg, "%s: length %d, more than any IBA packet (%d bytes at most)", what, n, 4*header.MaxPktLen+header.VCRCLen)
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)), nil
}

// packetOf is bytesOf for a packet, which must not be empty.
func packetOf(p *C.uint8_t, n C.size_t) ([]byte, error) {
	b, err := bytesOf(p, n, "packet")
	if err == nil && len(b) == 0 {
		err = failf(errArg, "packet: length 0")
	}
	return b, err
}

func wordsOf(p *C.uint32_t, n C.size_t) ([]uint32, error) {
	switch {
	case n == 0:
		return nil, nil
	case p == nil:
		return nil, failf(errArg, "generator state: NULL pointer with %d words", n)
	case n > 1024:
		return nil, failf(errArg, "generator state: %d words, more than any generator's", n)
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(p)), int(n)), nil
}

// goString reads a NUL-terminated string of at most maxString bytes.
func goString(p *C.char, what string) (string, error) {
	if p == nil {
		return "", failf(errArg, "%s: NULL pointer", what)
	}
	n := C.strnlen(p, maxString+1)
	if n > maxString {
		return "", failf(errArg, "%s: longer than %d bytes (no NUL in the first %d); the library's strings are at most %d bytes",
			what, maxString, maxString+1, maxString)
	}
	return C.GoStringN(p, C.int(n)), nil
}

// copyString copies s and a NUL into buf (cap bytes), truncating to fit, and
// reports whether all of s fitted.
func copyString(s string, buf *C.char, capacity C.size_t) bool {
	if buf == nil || capacity == 0 {
		return s == ""
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(min(capacity, maxBuffer)))
	n := copy(b[:len(b)-1], s)
	b[n] = 0
	return n == len(s)
}

// putString writes s into buf whole, or nothing and errSpace.
func putString(s string, buf *C.char, capacity C.size_t) error {
	if buf == nil {
		return failf(errArg, "output buffer: NULL pointer")
	}
	if C.size_t(len(s)) >= capacity {
		return failf(errSpace, "output buffer of %d bytes; %d are needed", capacity, len(s)+1)
	}
	copyString(s, buf, capacity)
	return nil
}

//export ibrgo_model_new
func ibrgo_model_new(config *C.char, out *C.ibr_model, errBuf *C.char, errCap C.size_t) C.ibr_status {
	var h uintptr
	err := guard(func() error {
		if out == nil {
			return failf(errArg, "ibr_model_new: out is NULL")
		}
		*out = 0
		s, err := goString(config, "configuration")
		if err != nil {
			return err
		}
		h, err = newModel(s)
		return err
	})
	if err != nil {
		copyString(err.Error(), errBuf, errCap)
		return C.ibr_status(codeOf(err))
	}
	*out = C.ibr_model(h)
	copyString("", errBuf, errCap)
	return C.IBR_OK
}

//export ibrgo_free
func ibrgo_free(h C.uintptr_t) C.ibr_status { return C.ibr_status(free(uintptr(h))) }

//export ibrgo_last_error
func ibrgo_last_error(h C.uintptr_t, buf *C.char, capacity C.size_t) C.ibr_status {
	o, err := lookup(uintptr(h))
	if err != nil {
		copyString(err.Error(), buf, capacity)
		return C.ibr_status(codeOf(err))
	}
	code, msg, _ := o.log().last()
	copyString(msg, buf, capacity)
	return C.ibr_status(code)
}

//export ibrgo_error_count
func ibrgo_error_count(h C.uintptr_t) C.uint64_t {
	o, err := lookup(uintptr(h))
	if err != nil {
		return 0
	}
	_, _, n := o.log().last()
	return C.uint64_t(n)
}

//export ibrgo_clear_errors
func ibrgo_clear_errors(h C.uintptr_t) C.ibr_status {
	o, err := lookup(uintptr(h))
	if err != nil {
		return C.ibr_status(codeOf(err))
	}
	o.log().clear()
	return C.IBR_OK
}

//export ibrgo_model_info
func ibrgo_model_info(h C.ibr_model, out *C.ibr_info) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		if out == nil {
			return failf(errArg, "ibr_model_info: info is NULL")
		}
		i := mo.info
		*out = C.ibr_info{scheme: C.int32_t(i.Scheme), lnh: C.int32_t(i.LNH), count_bits: C.int32_t(i.CountBits),
			sender_l: C.int32_t(i.SenderL), count_max: C.int32_t(i.CountMax), state_bits: C.int32_t(i.StateBits),
			state_words: C.int32_t(i.StateWords), footer_bytes: C.int32_t(i.FooterBytes),
			max_switch: C.int32_t(i.MaxSwitch), max_port: C.int32_t(i.MaxPort)}
		return nil
	}))
}

//export ibrgo_model_config
func ibrgo_model_config(h C.ibr_model, buf *C.char, capacity C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		return putString(mo.m.Config().Settings(), buf, capacity)
	}))
}

//export ibrgo_model_digest
func ibrgo_model_digest(h C.ibr_model, buf *C.char, capacity C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		return putString(mo.m.Config().Digest(), buf, capacity)
	}))
}

//export ibrgo_packet_build
func ibrgo_packet_build(h C.ibr_model, spec *C.ibr_packet_spec, buf *C.uint8_t, capacity C.size_t, n *C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		if spec == nil || n == nil {
			return failf(errArg, "ibr_packet_build: spec or len is NULL")
		}
		if spec.init != specInit {
			return failf(errArg, "ibr_packet_build: the spec was not started by ibr_packet_spec_init (its init is %#x, not IBR_PACKET_SPEC_INIT): "+
				"call ibr_packet_spec_init first, which sets OpCode 0x04 (SEND Only) and P_Key 0xFFFF", uint32(spec.init))
		}
		data, err := bytesOf(spec.payload, spec.payload_len, "payload")
		if err != nil {
			return err
		}
		// The output buffer may be of any size: only its first maxBuffer
		// bytes can be written (a packet is shorter).
		out, err := bytesOf(buf, min(capacity, maxBuffer), "packet buffer")
		if err != nil {
			return err
		}
		hd := header.Headers{
			LRH: header.LRH{VL: uint8(spec.vl), SL: uint8(spec.sl), DLID: uint16(spec.dlid), SLID: uint16(spec.slid)},
			GRH: header.GRH{TClass: uint8(spec.tclass), FlowLabel: uint32(spec.flow_label), HopLmt: uint8(spec.hop_limit)},
			BTH: header.BTH{OpCode: uint8(spec.opcode), PKey: uint16(spec.pkey), Resv6: uint8(spec.resv6), DestQP: uint32(spec.dest_qp), PSN: uint32(spec.psn)},
		}
		for i := range 16 {
			hd.GRH.SGID[i], hd.GRH.DGID[i] = byte(spec.sgid[i]), byte(spec.dgid[i])
		}
		pkt, err := mo.m.BuildPacket(hd, data)
		if err != nil {
			return as(errArg, err)
		}
		if len(pkt) > len(out) {
			return failf(errSpace, "ibr_packet_build: the packet is %d bytes, the buffer %d", len(pkt), len(out))
		}
		copy(out, pkt)
		*n = C.size_t(len(pkt))
		return nil
	}))
}

//export ibrgo_send
func ibrgo_send(h C.ibr_model, p *C.uint8_t, n C.size_t, lid C.uint16_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		pkt, err := packetOf(p, n)
		if err != nil {
			return err
		}
		return mo.send(pkt, uint16(lid))
	}))
}

// send is ibr_send on one packet.
func (mo *model) send(pkt []byte, lid uint16) error {
	if len(pkt) >= header.LRHLen {
		if slid := header.SLIDOf(pkt); slid != lid {
			return failf(errArg, "ibr_send: the packet's SLID is %#04x, the NIC's LID %#04x: a NIC sends its own packets", slid, lid)
		}
	}
	nic := mo.nic(lid)
	return mo.changePacket(pkt, func(b []byte) error { return as(errPacket, nic.Send(b)) })
}

//export ibrgo_stage
func ibrgo_stage(h C.ibr_model, p *C.uint8_t, n C.size_t, sw C.uint16_t, port C.uint8_t, congested C.int,
	state *C.uint32_t, stateWords C.size_t, result *C.ibr_stage_result) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		pkt, err := packetOf(p, n)
		if err != nil {
			return err
		}
		if congested != 0 && congested != 1 {
			return failf(errArg, "ibr_stage: congested is %d, want 0 or 1", congested)
		}
		st, err := mo.stager(refmodel.Link{Switch: uint16(sw), Port: uint8(port)}, state, stateWords)
		if err != nil {
			return err
		}
		if err := st.stage(pkt, congested == 1, result); err != nil {
			return err
		}
		st.finish()
		return nil
	}))
}

//export ibrgo_stage_frame
func ibrgo_stage_frame(h C.ibr_model, p *C.uint8_t, n C.size_t, sw C.uint16_t, port C.uint8_t, congested C.int,
	state *C.uint32_t, stateWords C.size_t, result *C.ibr_stage_result, corrupt *C.uint32_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		frame, err := packetOf(p, n)
		if err != nil {
			return err
		}
		if congested != 0 && congested != 1 {
			return failf(errArg, "ibr_stage_frame: congested is %d, want 0 or 1", congested)
		}
		st, err := mo.stager(refmodel.Link{Switch: uint16(sw), Port: uint8(port)}, state, stateWords)
		if err != nil {
			return err
		}
		if err := st.stageFrame(frame, congested == 1, result, corrupt); err != nil {
			return err
		}
		st.finish()
		return nil
	}))
}

// The header's corruption reasons and longest legal packet are the model's:
// a difference is a constant index out of range, which fails the build.
var _ = [1]struct{}{}[C.IBR_CORRUPT_VCRC-int(refmodel.CorruptVCRC)]
var _ = [1]struct{}{}[C.IBR_CORRUPT_LENGTH-int(refmodel.CorruptLength)]
var _ = [1]struct{}{}[C.IBR_CORRUPT_OVERSIZE-int(refmodel.CorruptOversize)]
var _ = [1]struct{}{}[C.IBR_MAX_LEGAL_PKTLEN-refmodel.MaxLegalPktLen]

//export ibrgo_frame_seal
func ibrgo_frame_seal(h C.ibr_model, p *C.uint8_t, n C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		frame, err := packetOf(p, n)
		if err != nil {
			return err
		}
		if err := mo.m.CheckFrame(frame); err != nil {
			return failf(errPacket, "ibr_frame_seal: %w", err)
		}
		end := len(frame) - header.VCRCLen
		binary.LittleEndian.PutUint16(frame[end:], header.CRC16(frame[:end]))
		return nil
	}))
}

// A stager runs the stages of one link: from the model's generator for the
// link (pt), or from the caller's state (words), loaded into the scratch
// generator g (nil with sender draws).
type stager struct {
	mo    *model
	l     refmodel.Link
	pt    *refmodel.Port
	g     rng.Generator
	words []uint32
}

// stager checks the link and the caller's state (state may be NULL) and
// returns the link's stager.
func (mo *model) stager(l refmodel.Link, state *C.uint32_t, stateWords C.size_t) (stager, error) {
	s := stager{mo: mo, l: l}
	if state == nil {
		pt, err := mo.port(l)
		s.pt = pt
		return s, err
	}
	words, err := wordsOf(state, stateWords)
	if err != nil {
		return s, err
	}
	if err := mo.m.CheckLink(l); err != nil {
		return s, as(errArg, err)
	}
	st, err := stateFromWords(words, int(mo.info.StateBits), mo.state)
	if err != nil {
		return s, err
	}
	mo.state = st
	s.words, s.g = words, mo.scratch
	if s.g != nil {
		if err := s.g.SetState(st); err != nil {
			return s, as(errState, err)
		}
	}
	return s, nil
}

// stage runs one stage on pkt, which it changes only on success, and writes
// result (when not NULL).
func (s *stager) stage(pkt []byte, congested bool, result *C.ibr_stage_result) error {
	var r refmodel.StageResult
	err := s.mo.changePacket(pkt, func(b []byte) (err error) {
		if s.pt != nil {
			r, err = s.pt.Stage(b, refmodel.Congestion(congested))
		} else {
			r, err = s.mo.m.Stage(b, s.l.Switch, s.l.Port, congested, s.g)
		}
		return as(errPacket, err)
	})
	if err != nil || result == nil {
		return err
	}
	field, err := s.mo.m.HopField(pkt)
	if err != nil {
		return as(errInternal, err) // the stage just wrote it
	}
	resultOut(r, field, result)
	return nil
}

// stageFrame runs one cut-through stage (refmodel.StageCutThrough) on frame,
// which it changes only on success, and writes result and corrupt (each
// when not NULL).
func (s *stager) stageFrame(frame []byte, congested bool, result *C.ibr_stage_result, corrupt *C.uint32_t) error {
	var r refmodel.StageResult
	var c refmodel.Corruption
	err := s.mo.changePacket(frame, func(b []byte) (err error) {
		g := s.g
		if s.pt != nil {
			// The port's own generator; the handle's lock serialises every
			// use of its ports.
			g = s.pt.Hop(refmodel.Congestion(congested)).Gen
		}
		r, c, err = s.mo.m.StageCutThrough(b, s.l.Switch, s.l.Port, congested, g)
		return as(errPacket, err)
	})
	if err != nil {
		return err
	}
	if corrupt != nil {
		*corrupt = C.uint32_t(c)
	}
	if result != nil {
		var field uint64 // a raw frame (no BTH) has no hop field
		if !r.Raw {
			if field, err = s.mo.frameField(frame); err != nil {
				return as(errInternal, err) // the stage just took the frame
			}
		}
		resultOut(r, field, result)
	}
	return nil
}

// resultOut writes a stage's result and the hop field after it.
func resultOut(r refmodel.StageResult, field uint64, result *C.ibr_stage_result) {
	*result = C.ibr_stage_result{hop_field: C.int32_t(field), id: C.uint32_t(r.ID), d: C.uint32_t(r.D), hash_bit: C.int32_t(r.HashBit),
		hop_l: C.int32_t(r.HopL), hop_replaced: b32(r.HopReplaced), hop_saturated: b32(r.HopSaturated),
		hop_count: C.int32_t(r.HopCount), congested: b32(r.Congested), cong_drew: b32(r.CongDrew),
		cong_l: C.int32_t(r.CongL), cong_replaced: b32(r.CongReplaced), cong_saturated: b32(r.CongSaturated),
		cong_count: C.int32_t(r.CongCount), draws: C.int32_t(r.Draws)}
}

// finish writes the caller's state back, the generator's after the stages.
func (s *stager) finish() {
	if s.words == nil {
		return
	}
	var st rng.State
	if s.g != nil {
		st = s.g.State()
	}
	stateToWords(st, s.words)
}

func b32(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

//export ibrgo_port_state
func ibrgo_port_state(h C.ibr_model, sw C.uint16_t, port C.uint8_t, state *C.uint32_t, stateWords C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		return mo.portState(sw, port, state, stateWords, func(l refmodel.Link) (rng.State, error) {
			p, err := mo.port(l)
			if err != nil {
				return nil, err
			}
			return p.State(), nil
		})
	}))
}

//export ibrgo_port_seed_state
func ibrgo_port_seed_state(h C.ibr_model, sw C.uint16_t, port C.uint8_t, state *C.uint32_t, stateWords C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		return mo.portState(sw, port, state, stateWords, func(l refmodel.Link) (rng.State, error) {
			st, err := mo.m.SeedState(l)
			return st, as(errArg, err)
		})
	}))
}

// portState writes into state the generator state get returns for the link.
func (mo *model) portState(sw C.uint16_t, port C.uint8_t, state *C.uint32_t, stateWords C.size_t,
	get func(refmodel.Link) (rng.State, error)) error {
	words, err := wordsOf(state, stateWords)
	if err != nil {
		return err
	}
	if need := int(mo.info.StateWords); len(words) < need {
		return failf(errArg, "generator state of %d words; the generator's %d bits need %d", len(words), mo.info.StateBits, need)
	}
	st, err := get(refmodel.Link{Switch: uint16(sw), Port: uint8(port)})
	if err != nil {
		return err
	}
	stateToWords(st, words)
	return nil
}

//export ibrgo_port_set_state
func ibrgo_port_set_state(h C.ibr_model, sw C.uint16_t, port C.uint8_t, state *C.uint32_t, stateWords C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		words, err := wordsOf(state, stateWords)
		if err != nil {
			return err
		}
		st, err := stateFromWords(words, int(mo.info.StateBits), nil)
		if err != nil {
			return err
		}
		pt, err := mo.port(refmodel.Link{Switch: uint16(sw), Port: uint8(port)})
		if err != nil {
			return err
		}
		return as(errState, pt.SetState(st))
	}))
}

func sampleOut(s refmodel.Sample, out *C.ibr_sample) {
	*out = C.ibr_sample{slid: C.uint16_t(s.SLID), dlid: C.uint16_t(s.DLID), id: C.uint32_t(s.ID),
		hop_bit: C.int32_t(s.HopBit), cong_bit: C.int32_t(s.CongBit), hop_count: C.int32_t(s.HopCount),
		cong_count: C.int32_t(s.CongCount), hop_switch: C.uint16_t(s.HopLink.Switch), hop_port: C.uint8_t(s.HopLink.Port),
		cong_switch: C.uint16_t(s.CongLink.Switch), cong_port: C.uint8_t(s.CongLink.Port)}
}

//export ibrgo_receive
func ibrgo_receive(h C.ibr_model, p *C.uint8_t, n C.size_t, out *C.ibr_sample) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		if out == nil {
			return failf(errArg, "ibr_receive: sample is NULL")
		}
		pkt, err := packetOf(p, n)
		if err != nil {
			return err
		}
		s, err := mo.m.Receive(pkt)
		if err != nil {
			return as(errPacket, err)
		}
		sampleOut(s, out)
		return nil
	}))
}

// packetAndField reads the packet and field-name arguments of the field calls.
func packetAndField(p *C.uint8_t, n C.size_t, name *C.char) ([]byte, string, error) {
	pkt, err := packetOf(p, n)
	if err != nil {
		return nil, "", err
	}
	f, err := goString(name, "field name")
	return pkt, f, err
}

//export ibrgo_field_get
func ibrgo_field_get(h C.ibr_model, p *C.uint8_t, n C.size_t, name *C.char, value *C.uint64_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		pkt, f, err := packetAndField(p, n, name)
		if err != nil {
			return err
		}
		if value == nil {
			return failf(errArg, "ibr_field_get: value is NULL")
		}
		v, err := mo.m.Field(pkt, f)
		if err != nil {
			return as(errPacket, err)
		}
		*value = C.uint64_t(v)
		return nil
	}))
}

//export ibrgo_field_set
func ibrgo_field_set(h C.ibr_model, p *C.uint8_t, n C.size_t, name *C.char, value C.uint64_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		pkt, f, err := packetAndField(p, n, name)
		if err != nil {
			return err
		}
		return mo.changePacket(pkt, func(b []byte) error { return as(errPacket, mo.m.SetField(b, f, uint64(value))) })
	}))
}

//export ibrgo_diff
func ibrgo_diff(h C.ibr_model, gp *C.uint8_t, gn C.size_t, wp *C.uint8_t, wn C.size_t, buf *C.char, capacity C.size_t) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		got, err := bytesOf(gp, gn, "got")
		if err != nil {
			return err
		}
		want, err := bytesOf(wp, wn, "want")
		if err != nil {
			return err
		}
		if buf == nil || capacity == 0 {
			return failf(errArg, "ibr_diff: no output buffer")
		}
		if d := mo.m.Diff(got, want); !copyString(d, buf, capacity) {
			return failf(errSpace, "ibr_diff: the text is %d bytes, the buffer %d (truncated)", len(d)+1, capacity)
		}
		return nil
	}))
}

//export ibrgo_decoder_new
func ibrgo_decoder_new(h C.ibr_model, pathLen C.int, links *C.ibr_link, hops *C.int32_t, n C.size_t, out *C.ibr_decoder) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		if out == nil {
			return failf(errArg, "ibr_decoder_new: out is NULL")
		}
		*out = 0
		if n > 1<<24 {
			return failf(errArg, "ibr_decoder_new: %d candidate links", n)
		}
		if n > 0 && (links == nil || hops == nil) {
			return failf(errArg, "ibr_decoder_new: links or hops is NULL")
		}
		set := refmodel.NewCandidateSet(int(pathLen))
		if n > 0 {
			ls := unsafe.Slice(links, int(n))
			hs := unsafe.Slice(hops, int(n))
			for i := range ls {
				l := refmodel.Link{Switch: uint16(ls[i].switch_id), Port: uint8(ls[i].port)}
				if err := set.Add(int(hs[i]), l); err != nil {
					return failf(errArg, "ibr_decoder_new: link %d: %w", i, err)
				}
			}
		}
		t, err := mo.m.NewTally(set)
		if err != nil {
			return as(errArg, err)
		}
		*out = C.ibr_decoder(uintptr(newHandle(&decoder{model: mo, tally: t})))
		return nil
	}))
}

//export ibrgo_decoder_add_packet
func ibrgo_decoder_add_packet(h C.ibr_decoder, p *C.uint8_t, n C.size_t) C.ibr_status {
	return C.ibr_status(withDecoder(uintptr(h), func(d *decoder) error {
		pkt, err := packetOf(p, n)
		if err != nil {
			return err
		}
		return d.addPacket(pkt)
	}))
}

// addPacket reads one packet's sample and adds it.
func (d *decoder) addPacket(pkt []byte) error {
	s, err := d.model.m.Receive(pkt) // a Model is read-only: no need for the model's lock
	if err != nil {
		return as(errPacket, err)
	}
	d.tally.Add(s)
	return nil
}

//export ibrgo_decoder_add_sample
func ibrgo_decoder_add_sample(h C.ibr_decoder, s *C.ibr_sample) C.ibr_status {
	return C.ibr_status(withDecoder(uintptr(h), func(d *decoder) error {
		if s == nil {
			return failf(errArg, "ibr_decoder_add_sample: sample is NULL")
		}
		return d.addSample(s)
	}))
}

// addSample checks one sample and adds it.
func (d *decoder) addSample(s *C.ibr_sample) error {
	if cm := C.int32_t(d.model.info.CountMax); s.hop_count < 0 || s.cong_count < 0 || s.hop_count > cm || s.cong_count > cm ||
		s.hop_bit&^1 != 0 || s.cong_bit&^1 != 0 {
		return failf(errArg, "ibr_decoder_add_sample: hop_bit %d cong_bit %d hop_count %d cong_count %d: bits are 0 or 1, counts 0 to the model's count_max %d",
			s.hop_bit, s.cong_bit, s.hop_count, s.cong_count, cm)
	}
	d.tally.Add(refmodel.Sample{SLID: uint16(s.slid), DLID: uint16(s.dlid), ID: uint32(s.id),
		HopBit: uint8(s.hop_bit), CongBit: uint8(s.cong_bit), HopCount: int(s.hop_count), CongCount: int(s.cong_count)})
	return nil
}

//export ibrgo_decoder_estimates
func ibrgo_decoder_estimates(h C.ibr_decoder, pathL C.int, p C.double, out *C.ibr_estimate, capacity C.size_t, n *C.size_t) C.ibr_status {
	return C.ibr_status(withDecoder(uintptr(h), func(d *decoder) error {
		if n == nil {
			return failf(errArg, "ibr_decoder_estimates: n is NULL")
		}
		if pathL < 1 || !(p > 0 && p < 1) {
			return failf(errArg, "ibr_decoder_estimates: L=%d p=%v: want L >= 1 and 0 < p < 1", pathL, float64(p))
		}
		es := d.tally.Estimates(int(pathL), float64(p))
		*n = C.size_t(len(es))
		if capacity < C.size_t(len(es)) || (len(es) > 0 && out == nil) {
			return failf(errSpace, "ibr_decoder_estimates: %d links, room for %d", len(es), capacity)
		}
		if len(es) == 0 {
			return nil
		}
		os := unsafe.Slice(out, len(es))
		for i, e := range es {
			os[i] = C.ibr_estimate{link: C.ibr_link{switch_id: C.uint16_t(e.Link.Switch), port: C.uint8_t(e.Link.Port)},
				hop: C.int32_t(e.Hop), passed: b32(e.Passed), w: C.int64_t(e.W), c: C.int64_t(e.C), q: C.int64_t(e.Q),
				threshold: C.double(e.Threshold), fraction: C.double(e.Fraction)}
		}
		return nil
	}))
}
