// SPDX-License-Identifier: Apache-2.0

package header

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// A Region is a group of bits of an IBA packet that the specification leaves
// reserved, or the telemetry footer this project proposes. Telemetry fields are
// placed only in regions.
//
// Region bits are numbered from 0, the least significant, to Width-1, the first
// on the wire:
//
//	BTHResv6  BTH byte 4 bits 5..0          region bit i = byte 4 bit i
//	LRHRsv2   LRH byte 1 bits 3..2          region bit i = byte 1 bit 2+i
//	LRHRsv5   LRH byte 4 bits 7..3          region bit i = byte 4 bit 3+i
//	BTHResv7  BTH byte 8 bits 6..0          region bit i = byte 8 bit i
//	Footer    F bytes after the ICRC        region bit i = footer byte F-1-i/8, bit i%8
//
// The footer is read as one big-endian integer. It sits between the ICRC and the
// VCRC, is counted in PktLen, and is covered by the VCRC but not by the ICRC; it
// is the "footer not included in the CRC calculation" of thesis section 5.1, for
// layouts wider than the reserved bits.
type Region uint8

const (
	BTHResv6 Region = iota
	LRHRsv2
	LRHRsv5
	BTHResv7
	Footer
	numRegions
)

type regionInfo struct {
	name    string // as the IBA specification names the field
	ibaName string
	hdr     string // "LRH", "BTH" or "footer"
	byteOff int    // offset of the region's byte in its header
	lsb     int    // bit number of region bit 0 within that byte
	width   int    // bits; 0 for the footer, whose width the layout sets
}

var regions = [numRegions]regionInfo{
	BTHResv6: {"bth.resv6", "BTH Resv6", "BTH", 4, 0, 6},
	LRHRsv2:  {"lrh.rsv2", "LRH Rsv2", "LRH", 1, 2, 2},
	LRHRsv5:  {"lrh.rsv5", "LRH Rsv5", "LRH", 4, 3, 5},
	BTHResv7: {"bth.resv7", "BTH Resv7", "BTH", 8, 0, 7},
	Footer:   {"footer", "telemetry footer", "footer", 0, 0, 0},
}

func (r Region) String() string {
	if r < numRegions {
		return regions[r].name
	}
	return fmt.Sprintf("Region(%d)", uint8(r))
}

// IBAName is the field's name in the IBA specification.
func (r Region) IBAName() string { return regions[r].ibaName }

// ICRCCovered reports whether the ICRC covers the region in a packet with the
// given LNH. BTH byte 4 is variant in every IBA transport packet. The LRH is
// counted as all ones in global packets only, so its reserved bits are free
// there and covered in local packets. BTH Resv7 is always covered. The
// footer lies after the ICRC.
func (r Region) ICRCCovered(lnh uint8) bool {
	switch r {
	case BTHResv6, Footer:
		return false
	case LRHRsv2, LRHRsv5:
		return lnh != LNHGlobal
	}
	return true
}

// Writer says who writes a field: the sender NIC once, or every switch.
type Writer uint8

const (
	SenderWritten Writer = iota
	SwitchWritten
)

func (w Writer) String() string {
	if w == SwitchWritten {
		return "switch"
	}
	return "sender"
}

// Field names used by the schemes of package refmodel.
const (
	FieldHopBit     = "hop_bit"     // 1-bit hash of the sampled hop (Alg. 5-9)
	FieldCongBit    = "cong_bit"    // Alg. 5-7: hash of the sampled congested hop; Alg. 8-9: congested flag of the sampled hop
	FieldHopCount   = "hop_count"   // saturating hop count
	FieldCongCount  = "cong_count"  // saturating congested-hop count (two-reservoir schemes)
	FieldHopSwitch  = "hop_switch"  // full-ID scheme: switch ID of the sampled hop
	FieldHopPort    = "hop_port"    // full-ID scheme: output port of the sampled hop
	FieldCongSwitch = "cong_switch" // full-ID scheme: switch ID of the sampled congested hop
	FieldCongPort   = "cong_port"   // full-ID scheme: output port of the sampled congested hop
	FieldHopRand    = "hop_rand"    // sender-generated draws with sentinel for the hop reservoir (section 5.9)
	FieldCongRand   = "cong_rand"   // the same for the congested reservoir
)

