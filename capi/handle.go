// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"sync"

	"ibreservoir/header"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// The library's handles and errors, in Go types. Nothing here models
// anything: each call is one call of package refmodel, with its arguments
// checked and its error kept.

// status is an ibr_status (ibreservoir.h).
type status int32

const (
	statusOK status = iota
	errArg
	errConfig
	errPacket
	errState
	errHandle
	errSpace
	errInternal
)

// A callError carries the status a failure is reported with.
type callError struct {
	code status
	err  error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

func failf(code status, format string, args ...any) error {
	return &callError{code, fmt.Errorf(format, args...)}
}

// as wraps err (from package refmodel) with the status it is reported with.
func as(code status, err error) error {
	if err == nil {
		return nil
	}
	return &callError{code, err}
}

// codeOf is the status of err: its callError's, or errInternal for an error
// nothing classified (every path classifies its errors; a miss is a defect).
func codeOf(err error) status {
	var ce *callError
	if errors.As(err, &ce) {
		return ce.code
	}
	return errInternal
}

// An errorLog is a handle's last error and count of failed calls.
type errorLog struct {
	mu    sync.Mutex
	code  status
	msg   string
	count uint64
}

// settle records err, if any, and returns its status.
func (l *errorLog) settle(err error) status {
	if err == nil {
		return statusOK
	}
	code := codeOf(err)
	l.mu.Lock()
	l.code, l.msg = code, err.Error()
	l.count++
	l.mu.Unlock()
	return code
}

func (l *errorLog) last() (status, string, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.code, l.msg, l.count
}

func (l *errorLog) clear() {
	l.mu.Lock()
	l.code, l.msg, l.count = statusOK, "", 0
	l.mu.Unlock()
}

// A model is the object behind an ibr_model handle: a refmodel.Model and
// the parts the calls without explicit state keep (ports, NICs), plus
// scratch space so that a call writes its outputs whole or not at all.
type model struct {
	errs    errorLog
	mu      sync.Mutex
	m       *refmodel.Model
	info    info
	scratch rng.Generator // the stage's generator when the caller gives the state
	ports   map[refmodel.Link]*refmodel.Port
	nics    map[uint16]*refmodel.NIC
	pkt     []byte           // a copy of the packet a call changes
	state   rng.State        // the caller's generator state, read
	hopRef  *header.FieldRef // the hop field (refmodel.Model.HopFieldName), for frames
	bth     int              // the BTH's offset in the model's packets
}

// info is ibr_info.
type info struct {
	Scheme, LNH, CountBits, SenderL, CountMax, StateBits, StateWords, FooterBytes, MaxSwitch, MaxPort int32
}

// A decoder is the object behind an ibr_decoder handle.
type decoder struct {
	errs  errorLog
	mu    sync.Mutex
	model *model
	tally *refmodel.Tally
}

type object interface{ log() *errorLog }

func (o *model) log() *errorLog   { return &o.errs }
func (o *decoder) log() *errorLog { return &o.errs }

// lookup returns the live object of handle h, or an error for a handle that
// is not one (never made, freed, or 0): cgo.Handle.Value panics on those.
func lookup(h uintptr) (o object, err error) {
	defer func() {
		if recover() != nil {
			o, err = nil, failf(errHandle, "handle %#x is not a live ibreservoir handle", h)
		}
	}()
	if h == 0 {
		return nil, failf(errHandle, "handle 0 is not a live ibreservoir handle (0 never is)")
	}
	o, ok := cgo.Handle(h).Value().(object)
	if !ok {
		return nil, failf(errHandle, "handle %#x is not a live ibreservoir handle", h)
	}
	return o, nil
}

// guard runs fn, turning a panic into an errInternal error.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = failf(errInternal, "internal error (a defect of libibreservoir, please report it): %v", r)
		}
	}()
	return fn()
}

// withModel runs fn on the model behind h, serialised on it, and keeps its
// error in the handle.
func withModel(h uintptr, fn func(*model) error) status {
	o, err := lookup(h)
	if err != nil {
		return codeOf(err)
	}
	mo, ok := o.(*model)
	if !ok {
		return o.log().settle(failf(errHandle, "handle %#x is a decoder, not a model", h))
	}
	mo.mu.Lock()
	defer mo.mu.Unlock()
	return mo.errs.settle(guard(func() error { return fn(mo) }))
}

