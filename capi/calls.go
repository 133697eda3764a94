// SPDX-License-Identifier: Apache-2.0

package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ibreservoir.h"

// cpu_seconds is the process's CPU time (every thread's), for the
// benchmarks' per-CPU-second rates.
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// stage_loop is a C caller's loop of count switch stages on copies of pkt
// (len bytes), carrying the state (8 words) from stage to stage, as a
// scoreboard calls the library; it returns the first failing status.
static int stage_loop(ibr_model m, const uint8_t *pkt, size_t len, uint32_t *state, long count) {
  uint8_t work[256];
  for (long i = 0; i < count; i++) {
    memcpy(work, pkt, len);
    int st = ibr_stage(m, work, len, 7, 3, (int)(i & 1), state, 8, NULL);
    if (st != IBR_OK) return st;
  }
  return IBR_OK;
}

// stage_batch_loop is a C caller's loop of ibr_stage_batch calls on the n
// packets of data (len bytes each, one after the other), count packets in
// all (a multiple of n), with the caller's state (8 words) and per-packet
// congested flags, as a scoreboard that batches its packets calls it.
static int stage_batch_loop(ibr_model m, uint8_t *data, size_t len, size_t n, uint32_t *state, long count, double *cpu) {
  size_t *off = malloc(n * sizeof *off), *lens = malloc(n * sizeof *lens);
  uint8_t *cong = malloc(n);
  ibr_status *st = malloc(n * sizeof *st);
  for (size_t i = 0; i < n; i++) {
    off[i] = i * len;
    lens[i] = len;
    cong[i] = (uint8_t)(i & 1);
  }
  int r = IBR_OK;
  double t0 = cpu_seconds();
  for (long done = 0; done < count && r == IBR_OK; done += (long)n) {
    r = ibr_stage_batch(m, data, n * len, off, lens, n, 7, 3, cong, state, 8, NULL, st);
  }
  *cpu = cpu_seconds() - t0;
  free(off);
  free(lens);
  free(cong);
  free(st);
  return r;
}

// add_packets_loop is a C caller's loop of ibr_decoder_add_packets calls on
// the n packets of data (len bytes each), count packets in all (a multiple
// of n). *cpu receives the process's CPU seconds in the loop.
static int add_packets_loop(ibr_decoder d, uint8_t *data, size_t len, size_t n, long count, double *cpu) {
  size_t *off = malloc(n * sizeof *off), *lens = malloc(n * sizeof *lens);
  for (size_t i = 0; i < n; i++) {
    off[i] = i * len;
    lens[i] = len;
  }
  int r = IBR_OK;
  double t0 = cpu_seconds();
  for (long done = 0; done < count && r == IBR_OK; done += (long)n) {
    r = ibr_decoder_add_packets(d, data, n * len, off, lens, n, NULL);
  }
  *cpu = cpu_seconds() - t0;
  free(off);
  free(lens);
  return r;
}

// build_loop is a C caller's loop of count packet builds.
static int build_loop(ibr_model m, long count) {
  uint8_t buf[256], payload[40] = {0};
  ibr_packet_spec spec;
  ibr_packet_spec_init(&spec);
  spec.slid = 1;
  spec.dlid = 2;
  spec.payload = payload;
  spec.payload_len = sizeof payload;
  size_t n;
  for (long i = 0; i < count; i++) {
    spec.psn = (uint32_t)i & 0xFFFFFF;
    int st = ibr_packet_build(m, &spec, buf, sizeof buf, &n);
    if (st != IBR_OK) return st;
  }
  return IBR_OK;
}
*/
import "C"

import (
	"bytes"
	"unsafe"

	"ibreservoir/refmodel"
)

// Go-typed calls of the public C functions (ibreservoir.h), for the tests
// and the fuzz target: each copies its arguments into C memory, calls the C
// entry point as a C program would (which calls back into the library's Go
// functions), and copies the outputs back. A nil slice is passed as NULL.
// Nothing else uses them.

// cBytes copies b into C memory (NULL for nil); the caller frees it.
func cBytes(b []byte) *C.uint8_t {
	if b == nil {
		return nil
	}
	p := C.malloc(C.size_t(max(len(b), 1)))
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	return (*C.uint8_t)(p)
}

func cFree(p unsafe.Pointer) {
	if p != nil {
		C.free(p)
	}
}

