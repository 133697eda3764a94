// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"ibreservoir/rng"
)

// The switch-stage vector formats. All three carry the same information; the
// field names are those of docs/rtl.md.
//
// Hex ($readmemh into 64-bit words; version HexVersion): a header of //
// comments whose first line starts with HexMagic, then one 64-bit word per
// line (16 hex digits, most significant first), 9 + 2W words per vector,
// W = ceil(n/8) for an n-byte packet:
//
//	word 0       bits 63..56 flags: 7 load, 6 congested, 5 replace, 4 saturated,
//	             3 hash, 2 global, 1 corrupt (stomped), 0 raw (no BTH); 55..40 switch ID;
//	             39..32 output port; 31..16 packet length n in bytes (in and out
//	             are equal); 15..8 hop_count (or hop_rand) after the stage; 7..0 zero
//	words 1-4    generator state in, bits 255..0, most significant word first
//	             (rng.State bit i = bit i; zero with sender draws)
//	words 5-8    generator state out
//	W words      packet in: byte 0 in bits 63..56 of the first, zero after the last byte
//	W words      packet out, the same way
//
// Version 1 (one fixed 2096-bit line per vector, packets of at most 96 bytes)
// and version 2 (no raw flag: a raw packet would be expected to report a
// status) are refused by the readers: their first line does not start with
// HexMagic.
//
// The first vector of a set need not load its state: a switch generator's
// first vector is then drawn from the generator's reset state (rng.Resetter,
// docs/spec.md section 4), as it is after rst_ni, and the testbenches load
// nothing before it. Every other vector without the load flag continues the
// previous one's generator.
//
// Binary (co-simulation): a 40-byte file header, then one record per vector,
// every integer little-endian, each record padded with zeros to 8 bytes:
//
//	file:   0 magic "IBRSTV01" | 8 u32 version (4) | 12 u32 state bytes S (8 per 64-bit
//	        word of rng.State, 0 with sender draws) | 16 u32 field bits | 20 u32 state
//	        bits | 24 u64 vector count | 32 u64 configuration digest (ConfigDigest)
//	record: 0 u16 packet length n | 2 u8 flags (as the hex flags) | 3 u8 port | 4 u16 switch
//	        | 6 u8 diff count k | 7 u8 field after | 8 state in (S bytes, only when load)
//	        | state out (S bytes) | packet in (n bytes) | k diffs of {u16 offset, u8 byte}
//
// The expected output packet is the input with the k diffs applied: the
// bytes the model changed (BTH byte 4 and the VCRC). The testbench compares
// every byte of the RTL's output with it.
//
// JSON Lines: one JSONVector object per line; every one-bit value (the
// flags, the hash bit) is the integer 0 or 1.

// Flags of the hex and binary formats.
const (
	FlagLoad      = 1 << 7
	FlagCongested = 1 << 6
	FlagReplace   = 1 << 5
	FlagSaturated = 1 << 4
	FlagHash      = 1 << 3
	FlagGlobal    = 1 << 2
	// FlagCorrupt: the packet is corrupt (docs/spec.md section 5, step 0:
	// a wrong VCRC, a PktLen that disagrees with its length or is beyond the
	// longest legal packet) and leaves with its VCRC stomped.
	FlagCorrupt = 1 << 1
	// FlagRaw: the packet is a raw one (LNH 0 or 1: no BTH, so no telemetry
	// field); the stage makes no draw and reports no status for it, and the
	// hop field, replace, saturated and hash flags are 0.
	FlagRaw = 1 << 0
)

// The hex format's version and the start of its first line; HexHeadWords is
// the words of a vector before its packets.
const (
	HexVersion   = 3
	HexMagic     = "// ibreservoir switch-stage vectors, hex format version 3"
	HexHeadWords = 1 + 2*MaxStateBits/64
)

// MaxStateBits is the widest generator state the formats carry: the shift
// registers for l up to 16 (136 bits) and a free-running draw count.
const MaxStateBits = 256

