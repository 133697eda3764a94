// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"time"
)

// Magic numbers at the start of a capture file.
const (
	pcapMagicMicro = 0xA1B2C3D4 // pcap, microsecond timestamps
	pcapMagicNano  = 0xA1B23C4D // pcap, nanosecond timestamps
	ngBlockSHB     = 0x0A0D0D0A // pcapng section header block
	ngByteOrder    = 0x1A2B3C4D // pcapng byte-order magic

	pcapFileHeaderLen   = 24
	pcapRecordHeaderLen = 16

	// MaxRecordLen bounds one record or block. An InfiniBand packet is at most
	// 8190 bytes (an 11-bit PktLen of words plus the VCRC) and an ERF record at
	// most 65535 (a 16-bit rlen); the bound keeps a corrupt length from
	// allocating gigabytes.
	MaxRecordLen = 1 << 18
)

// pcapng block types (pcapng draft, section 4 and appendix).
const (
	ngBlockOPB = 0x00000002 // obsolete packet block
	ngBlockIDB = 0x00000001 // interface description block
	ngBlockSPB = 0x00000003 // simple packet block
	ngBlockEPB = 0x00000006 // enhanced packet block
)

// A Reader reads the InfiniBand packets of one capture file, pcap or pcapng.
type Reader struct {
	r      *bufio.Reader
	off    int64 // bytes consumed
	record int   // records (pcap) or blocks (pcapng) read so far
	err    error // sticky final error

	ng bool
	bo binary.ByteOrder

	// pcap
	nano     bool
	linkType uint32

	// pcapng: the current section's interfaces
	ifaces []ngIface
}

type ngIface struct {
	linkType uint32
	snapLen  uint32
	// resolution: units per second is 10^dec when !bin, 2^exp when bin
	bin      bool
	exp      uint8
	tsOffset int64 // seconds to add (if_tsoffset)
}

// Open opens a capture file for reading. The caller closes the returned file
// when done. A directory or another file that is not a regular file (a
// device, a pipe is fine) is refused by name.
func Open(path string) (*Reader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if st, err := f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	} else if st.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: is a directory, not a capture file", path)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, f, nil
}

// ReadFile reads every InfiniBand packet of the capture at path. It stops at
// the first malformed record, naming the file, the record and the offset.
func ReadFile(path string) ([]*Packet, error) {
	r, f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []*Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return ps, nil
		}
		if err != nil {
			return ps, fmt.Errorf("%s: %w", path, err)
		}
		ps = append(ps, p)
	}
}

// NewReader reads the file header of a pcap or pcapng capture from r.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, 1<<16)}
	magic, err := rd.r.Peek(4)
	if err == io.EOF || err == io.ErrUnexpectedEOF || err == bufio.ErrBufferFull {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("file is %d bytes, too short for a pcap or pcapng header", len(magic))}
	}
	if err != nil {
		return nil, err // a read error, not a format
	}
	if binary.LittleEndian.Uint32(magic) == ngBlockSHB {
		rd.ng = true
		// The section header is read as the first block by Next; read it now
		// so that a file that is not pcapng fails here.
		if err := rd.ngReadSHB(); err != nil {
			return nil, err
		}
		return rd, nil
	}
	if err := rd.pcapHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// LinkType is the link type of a pcap file, or of the first interface of the
// current pcapng section (0 if none is described yet).
func (r *Reader) LinkType() uint32 {
	if r.ng {
		if len(r.ifaces) > 0 {
			return r.ifaces[0].linkType
		}
		return 0
	}
	return r.linkType
}

// read reads exactly n bytes, or reports how many the file still held.
func (r *Reader) read(n int) ([]byte, error) {
	b := make([]byte, n)
	got, err := io.ReadFull(r.r, b)
	r.off += int64(got)
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return b[:got], errShort
		}
		return b[:got], err
	}
	return b, nil
}

var errShort = errors.New("short read")

