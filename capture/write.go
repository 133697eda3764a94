// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"ibreservoir/internal/atomicfile"
)

// A Writer writes InfiniBand packets to a pcap file of link type 197, each as
// an ERF type 21 record, in the form an Endace card captures and Wireshark
// reads: a 16-byte ERF header with the varying-length flag, the packet, and an
// rlen rounded up to 8 bytes whose padding is not stored in the pcap record.
type Writer struct {
	w     *pcapgo.Writer
	iface uint8
	n     int
}

// maxERFPacket is the largest packet an ERF record can carry (16-bit rlen).
const maxERFPacket = 0xFFFF - ERFHeaderLen - 7

// NewWriter writes the pcap file header to w. Timestamps are stored in
// microseconds in the pcap record and to 2^-32 s in the ERF header.
func NewWriter(w io.Writer) (*Writer, error) {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(0xFFFF, layers.LinkType(LinkTypeERF)); err != nil {
		return nil, fmt.Errorf("pcap file header: %w", err)
	}
	return &Writer{w: pw}, nil
}

// SetInterface sets the ERF interface number (0..3) of the records that follow.
func (w *Writer) SetInterface(i int) error {
	if i < 0 || i > ERFFlagIface {
		return fmt.Errorf("ERF interface %d: want 0..3", i)
	}
	w.iface = uint8(i)
	return nil
}

// WritePacket appends pkt (LRH byte 0 through the VCRC) captured at t.
func (w *Writer) WritePacket(t time.Time, pkt []byte) error {
	return w.WriteERF(ERFTimestamp(t), pkt)
}

// WriteERF appends pkt with the ERF timestamp ts (32.32 fixed point seconds,
// finer than a time.Time holds), so that a record read from a capture can be
// written back bit for bit.
func (w *Writer) WriteERF(ts uint64, pkt []byte) error {
	w.n++
	t := ERFTime(ts)
	if len(pkt) > maxERFPacket {
		return fmt.Errorf("packet %d: %d bytes, more than an ERF record carries (%d)", w.n, len(pkt), maxERFPacket)
	}
	rec := make([]byte, ERFHeaderLen+len(pkt))
	binary.LittleEndian.PutUint64(rec, ts)
	rec[8] = ERFTypeInfiniBand
	rec[9] = ERFFlagVarLen | w.iface
	binary.BigEndian.PutUint16(rec[10:], uint16((len(rec)+7)&^7))
	binary.BigEndian.PutUint16(rec[14:], uint16(len(pkt)))
	copy(rec[ERFHeaderLen:], pkt)
	ci := gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(rec), Length: len(rec)}
	if err := w.w.WritePacket(ci, rec); err != nil {
		return fmt.Errorf("packet %d: %w", w.n, err)
	}
	return nil
}

// WriteFile writes an ERF-in-pcap file at path, whole or not at all: fill
// writes the packets, and the file appears only if fill returns nil.
func WriteFile(path string, fill func(*Writer) error) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		w, err := NewWriter(f)
		if err != nil {
			return err
		}
		return fill(w)
	})
}

// WritePackets writes pkts (their Data and Time, or for those read from ERF
// their ERF timestamp and interface) to path as WriteFile does.
func WritePackets(path string, pkts []*Packet) error {
	return WriteFile(path, func(w *Writer) error {
		for _, p := range pkts {
			iface, ts := 0, ERFTimestamp(p.Time)
			if p.ERF != nil {
				iface, ts = int(p.ERF.Flags&ERFFlagIface), p.ERF.Timestamp
			}
			if err := w.SetInterface(iface); err != nil {
				return err
			}
			if err := w.WriteERF(ts, p.Data); err != nil {
				return err
			}
		}
		return nil
	})
}