// withDecoder is withModel for decoders.
func withDecoder(h uintptr, fn func(*decoder) error) status {
	o, err := lookup(h)
	if err != nil {
		return codeOf(err)
	}
	d, ok := o.(*decoder)
	if !ok {
		return o.log().settle(failf(errHandle, "handle %#x is a model, not a decoder", h))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.errs.settle(guard(func() error { return fn(d) }))
}

// newModel parses a configuration string and builds its model.
func newModel(config string) (h uintptr, err error) {
	err = guard(func() error {
		c, err := refmodel.ParseConfig(config)
		if err != nil {
			return as(errConfig, err)
		}
		m, err := refmodel.New(c)
		if err != nil {
			return as(errConfig, err)
		}
		mo := &model{m: m, ports: map[refmodel.Link]*refmodel.Port{}, nics: map[uint16]*refmodel.NIC{}}
		// The scratch generator is the port generator of the configuration
		// (any port: its state is always loaded before use).
		if mo.scratch, err = c.NewPortGenerator(0, 0); err != nil {
			return as(errConfig, err)
		}
		t := c.Telemetry
		mo.info = info{Scheme: int32(t.Scheme), LNH: int32(c.LNH), SenderL: int32(t.SenderL), CountMax: int32(c.CountMax()),
			FooterBytes: int32(m.Layout().FooterBytes), MaxSwitch: int32(c.MaxSwitch), MaxPort: int32(c.MaxPort)}
		if !c.SenderMode() {
			mo.info.CountBits = int32(t.CountBits)
			mo.info.StateBits = int32(mo.scratch.StateBits())
			mo.info.StateWords = (mo.info.StateBits + 31) / 32
		}
		if mo.hopRef, err = m.Layout().Ref(m.HopFieldName()); err != nil {
			return as(errInternal, err) // every layout has the field
		}
		if mo.bth, err = header.BTHOffset(c.LNH); err != nil {
			return as(errInternal, err) // New checked the LNH
		}
		h = newHandle(mo)
		return nil
	})
	return h, err
}

// frameField reads the hop field of a frame through the frame's own length,
// wherever its PktLen points (refmodel.Model.StageCutThrough updates it
// there).
func (mo *model) frameField(frame []byte) (uint64, error) {
	if err := mo.m.CheckFrame(frame); err != nil {
		return 0, err
	}
	return mo.hopRef.Get(frame, header.Frame{BTH: mo.bth, PktLen: len(frame) - header.VCRCLen}), nil
}

// newHandle makes a handle for o; free deletes it.
func newHandle(o object) uintptr { return uintptr(cgo.NewHandle(o)) }

// free deletes a handle.
func free(h uintptr) status {
	if _, err := lookup(h); err != nil {
		return codeOf(err)
	}
	return deleteHandle(h)
}

// deleteHandle deletes h, which a concurrent free may have deleted since it
// was looked up (Delete panics then).
func deleteHandle(h uintptr) (st status) {
	defer func() {
		if recover() != nil {
			st = errHandle
		}
	}()
	cgo.Handle(h).Delete()
	return statusOK
}

// port returns the handle's own port (sw, port), made on first use.
func (mo *model) port(l refmodel.Link) (*refmodel.Port, error) {
	if p := mo.ports[l]; p != nil {
		return p, nil
	}
	if err := mo.m.CheckLink(l); err != nil {
		return nil, as(errArg, err)
	}
	p, err := mo.m.Port(l)
	if err != nil {
		return nil, as(errArg, err)
	}
	mo.ports[l] = p
	return p, nil
}

// nic returns the handle's own NIC with LID lid, made on first use.
func (mo *model) nic(lid uint16) *refmodel.NIC {
	if n := mo.nics[lid]; n != nil {
		return n
	}
	n := mo.m.NIC(lid)
	mo.nics[lid] = n
	return n
}

// stateFromWords reads a generator state of bits bits from 32-bit words
// (bit i in word i/32) into buf's memory when it is large enough, refusing
// too few words and any bit set at or above bits.
func stateFromWords(words []uint32, bits int, buf rng.State) (rng.State, error) {
	need := (bits + 31) / 32
	if len(words) < need {
		return nil, failf(errArg, "generator state of %d words; the generator's %d bits need %d", len(words), bits, need)
	}
	for i, w := range words {
		var high uint32 // the word's bits at and above bits
		switch lo := 32 * i; {
		case lo >= bits:
			high = w
		case bits-lo < 32:
			high = w >> (bits - lo)
		}
		if high != 0 {
			return nil, failf(errState, "generator state word %d is %#x: bits from %d up must be 0 (the state has %d bits)", i, w, bits, bits)
		}
	}
	if bits == 0 {
		return nil, nil
	}
	st := buf[:0]
	for range (bits + 63) / 64 {
		st = append(st, 0)
	}
	for i := range need {
		st[i/2] |= uint64(words[i]) << (32 * (i % 2))
	}
	return st, nil
}

// stateToWords writes st into words (bit i in word i/32), zeroing the rest.
func stateToWords(st rng.State, words []uint32) {
	for i := range words {
		words[i] = 0
		if i/2 < len(st) {
			words[i] = uint32(st[i/2] >> (32 * (i % 2)))
		}
	}
}

// changePacket runs fn on a copy of pkt and copies the result back only when
// fn succeeds, so a failing call leaves the caller's packet as it was.
func (mo *model) changePacket(pkt []byte, fn func([]byte) error) error {
	mo.pkt = append(mo.pkt[:0], pkt...)
	if err := fn(mo.pkt); err != nil {
		return err
	}
	copy(pkt, mo.pkt)
	return nil
}