// A Segment is bits Hi..Lo (inclusive, Hi >= Lo) of a region.
type Segment struct {
	Region Region
	Hi, Lo int
}

func (s Segment) width() int { return s.Hi - s.Lo + 1 }

// A Field is a named value stored in the concatenation of its segments, the
// first segment holding the most significant bits.
type Field struct {
	Name     string
	Writer   Writer
	Segments []Segment
	Meaning  string
}

// Width is the field's width in bits.
func (f *Field) Width() int {
	w := 0
	for _, s := range f.Segments {
		w += s.width()
	}
	return w
}

// PacketKind says which packets a layout can be used in.
type PacketKind uint8

const (
	AnyPacket    PacketKind = iota // local and global
	GlobalPacket                   // LNH=3 only (uses LRH reserved bits)
)

// A Layout places telemetry fields in a packet.
type Layout struct {
	Name        string
	Description string
	Packets     PacketKind
	FooterBytes int // size of the telemetry footer; a multiple of 4, 0 for none
	Fields      []Field
}

// Field returns the named field, or nil. It searches the few fields of a
// layout in order, so a Layout is safe for concurrent readers.
func (l *Layout) Field(name string) *Field {
	for i := range l.Fields {
		if l.Fields[i].Name == name {
			return &l.Fields[i]
		}
	}
	return nil
}

func (l *Layout) regionWidth(r Region) int {
	if r == Footer {
		return 8 * l.FooterBytes
	}
	return regions[r].width
}

// Validate checks the layout for packets with the given LNH: every segment
// inside its region, no bit used twice, field widths of 1..64, a footer size
// that keeps PktLen a whole number of words, and no switch-written field in
// bits the ICRC covers (a switch writing there would break the end-to-end
// check of every packet).
func (l *Layout) Validate(lnh uint8) error {
	if lnh != LNHLocal && lnh != LNHGlobal {
		return fmt.Errorf("layout %s: LNH=%d is not an IBA transport packet", l.Name, lnh)
	}
	if l.Packets == GlobalPacket && lnh != LNHGlobal {
		return fmt.Errorf("layout %s: usable in global (LNH=3) packets only", l.Name)
	}
	if l.FooterBytes < 0 || l.FooterBytes%4 != 0 {
		return fmt.Errorf("layout %s: footer of %d bytes; PktLen counts 4-byte words, so it must be a multiple of 4", l.Name, l.FooterBytes)
	}
	used := make(map[[2]int]string)
	names := make(map[string]bool)
	var errs []error
	for _, f := range l.Fields {
		if f.Name == "" {
			errs = append(errs, fmt.Errorf("layout %s: a field has no name", l.Name))
		} else if names[f.Name] {
			errs = append(errs, fmt.Errorf("layout %s: two fields are named %s", l.Name, f.Name))
		}
		names[f.Name] = true
		if w := f.Width(); w < 1 || w > 64 {
			errs = append(errs, fmt.Errorf("layout %s: field %s is %d bits wide (want 1..64)", l.Name, f.Name, w))
		}
		for _, s := range f.Segments {
			if s.Region >= numRegions {
				errs = append(errs, fmt.Errorf("layout %s: field %s: no region %d", l.Name, f.Name, s.Region))
				continue
			}
			rw := l.regionWidth(s.Region)
			if s.Lo < 0 || s.Hi < s.Lo || s.Hi >= rw {
				errs = append(errs, fmt.Errorf("layout %s: field %s: bits %d..%d outside %s (bits %d..0)",
					l.Name, f.Name, s.Hi, s.Lo, s.Region, rw-1))
				continue
			}
			if f.Writer == SwitchWritten && s.Region.ICRCCovered(lnh) {
				errs = append(errs, fmt.Errorf("layout %s: field %s is written by switches but %s is covered by the ICRC in %s packets: "+
					"every switch rewrite would fail the receiver's end-to-end check", l.Name, f.Name, s.Region.IBAName(), lnhName(lnh)))
			}
			for b := s.Lo; b <= s.Hi; b++ {
				k := [2]int{int(s.Region), b}
				if other, dup := used[k]; dup {
					errs = append(errs, fmt.Errorf("layout %s: %s bit %d used by both %s and %s", l.Name, s.Region, b, other, f.Name))
				}
				used[k] = f.Name
			}
		}
	}
	return errors.Join(errs...)
}