// inPlace runs call on a C copy of pkt and copies the result back.
func inPlace(pkt []byte, call func(*C.uint8_t, C.size_t) C.ibr_status) status {
	p := cBytes(pkt)
	defer cFree(unsafe.Pointer(p))
	st := call(p, C.size_t(len(pkt)))
	if p != nil {
		copy(pkt, unsafe.Slice((*byte)(unsafe.Pointer(p)), len(pkt)))
	}
	return status(st)
}

// callStageLoop and callBuildLoop run the C loops above (for the benchmarks).
func callStageLoop(h uintptr, pkt []byte, state []uint32, count int) status {
	p := cBytes(pkt)
	defer cFree(unsafe.Pointer(p))
	st := (*C.uint32_t)(C.calloc(8, 4))
	defer C.free(unsafe.Pointer(st))
	copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), 8), state)
	return status(C.stage_loop(C.ibr_model(h), p, C.size_t(len(pkt)), st, C.long(count)))
}

// callStageBatchLoop runs stage_batch_loop on n copies of pkt and returns
// the CPU seconds it took.
func callStageBatchLoop(h uintptr, pkt []byte, n int, state []uint32, count int) (status, float64) {
	data := cBytes(bytes.Repeat(pkt, n))
	defer cFree(unsafe.Pointer(data))
	st := (*C.uint32_t)(C.calloc(8, 4))
	defer C.free(unsafe.Pointer(st))
	copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), 8), state)
	var cpu C.double
	code := C.stage_batch_loop(C.ibr_model(h), data, C.size_t(len(pkt)), C.size_t(n), st, C.long(count), &cpu)
	return status(code), float64(cpu)
}

// callAddPacketsLoop runs add_packets_loop on n copies of pkt and returns
// the CPU seconds it took.
func callAddPacketsLoop(d uintptr, pkt []byte, n int, count int) (status, float64) {
	data := cBytes(bytes.Repeat(pkt, n))
	defer cFree(unsafe.Pointer(data))
	var cpu C.double
	code := C.add_packets_loop(C.ibr_decoder(d), data, C.size_t(len(pkt)), C.size_t(n), C.long(count), &cpu)
	return status(code), float64(cpu)
}

// cpuSeconds is the process's CPU time so far.
func cpuSeconds() float64 { return float64(C.cpu_seconds()) }

func callBuildLoop(h uintptr, count int) status {
	return status(C.build_loop(C.ibr_model(h), C.long(count)))
}

func callVersion() string { return C.GoString(C.ibr_version()) }

func callModelNew(config string, errCap int) (uintptr, status, string) {
	cs := C.CString(config)
	defer C.free(unsafe.Pointer(cs))
	var h C.ibr_model = 12345 // must be cleared on failure
	buf := (*C.char)(C.malloc(C.size_t(max(errCap, 1))))
	defer C.free(unsafe.Pointer(buf))
	var eb *C.char
	if errCap > 0 {
		eb = buf
	}
	st := C.ibr_model_new(cs, &h, eb, C.size_t(errCap))
	msg := ""
	if errCap > 0 {
		msg = C.GoString(buf)
	}
	return uintptr(h), status(st), msg
}

func callFree(h uintptr) status { return status(C.ibr_free(C.uintptr_t(h))) }

func callLastError(h uintptr, capacity int) (status, string) {
	buf := (*C.char)(C.malloc(C.size_t(max(capacity, 1))))
	defer C.free(unsafe.Pointer(buf))
	st := C.ibr_last_error(C.uintptr_t(h), buf, C.size_t(capacity))
	if capacity == 0 {
		return status(st), ""
	}
	return status(st), C.GoString(buf)
}

func callErrorCount(h uintptr) uint64  { return uint64(C.ibr_error_count(C.uintptr_t(h))) }
func callClearErrors(h uintptr) status { return status(C.ibr_clear_errors(C.uintptr_t(h))) }

func callInfo(h uintptr) (info, status) {
	var i C.ibr_info
	st := C.ibr_model_info(C.ibr_model(h), &i)
	return info{Scheme: int32(i.scheme), LNH: int32(i.lnh), CountBits: int32(i.count_bits), SenderL: int32(i.sender_l),
		CountMax: int32(i.count_max), StateBits: int32(i.state_bits), StateWords: int32(i.state_words),
		FooterBytes: int32(i.footer_bytes), MaxSwitch: int32(i.max_switch), MaxPort: int32(i.max_port)}, status(st)
}

