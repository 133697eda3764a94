// SPDX-License-Identifier: Apache-2.0

// Package capture reads InfiniBand packets from pcap and pcapng files and
// writes them as pcap files that Wireshark opens.
//
// Two encapsulations are read:
//
//   - link type 197 (LINKTYPE_ERF): each record holds an Endace ERF record, a
//     16-byte ERF header, optional 8-byte extension headers, then the packet.
//     Only ERF type 21 (InfiniBand) records are InfiniBand packets. This is what
//     an Endace card captures and what Wireshark saves.
//   - link type 247 (LINKTYPE_INFINIBAND): each record is the packet itself.
//
// A packet's bytes run from LRH byte 0 through the VCRC (as far as captured).
// Files are written as link type 197, ERF type 21, the form of the captures
// this project checks against.
//
// Errors name the record (numbered from 1 in file order, counting every pcap
// record or pcapng block) and the byte offset in the file where the problem
// lies.
package capture

import (
	"fmt"
	"strings"
	"time"
)

// Link types (the pcap LINKTYPE_ values, also pcapng interface link types).
const (
	LinkTypeERF        = 197
	LinkTypeInfiniBand = 247
)

// ERF record types and header constants (Endace ERF Types Reference).
const (
	ERFTypeInfiniBand     = 21   // TYPE_INFINIBAND: an InfiniBand packet from LRH byte 0
	ERFTypeInfiniBandLink = 25   // TYPE_INFINIBAND_LINK: link packets (flow control), not transport
	ERFHeaderLen          = 16   // timestamp 8, type 1, flags 1, rlen 2, lctr 2, wlen 2
	ERFExtHeaderLen       = 8    // each extension header
	erfTypeExtBit         = 0x80 // type's top bit: an extension header follows
	erfTypeMask           = 0x7F

	// ERF flags (byte 9 of the header).
	ERFFlagIface   = 0x03 // capture interface
	ERFFlagVarLen  = 0x04 // varying-length record (always set by current cards)
	ERFFlagTrunc   = 0x08 // record truncated (buffer overflow)
	ERFFlagRxError = 0x10 // link-layer error in the packet
	ERFFlagDSError = 0x20 // data-stream error
)

// An ERFHeader is the ERF record header (Endace ERF Types Reference, "Generic
// ERF Header"); all of its multi-byte fields except the timestamp are
// big-endian.
type ERFHeader struct {
	Timestamp  uint64   // little-endian 32.32 fixed point seconds since 1970
	Type       uint8    // record type, extension bit cleared
	Flags      uint8    // ERFFlag*
	RLen       uint16   // record length in bytes, header and padding included
	LCtr       uint16   // loss counter or color
	WLen       uint16   // wire length of the packet in bytes
	Extensions []uint64 // extension headers, big-endian words, type in the top byte
}

// Time converts an ERF timestamp to a time.
func ERFTime(ts uint64) time.Time {
	sec := int64(ts >> 32)
	frac := ts & 0xFFFFFFFF
	ns := int64((frac*1_000_000_000 + 1<<31) >> 32)
	return time.Unix(sec, ns).UTC()
}

// ERFTimestamp is the ERF timestamp of t, rounded to the nearest 2^-32 s.
func ERFTimestamp(t time.Time) uint64 {
	sec := uint64(t.Unix())
	ns := uint64(t.Nanosecond())
	frac := (ns<<32 + 500_000_000) / 1_000_000_000
	return sec<<32 + frac
}

// A Packet is one InfiniBand packet read from a capture.
type Packet struct {
	Record   int       // record number, from 1
	Offset   int64     // byte offset in the file of the record (pcap record header, pcapng block)
	Time     time.Time // capture time, UTC (for ERF, the ERF header's timestamp)
	LinkType uint32    // LinkTypeERF or LinkTypeInfiniBand
	// Data is the packet from LRH byte 0, as far as it was captured: for ERF,
	// the record's payload cut to the wire length (dropping the record's
	// padding); for link type 247, the whole captured record.
	Data       []byte
	DataOffset int64      // byte offset in the file of Data[0]
	WireLen    int        // length on the wire (ERF wlen; the record's original length)
	ERF        *ERFHeader // the ERF header, for link type 197
}

// Truncated reports whether less than the whole packet was captured.
func (p *Packet) Truncated() bool { return len(p.Data) < p.WireLen }

// CaptureError reports what the capture card flagged about the packet: for
// ERF records, the receive-error, data-stream-error and truncation flags of
// the ERF header. Such a packet is not what the link carried, or not all of
// it, whatever its CRCs say. It is nil for an unflagged packet.
func (p *Packet) CaptureError() error {
	if p.ERF == nil {
		return nil
	}
	var what []string
	if p.ERF.Flags&ERFFlagRxError != 0 {
		what = append(what, "receive error (the link layer flagged the packet)")
	}
	if p.ERF.Flags&ERFFlagDSError != 0 {
		what = append(what, "data-stream error (the card lost data)")
	}
	if p.ERF.Flags&ERFFlagTrunc != 0 {
		what = append(what, "truncated (the card's buffer overflowed)")
	}
	if len(what) == 0 {
		return nil
	}
	return fmt.Errorf("ERF flags %#02x: %s", p.ERF.Flags, strings.Join(what, ", "))
}

// A FormatError reports a malformed capture: the record and the byte offset
// in the file where the problem lies. After a FormatError with Skippable set,
// the reader has stepped over that record and Next may be called again; any
// other error ends the file.
type FormatError struct {
	Record    int   // record number from 1; 0 for the file header
	Offset    int64 // byte offset in the file
	Msg       string
	Skippable bool
}

func (e *FormatError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("file header, byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("record %d, byte %d: %s", e.Record, e.Offset, e.Msg)
}

var linkTypeNames = map[uint32]string{
	0: "null", 1: "Ethernet", 101: "raw IP", 113: "Linux cooked", 197: "ERF", 247: "InfiniBand",
}

func linkTypeName(lt uint32) string {
	if n, ok := linkTypeNames[lt]; ok {
		return fmt.Sprintf("%d (%s)", lt, n)
	}
	return fmt.Sprint(lt)
}

var erfTypeNames = map[uint8]string{
	1: "HDLC POS", 2: "Ethernet", 3: "ATM", 4: "AAL5", 10: "Ethernet with color",
	21: "InfiniBand", 22: "IPv4", 23: "IPv6", 24: "raw link", 25: "InfiniBand link",
}

func erfTypeName(t uint8) string {
	if n, ok := erfTypeNames[t]; ok {
		return fmt.Sprintf("%d (%s)", t, n)
	}
	return fmt.Sprint(t)
}