func (r *Reader) pcapHeader() error {
	h, err := r.read(pcapFileHeaderLen)
	if err != nil && err != errShort {
		return err
	}
	short := err == errShort
	if short {
		// Judge the magic first: a file that is no capture at all should
		// say so, not that it is short.
		h = append(h, make([]byte, pcapFileHeaderLen-len(h))...)
	}
	switch {
	case binary.LittleEndian.Uint32(h) == pcapMagicMicro:
		r.bo = binary.LittleEndian
	case binary.BigEndian.Uint32(h) == pcapMagicMicro:
		r.bo = binary.BigEndian
	case binary.LittleEndian.Uint32(h) == pcapMagicNano:
		r.bo, r.nano = binary.LittleEndian, true
	case binary.BigEndian.Uint32(h) == pcapMagicNano:
		r.bo, r.nano = binary.BigEndian, true
	default:
		return &FormatError{Offset: 0, Msg: fmt.Sprintf("magic % x is neither pcap (a1b2c3d4, a1b23c4d) nor pcapng (0a0d0d0a)", h[:4])}
	}
	if short {
		return &FormatError{Offset: r.off, Msg: fmt.Sprintf("the file ends after %d bytes, inside the 24-byte pcap file header", r.off)}
	}
	if major := r.bo.Uint16(h[4:]); major != 2 {
		return &FormatError{Offset: 4, Msg: fmt.Sprintf("pcap version %d.%d, want 2.4", major, r.bo.Uint16(h[6:]))}
	}
	// The link-type word carries FCS information in its top bits.
	r.linkType = r.bo.Uint32(h[20:]) & 0xFFFF
	if r.linkType != LinkTypeERF && r.linkType != LinkTypeInfiniBand {
		return &FormatError{Offset: 20, Msg: fmt.Sprintf("link type %s is neither ERF (197) nor InfiniBand (247)", linkTypeName(r.linkType))}
	}
	return nil
}

// Next returns the next InfiniBand packet, or io.EOF after the last. A
// *FormatError with Skippable set concerns one record only: Next may be called
// again to go on with the next. Any other error is returned again by every
// later call.
func (r *Reader) Next() (*Packet, error) {
	if r.err != nil {
		return nil, r.err
	}
	var p *Packet
	var err error
	if r.ng {
		p, err = r.ngNext()
	} else {
		p, err = r.pcapNext()
	}
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) || !fe.Skippable {
			r.err = err
		}
	}
	return p, err
}

func (r *Reader) pcapNext() (*Packet, error) {
	start := r.off
	h, err := r.read(pcapRecordHeaderLen)
	if err == errShort && len(h) == 0 {
		return nil, io.EOF
	}
	r.record++
	if err == errShort {
		return nil, &FormatError{Record: r.record, Offset: start, Msg: fmt.Sprintf("the file ends %d bytes into the 16-byte record header", len(h))}
	}
	if err != nil {
		return nil, err
	}
	sec, sub := r.bo.Uint32(h), r.bo.Uint32(h[4:])
	capLen, origLen := r.bo.Uint32(h[8:]), r.bo.Uint32(h[12:])
	if capLen > MaxRecordLen {
		return nil, &FormatError{Record: r.record, Offset: start + 8, Msg: fmt.Sprintf("captured length %d exceeds the %d bytes any InfiniBand record can need", capLen, MaxRecordLen)}
	}
	data, err := r.read(int(capLen))
	if err == errShort {
		return nil, &FormatError{Record: r.record, Offset: start + 8, Msg: fmt.Sprintf("captured length %d, but the file ends %d bytes into the record data", capLen, len(data))}
	}
	if err != nil {
		return nil, err
	}
	if origLen < capLen {
		return nil, &FormatError{Record: r.record, Offset: start + 12, Msg: fmt.Sprintf("original length %d is shorter than the captured length %d", origLen, capLen), Skippable: true}
	}
	ns := int64(sub) * 1000
	if r.nano {
		ns = int64(sub)
	}
	if ns >= 1e9 {
		what := "microseconds"
		if r.nano {
			what = "nanoseconds"
		}
		return nil, &FormatError{Record: r.record, Offset: start + 4, Msg: fmt.Sprintf("timestamp fraction %d %s is a second or more", sub, what), Skippable: true}
	}
	return r.packet(r.linkType, time.Unix(int64(sec), ns).UTC(), data, start, start+pcapRecordHeaderLen, int(origLen))
}