// callString calls ibr_model_config (digest false) or ibr_model_digest.
func callString(h uintptr, digest bool, capacity int) (string, status) {
	buf := (*C.char)(C.malloc(C.size_t(max(capacity, 1))))
	defer C.free(unsafe.Pointer(buf))
	*buf = 0
	var st C.ibr_status
	if digest {
		st = C.ibr_model_digest(C.ibr_model(h), buf, C.size_t(capacity))
	} else {
		st = C.ibr_model_config(C.ibr_model(h), buf, C.size_t(capacity))
	}
	return C.GoString(buf), status(st)
}

// packetSpec is ibr_packet_spec.
type packetSpec struct {
	SLID, DLID, PKey       uint16
	SL, VL, OpCode, Resv6  uint8
	DestQP, PSN, FlowLabel uint32
	TClass, HopLimit       uint8
	SGID, DGID             [16]byte
	Payload                []byte
	PayloadLen             int // the length passed (normally len(Payload))
	NullSpec, NullLen      bool
	Capacity               int // of the output buffer
	NullBuffer             bool
	Zeroed                 bool // a spec ibr_packet_spec_init did not start
}

func callBuild(h uintptr, s packetSpec) ([]byte, status) {
	spec := (*C.ibr_packet_spec)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ibr_packet_spec{}))))
	defer C.free(unsafe.Pointer(spec))
	*spec = C.ibr_packet_spec{slid: C.uint16_t(s.SLID), dlid: C.uint16_t(s.DLID), sl: C.uint8_t(s.SL), vl: C.uint8_t(s.VL),
		opcode: C.uint8_t(s.OpCode), pkey: C.uint16_t(s.PKey), dest_qp: C.uint32_t(s.DestQP), psn: C.uint32_t(s.PSN),
		resv6: C.uint8_t(s.Resv6), tclass: C.uint8_t(s.TClass), flow_label: C.uint32_t(s.FlowLabel), hop_limit: C.uint8_t(s.HopLimit),
		payload_len: C.size_t(s.PayloadLen)}
	if !s.Zeroed {
		spec.init = C.IBR_PACKET_SPEC_INIT
	}
	for i := range 16 {
		spec.sgid[i], spec.dgid[i] = C.uint8_t(s.SGID[i]), C.uint8_t(s.DGID[i])
	}
	spec.payload = cBytes(s.Payload)
	defer cFree(unsafe.Pointer(spec.payload))
	var buf *C.uint8_t
	if !s.NullBuffer {
		buf = (*C.uint8_t)(C.malloc(C.size_t(max(s.Capacity, 1))))
		defer C.free(unsafe.Pointer(buf))
	}
	var n C.size_t
	sp, np := spec, &n
	if s.NullSpec {
		sp = nil
	}
	if s.NullLen {
		np = nil
	}
	st := C.ibr_packet_build(C.ibr_model(h), sp, buf, C.size_t(s.Capacity), np)
	if st != C.IBR_OK {
		return nil, status(st)
	}
	return C.GoBytes(unsafe.Pointer(buf), C.int(n)), status(st)
}

func callSend(h uintptr, pkt []byte, lid uint16) status {
	return inPlace(pkt, func(p *C.uint8_t, n C.size_t) C.ibr_status { return C.ibr_send(C.ibr_model(h), p, n, C.uint16_t(lid)) })
}

// callStage runs ibr_stage; a nil state is NULL, and the state is copied
// back. It returns the result as a refmodel.StageResult.
func callStage(h uintptr, pkt []byte, sw uint16, port uint8, congested int, state []uint32) (refmodel.StageResult, status) {
	r, _, st := callStageField(h, pkt, sw, port, congested, state)
	return r, st
}

// callStageField is callStage that also returns the result's hop_field.
func callStageField(h uintptr, pkt []byte, sw uint16, port uint8, congested int, state []uint32) (refmodel.StageResult, uint64, status) {
	var st *C.uint32_t
	if state != nil {
		st = (*C.uint32_t)(C.malloc(C.size_t(4 * max(len(state), 1))))
		defer C.free(unsafe.Pointer(st))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)), state)
	}
	var r C.ibr_stage_result
	code := inPlace(pkt, func(p *C.uint8_t, n C.size_t) C.ibr_status {
		return C.ibr_stage(C.ibr_model(h), p, n, C.uint16_t(sw), C.uint8_t(port), C.int(congested), st, C.size_t(len(state)), &r)
	})
	if state != nil {
		copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
	}
	return resultIn(r), uint64(r.hop_field), code
}

