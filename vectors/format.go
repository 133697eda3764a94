package vectors

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"ibreservoir/rng"
)

// The switch-stage vector formats. All three carry the same information; the
// field names are those of docs/rtl.md.
//
// Hex ($readmemh): one line per vector, HexBits bits as HexDigits hex digits,
// most significant first, after a header of // comments:
//
//	bits 2095..2088  flags: 7 load, 6 congested, 5 replace, 4 saturated, 3 hash, 2 global, 1..0 zero
//	bits 2087..2072  switch ID
//	bits 2071..2064  output port
//	bits 2063..2056  packet length in bytes (in and out are equal)
//	bits 2055..2048  hop_count (or hop_rand) after the stage
//	bits 2047..1792  generator state in (rng.State bit i = bit i; zero with sender draws)
//	bits 1791..1536  generator state out
//	bits 1535..768   packet in: byte 0 in bits 1535..1528, zero after the last byte
//	bits  767..0     packet out, the same way
//
// Binary (co-simulation): a 32-byte file header, then one record per vector,
// every integer little-endian, each record padded with zeros to 8 bytes:
//
//	file:   0 magic "IBRSTV01" | 8 u32 version (1) | 12 u32 state bytes S (8 per 64-bit
//	        word of rng.State, 0 with sender draws) | 16 u32 field bits | 20 u32 state
//	        bits | 24 u64 vector count
//	record: 0 u16 packet length n | 2 u8 flags (as the hex flags) | 3 u8 port | 4 u16 switch
//	        | 6 u8 diff count k | 7 u8 field after | 8 state in (S bytes, only when load)
//	        | state out (S bytes) | packet in (n bytes) | k diffs of {u16 offset, u8 byte}
//
// The expected output packet is the input with the k diffs applied: the
// bytes the model changed (BTH byte 4 and the VCRC). The testbench compares
// every byte of the RTL's output with it.
//
// JSON Lines: one JSONVector object per line.

// Flags of the hex and binary formats.
const (
	FlagLoad      = 1 << 7
	FlagCongested = 1 << 6
	FlagReplace   = 1 << 5
	FlagSaturated = 1 << 4
	FlagHash      = 1 << 3
	FlagGlobal    = 1 << 2
)

// HexBits is the width of a hex line; HexDigits its length in digits.
const (
	HexBits   = 8 + 16 + 8 + 8 + 8 + 2*MaxStateBits + 8*MaxPacket*2
	HexDigits = HexBits / 4
)

// MaxStateBits is the widest generator state the formats carry: the shift
// registers for l up to 16 (136 bits) and a free-running draw count.
const MaxStateBits = 256

// BinaryMagic starts a binary vector file.
const BinaryMagic = "IBRSTV01"

const binaryHeaderLen = 32

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

// HexHeader is the comment block that heads a hex file.
func (s *StageSet) HexHeader() string {
	var b strings.Builder
	fmt.Fprintf(&b, "// ibreservoir switch-stage vectors, $readmemh format: %d vectors of %d bits (%d hex digits), one per line.\n", len(s.Vectors), HexBits, HexDigits)
	fmt.Fprintf(&b, "// Configuration: %s\n", s.Config.Model.String())
	fmt.Fprintf(&b, "// Set seed %d; %d directed vectors, then %d random.\n", s.Config.Seed, s.Directed, len(s.Vectors)-s.Directed)
	for _, l := range []string{
		"bits 2095..2088  flags: 7 load, 6 congested, 5 replace, 4 saturated, 3 hash, 2 global (LNH=3), 1..0 zero",
		"bits 2087..2072  switch ID",
		"bits 2071..2064  output port",
		"bits 2063..2056  packet length in bytes (LRH byte 0 through the VCRC; in and out are equal)",
		fmt.Sprintf("bits 2055..2048  hop field after the stage (%d bits, zero-extended)", s.FieldBits),
		fmt.Sprintf("bits 2047..1792  generator state in (bit i of rng.State, %d bits; zero with sender draws)", s.StateBits),
		"bits 1791..1536  generator state out",
		"bits 1535..768   packet in, byte 0 in bits 1535..1528, zero after its last byte",
		"bits  767..0     packet out, byte 0 in bits 767..760",
	} {
		b.WriteString("// " + l + "\n")
	}
	return b.String()
}