// The binary format's file header and record head: BinaryMagic, then the
// fields at these offsets (the testbench's C++ header, cosim/tb/ibr_vectors.h,
// is generated from them).
const (
	BinaryMagic      = "IBRSTV01"
	BinaryVersion    = 4 // 3: packets to MaxPacket bytes, FlagCorrupt; 4: FlagRaw, a first vector from the reset state
	BinaryHeaderLen  = 40
	BinPosVersion    = 8  // u32
	BinPosStateBytes = 12 // u32 S
	BinPosFieldBits  = 16 // u32
	BinPosStateBits  = 20 // u32
	BinPosCount      = 24 // u64
	BinPosDigest     = 32 // u64
	RecPosLen        = 0  // u16 packet length n
	RecPosFlags      = 2  // u8
	RecPosPort       = 3  // u8
	RecPosSwitch     = 4  // u16
	RecPosDiffs      = 6  // u8 diff count k
	RecPosField      = 7  // u8 hop field after the stage
	RecHeadLen       = 8  // then the states, the packet and the diffs
	RecAlign         = 8  // records are padded to a multiple of this
	DiffLen          = 3  // one diff: u16 offset, u8 byte
)

// Flags returns the vector's flag byte.
func (v *StageVector) Flags() byte {
	var f byte
	if v.Load {
		f |= FlagLoad
	}
	if v.Congested {
		f |= FlagCongested
	}
	if v.Result.HopReplaced {
		f |= FlagReplace
	}
	if v.Result.HopSaturated {
		f |= FlagSaturated
	}
	if v.Result.HashBit != 0 {
		f |= FlagHash
	}
	if v.LNH() == 3 {
		f |= FlagGlobal
	}
	if v.Corrupt != 0 {
		f |= FlagCorrupt
	}
	if v.Result.Raw {
		f |= FlagRaw
	}
	return f
}

func stateBytes(st rng.State, n int) []byte {
	b := make([]byte, n)
	for i := range n {
		if i/8 < len(st) {
			b[i] = byte(st[i/8] >> (8 * (i % 8)))
		}
	}
	return b
}

// HexHeader is the comment block that heads a hex file of count vectors.
func (s *StageSet) HexHeader(count int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s ($readmemh into 64-bit words): %d vectors.\n", HexMagic, count)
	fmt.Fprintf(&b, "// Configuration: %s (digest %s); packets local and global.\n", s.configString(), DigestString(s.Digest))
	fmt.Fprintf(&b, "// Set seed %d; %d directed vectors, then %d random.\n", s.Config.Seed, s.Directed, count-s.Directed)
	for _, l := range []string{
		"Each vector: 9 + 2W words of 64 bits, one per line, W = ceil(n/8) for an n-byte packet:",
		"word 0     bits 63..56 flags: 7 load, 6 congested, 5 replace, 4 saturated, 3 hash, 2 global (LNH=3),",
		"           1 corrupt (VCRC stomped), 0 raw (LNH 0 or 1: no draw, no status); 55..40 switch ID; 39..32 output port;",
		fmt.Sprintf("           31..16 packet length n in bytes (LRH byte 0 through the VCRC); 15..8 hop field after the stage (%d bits)", s.FieldBits),
		fmt.Sprintf("words 1-4  generator state in (bit i of rng.State in bit i of bits 255..0, %d bits; zero with sender draws)", s.StateBits),
		"words 5-8  generator state out",
		"W words    packet in, byte 0 in bits 63..56 of the first word, zero after its last byte",
		"W words    packet out, the same way",
	} {
		b.WriteString("// " + l + "\n")
	}
	return b.String()
}

// AppendHex appends the vector's hex words, one per line.
func (v *StageVector) AppendHex(dst []byte) []byte {
	word := func(w uint64) {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], w)
		n := len(dst)
		dst = append(dst, make([]byte, 17)...)
		hex.Encode(dst[n:], b[:])
		dst[len(dst)-1] = '\n'
	}
	word(uint64(v.Flags())<<56 | uint64(v.Switch)<<40 | uint64(v.Port)<<32 | uint64(len(v.In))<<16 | uint64(byte(v.FieldOut))<<8)
	// States: most significant word first.
	const sw = MaxStateBits / 64
	for _, st := range []rng.State{v.StateIn, v.StateOut} {
		for j := sw - 1; j >= 0; j-- {
			var w uint64
			if j < len(st) {
				w = st[j]
			}
			word(w)
		}
	}
	for _, p := range [][]byte{v.In, v.Out} {
		for i := 0; i < len(p); i += 8 {
			var b [8]byte
			copy(b[:], p[i:])
			word(binary.BigEndian.Uint64(b[:]))
		}
	}
	return dst
}

// configString is the configuration as the hex header states it: the
// model's, without the LNH (the set holds both) and the seed (stated apart).
func (s *StageSet) configString() string {
	mc := s.Config.Model
	mc.Seed = s.Config.Seed
	str := mc.String()
	return strings.Replace(str, fmt.Sprintf(" lnh=%d", mc.LNH), "", 1)
}

