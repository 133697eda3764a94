// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"ibreservoir/internal/testtool"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

const hcaCapture = "testdata/infiniband-hca-capture.pcap"

// TestReadCapture reads the HCA capture and holds every record to gopacket's
// pcap reader, an independent implementation: same record count, pcap
// timestamps (to the microsecond), and packet bytes (the ERF payload cut to
// wlen).
func TestReadCapture(t *testing.T) {
	raw, err := os.ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if oracle.LinkType() != LinkTypeERF {
		t.Fatalf("oracle link type %d", oracle.LinkType())
	}
	off := int64(pcapFileHeaderLen)
	for i := 0; ; i++ {
		data, ci, err := oracle.ReadPacketData()
		if err == io.EOF {
			if i != len(got) || i != 43 {
				t.Fatalf("oracle read %d records, we read %d, want 43", i, len(got))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := got[i]
		if p.Record != i+1 || p.Offset != off || p.DataOffset != off+pcapRecordHeaderLen+ERFHeaderLen {
			t.Errorf("record %d: number %d, offset %d, data offset %d; want %d, %d, %d",
				i+1, p.Record, p.Offset, p.DataOffset, i+1, off, off+pcapRecordHeaderLen+ERFHeaderLen)
		}
		off += pcapRecordHeaderLen + int64(ci.CaptureLength)
		wlen := int(binary.BigEndian.Uint16(data[14:]))
		if p.WireLen != wlen || !bytes.Equal(p.Data, data[ERFHeaderLen:ERFHeaderLen+wlen]) {
			t.Errorf("record %d: data differs from the oracle's", i+1)
		}
		if !bytes.Equal(p.Data, raw[p.DataOffset:p.DataOffset+int64(len(p.Data))]) {
			t.Errorf("record %d: data is not the file's bytes at its DataOffset", i+1)
		}
		if p.Time.Truncate(time.Microsecond) != ci.Timestamp.UTC() {
			t.Errorf("record %d: time %v, pcap header says %v", i+1, p.Time, ci.Timestamp.UTC())
		}
		if p.Truncated() || p.ERF.Type != ERFTypeInfiniBand || p.ERF.Flags&ERFFlagVarLen == 0 || int(p.ERF.RLen) < ERFHeaderLen+wlen {
			t.Errorf("record %d: ERF header %+v", i+1, p.ERF)
		}
	}
}

// TestWriteReproducesCapture writes the packets read from the HCA capture
// back out: the file is byte for byte the one Wireshark saved, so the writer
// produces exactly the form Wireshark and Endace use.
func TestWriteReproducesCapture(t *testing.T) {
	pkts, err := ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.pcap")
	if err := WritePackets(out, pkts); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(hcaCapture)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want) {
		n := 0
		for n < len(got) && n < len(want) && got[n] == want[n] {
			n++
		}
		t.Fatalf("written file (%d bytes) differs from the capture (%d bytes) at byte %d", len(got), len(want), n)
	}
}

// TestWriteAtomic: a failing fill leaves no file behind.
func TestWriteAtomic(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.pcap")
	err := WriteFile(out, func(w *Writer) error {
		if err := w.WritePacket(time.Unix(1, 0), []byte{1, 2, 3}); err != nil {
			return err
		}
		return w.WritePacket(time.Unix(2, 0), make([]byte, 70000))
	})
	if err == nil || !strings.Contains(err.Error(), "packet 2") {
		t.Fatalf("oversized packet: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a failed write left %s behind (%v)", out, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// testPackets are the capture's packets, for the other encapsulations.
func testPackets(t *testing.T) []*Packet {
	pkts, err := ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	return pkts
}

// TestLinkType247 reads raw InfiniBand records (link type 247), in both
// byte orders and both timestamp resolutions.
func TestLinkType247(t *testing.T) {
	pkts := testPackets(t)
	for _, c := range []struct {
		name string
		bo   binary.ByteOrder
		nano bool
	}{{"le-micro", binary.LittleEndian, false}, {"be-micro", binary.BigEndian, false}, {"le-nano", binary.LittleEndian, true}, {"be-nano", binary.BigEndian, true}} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			magic := uint32(pcapMagicMicro)
			if c.nano {
				magic = pcapMagicNano
			}
			w := func(v any) { binary.Write(&b, c.bo, v) }
			w(magic)
			w(uint16(2))
			w(uint16(4))
			w(uint64(0))
			w(uint32(65535))
			w(uint32(LinkTypeInfiniBand))
			for _, p := range pkts {
				sub := uint32(p.Time.Nanosecond() / 1000)
				if c.nano {
					sub = uint32(p.Time.Nanosecond())
				}
				w(uint32(p.Time.Unix()))
				w(sub)
				w(uint32(len(p.Data)))
				w(uint32(len(p.Data)))
				b.Write(p.Data)
			}
			r, err := NewReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			if r.LinkType() != LinkTypeInfiniBand {
				t.Fatalf("link type %d", r.LinkType())
			}
			for i, want := range pkts {
				p, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				res := time.Microsecond
				if c.nano {
					res = time.Nanosecond
				}
				if !bytes.Equal(p.Data, want.Data) || p.ERF != nil || p.WireLen != len(want.Data) || !p.Time.Equal(want.Time.Truncate(res)) {
					t.Fatalf("packet %d differs: %v %v", i+1, p.Time, want.Time.Truncate(res))
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the last packet: %v", err)
			}
		})
	}
}

// TestPcapng writes the packets with gopacket's pcapng writer, as link types
// 247 and 197, and reads them back with ours and with gopacket's pcapng
// reader.
func TestPcapng(t *testing.T) {
	pkts := testPackets(t)
	for _, lt := range []uint32{LinkTypeInfiniBand, LinkTypeERF} {
		t.Run(strconv.Itoa(int(lt)), func(t *testing.T) {
			var b bytes.Buffer
			ng, err := pcapgo.NewNgWriter(&b, layers.LinkType(lt))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pkts {
				data := p.Data
				if lt == LinkTypeERF {
					data = erfRecord(p)
				}
				ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(data), Length: len(data)}
				if err := ng.WritePacket(ci, data); err != nil {
					t.Fatal(err)
				}
			}
			if err := ng.Flush(); err != nil {
				t.Fatal(err)
			}
			raw := b.Bytes()
			r, err := NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			oracle, err := pcapgo.NewNgReader(bytes.NewReader(raw), pcapgo.DefaultNgReaderOptions)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range pkts {
				p, err := r.Next()
				if err != nil {
					t.Fatalf("packet %d: %v", i+1, err)
				}
				odata, ci, err := oracle.ReadPacketData()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(p.Data, want.Data) {
					t.Fatalf("packet %d: data differs", i+1)
				}
				if lt == LinkTypeInfiniBand && !bytes.Equal(p.Data, odata) {
					t.Fatalf("packet %d: data differs from the oracle's", i+1)
				}
				if !bytes.Equal(p.Data, raw[p.DataOffset:p.DataOffset+int64(len(p.Data))]) {
					t.Fatalf("packet %d: data is not the file's bytes at its DataOffset", i+1)
				}
				if lt == LinkTypeInfiniBand && !p.Time.Equal(ci.Timestamp) {
					t.Fatalf("packet %d: time %v, oracle %v", i+1, p.Time, ci.Timestamp)
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the last packet: %v", err)
			}
		})
	}
}

// erfRecord is the ERF record of p as the Writer makes it.
func erfRecord(p *Packet) []byte {
	var b bytes.Buffer
	w, _ := NewWriter(&b)
	w.WritePacket(p.Time, p.Data)
	return b.Bytes()[pcapFileHeaderLen+pcapRecordHeaderLen:]
}

// pcapFile assembles a little-endian pcap file of the given link type.
func pcapFile(lt uint32, recs ...[]byte) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	w(uint32(pcapMagicMicro))
	w(uint16(2))
	w(uint16(4))
	w(uint64(0))
	w(uint32(65535))
	w(lt)
	for _, r := range recs {
		w(uint32(7))
		w(uint32(0))
		w(uint32(len(r)))
		w(uint32(len(r)))
		b.Write(r)
	}
	return b.Bytes()
}

// erf assembles an ERF record: header, extension words, payload; rlen as given
// (0: header, extensions and payload, rounded up to 8).
func erf(typ uint8, rlen, wlen int, ext []uint64, payload []byte) []byte {
	b := make([]byte, ERFHeaderLen)
	b[8] = typ
	b[9] = ERFFlagVarLen
	for _, x := range ext {
		b = binary.BigEndian.AppendUint64(b, x)
	}
	b = append(b, payload...)
	if rlen == 0 {
		rlen = (len(b) + 7) &^ 7
	}
	binary.BigEndian.PutUint16(b[10:], uint16(rlen))
	binary.BigEndian.PutUint16(b[14:], uint16(wlen))
	return b
}

// readOne reads the first packet of a capture file held in memory.
func readOne(t *testing.T, file []byte) *Packet {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestERFExtensionHeaders(t *testing.T) {
	pkt := testPackets(t)[10].Data
	// Two extension headers: the first has the "more" bit set.
	rec := erf(ERFTypeInfiniBand|erfTypeExtBit, 0, len(pkt), []uint64{1<<63 | 0x0100, 0x0200}, pkt)
	p := readOne(t, pcapFile(LinkTypeERF, rec))
	if !bytes.Equal(p.Data, pkt) || len(p.ERF.Extensions) != 2 || p.ERF.Type != ERFTypeInfiniBand {
		t.Fatalf("got %d bytes, ERF %+v", len(p.Data), p.ERF)
	}
	if want := int64(pcapFileHeaderLen + pcapRecordHeaderLen + ERFHeaderLen + 16); p.DataOffset != want {
		t.Errorf("data offset %d, want %d", p.DataOffset, want)
	}
	// wlen longer than what was captured: a truncated packet, not an error.
	rec = erf(ERFTypeInfiniBand, 0, len(pkt)+100, nil, pkt)
	if p := readOne(t, pcapFile(LinkTypeERF, rec)); !p.Truncated() || !bytes.Equal(p.Data, pkt) {
		t.Fatalf("truncated record: %+v", p)
	}
}

// TestMalformed corrupts captures and checks the error: record, offset and
// reason, and whether the reader can go on.
func TestMalformed(t *testing.T) {
	good := testPackets(t)[10].Data // a 30-byte packet
	okRec := erf(ERFTypeInfiniBand, 0, len(good), nil, good)
	h := pcapFileHeaderLen
	for _, c := range []struct {
		name      string
		file      []byte
		record    int
		offset    int64
		msg       string
		skippable bool
	}{
		{"empty", nil, 0, 0, "too short for a pcap or pcapng header", false},
		{"short header", pcapFile(LinkTypeERF)[:20], 0, 20, "inside the 24-byte pcap file header", false},
		{"bad magic", []byte("GIF89a......................"), 0, 0, "neither pcap", false},
		{"bad version", func() []byte { b := pcapFile(LinkTypeERF); b[4] = 3; return b }(), 0, 4, "pcap version 3.4", false},
		{"link type", pcapFile(1), 0, 20, "link type 1 (Ethernet) is neither ERF", false},
		{"short record header", pcapFile(LinkTypeERF, okRec)[:h+10], 1, int64(h), "ends 10 bytes into the 16-byte record header", false},
		{"short record", pcapFile(LinkTypeERF, okRec)[:h+16+20], 1, int64(h + 8), "file ends 20 bytes into the record data", false},
		{"huge caplen", func() []byte {
			b := pcapFile(LinkTypeERF, okRec)
			binary.LittleEndian.PutUint32(b[h+8:], 1<<30)
			return b
		}(), 1, int64(h + 8), "exceeds the 262144 bytes", false},
		{"orig < caplen", func() []byte {
			b := pcapFile(LinkTypeERF, okRec, okRec)
			binary.LittleEndian.PutUint32(b[h+12:], 3)
			return b
		}(), 1, int64(h + 12), "original length 3 is shorter than the captured length", true},
		{"ERF too short", pcapFile(LinkTypeERF, okRec[:10], okRec), 1, int64(h + 16), "shorter than the 16-byte ERF header", true},
		{"ERF rlen short", pcapFile(LinkTypeERF, erf(ERFTypeInfiniBand, 8, len(good), nil, good), okRec), 1, int64(h + 16 + 10), "ERF rlen 8 is shorter than the record's headers", true},
		{"ERF record past rlen", pcapFile(LinkTypeERF, erf(ERFTypeInfiniBand, 32, len(good), nil, good), okRec), 1, int64(h + 16 + 32), "more than its ERF rlen 32", true},
		{"ERF type", pcapFile(LinkTypeERF, erf(2, 0, len(good), nil, good), okRec), 1, int64(h + 16 + 8), "ERF type 2 (Ethernet) is not InfiniBand", true},
		{"ERF extension cut", pcapFile(LinkTypeERF, erf(ERFTypeInfiniBand|erfTypeExtBit, 0, 0, []uint64{1 << 63}, nil), okRec), 1, int64(h + 16 + 24), "ERF extension header 2 needs 8 bytes", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(c.file))
			if err == nil {
				_, err = r.Next()
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError", err)
			}
			if fe.Record != c.record || fe.Offset != c.offset || !strings.Contains(fe.Msg, c.msg) || fe.Skippable != c.skippable {
				t.Fatalf("got record %d offset %d %q skippable=%v; want %d, %d, %q, %v",
					fe.Record, fe.Offset, fe.Msg, fe.Skippable, c.record, c.offset, c.msg, c.skippable)
			}
			if !fe.Skippable {
				if r != nil {
					if _, again := r.Next(); again != err {
						t.Errorf("a final error is not sticky: %v", again)
					}
				}
				return
			}
			// The next record is read normally.
			p, err := r.Next()
			if err != nil || p.Record != 2 || !bytes.Equal(p.Data, good) {
				t.Fatalf("after a skippable error: %v", err)
			}
		})
	}
}