// packet interprets the data of one record of the given link type.
func (r *Reader) packet(lt uint32, t time.Time, data []byte, recOff, dataOff int64, origLen int) (*Packet, error) {
	p := &Packet{Record: r.record, Offset: recOff, Time: t, LinkType: lt}
	switch lt {
	case LinkTypeInfiniBand:
		p.Data, p.DataOffset, p.WireLen = data, dataOff, origLen
		return p, nil
	case LinkTypeERF:
		e, payload, off, err := parseERF(data)
		if err != nil {
			return nil, &FormatError{Record: r.record, Offset: dataOff + int64(off), Msg: err.Error(), Skippable: true}
		}
		p.ERF, p.Data, p.DataOffset, p.WireLen = e, payload, dataOff+int64(off), int(e.WLen)
		p.Time = ERFTime(e.Timestamp) // finer than the pcap record's copy
		return p, nil
	}
	return nil, &FormatError{Record: r.record, Offset: recOff, Msg: fmt.Sprintf("link type %s is neither ERF (197) nor InfiniBand (247)", linkTypeName(lt)), Skippable: true}
}

// parseERF splits an ERF record into its header and the InfiniBand packet. On
// error, off is the offset within data of the offending bytes; on success it
// is the offset of the packet.
func parseERF(data []byte) (h *ERFHeader, pkt []byte, off int, err error) {
	if len(data) < ERFHeaderLen {
		return nil, nil, 0, fmt.Errorf("ERF record of %d bytes, shorter than the 16-byte ERF header", len(data))
	}
	h = &ERFHeader{
		Timestamp: binary.LittleEndian.Uint64(data),
		Type:      data[8] & erfTypeMask,
		Flags:     data[9],
		RLen:      binary.BigEndian.Uint16(data[10:]),
		LCtr:      binary.BigEndian.Uint16(data[12:]),
		WLen:      binary.BigEndian.Uint16(data[14:]),
	}
	hdr := ERFHeaderLen
	for more := data[8]&erfTypeExtBit != 0; more; {
		if len(data) < hdr+ERFExtHeaderLen {
			return nil, nil, hdr, fmt.Errorf("ERF extension header %d needs 8 bytes, the record has %d left", len(h.Extensions)+1, len(data)-hdr)
		}
		x := binary.BigEndian.Uint64(data[hdr:])
		h.Extensions = append(h.Extensions, x)
		more = x>>63 != 0
		hdr += ERFExtHeaderLen
	}
	rlen := int(h.RLen)
	if rlen < hdr {
		return nil, nil, 10, fmt.Errorf("ERF rlen %d is shorter than the record's headers (%d bytes)", rlen, hdr)
	}
	if len(data) > rlen {
		return nil, nil, rlen, fmt.Errorf("the record holds %d bytes, more than its ERF rlen %d", len(data), rlen)
	}
	if h.Type != ERFTypeInfiniBand {
		return nil, nil, 8, fmt.Errorf("ERF type %s is not InfiniBand (21)", erfTypeName(h.Type))
	}
	// rlen counts padding after the packet, which the pcap record may or may
	// not hold; wlen is the packet's own length.
	pkt = data[hdr:]
	if len(pkt) > int(h.WLen) {
		pkt = pkt[:h.WLen]
	}
	return h, pkt, hdr, nil
}

// ngBlock reads one pcapng block: its type and body (without the three
// length and type words), checking the framing.
func (r *Reader) ngBlock() (typ uint32, body []byte, start int64, err error) {
	start = r.off
	h, err := r.read(8)
	if err == errShort && len(h) == 0 {
		return 0, nil, start, io.EOF
	}
	r.record++
	if err == errShort {
		return 0, nil, start, &FormatError{Record: r.record, Offset: start, Msg: fmt.Sprintf("the file ends %d bytes into a block header", len(h))}
	}
	if err != nil {
		return 0, nil, start, err
	}
	typ = r.bo.Uint32(h)
	n := r.bo.Uint32(h[4:])
	if n < 12 || n%4 != 0 || n > MaxRecordLen {
		return 0, nil, start, &FormatError{Record: r.record, Offset: start + 4, Msg: fmt.Sprintf("block total length %d: want a multiple of 4 from 12 to %d", n, MaxRecordLen)}
	}
	rest, err := r.read(int(n) - 8)
	if err == errShort {
		return 0, nil, start, &FormatError{Record: r.record, Offset: start + 4, Msg: fmt.Sprintf("block total length %d, but the file ends %d bytes into the block", n, 8+len(rest))}
	}
	if err != nil {
		return 0, nil, start, err
	}
	if tail := r.bo.Uint32(rest[len(rest)-4:]); tail != n {
		return 0, nil, start, &FormatError{Record: r.record, Offset: start + int64(n) - 4, Msg: fmt.Sprintf("trailing block length %d differs from the leading %d", tail, n)}
	}
	return typ, rest[:len(rest)-4], start, nil
}