// callStageFrame runs ibr_stage_frame as callStageField runs ibr_stage, and
// also returns the corruption reasons as the call left them (0xdead when it
// did not write them); noOut passes NULL for result and corrupt.
func callStageFrame(h uintptr, frame []byte, sw uint16, port uint8, congested int, state []uint32, noOut bool) (refmodel.StageResult, uint64, uint32, status) {
	var st *C.uint32_t
	if state != nil {
		st = (*C.uint32_t)(C.malloc(C.size_t(4 * max(len(state), 1))))
		defer C.free(unsafe.Pointer(st))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)), state)
	}
	r := (*C.ibr_stage_result)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ibr_stage_result{}))))
	defer C.free(unsafe.Pointer(r))
	c := (*C.uint32_t)(C.calloc(1, 4))
	defer C.free(unsafe.Pointer(c))
	*c = 0xdead // a value the call must overwrite
	rp, cp := r, c
	if noOut {
		rp, cp = nil, nil
	}
	code := inPlace(frame, func(p *C.uint8_t, n C.size_t) C.ibr_status {
		return C.ibr_stage_frame(C.ibr_model(h), p, n, C.uint16_t(sw), C.uint8_t(port), C.int(congested), st, C.size_t(len(state)), rp, cp)
	})
	if state != nil {
		copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
	}
	return resultIn(*r), uint64(r.hop_field), uint32(*c), code
}

func resultIn(r C.ibr_stage_result) refmodel.StageResult {
	return refmodel.StageResult{ID: uint32(r.id), D: uint32(r.d), HashBit: uint8(r.hash_bit), HopL: int(r.hop_l),
		HopReplaced: r.hop_replaced != 0, HopSaturated: r.hop_saturated != 0, HopCount: int(r.hop_count),
		Congested: r.congested != 0, CongDrew: r.cong_drew != 0, CongL: int(r.cong_l), CongReplaced: r.cong_replaced != 0,
		CongSaturated: r.cong_saturated != 0, CongCount: int(r.cong_count), Draws: int(r.draws)}
}

func callFrameSeal(h uintptr, frame []byte) status {
	return inPlace(frame, func(p *C.uint8_t, n C.size_t) C.ibr_status { return C.ibr_frame_seal(C.ibr_model(h), p, n) })
}

// callPortSeedState reads the state the seed gives a port.
func callPortSeedState(h uintptr, sw uint16, port uint8, state []uint32) status {
	st := (*C.uint32_t)(C.calloc(C.size_t(max(len(state), 1)), 4))
	defer C.free(unsafe.Pointer(st))
	code := C.ibr_port_seed_state(C.ibr_model(h), C.uint16_t(sw), C.uint8_t(port), st, C.size_t(len(state)))
	copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
	return status(code)
}

// callPortState reads (set false) or loads (set true) the handle's port state.
func callPortState(h uintptr, sw uint16, port uint8, state []uint32, set bool) status {
	var st *C.uint32_t
	if state != nil {
		st = (*C.uint32_t)(C.malloc(C.size_t(4 * max(len(state), 1))))
		defer C.free(unsafe.Pointer(st))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)), state)
	}
	var code C.ibr_status
	if set {
		code = C.ibr_port_set_state(C.ibr_model(h), C.uint16_t(sw), C.uint8_t(port), st, C.size_t(len(state)))
	} else {
		code = C.ibr_port_state(C.ibr_model(h), C.uint16_t(sw), C.uint8_t(port), st, C.size_t(len(state)))
		if state != nil {
			copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
		}
	}
	return status(code)
}

func sampleIn(s C.ibr_sample) refmodel.Sample {
	return refmodel.Sample{SLID: uint16(s.slid), DLID: uint16(s.dlid), ID: uint32(s.id), HopBit: uint8(s.hop_bit),
		CongBit: uint8(s.cong_bit), HopCount: int(s.hop_count), CongCount: int(s.cong_count),
		HopLink:  refmodel.Link{Switch: uint16(s.hop_switch), Port: uint8(s.hop_port)},
		CongLink: refmodel.Link{Switch: uint16(s.cong_switch), Port: uint8(s.cong_port)}}
}