// TestPcapngMalformed: errors inside pcapng blocks name the block and offset.
func TestPcapngMalformed(t *testing.T) {
	var b bytes.Buffer
	ng, err := pcapgo.NewNgWriter(&b, layers.LinkType(LinkTypeInfiniBand))
	if err != nil {
		t.Fatal(err)
	}
	pkt := testPackets(t)[10].Data
	ng.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: len(pkt), Length: len(pkt)}, pkt)
	ng.Flush()
	raw := b.Bytes()
	// Find the EPB: the last block.
	epb := len(raw) - int(binary.LittleEndian.Uint32(raw[len(raw)-4:]))
	for _, c := range []struct {
		name   string
		mutate func([]byte) []byte
		offset int
		msg    string
	}{
		{"cut", func(b []byte) []byte { return b[:len(b)-3] }, epb + 4, "the file ends"},
		{"trailing length", func(b []byte) []byte { b[len(b)-4]++; return b }, len(raw) - 4, "trailing block length"},
		{"odd length", func(b []byte) []byte { b[epb+4]++; return b }, epb + 4, "want a multiple of 4"},
		{"caplen", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[epb+8+12:], 4000); return b }, epb + 8 + 12, "captured length 4000"},
		{"interface", func(b []byte) []byte { b[epb+8] = 5; return b }, epb + 8, "interface 5"},
		{"byte order", func(b []byte) []byte { b[8] = 0; return b }, 8, "byte-order magic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.mutate(bytes.Clone(raw))
			r, err := NewReader(bytes.NewReader(f))
			if err == nil {
				_, err = r.Next()
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset != int64(c.offset) || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("got %v; want offset %d, %q", err, c.offset, c.msg)
			}
		})
	}
}