// WriteHex writes the set in the hex format.
func (s *StageSet) WriteHex(w io.Writer) error {
	if _, err := io.WriteString(w, s.HexHeader(len(s.Vectors))); err != nil {
		return err
	}
	var buf []byte
	for i := range s.Vectors {
		buf = s.Vectors[i].AppendHex(buf[:0])
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// StateBytes is the width of a state in the binary format: 8 bytes per
// 64-bit word of rng.State, 0 with sender draws.
func (s *StageSet) StateBytes() int { return 8 * ((s.StateBits + 63) / 64) }

// BinaryHeader returns the binary file header for count vectors.
func (s *StageSet) BinaryHeader(count int) []byte {
	h := make([]byte, BinaryHeaderLen)
	copy(h, BinaryMagic)
	binary.LittleEndian.PutUint32(h[BinPosVersion:], BinaryVersion)
	binary.LittleEndian.PutUint32(h[BinPosStateBytes:], uint32(s.StateBytes()))
	binary.LittleEndian.PutUint32(h[BinPosFieldBits:], uint32(s.FieldBits))
	binary.LittleEndian.PutUint32(h[BinPosStateBits:], uint32(s.StateBits))
	binary.LittleEndian.PutUint64(h[BinPosCount:], uint64(count))
	binary.LittleEndian.PutUint64(h[BinPosDigest:], s.Digest)
	return h
}

// AppendBinary appends the vector's binary record; sb is the state width in bytes.
func (v *StageVector) AppendBinary(dst []byte, sb int) []byte {
	start := len(dst)
	var hdr [RecHeadLen]byte
	binary.LittleEndian.PutUint16(hdr[RecPosLen:], uint16(len(v.In)))
	hdr[RecPosFlags] = v.Flags()
	hdr[RecPosPort] = v.Port
	binary.LittleEndian.PutUint16(hdr[RecPosSwitch:], v.Switch)
	hdr[RecPosField] = byte(v.FieldOut)
	k := 0
	dst = append(dst, hdr[:]...)
	if sb > 0 {
		if v.Load {
			dst = appendState(dst, v.StateIn, sb)
		}
		dst = appendState(dst, v.StateOut, sb)
	}
	dst = append(dst, v.In...)
	for i := range v.In {
		if v.In[i] != v.Out[i] {
			dst = append(dst, byte(i), byte(i>>8), v.Out[i])
			k++
		}
	}
	dst[start+RecPosDiffs] = byte(k)
	for (len(dst)-start)%RecAlign != 0 {
		dst = append(dst, 0)
	}
	return dst
}

func appendState(dst []byte, st rng.State, n int) []byte {
	for i := range n {
		var b byte
		if i/8 < len(st) {
			b = byte(st[i/8] >> (8 * (i % 8)))
		}
		dst = append(dst, b)
	}
	return dst
}

// WriteBinary writes the set in the binary format.
func (s *StageSet) WriteBinary(w io.Writer) error {
	if _, err := w.Write(s.BinaryHeader(len(s.Vectors))); err != nil {
		return err
	}
	var buf []byte
	for i := range s.Vectors {
		buf = s.Vectors[i].AppendBinary(buf[:0], s.StateBytes())
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// JSONVector is the JSON Lines form of a switch-stage vector. Byte strings and
// states are lowercase hex; states most significant digit first (rng.State.Hex);
// one-bit values are the integers 0 and 1.
type JSONVector struct {
	Index     int      `json:"index"`
	Case      string   `json:"case"`
	LNH       uint8    `json:"lnh"`
	Switch    uint16   `json:"switch"`
	Port      uint8    `json:"port"`
	Congested uint8    `json:"congested"`
	Load      uint8    `json:"load"`
	StateIn   string   `json:"state_in,omitempty"`
	StateOut  string   `json:"state_out,omitempty"`
	In        string   `json:"in"`
	Out       string   `json:"out"`
	ID        uint32   `json:"id"`
	D         uint32   `json:"d"`
	Hash      uint8    `json:"hash"`
	L         int      `json:"l"`
	FieldIn   uint64   `json:"field_in"`
	FieldOut  uint64   `json:"field_out"`
	Replace   uint8    `json:"replace"`
	Saturated uint8    `json:"saturated"`
	Corrupt   uint8    `json:"corrupt"`         // the packet is corrupt and leaves with its VCRC stomped (FlagCorrupt)
	Raw       uint8    `json:"raw"`             // a raw packet (LNH 0 or 1): no draw, no status (FlagRaw)
	Edges     []string `json:"edges,omitempty"` // the comparator edges the draw sits on (edges.go)
}

// JSON returns the vector's JSON Lines form.
func (s *StageSet) JSON(v *StageVector) JSONVector {
	j := JSONVector{
		Index: v.Index, Case: v.Case, LNH: v.LNH(), Switch: v.Switch, Port: v.Port, Congested: bit(v.Congested), Load: bit(v.Load),
		In: hex.EncodeToString(v.In), Out: hex.EncodeToString(v.Out),
		ID: v.Result.ID, D: v.Result.D, Hash: v.Result.HashBit, L: v.Result.HopL,
		FieldIn: v.FieldIn, FieldOut: v.FieldOut, Replace: bit(v.Result.HopReplaced), Saturated: bit(v.Result.HopSaturated),
		Corrupt: bit(v.Corrupt != 0), Raw: bit(v.Result.Raw),
	}
	if s.StateBits > 0 {
		j.StateIn, j.StateOut = v.StateIn.Hex(s.StateBits), v.StateOut.Hex(s.StateBits)
	}
	for m := v.Edges; m != 0; m &= m - 1 {
		j.Edges = append(j.Edges, s.edges.list[bits.TrailingZeros64(m)].String())
	}
	return j
}

// WriteJSONL writes the set in the JSON Lines format.
func (s *StageSet) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	for i := range s.Vectors {
		if err := enc.Encode(s.JSON(&s.Vectors[i])); err != nil {
			return err
		}
	}
	return nil
}

// A BinaryRecord is one decoded binary record.
type BinaryRecord struct {
	Flags    byte
	Switch   uint16
	Port     uint8
	FieldOut uint8
	StateIn  []byte // S bytes when FlagLoad, else nil
	StateOut []byte
	In       []byte
	Out      []byte // In with the diffs applied
}

// BinaryFileHeader is the decoded header of a binary vector file.
type BinaryFileHeader struct {
	StateBytes, FieldBits, StateBits int
	Count                            uint64
	Digest                           uint64 // ConfigDigest of the configuration
}

// ReadBinaryHeader decodes and checks the header at the start of b.
func ReadBinaryHeader(b []byte) (BinaryFileHeader, error) {
	var h BinaryFileHeader
	if len(b) < BinaryHeaderLen {
		return h, fmt.Errorf("binary vectors: %d bytes, shorter than the %d-byte header", len(b), BinaryHeaderLen)
	}
	if string(b[:len(BinaryMagic)]) != BinaryMagic {
		return h, fmt.Errorf("binary vectors: magic %q, want %q", b[:len(BinaryMagic)], BinaryMagic)
	}
	if v := binary.LittleEndian.Uint32(b[BinPosVersion:]); v != BinaryVersion {
		return h, fmt.Errorf("binary vectors (byte %d): version %d, want %d (regenerate the file with this ibreservoir)", BinPosVersion, v, BinaryVersion)
	}
	h.StateBytes = int(binary.LittleEndian.Uint32(b[BinPosStateBytes:]))
	if h.StateBytes%8 != 0 || h.StateBytes > MaxStateBits/8 {
		return h, fmt.Errorf("binary vectors (byte %d): state of %d bytes, want a multiple of 8 up to %d", BinPosStateBytes, h.StateBytes, MaxStateBits/8)
	}
	h.FieldBits = int(binary.LittleEndian.Uint32(b[BinPosFieldBits:]))
	if h.FieldBits < 1 || h.FieldBits > 8 {
		return h, fmt.Errorf("binary vectors (byte %d): field of %d bits, want 1..8", BinPosFieldBits, h.FieldBits)
	}
	h.StateBits = int(binary.LittleEndian.Uint32(b[BinPosStateBits:]))
	if h.StateBits > 8*h.StateBytes {
		return h, fmt.Errorf("binary vectors (byte %d): state of %d bits in %d bytes", BinPosStateBits, h.StateBits, h.StateBytes)
	}
	h.Count = binary.LittleEndian.Uint64(b[BinPosCount:])
	h.Digest = binary.LittleEndian.Uint64(b[BinPosDigest:])
	return h, nil
}

// ReadBinary decodes a binary vector file, checking every length and offset.
// Its errors name the record and the byte offset in the file.
func ReadBinary(b []byte) (BinaryFileHeader, []BinaryRecord, error) {
	h, err := ReadBinaryHeader(b)
	if err != nil {
		return h, nil, err
	}
	sb := h.StateBytes
	var recs []BinaryRecord
	off := BinaryHeaderLen
	for i := uint64(0); i < h.Count; i++ {
		start := off
		need := func(n int) error {
			if len(b)-off < n {
				return fmt.Errorf("binary vectors: record %d (byte %d) is cut short: %d bytes remain, need %d", i, start, len(b)-off, n)
			}
			return nil
		}
		if err := need(RecHeadLen); err != nil {
			return h, nil, err
		}
		n := int(binary.LittleEndian.Uint16(b[off+RecPosLen:]))
		r := BinaryRecord{Flags: b[off+RecPosFlags], Port: b[off+RecPosPort], Switch: binary.LittleEndian.Uint16(b[off+RecPosSwitch:]), FieldOut: b[off+RecPosField]}
		k := int(b[off+RecPosDiffs])
		if n < MinPacket || n > MaxPacket || n%4 != 2 {
			return h, nil, fmt.Errorf("binary vectors: record %d (byte %d): packet of %d bytes, want 4k+2 in %d..%d", i, start, n, MinPacket, MaxPacket)
		}
		off += RecHeadLen
		if sb > 0 {
			if r.Flags&FlagLoad != 0 {
				if err := need(sb); err != nil {
					return h, nil, err
				}
				r.StateIn = b[off : off+sb]
				off += sb
			}
			if err := need(sb); err != nil {
				return h, nil, err
			}
			r.StateOut = b[off : off+sb]
			off += sb
		}
		if err := need(n + DiffLen*k); err != nil {
			return h, nil, err
		}
		r.In = b[off : off+n]
		off += n
		r.Out = append([]byte(nil), r.In...)
		for j := range k {
			o := int(binary.LittleEndian.Uint16(b[off:]))
			if o >= n {
				return h, nil, fmt.Errorf("binary vectors: record %d (byte %d): diff %d at offset %d, beyond the %d-byte packet", i, off, j, o, n)
			}
			r.Out[o] = b[off+2]
			off += DiffLen
		}
		pad := -(off - start) & (RecAlign - 1)
		if err := need(pad); err != nil {
			return h, nil, err
		}
		off += pad
		recs = append(recs, r)
	}
	if off != len(b) {
		return h, nil, fmt.Errorf("binary vectors: %d bytes after the %d records (byte %d): the header's count is wrong or the file is not one set", len(b)-off, h.Count, off)
	}
	return h, recs, nil
}

// ReadJSONL decodes JSON Lines vectors, refusing unknown fields; its errors
// name the line.
func ReadJSONL(r io.Reader) ([]JSONVector, error) {
	var out []JSONVector
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	for line := 1; ; line++ {
		var j JSONVector
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("JSON Lines vectors, line %d: %w", line, err)
		}
		for _, f := range []struct{ name, v string }{{"in", j.In}, {"out", j.Out}, {"state_in", j.StateIn}, {"state_out", j.StateOut}} {
			if _, err := hex.DecodeString(f.v); err != nil {
				return nil, fmt.Errorf("JSON Lines vectors, line %d: %s: %w", line, f.name, err)
			}
		}
		out = append(out, j)
	}
}

// WriteStageBinary generates cfg's vectors and writes them in the binary
// format as they are made, in bounded memory whatever their number, and
// returns the set (its Counts and EdgeCoverage). The bytes equal
// GenerateStage's WriteBinary. It stops with ctx's error when ctx is done.
func WriteStageBinary(ctx context.Context, w io.Writer, cfg StageConfig) (*StageSet, error) {
	set, err := NewStageSet(cfg)
	if err != nil {
		return nil, err
	}
	set.Reuse = true
	sb := set.StateBytes()
	first := true
	err = set.StreamEncoded(ctx, func(vs []StageVector, dst []byte) []byte {
		for i := range vs {
			dst = vs[i].AppendBinary(dst, sb)
		}
		return dst
	}, func(p []byte) error {
		if first {
			// The header holds the count: the directed cases come first.
			first = false
			if _, err := w.Write(set.BinaryHeader(set.Directed + cfg.Random)); err != nil {
				return err
			}
		}
		_, err := w.Write(p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}