func lnhName(lnh uint8) string {
	if lnh == LNHGlobal {
		return "global (LNH=3)"
	}
	return "local (LNH=2)"
}

// bitLoc returns the byte offset within pkt and the bit number of region bit b.
// pktLen is the packet's length in bytes up to the VCRC (4*PktLen).
func bitLoc(r Region, b int, bth, pktLen int) (int, uint) {
	ri := &regions[r]
	switch ri.hdr {
	case "LRH":
		return ri.byteOff, uint(ri.lsb + b)
	case "BTH":
		return bth + ri.byteOff, uint(ri.lsb + b)
	}
	return pktLen - 1 - b/8, uint(b % 8)
}

// Frame locates the parts of a packet a layout touches.
type Frame struct {
	BTH    int // offset of the BTH
	PktLen int // bytes from LRH byte 0 to the VCRC: 4*PktLen
}

// FrameOf reads LNH and PktLen from the LRH of pkt and checks that pkt holds
// the whole packet (through the VCRC).
func FrameOf(pkt []byte) (Frame, error) {
	if len(pkt) < LRHLen {
		return Frame{}, fmt.Errorf("packet is %d bytes, shorter than the %d-byte LRH", len(pkt), LRHLen)
	}
	bth, err := BTHOffset(LNHOf(pkt))
	if err != nil {
		return Frame{}, err
	}
	n := 4 * int(PktLenOf(pkt))
	if n < bth+BTHLen+ICRCLen {
		return Frame{}, fmt.Errorf("LRH bytes 4-5: PktLen=%d words (%d bytes) is shorter than the headers and ICRC (%d bytes)", n/4, n, bth+BTHLen+ICRCLen)
	}
	if len(pkt) < n+VCRCLen {
		return Frame{}, fmt.Errorf("LRH bytes 4-5: PktLen=%d words says %d bytes plus a 2-byte VCRC, but the packet is %d bytes", n/4, n+VCRCLen, len(pkt))
	}
	return Frame{BTH: bth, PktLen: n}, nil
}

// Locate reads the frame of pkt (FrameOf) and checks that the layout fits it:
// the packet kind is one the layout serves and PktLen leaves room for the
// headers, the ICRC and the footer.
func (l *Layout) Locate(pkt []byte) (Frame, error) {
	fr, err := FrameOf(pkt)
	if err != nil {
		return fr, err
	}
	if l.Packets == GlobalPacket && LNHOf(pkt) != LNHGlobal {
		return fr, fmt.Errorf("layout %s: usable in global (LNH=3) packets only, and this packet is local", l.Name)
	}
	if err := l.fits(fr); err != nil {
		return fr, err
	}
	return fr, nil
}

func (l *Layout) fits(fr Frame) error {
	if fr.PktLen-l.FooterBytes < fr.BTH+BTHLen+ICRCLen {
		return fmt.Errorf("layout %s: PktLen=%d words (%d bytes) leaves no room for the headers, ICRC and %d-byte footer",
			l.Name, fr.PktLen/4, fr.PktLen, l.FooterBytes)
	}
	return nil
}

// Get reads field name from pkt, located by fr (from Locate or FrameOf).
func (l *Layout) Get(pkt []byte, fr Frame, name string) (uint64, error) {
	f := l.Field(name)
	if f == nil {
		return 0, fmt.Errorf("layout %s has no field %s", l.Name, name)
	}
	if err := l.fits(fr); err != nil {
		return 0, err
	}
	var v uint64
	var buf [9]chunk
	for _, s := range f.Segments {
		for _, c := range segmentChunks(s, buf[:0]) {
			v = c.get(pkt, fr, v)
		}
	}
	return v, nil
}