// ngReadSHB reads a section header block, which starts every section and sets
// its byte order.
func (r *Reader) ngReadSHB() error {
	start := r.off
	h, _ := r.r.Peek(12)
	if len(h) < 12 {
		return &FormatError{Record: r.record + 1, Offset: start, Msg: fmt.Sprintf("the file ends %d bytes into a pcapng section header", len(h))}
	}
	switch {
	case binary.LittleEndian.Uint32(h[8:]) == ngByteOrder:
		r.bo = binary.LittleEndian
	case binary.BigEndian.Uint32(h[8:]) == ngByteOrder:
		r.bo = binary.BigEndian
	default:
		return &FormatError{Record: r.record + 1, Offset: start + 8, Msg: fmt.Sprintf("section header byte-order magic % x, want 1a2b3c4d", h[8:12])}
	}
	_, body, _, err := r.ngBlock()
	if err != nil {
		if err == io.EOF {
			err = &FormatError{Record: r.record + 1, Offset: start, Msg: "missing section header"}
		}
		return err
	}
	if len(body) < 16 {
		return &FormatError{Record: r.record, Offset: start + 8, Msg: fmt.Sprintf("section header body of %d bytes, want at least 16", len(body))}
	}
	if major := r.bo.Uint16(body[4:]); major != 1 {
		return &FormatError{Record: r.record, Offset: start + 12, Msg: fmt.Sprintf("pcapng version %d.%d, want 1.x", major, r.bo.Uint16(body[6:]))}
	}
	r.ifaces = r.ifaces[:0]
	return nil
}

func (r *Reader) ngNext() (*Packet, error) {
	for {
		if h, _ := r.r.Peek(4); len(h) == 4 && binary.LittleEndian.Uint32(h) == ngBlockSHB {
			if err := r.ngReadSHB(); err != nil {
				return nil, err
			}
			continue
		}
		typ, body, start, err := r.ngBlock()
		if err != nil {
			return nil, err
		}
		bodyOff := start + 8
		switch typ {
		case ngBlockIDB:
			if err := r.ngIDB(body, bodyOff); err != nil {
				return nil, err
			}
		case ngBlockEPB, ngBlockOPB:
			return r.ngEPB(typ, body, start)
		case ngBlockSPB:
			if len(r.ifaces) == 0 {
				return nil, &FormatError{Record: r.record, Offset: start, Msg: "simple packet block before any interface description block", Skippable: true}
			}
			if len(body) < 4 {
				return nil, &FormatError{Record: r.record, Offset: bodyOff, Msg: fmt.Sprintf("simple packet block body of %d bytes, want at least 4", len(body))}
			}
			orig := r.bo.Uint32(body)
			capLen := uint32(len(body) - 4)
			if orig < capLen {
				capLen = orig
			}
			if sl := r.ifaces[0].snapLen; sl != 0 && capLen > sl {
				capLen = sl
			}
			return r.packet(r.ifaces[0].linkType, time.Time{}, body[4:4+capLen], start, bodyOff+4, int(orig))
		}
		// Other blocks (statistics, name resolution, custom) carry no packets.
	}
}

