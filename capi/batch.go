// SPDX-License-Identifier: Apache-2.0

package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "ibreservoir.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// The batch calls (ibreservoir.h, "Batches"): each does what its single call
// does to n packets, in order, with the handle's lookup, its lock and the
// argument conversions made once. The layout of the batch is checked whole
// before any packet is touched; then every packet gets its single call's
// outcome, and the first failure is reported with its index.

// A batch is n packets in one caller's buffer: packet i is
// data[off[i] : off[i]+size[i]].
type batch struct {
	data      []byte
	off, size []C.size_t
}

func (b *batch) n() int              { return len(b.off) }
func (b *batch) packet(i int) []byte { return b.data[b.off[i] : b.off[i]+b.size[i]] }

// batchOf checks a batch's layout: pointers, every packet's length and place
// inside the size bytes of data, in order and not overlapping. call names the
// function in the messages.
func batchOf(call string, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t) (batch, error) {
	var b batch
	switch {
	case n == 0:
		return b, nil
	case n > maxBatch:
		return b, failf(errArg, "%s: %d packets, more than a batch's %d", call, n, maxBatch)
	case off == nil || lens == nil:
		return b, failf(errArg, "%s: off or len is NULL with %d packets", call, n)
	case data == nil:
		return b, failf(errArg, "%s: data is NULL with %d packets", call, n)
	case size > maxBatch*maxBuffer:
		return b, failf(errArg, "%s: size %d, more than %d packets of %d bytes", call, size, maxBatch, maxBuffer)
	}
	b.data = unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size))
	b.off, b.size = unsafe.Slice(off, int(n)), unsafe.Slice(lens, int(n))
	var end C.size_t // where the packet before ends
	for i := range b.off {
		o, l := b.off[i], b.size[i]
		switch {
		case l == 0:
			return b, failf(errArg, "%s: packet %d: length 0", call, i)
		case l > maxBuffer:
			return b, failf(errArg, "%s: packet %d: length %d, more than any IBA packet (%d bytes at most)", call, i, l, 4*header.MaxPktLen+header.VCRCLen)
		case o > size || l > size-o:
			return b, failf(errArg, "%s: packet %d: bytes %d to %d, outside the batch's %d bytes", call, i, o, o+l-1, size)
		case o < end:
			return b, failf(errArg, "%s: packet %d: at byte %d, before the end of packet %d (byte %d): packets lie in order, not overlapping",
				call, i, o, i-1, end)
		}
		end = o + l
	}
	return b, nil
}

// statusesOf is the caller's status array of n entries (nil for NULL).
func statusesOf(p *C.ibr_status, n int) []C.ibr_status {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice(p, n)
}

// A tally of a batch's outcomes: each packet's status into the caller's
// array, and the first failure.
type outcomes struct {
	what   string // "packet" or "sample"
	status []C.ibr_status
	n      int
	failed int
	first  error
	index  int
}

func (o *outcomes) record(i int, err error) {
	if err != nil {
		o.fail(i, err)
		return
	}
	if o.status != nil { // small enough to inline: the common case costs a store
		o.status[i] = C.ibr_status(statusOK)
	}
}

// fail records packet i's failure.
func (o *outcomes) fail(i int, err error) {
	if o.status != nil {
		o.status[i] = C.ibr_status(codeOf(err))
	}
	if o.failed == 0 {
		o.first, o.index = err, i
	}
	o.failed++
}

// err is the batch's error: nil, or the first failure's status with its
// index and the number of failures.
func (o *outcomes) err() error {
	if o.failed == 0 {
		return nil
	}
	return &callError{codeOf(o.first), fmt.Errorf("%s %d of %d: %w (%d of %d %ss failed; the others were processed)",
		o.what, o.index, o.n, o.first, o.failed, o.n, o.what)}
}

//export ibrgo_stage_batch
func ibrgo_stage_batch(h C.ibr_model, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t, sw C.uint16_t, port C.uint8_t,
	congested *C.uint8_t, state *C.uint32_t, stateWords C.size_t, results *C.ibr_stage_result, status *C.ibr_status) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		return mo.stageBatch("ibr_stage_batch", data, size, off, lens, n, sw, port, congested, state, stateWords, results, status,
			func(st *stager, _ int, pkt []byte, congested bool, r *C.ibr_stage_result) error {
				return st.stage(pkt, congested, r)
			})
	}))
}