// getBits and setBits are the bit-at-a-time definitions of Get and Set,
// straight from the region numbering (bitLoc); the tests hold the chunked
// forms to them.
func (f *Field) getBits(pkt []byte, fr Frame) uint64 {
	var v uint64
	for _, s := range f.Segments {
		for b := s.Hi; b >= s.Lo; b-- {
			i, bit := bitLoc(s.Region, b, fr.BTH, fr.PktLen)
			v = v<<1 | uint64(pkt[i]>>bit&1)
		}
	}
	return v
}

func (f *Field) setBits(pkt []byte, fr Frame, v uint64) {
	w := f.Width()
	for _, s := range f.Segments {
		for b := s.Hi; b >= s.Lo; b-- {
			w--
			i, bit := bitLoc(s.Region, b, fr.BTH, fr.PktLen)
			pkt[i] = pkt[i]&^(1<<bit) | byte(v>>w&1)<<bit
		}
	}
}

// Set writes v into field name of pkt. It refuses a value too wide for the field.
func (l *Layout) Set(pkt []byte, fr Frame, name string, v uint64) error {
	f := l.Field(name)
	if f == nil {
		return fmt.Errorf("layout %s has no field %s", l.Name, name)
	}
	w := f.Width()
	if w < 64 && v>>w != 0 {
		return fmt.Errorf("layout %s: value %#x does not fit the %d-bit field %s", l.Name, v, w, name)
	}
	if err := l.fits(fr); err != nil {
		return err
	}
	var buf [9]chunk
	for _, s := range f.Segments {
		for _, c := range segmentChunks(s, buf[:0]) {
			w -= int(c.width)
			c.set(pkt, fr, v>>uint(w))
		}
	}
	return nil
}

// A chunk is a run of a field's bits inside one packet byte. Its byte is at
// off from LRH byte 0, from the BTH, or back from 4*PktLen (the footer ends
// there), as anchor says.
type chunk struct {
	anchor uint8
	off    int32
	shift  uint8 // bit number of the run's least significant bit
	width  uint8 // bits in the run, 1..8
}

const (
	anchorLRH = iota
	anchorBTH
	anchorEnd
)

func (c chunk) index(fr Frame) int {
	switch c.anchor {
	case anchorBTH:
		return fr.BTH + int(c.off)
	case anchorEnd:
		return fr.PktLen - int(c.off)
	}
	return int(c.off)
}

// get shifts the run's bits in below v.
func (c chunk) get(pkt []byte, fr Frame, v uint64) uint64 {
	return v<<c.width | uint64(pkt[c.index(fr)]>>c.shift)&(1<<c.width-1)
}

// set writes the low width bits of v into the run.
func (c chunk) set(pkt []byte, fr Frame, v uint64) {
	m := byte(1<<c.width-1) << c.shift
	i := c.index(fr)
	pkt[i] = pkt[i]&^m | byte(v)<<c.shift&m
}

// segmentChunks appends the runs of segment s, most significant first, to
// buf. Reserved-bit regions lie within one byte; a footer segment is split at
// byte boundaries of the big-endian footer.
func segmentChunks(s Segment, buf []chunk) []chunk {
	ri := &regions[s.Region]
	switch ri.hdr {
	case "LRH", "BTH":
		a := uint8(anchorLRH)
		if ri.hdr == "BTH" {
			a = anchorBTH
		}
		return append(buf, chunk{a, int32(ri.byteOff), uint8(ri.lsb + s.Lo), uint8(s.Hi - s.Lo + 1)})
	}
	for b := s.Hi; b >= s.Lo; {
		lo := max(s.Lo, b&^7)
		// Region bit b is in footer byte F-1-b/8, i.e. 1+b/8 bytes before 4*PktLen.
		buf = append(buf, chunk{anchorEnd, int32(1 + b/8), uint8(lo % 8), uint8(b - lo + 1)})
		b = lo - 1
	}
	return buf
}