func callReceive(h uintptr, pkt []byte) (refmodel.Sample, status) {
	var s C.ibr_sample
	code := inPlace(pkt, func(p *C.uint8_t, n C.size_t) C.ibr_status { return C.ibr_receive(C.ibr_model(h), p, n, &s) })
	return sampleIn(s), code
}

func callField(h uintptr, pkt []byte, name string, set bool, v uint64) (uint64, status) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var out C.uint64_t
	code := inPlace(pkt, func(p *C.uint8_t, n C.size_t) C.ibr_status {
		if set {
			return C.ibr_field_set(C.ibr_model(h), p, n, cn, C.uint64_t(v))
		}
		return C.ibr_field_get(C.ibr_model(h), p, n, cn, &out)
	})
	return uint64(out), code
}

func callDiff(h uintptr, got, want []byte, capacity int) (string, status) {
	g, w := cBytes(got), cBytes(want)
	defer cFree(unsafe.Pointer(g))
	defer cFree(unsafe.Pointer(w))
	buf := (*C.char)(C.malloc(C.size_t(max(capacity, 1))))
	defer C.free(unsafe.Pointer(buf))
	*buf = 0
	code := C.ibr_diff(C.ibr_model(h), g, C.size_t(len(got)), w, C.size_t(len(want)), buf, C.size_t(capacity))
	return C.GoString(buf), status(code)
}

func callDecoderNew(h uintptr, pathLen int, links []refmodel.Link, hops []int32) (uintptr, status) {
	n := max(len(links), len(hops))
	var ls *C.ibr_link
	var hs *C.int32_t
	if links != nil {
		ls = (*C.ibr_link)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(C.ibr_link{}))))
		defer C.free(unsafe.Pointer(ls))
		for i, l := range links {
			unsafe.Slice(ls, n)[i] = C.ibr_link{switch_id: C.uint16_t(l.Switch), port: C.uint8_t(l.Port)}
		}
	}
	if hops != nil {
		hs = (*C.int32_t)(C.calloc(C.size_t(max(n, 1)), 4))
		defer C.free(unsafe.Pointer(hs))
		for i, x := range hops {
			unsafe.Slice(hs, n)[i] = C.int32_t(x)
		}
	}
	var d C.ibr_decoder
	code := C.ibr_decoder_new(C.ibr_model(h), C.int(pathLen), ls, hs, C.size_t(n), &d)
	return uintptr(d), status(code)
}

func callDecoderAddPacket(d uintptr, pkt []byte) status {
	return inPlace(pkt, func(p *C.uint8_t, n C.size_t) C.ibr_status { return C.ibr_decoder_add_packet(C.ibr_decoder(d), p, n) })
}

func callDecoderAddSample(d uintptr, s refmodel.Sample) status {
	cs := C.ibr_sample{slid: C.uint16_t(s.SLID), dlid: C.uint16_t(s.DLID), id: C.uint32_t(s.ID), hop_bit: C.int32_t(s.HopBit),
		cong_bit: C.int32_t(s.CongBit), hop_count: C.int32_t(s.HopCount), cong_count: C.int32_t(s.CongCount)}
	return status(C.ibr_decoder_add_sample(C.ibr_decoder(d), &cs))
}

func callDecoderEstimates(d uintptr, L int, p float64, capacity int) ([]refmodel.LinkEstimate, int, status) {
	out := (*C.ibr_estimate)(C.calloc(C.size_t(max(capacity, 1)), C.size_t(unsafe.Sizeof(C.ibr_estimate{}))))
	defer C.free(unsafe.Pointer(out))
	var n C.size_t
	code := C.ibr_decoder_estimates(C.ibr_decoder(d), C.int(L), C.double(p), out, C.size_t(capacity), &n)
	if code != C.IBR_OK {
		return nil, int(n), status(code)
	}
	var es []refmodel.LinkEstimate
	for _, e := range unsafe.Slice(out, int(n)) {
		es = append(es, refmodel.LinkEstimate{Link: refmodel.Link{Switch: uint16(e.link.switch_id), Port: uint8(e.link.port)},
			Hop: int(e.hop), W: int64(e.w), C: int64(e.c), Q: int64(e.q), Threshold: float64(e.threshold),
			Passed: e.passed != 0, Fraction: float64(e.fraction)})
	}
	return es, int(n), status(code)
}