//export ibrgo_stage_frame_batch
func ibrgo_stage_frame_batch(h C.ibr_model, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t, sw C.uint16_t, port C.uint8_t,
	congested *C.uint8_t, state *C.uint32_t, stateWords C.size_t, results *C.ibr_stage_result, corrupt *C.uint32_t,
	status *C.ibr_status) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		var cs []C.uint32_t
		if corrupt != nil && n > 0 && n <= maxBatch {
			cs = unsafe.Slice(corrupt, int(n))
		}
		return mo.stageBatch("ibr_stage_frame_batch", data, size, off, lens, n, sw, port, congested, state, stateWords, results, status,
			func(st *stager, i int, frame []byte, congested bool, r *C.ibr_stage_result) error {
				var c *C.uint32_t
				if cs != nil {
					c = &cs[i]
				}
				return st.stageFrame(frame, congested, r, c)
			})
	}))
}

// stageBatch is a stage batch call (call names it in the messages): the
// batch's layout, congested flags, link and state checked before any
// packet, then stage on every packet in order, and the caller's state
// written back.
func (mo *model) stageBatch(call string, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t, sw C.uint16_t, port C.uint8_t,
	congested *C.uint8_t, state *C.uint32_t, stateWords C.size_t, results *C.ibr_stage_result, status *C.ibr_status,
	stage func(st *stager, i int, pkt []byte, congested bool, r *C.ibr_stage_result) error) error {
	b, err := batchOf(call, data, size, off, lens, n)
	if err != nil {
		return err
	}
	var flags []byte
	if congested != nil && n > 0 {
		flags = unsafe.Slice((*byte)(unsafe.Pointer(congested)), b.n())
		for i, c := range flags {
			if c > 1 {
				return failf(errArg, "%s: packet %d: congested is %d, want 0 or 1", call, i, c)
			}
		}
	}
	st, err := mo.stager(refmodel.Link{Switch: uint16(sw), Port: uint8(port)}, state, stateWords)
	if err != nil { // the link or the state: refused before any packet
		return &callError{codeOf(err), fmt.Errorf("%s: %w", call, err)}
	}
	var rs []C.ibr_stage_result
	if results != nil && n > 0 {
		rs = unsafe.Slice(results, b.n())
	}
	o := outcomes{what: "packet", status: statusesOf(status, b.n()), n: b.n()}
	for i := range b.n() {
		var r *C.ibr_stage_result
		if rs != nil {
			r = &rs[i]
		}
		o.record(i, stage(&st, i, b.packet(i), flags != nil && flags[i] == 1, r))
	}
	st.finish()
	return o.err()
}

//export ibrgo_send_batch
func ibrgo_send_batch(h C.ibr_model, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t, lid C.uint16_t,
	status *C.ibr_status) C.ibr_status {
	return C.ibr_status(withModel(uintptr(h), func(mo *model) error {
		b, err := batchOf("ibr_send_batch", data, size, off, lens, n)
		if err != nil {
			return err
		}
		o := outcomes{what: "packet", status: statusesOf(status, b.n()), n: b.n()}
		for i := range b.n() {
			o.record(i, mo.send(b.packet(i), uint16(lid)))
		}
		return o.err()
	}))
}

//export ibrgo_decoder_add_packets
func ibrgo_decoder_add_packets(h C.ibr_decoder, data *C.uint8_t, size C.size_t, off, lens *C.size_t, n C.size_t,
	status *C.ibr_status) C.ibr_status {
	return C.ibr_status(withDecoder(uintptr(h), func(d *decoder) error {
		b, err := batchOf("ibr_decoder_add_packets", data, size, off, lens, n)
		if err != nil {
			return err
		}
		o := outcomes{what: "packet", status: statusesOf(status, b.n()), n: b.n()}
		for i := range b.n() {
			o.record(i, d.addPacket(b.packet(i)))
		}
		return o.err()
	}))
}

//export ibrgo_decoder_add_samples
func ibrgo_decoder_add_samples(h C.ibr_decoder, samples *C.ibr_sample, n C.size_t, status *C.ibr_status) C.ibr_status {
	return C.ibr_status(withDecoder(uintptr(h), func(d *decoder) error {
		switch {
		case n == 0:
			return nil
		case n > maxBatch:
			return failf(errArg, "ibr_decoder_add_samples: %d samples, more than a batch's %d", n, maxBatch)
		case samples == nil:
			return failf(errArg, "ibr_decoder_add_samples: samples is NULL with %d samples", n)
		}
		ss := unsafe.Slice(samples, int(n))
		o := outcomes{what: "sample", status: statusesOf(status, len(ss)), n: len(ss)}
		for i := range ss {
			o.record(i, d.addSample(&ss[i]))
		}
		return o.err()
	}))
}