// TestTshark writes a capture and has Wireshark's tshark read it back: every
// frame is dissected as InfiniBand with the PktLen, PSN and CRC bytes we
// wrote. Skipped when tshark is not installed (scripts/setup.sh installs it),
// except under CI (scripts/test.sh sets CI), where a missing tool fails.
func TestTshark(t *testing.T) {
	testtool.Need(t, "tshark")
	pkts := testPackets(t)
	out := filepath.Join(t.TempDir(), "out.pcap")
	if err := WritePackets(out, pkts); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tshark", "-n", "-r", out, "-T", "fields", "-E", "separator=,",
		"-e", "frame.protocols", "-e", "infiniband.lrh.pktlen", "-e", "infiniband.bth.psn",
		"-e", "infiniband.invariant.crc", "-e", "infiniband.variant.crc")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no user profile
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(outb)), "\n")
	if len(lines) != len(pkts) {
		t.Fatalf("tshark read %d frames, want %d", len(lines), len(pkts))
	}
	for i, line := range lines {
		d := pkts[i].Data
		f := strings.Split(line, ",")
		if len(f) != 5 || !strings.Contains(f[0], "erf") || !strings.Contains(f[0], "infiniband") {
			t.Fatalf("frame %d: %q", i+1, line)
		}
		n := len(d) - 2
		bth := 8
		if d[1]&3 == 3 {
			bth += 40
		}
		// Wireshark shows the CRCs' bytes in wire order.
		want := []string{
			strconv.Itoa(n / 4),
			strconv.Itoa(int(d[bth+9])<<16 | int(d[bth+10])<<8 | int(d[bth+11])),
			"0x" + hexOf(d[n-4:n]),
			"0x" + hexOf(d[n:]),
		}
		if strings.Join(f[1:], ",") != strings.Join(want, ",") {
			t.Errorf("frame %d: tshark %q, want %q", i+1, f[1:], want)
		}
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 0, 2*len(b))
	for _, x := range b {
		s = append(s, digits[x>>4], digits[x&15])
	}
	return string(s)
}