// A batchArgs is a batch as the C batch calls take it, in C memory: the
// packets one after the other in data (off and size as given, which a test
// may make wrong), per-packet congested flags, statuses and results.
type batchArgs struct {
	data      *C.uint8_t
	size      int
	off, lens *C.size_t
	n         int
	cong      *C.uint8_t
	status    *C.ibr_status
	results   *C.ibr_stage_result
	corrupt   *C.uint32_t
}

// newBatch lays pkts out one after the other; cong (nil: NULL) holds the
// congested flags. free releases it; packets copies the packets back out.
func newBatch(pkts [][]byte, cong []uint8) *batchArgs {
	b := &batchArgs{n: len(pkts)}
	for _, p := range pkts {
		b.size += len(p)
	}
	b.data = (*C.uint8_t)(C.calloc(C.size_t(max(b.size, 1)), 1))
	b.off = (*C.size_t)(C.calloc(C.size_t(max(b.n, 1)), C.size_t(unsafe.Sizeof(C.size_t(0)))))
	b.lens = (*C.size_t)(C.calloc(C.size_t(max(b.n, 1)), C.size_t(unsafe.Sizeof(C.size_t(0)))))
	b.status = (*C.ibr_status)(C.calloc(C.size_t(max(b.n, 1)), C.size_t(unsafe.Sizeof(C.ibr_status(0)))))
	b.results = (*C.ibr_stage_result)(C.calloc(C.size_t(max(b.n, 1)), C.size_t(unsafe.Sizeof(C.ibr_stage_result{}))))
	b.corrupt = (*C.uint32_t)(C.calloc(C.size_t(max(b.n, 1)), 4))
	data := unsafe.Slice((*byte)(unsafe.Pointer(b.data)), max(b.size, 1))
	off, lens := unsafe.Slice(b.off, max(b.n, 1)), unsafe.Slice(b.lens, max(b.n, 1))
	pos := 0
	for i, p := range pkts {
		copy(data[pos:], p)
		off[i], lens[i] = C.size_t(pos), C.size_t(len(p))
		pos += len(p)
	}
	if cong != nil {
		b.cong = (*C.uint8_t)(C.calloc(C.size_t(max(len(cong), 1)), 1))
		copy(unsafe.Slice((*byte)(unsafe.Pointer(b.cong)), len(cong)), cong)
	}
	return b
}

// newLayout is a batch of n packets over data whose offsets and lengths
// the caller sets (setOff, setLen); they start at 0.
func newLayout(data []byte, n int, cong []uint8) *batchArgs {
	b := newBatch(make([][]byte, n), cong)
	cFree(unsafe.Pointer(b.data))
	b.data, b.size = cBytes(data), len(data)
	return b
}

func (b *batchArgs) free() {
	for _, p := range []unsafe.Pointer{unsafe.Pointer(b.data), unsafe.Pointer(b.off), unsafe.Pointer(b.lens),
		unsafe.Pointer(b.cong), unsafe.Pointer(b.status), unsafe.Pointer(b.results), unsafe.Pointer(b.corrupt)} {
		cFree(p)
	}
}

// fillStatus sets every packet's status to v (to see a call leave them).
func (b *batchArgs) fillStatus(v status) {
	for i := range unsafe.Slice(b.status, max(b.n, 1)) {
		unsafe.Slice(b.status, max(b.n, 1))[i] = C.ibr_status(v)
	}
}

func (b *batchArgs) setOff(i, o int) { unsafe.Slice(b.off, b.n)[i] = C.size_t(o) }
func (b *batchArgs) setLen(i, l int) { unsafe.Slice(b.lens, b.n)[i] = C.size_t(l) }

// bytes is the batch's data as it is now.
func (b *batchArgs) bytes() []byte {
	return bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(b.data)), b.size))
}

// setSLID writes the LRH SLID of packet i (its VCRC is then wrong, which
// ibr_send does not check: it recomputes it).
func (b *batchArgs) setSLID(i int, slid uint16) {
	o := unsafe.Slice(b.off, b.n)[i]
	p := unsafe.Slice((*byte)(unsafe.Pointer(b.data)), b.size)[o:]
	p[6], p[7] = byte(slid>>8), byte(slid)
}

// packets is the batch's packets as they are now.
func (b *batchArgs) packets() [][]byte {
	data := unsafe.Slice((*byte)(unsafe.Pointer(b.data)), max(b.size, 1))
	var out [][]byte
	for i := range b.n {
		o, l := unsafe.Slice(b.off, b.n)[i], unsafe.Slice(b.lens, b.n)[i]
		out = append(out, bytes.Clone(data[o:o+l]))
	}
	return out
}