// A FieldRef is a field of a layout compiled for speed: Get and Set touch the
// packet bytes directly, with no name lookup and no allocation. The reference
// model's switch stage runs them on every hop.
type FieldRef struct {
	Name   string
	Width  int
	chunks []chunk
}

// Ref compiles field name.
func (l *Layout) Ref(name string) (*FieldRef, error) {
	f := l.Field(name)
	if f == nil {
		return nil, fmt.Errorf("layout %s has no field %s", l.Name, name)
	}
	r := &FieldRef{Name: name, Width: f.Width()}
	if r.Width < 1 || r.Width > 64 {
		return nil, fmt.Errorf("layout %s: field %s is %d bits wide (want 1..64)", l.Name, name, r.Width)
	}
	for _, s := range f.Segments {
		if s.Region >= numRegions {
			return nil, fmt.Errorf("layout %s: field %s: no region %d", l.Name, name, s.Region)
		}
		r.chunks = segmentChunks(s, r.chunks)
	}
	return r, nil
}

// Get reads the field from pkt. fr must come from the layout's Locate (or
// FrameOf, for a packet known to fit the layout).
func (r *FieldRef) Get(pkt []byte, fr Frame) uint64 {
	var v uint64
	for _, c := range r.chunks {
		v = c.get(pkt, fr, v)
	}
	return v
}

// Set writes v into the field of pkt, refusing a value too wide for it.
func (r *FieldRef) Set(pkt []byte, fr Frame, v uint64) error {
	if r.Width < 64 && v>>r.Width != 0 {
		return fmt.Errorf("value %#x does not fit the %d-bit field %s", v, r.Width, r.Name)
	}
	w := r.Width
	for _, c := range r.chunks {
		w -= int(c.width)
		c.set(pkt, fr, v>>uint(w))
	}
	return nil
}

// BitMapRow is one row of a layout's bit map, for `ibreservoir spec`.
type BitMapRow struct {
	Field       string
	Writer      Writer
	Header      string // LRH, BTH or footer
	Byte        int    // byte offset within that header (footer: from its first byte)
	Bits        string // e.g. "5..3" or "4"
	IBAField    string
	ICRCCovered bool
	Meaning     string
}

// BitMap lists where every bit of every field lies, for packets with the given
// LNH, in wire order within each header.
func (l *Layout) BitMap(lnh uint8) []BitMapRow {
	var rows []BitMapRow
	for _, f := range l.Fields {
		for _, s := range f.Segments {
			// Split the segment at byte boundaries.
			for b := s.Hi; b >= s.Lo; {
				byteOff, hi := bitLoc(s.Region, b, 0, l.FooterBytes)
				lo, e := hi, b
				for e-1 >= s.Lo {
					o, bit := bitLoc(s.Region, e-1, 0, l.FooterBytes)
					if o != byteOff {
						break
					}
					lo, e = bit, e-1
				}
				bits := fmt.Sprint(hi)
				if hi != lo {
					bits = fmt.Sprintf("%d..%d", hi, lo)
				}
				rows = append(rows, BitMapRow{
					Field: f.Name, Writer: f.Writer, Header: regions[s.Region].hdr, Byte: byteOff,
					Bits: bits, IBAField: s.Region.IBAName(), ICRCCovered: s.Region.ICRCCovered(lnh), Meaning: f.Meaning,
				})
				b = e - 1
			}
		}
	}
	order := map[string]int{"LRH": 0, "BTH": 1, "footer": 2}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Header != rows[j].Header {
			return order[rows[i].Header] < order[rows[j].Header]
		}
		return rows[i].Byte < rows[j].Byte
	})
	return rows
}

// String names the layout and its fields, for error messages and manifests.
func (l *Layout) String() string {
	var b strings.Builder
	b.WriteString(l.Name)
	b.WriteString("{")
	for i, f := range l.Fields {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%d", f.Name, f.Width())
	}
	b.WriteString("}")
	return b.String()
}