func TestOpenErrors(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.pcap")); err == nil {
		t.Error("missing file: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.pcap")
	os.WriteFile(bad, []byte("not a capture at all"), 0o644)
	_, err := ReadFile(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "file header, byte 0") {
		t.Errorf("bad file: %v, want the path and the offset", err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	raw, _ := os.ReadFile(hcaCapture)
	os.WriteFile(cut, raw[:1000], 0o644)
	pkts, err := ReadFile(cut)
	if err == nil || !strings.Contains(err.Error(), "record 4, byte 882: captured length 190") || len(pkts) != 3 {
		t.Errorf("cut file: %d packets, %v; want 3 and an error at record 4", len(pkts), err)
	}
}

// TestOpenDirectory: a directory given as a capture is named as one, not
// reported as an empty file.
func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory") || strings.Contains(err.Error(), "0 bytes") {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("ReadFile of a directory: %v", err)
	}
}

// errReader fails every read: an I/O error, not a format.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("input/output error") }

func TestNewReaderReadError(t *testing.T) {
	_, err := NewReader(errReader{})
	if err == nil || !strings.Contains(err.Error(), "input/output error") || strings.Contains(err.Error(), "0 bytes") {
		t.Errorf("read error reported as %v", err)
	}
}

// TestERFFlags: the ERF receive-error, data-stream-error and truncation
// flags are reported by CaptureError; an unflagged record has none.
func TestERFFlags(t *testing.T) {
	pkt := testPackets(t)[10].Data
	for _, c := range []struct {
		flags uint8
		want  []string
	}{
		{ERFFlagVarLen, nil},
		{ERFFlagVarLen | ERFFlagRxError, []string{"receive error"}},
		{ERFFlagVarLen | ERFFlagDSError, []string{"data-stream error"}},
		{ERFFlagVarLen | ERFFlagTrunc, []string{"truncated"}},
		{ERFFlagRxError | ERFFlagTrunc | ERFFlagDSError, []string{"receive error", "data-stream error", "truncated", "ERF flags 0x38"}},
	} {
		rec := erf(ERFTypeInfiniBand, 0, len(pkt), nil, pkt)
		rec[9] = c.flags
		err := readOne(t, pcapFile(LinkTypeERF, rec)).CaptureError()
		if (err == nil) != (c.want == nil) {
			t.Errorf("flags %#x: CaptureError %v", c.flags, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("flags %#x: %v lacks %q", c.flags, err, w)
			}
		}
	}
	raw := &Packet{Data: pkt, WireLen: len(pkt)} // link type 247: no ERF header
	if raw.CaptureError() != nil {
		t.Error("a raw packet has a capture error")
	}
}