// ngIDB records an interface description block.
func (r *Reader) ngIDB(body []byte, off int64) error {
	if len(body) < 8 {
		return &FormatError{Record: r.record, Offset: off, Msg: fmt.Sprintf("interface description body of %d bytes, want at least 8", len(body))}
	}
	ifc := ngIface{linkType: uint32(r.bo.Uint16(body)), snapLen: r.bo.Uint32(body[4:]), exp: 6}
	err := r.ngOptions(body[8:], off+8, func(code uint16, v []byte, voff int64) error {
		switch code {
		case 9: // if_tsresol
			if len(v) != 1 {
				return &FormatError{Record: r.record, Offset: voff, Msg: fmt.Sprintf("if_tsresol option of %d bytes, want 1", len(v))}
			}
			ifc.bin, ifc.exp = v[0]&0x80 != 0, v[0]&0x7F
			if (!ifc.bin && ifc.exp > 18) || (ifc.bin && ifc.exp > 63) {
				return &FormatError{Record: r.record, Offset: voff, Msg: fmt.Sprintf("if_tsresol %#02x is finer than this reader handles", v[0])}
			}
		case 14: // if_tsoffset
			if len(v) != 8 {
				return &FormatError{Record: r.record, Offset: voff, Msg: fmt.Sprintf("if_tsoffset option of %d bytes, want 8", len(v))}
			}
			ifc.tsOffset = int64(r.bo.Uint64(v))
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

// ngOptions walks a pcapng option list.
func (r *Reader) ngOptions(b []byte, off int64, f func(code uint16, v []byte, voff int64) error) error {
	for i := 0; i+4 <= len(b); {
		code, n := r.bo.Uint16(b[i:]), int(r.bo.Uint16(b[i+2:]))
		if code == 0 { // opt_endofopt
			return nil
		}
		if i+4+n > len(b) {
			return &FormatError{Record: r.record, Offset: off + int64(i) + 2, Msg: fmt.Sprintf("option %d of %d bytes runs past the end of its block", code, n)}
		}
		if err := f(code, b[i+4:i+4+n], off+int64(i)+4); err != nil {
			return err
		}
		i += 4 + (n+3)&^3
	}
	return nil
}

// ngEPB decodes an enhanced (or obsolete) packet block.
func (r *Reader) ngEPB(typ uint32, body []byte, start int64) (*Packet, error) {
	bodyOff := start + 8
	if len(body) < 20 {
		return nil, &FormatError{Record: r.record, Offset: bodyOff, Msg: fmt.Sprintf("packet block body of %d bytes, want at least 20", len(body))}
	}
	var id uint32
	if typ == ngBlockEPB {
		id = r.bo.Uint32(body)
	} else {
		id = uint32(r.bo.Uint16(body))
	}
	if int(id) >= len(r.ifaces) {
		return nil, &FormatError{Record: r.record, Offset: bodyOff, Msg: fmt.Sprintf("interface %d, but the section describes %d", id, len(r.ifaces)), Skippable: true}
	}
	ifc := &r.ifaces[id]
	ts := uint64(r.bo.Uint32(body[4:]))<<32 | uint64(r.bo.Uint32(body[8:]))
	capLen, origLen := r.bo.Uint32(body[12:]), r.bo.Uint32(body[16:])
	if int64(capLen) > int64(len(body)-20) {
		return nil, &FormatError{Record: r.record, Offset: bodyOff + 12, Msg: fmt.Sprintf("captured length %d, but the block holds %d bytes of packet data", capLen, len(body)-20)}
	}
	if origLen < capLen {
		return nil, &FormatError{Record: r.record, Offset: bodyOff + 16, Msg: fmt.Sprintf("original length %d is shorter than the captured length %d", origLen, capLen), Skippable: true}
	}
	return r.packet(ifc.linkType, ifc.time(ts), body[20:20+capLen], start, bodyOff+20, int(origLen))
}

// time converts a pcapng timestamp in the interface's units.
func (ifc *ngIface) time(ts uint64) time.Time {
	var sec, ns uint64
	if ifc.bin {
		sec = ts >> ifc.exp
		frac := ts & (1<<ifc.exp - 1)
		// frac < 2^exp, so frac*1e9 >> exp < 1e9 fits the low word.
		hi, lo := bits.Mul64(frac, 1e9)
		ns = hi<<(64-ifc.exp) | lo>>ifc.exp
	} else {
		unit := uint64(1)
		for range ifc.exp {
			unit *= 10
		}
		sec = ts / unit
		frac := ts % unit
		hi, lo := bits.Mul64(frac, 1e9)
		ns, _ = bits.Div64(hi, lo, unit)
	}
	return time.Unix(int64(sec)+ifc.tsOffset, int64(ns)).UTC()
}