// statuses is every packet's status after a call.
func (b *batchArgs) statuses() []status {
	var out []status
	for _, s := range unsafe.Slice(b.status, max(b.n, 1))[:b.n] {
		out = append(out, status(s))
	}
	return out
}

// hopFields is every packet's result's hop field after a stage batch.
func (b *batchArgs) hopFields() []int {
	var out []int
	for _, r := range unsafe.Slice(b.results, max(b.n, 1))[:b.n] {
		out = append(out, int(r.hop_field))
	}
	return out
}

// callStageBatch calls ibr_stage_batch; state nil passes NULL (the model's
// generator for the link).
func callStageBatch(h uintptr, b *batchArgs, sw uint16, port uint8, state []uint32) status {
	var st *C.uint32_t
	if state != nil {
		st = (*C.uint32_t)(C.calloc(C.size_t(max(len(state), 1)), 4))
		defer C.free(unsafe.Pointer(st))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)), state)
	}
	code := C.ibr_stage_batch(C.ibr_model(h), b.data, C.size_t(b.size), b.off, b.lens, C.size_t(b.n), C.uint16_t(sw),
		C.uint8_t(port), b.cong, st, C.size_t(len(state)), b.results, b.status)
	if state != nil {
		copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
	}
	return status(code)
}

// corruptions is every frame's corruption reasons after a frame batch.
func (b *batchArgs) corruptions() []refmodel.Corruption {
	var out []refmodel.Corruption
	for _, c := range unsafe.Slice(b.corrupt, max(b.n, 1))[:b.n] {
		out = append(out, refmodel.Corruption(c))
	}
	return out
}

// callStageFrameBatch calls ibr_stage_frame_batch as callStageBatch calls
// ibr_stage_batch.
func callStageFrameBatch(h uintptr, b *batchArgs, sw uint16, port uint8, state []uint32) status {
	var st *C.uint32_t
	if state != nil {
		st = (*C.uint32_t)(C.calloc(C.size_t(max(len(state), 1)), 4))
		defer C.free(unsafe.Pointer(st))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)), state)
	}
	code := C.ibr_stage_frame_batch(C.ibr_model(h), b.data, C.size_t(b.size), b.off, b.lens, C.size_t(b.n), C.uint16_t(sw),
		C.uint8_t(port), b.cong, st, C.size_t(len(state)), b.results, b.corrupt, b.status)
	if state != nil {
		copy(state, unsafe.Slice((*uint32)(unsafe.Pointer(st)), len(state)))
	}
	return status(code)
}

func callSendBatch(h uintptr, b *batchArgs, lid uint16) status {
	return status(C.ibr_send_batch(C.ibr_model(h), b.data, C.size_t(b.size), b.off, b.lens, C.size_t(b.n), C.uint16_t(lid), b.status))
}

func callDecoderAddPackets(d uintptr, b *batchArgs) status {
	return status(C.ibr_decoder_add_packets(C.ibr_decoder(d), b.data, C.size_t(b.size), b.off, b.lens, C.size_t(b.n), b.status))
}

// callDecoderAddSamples adds samples in one call and returns each one's
// status.
func callDecoderAddSamples(d uintptr, samples []refmodel.Sample) (status, []status) {
	n := max(len(samples), 1)
	cs := (*C.ibr_sample)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.ibr_sample{}))))
	defer C.free(unsafe.Pointer(cs))
	sts := (*C.ibr_status)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.ibr_status(0)))))
	defer C.free(unsafe.Pointer(sts))
	for i, s := range samples {
		unsafe.Slice(cs, n)[i] = C.ibr_sample{slid: C.uint16_t(s.SLID), dlid: C.uint16_t(s.DLID), id: C.uint32_t(s.ID),
			hop_bit: C.int32_t(s.HopBit), cong_bit: C.int32_t(s.CongBit), hop_count: C.int32_t(s.HopCount), cong_count: C.int32_t(s.CongCount)}
	}
	code := C.ibr_decoder_add_samples(C.ibr_decoder(d), cs, C.size_t(len(samples)), sts)
	var out []status
	for _, s := range unsafe.Slice(sts, n)[:len(samples)] {
		out = append(out, status(s))
	}
	return status(code), out
}