// AppendHex appends the vector's hex line (with its newline).
func (v *StageVector) AppendHex(dst []byte) []byte {
	var line [HexBits / 8]byte
	line[0] = v.Flags()
	binary.BigEndian.PutUint16(line[1:], v.Switch)
	line[3] = v.Port
	line[4] = byte(len(v.In))
	line[5] = byte(v.FieldOut)
	// States: most significant byte first in the line.
	const sb = MaxStateBits / 8
	for i, st := range []rng.State{v.StateIn, v.StateOut} {
		b := stateBytes(st, sb)
		for j := range sb {
			line[6+sb*i+j] = b[sb-1-j]
		}
	}
	copy(line[6+2*sb:], v.In)
	copy(line[6+2*sb+MaxPacket:], v.Out)
	n := len(dst)
	dst = append(dst, make([]byte, HexDigits+1)...)
	hex.Encode(dst[n:], line[:])
	dst[len(dst)-1] = '\n'
	return dst
}

// WriteHex writes the set in the hex format.
func (s *StageSet) WriteHex(w io.Writer) error {
	if _, err := io.WriteString(w, s.HexHeader()); err != nil {
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
	h := make([]byte, binaryHeaderLen)
	copy(h, BinaryMagic)
	binary.LittleEndian.PutUint32(h[8:], 1)
	binary.LittleEndian.PutUint32(h[12:], uint32(s.StateBytes()))
	binary.LittleEndian.PutUint32(h[16:], uint32(s.FieldBits))
	binary.LittleEndian.PutUint32(h[20:], uint32(s.StateBits))
	binary.LittleEndian.PutUint64(h[24:], uint64(count))
	return h
}

// AppendBinary appends the vector's binary record; sb is the state width in bytes.
func (v *StageVector) AppendBinary(dst []byte, sb int) []byte {
	start := len(dst)
	var hdr [8]byte
	binary.LittleEndian.PutUint16(hdr[0:], uint16(len(v.In)))
	hdr[2] = v.Flags()
	hdr[3] = v.Port
	binary.LittleEndian.PutUint16(hdr[4:], v.Switch)
	hdr[7] = byte(v.FieldOut)
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
	dst[start+6] = byte(k)
	for (len(dst)-start)%8 != 0 {
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
// states are lowercase hex; states most significant digit first (rng.State.Hex).
type JSONVector struct {
	Index     int    `json:"index"`
	Case      string `json:"case"`
	LNH       uint8  `json:"lnh"`
	Switch    uint16 `json:"switch"`
	Port      uint8  `json:"port"`
	Congested bool   `json:"congested"`
	Load      bool   `json:"load"`
	StateIn   string `json:"state_in,omitempty"`
	StateOut  string `json:"state_out,omitempty"`
	In        string `json:"in"`
	Out       string `json:"out"`
	ID        uint32 `json:"id"`
	D         uint32 `json:"d"`
	Hash      uint8  `json:"hash"`
	L         int    `json:"l"`
	FieldIn   uint64 `json:"field_in"`
	FieldOut  uint64 `json:"field_out"`
	Replace   bool   `json:"replace"`
	Saturated bool   `json:"saturated"`
}

// JSON returns the vector's JSON Lines form.
func (v *StageVector) JSON(stateBits int) JSONVector {
	j := JSONVector{
		Index: v.Index, Case: v.Case, LNH: v.LNH(), Switch: v.Switch, Port: v.Port, Congested: v.Congested, Load: v.Load,
		In: hex.EncodeToString(v.In), Out: hex.EncodeToString(v.Out),
		ID: v.Result.ID, D: v.Result.D, Hash: v.Result.HashBit, L: v.Result.HopL,
		FieldIn: v.FieldIn, FieldOut: v.FieldOut, Replace: v.Result.HopReplaced, Saturated: v.Result.HopSaturated,
	}
	if stateBits > 0 {
		j.StateIn, j.StateOut = v.StateIn.Hex(stateBits), v.StateOut.Hex(stateBits)
	}
	return j
}

// WriteJSONL writes the set in the JSON Lines format.
func (s *StageSet) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	for i := range s.Vectors {
		if err := enc.Encode(s.Vectors[i].JSON(s.StateBits)); err != nil {
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

// ReadBinary decodes a binary vector file, checking every length and offset.
// Its errors name the record and the byte offset in the file.
func ReadBinary(b []byte) (stateBytes, fieldBits int, recs []BinaryRecord, err error) {
	if len(b) < binaryHeaderLen {
		return 0, 0, nil, fmt.Errorf("binary vectors: %d bytes, shorter than the %d-byte header", len(b), binaryHeaderLen)
	}
	if string(b[:8]) != BinaryMagic {
		return 0, 0, nil, fmt.Errorf("binary vectors: magic %q, want %q", b[:8], BinaryMagic)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != 1 {
		return 0, 0, nil, fmt.Errorf("binary vectors: version %d, want 1", v)
	}
	sb := int(binary.LittleEndian.Uint32(b[12:]))
	if sb%8 != 0 || sb > MaxStateBits/8 {
		return 0, 0, nil, fmt.Errorf("binary vectors (byte 12): state of %d bytes, want a multiple of 8 up to %d", sb, MaxStateBits/8)
	}
	fieldBits = int(binary.LittleEndian.Uint32(b[16:]))
	if fieldBits < 1 || fieldBits > 8 {
		return 0, 0, nil, fmt.Errorf("binary vectors (byte 16): field of %d bits, want 1..8", fieldBits)
	}
	count := binary.LittleEndian.Uint64(b[24:])
	off := binaryHeaderLen
	for i := uint64(0); i < count; i++ {
		start := off
		need := func(n int) error {
			if len(b)-off < n {
				return fmt.Errorf("binary vectors: record %d (byte %d) is cut short: %d bytes remain, need %d", i, start, len(b)-off, n)
			}
			return nil
		}
		if err := need(8); err != nil {
			return 0, 0, nil, err
		}
		n := int(binary.LittleEndian.Uint16(b[off:]))
		r := BinaryRecord{Flags: b[off+2], Port: b[off+3], Switch: binary.LittleEndian.Uint16(b[off+4:]), FieldOut: b[off+7]}
		k := int(b[off+6])
		if n < 26 || n > MaxPacket {
			return 0, 0, nil, fmt.Errorf("binary vectors: record %d (byte %d): packet of %d bytes, want 26..%d", i, start, n, MaxPacket)
		}
		off += 8
		if sb > 0 {
			if r.Flags&FlagLoad != 0 {
				if err := need(sb); err != nil {
					return 0, 0, nil, err
				}
				r.StateIn = b[off : off+sb]
				off += sb
			}
			if err := need(sb); err != nil {
				return 0, 0, nil, err
			}
			r.StateOut = b[off : off+sb]
			off += sb
		}
		if err := need(n + 3*k); err != nil {
			return 0, 0, nil, err
		}
		r.In = b[off : off+n]
		off += n
		r.Out = append([]byte(nil), r.In...)
		for j := range k {
			o := int(binary.LittleEndian.Uint16(b[off:]))
			if o >= n {
				return 0, 0, nil, fmt.Errorf("binary vectors: record %d (byte %d): diff %d at offset %d, beyond the %d-byte packet", i, off, j, o, n)
			}
			r.Out[o] = b[off+2]
			off += 3
		}
		pad := -(off - start) & 7
		if err := need(pad); err != nil {
			return 0, 0, nil, err
		}
		off += pad
		recs = append(recs, r)
	}
	if off != len(b) {
		return 0, 0, nil, fmt.Errorf("binary vectors: %d bytes after the %d records (byte %d)", len(b)-off, count, off)
	}
	return sb, fieldBits, recs, nil
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
// returns how many it wrote. The bytes equal GenerateStage's WriteBinary.
func WriteStageBinary(w io.Writer, cfg StageConfig) (int, error) {
	set, err := NewStageSet(cfg)
	if err != nil {
		return 0, err
	}
	// The header holds the count: the directed cases are counted first.
	d := &directed{set: set}
	if err := d.all(); err != nil {
		return 0, err
	}
	total := len(d.out) + cfg.Random
	if _, err := w.Write(set.BinaryHeader(total)); err != nil {
		return 0, err
	}
	set.Reuse = true
	sb := set.StateBytes()
	n := 0
	err = set.StreamEncoded(func(vs []StageVector, dst []byte) []byte {
		for i := range vs {
			dst = vs[i].AppendBinary(dst, sb)
		}
		return dst
	}, func(p []byte) error {
		_, err := w.Write(p)
		return err
	})
	if err != nil {
		return 0, err
	}
	n = total
	return n, nil
}
