// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ibreservoir/capture"
	"ibreservoir/header"
	"ibreservoir/internal/cli"
	"ibreservoir/internal/golden"
)

const hcaCapture = "../capture/testdata/infiniband-hca-capture.pcap"

// TestPacketCheckHCA: all 43 captured packets check good; the report is
// frozen in a golden file.
func TestPacketCheckHCA(t *testing.T) {
	golden.CheckStable(t, filepath.Join("testdata", "packet-check-hca.golden"), func() []byte {
		var out bytes.Buffer
		if err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{hcaCapture}}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), "43 packets: 43 good, 0 bad\n") {
			t.Fatalf("summary: %q", out.String()[max(0, out.Len()-80):])
		}
		return out.Bytes()
	})
}

// testCapture writes a capture with a good packet, one with a bad ICRC, one
// with a bad VCRC, a packet with a telemetry footer, and a non-InfiniBand ERF
// record, and returns its path.
func testCapture(t *testing.T, l *header.Layout) string {
	t.Helper()
	h := header.Headers{
		LRH: header.LRH{VL: 1, LNH: header.LNHLocal, DLID: 7, SLID: 3},
		BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 0x12, PSN: 100},
	}
	good, err := header.Build(h, []byte("telemetry"), 0)
	if err != nil {
		t.Fatal(err)
	}
	badICRC := bytes.Clone(good)
	badICRC[20] ^= 1 // payload byte
	header.RecomputeVCRC(badICRC)
	badVCRC := bytes.Clone(good)
	badVCRC[len(badVCRC)-1] ^= 0x80
	withFooter, err := header.Build(h, []byte("telemetry"), l.FooterBytes)
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := l.Locate(withFooter)
	for i, f := range l.Fields {
		l.Set(withFooter, fr, f.Name, uint64(i+1))
	}
	header.RecomputeVCRC(withFooter)
	path := filepath.Join(t.TempDir(), "test.pcap")
	err = capture.WriteFile(path, func(w *capture.Writer) error {
		t0 := time.Unix(1700000000, 0)
		for i, p := range [][]byte{good, badICRC, badVCRC, withFooter} {
			if err := w.WritePacket(t0.Add(time.Duration(i)*time.Microsecond), p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Append an ERF record of type 2 (Ethernet) by hand.
	rec := make([]byte, 16+16+4)
	rec[0+8] = 20 // pcap caplen: the ERF header and 4 bytes
	rec[0+12] = 20
	rec[16+8] = 2
	rec[16+11] = 24 // rlen
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(rec)
	f.Close()
	return path
}

func TestPacketCheckFailures(t *testing.T) {
	s := header.TelemetrySpec{Scheme: header.FullID, CountBits: 4, SwitchBits: 10, PortBits: 6, Placement: header.PlaceFooter}
	l, err := s.Layout()
	if err != nil {
		t.Fatal(err)
	}
	path := testCapture(t, l)
	var out bytes.Buffer
	check := func() string {
		out.Reset()
		err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{path}})
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 1 {
			t.Fatalf("got %v, want exit code 1", err)
		}
		return strings.ReplaceAll(out.String(), filepath.Dir(path), "TMP")
	}
	text := check()
	for _, want := range []string{
		"record 1 (byte 24): 38 bytes, local (LNH=2): ok",
		"record 2 (byte 94): 38 bytes, local (LNH=2): FAIL", "error: ICRC bad",
		"record 3 (byte 164): 38 bytes, local (LNH=2): FAIL", "error: VCRC bad",
		"record 4 (byte 234): 46 bytes", // read without the layout, the footer packet's ICRC is misplaced
		"test.pcap: FAIL: record 5, byte 336: ERF type 2 (Ethernet) is not InfiniBand",
		"5 packets: 1 good, 4 bad",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	golden.CheckStable(t, filepath.Join("testdata", "packet-check-failures.golden"), func() []byte { return []byte(check()) })

	// With the layout, the footer packet checks good and shows its fields;
	// the others are now read as carrying a footer they do not have.
	out.Reset()
	runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{path}, Telemetry: true, Spec: s, Format: cli.JSON})
	var doc struct {
		Packets []checkedPacket `json:"packets"`
		Summary checkSummary    `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary != (checkSummary{Packets: 5, Good: 1, Bad: 4}) {
		t.Errorf("summary %+v", doc.Summary)
	}
	p := doc.Packets[3]
	if !p.OK || p.Layout != l.Name || len(p.Telemetry) != len(l.Fields) {
		t.Fatalf("footer packet: %+v", p)
	}
	for i, f := range l.Fields {
		if p.Telemetry[f.Name] != uint64(i+1) {
			t.Errorf("%s = %d, want %d", f.Name, p.Telemetry[f.Name], i+1)
		}
	}
	if !p.ICRC.OK || !p.VCRC.OK || p.LRH == nil || p.LRH.SLID != 3 || p.BTH.PSN != 100 {
		t.Errorf("footer packet headers or CRCs: %+v", p)
	}
}

func TestPacketCheckArgs(t *testing.T) {
	var out bytes.Buffer
	_, _, err := execute(t, "packet", "check")
	if err == nil || !strings.Contains(err.Error(), "name at least one capture file") {
		t.Errorf("no files: %v", err)
	}
	err = runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{filepath.Join(t.TempDir(), "missing.pcap")}})
	if err == nil {
		t.Error("missing file: no error")
	}
	empty := filepath.Join(t.TempDir(), "empty.pcap")
	if err := capture.WriteFile(empty, func(*capture.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no packets") {
		t.Errorf("empty capture: %v", err)
	}
}

// TestPacketCheckFileErrors: a directory or a file that is no capture is a
// file error, named as such, not a packet ("record 0 (byte 0)").
func TestPacketCheckFileErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pcap")
	os.WriteFile(junk, []byte("not a capture at all"), 0o644)
	var out bytes.Buffer
	err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{dir, junk, hcaCapture}})
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "2 of 3 files could not be read") {
		t.Fatalf("got %v, want exit code 1 naming the unreadable files", err)
	}
	text := out.String()
	for _, want := range []string{dir + ": FAIL: is a directory", junk + ": FAIL: file header, byte 0: magic",
		"43 packets: 43 good, 0 bad\n2 of 3 files could not be read as captures\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text[max(0, len(text)-600):])
		}
	}
	if strings.Contains(text, "record 0 ") || strings.Contains(text, "file is 0 bytes") {
		t.Errorf("a file error is reported as a record or an empty file:\n%s", text)
	}
	out.Reset()
	runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{dir}, Format: cli.JSON})
	var doc struct {
		Packets    []checkedPacket `json:"packets"`
		FileErrors []fileError     `json:"file_errors"`
		Summary    checkSummary    `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(doc.Packets) != 0 || len(doc.FileErrors) != 1 || doc.Summary != (checkSummary{Unreadable: 1}) {
		t.Errorf("JSON of a directory: %+v", doc)
	}
}

// TestPacketCheckERFFlags: a packet whose ERF header flags a receive error or
// truncation is bad, even with good CRCs.
func TestPacketCheckERFFlags(t *testing.T) {
	raw, err := os.ReadFile(hcaCapture)
	if err != nil {
		t.Fatal(err)
	}
	// Record 1's ERF header follows the 24-byte file header and the 16-byte
	// record header; byte 9 of it holds the flags.
	for _, c := range []struct {
		flag byte
		want string
	}{{capture.ERFFlagRxError, "receive error"}, {capture.ERFFlagTrunc, "truncated"}, {capture.ERFFlagDSError, "data-stream error"}} {
		b := bytes.Clone(raw)
		b[24+16+9] |= c.flag
		path := filepath.Join(t.TempDir(), "flagged.pcap")
		os.WriteFile(path, b, 0o644)
		var out bytes.Buffer
		err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{path}})
		if err == nil || !strings.Contains(out.String(), "43 packets: 42 good, 1 bad") || !strings.Contains(out.String(), c.want) {
			t.Errorf("flag %#x: %v\n%s", c.flag, err, out.String()[:min(out.Len(), 800)])
		}
	}
}

// TestPacketCheckFlags: the telemetry flags need --telemetry; the old boolean
// --json is suggested as --format json.
func TestPacketCheckFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--count-bits", "99", hcaCapture}, `invalid argument "99" for "--count-bits"`},
		{[]string{"--count-bits", "4", hcaCapture}, "--count-bits has no effect without --telemetry"},
		{[]string{"--scheme", "fullid", "--placement", "footer", hcaCapture}, "--scheme and --placement have no effect without --telemetry"},
		{[]string{"--json", hcaCapture}, "--format json"},
		{[]string{"--format", "markdown", hcaCapture}, `invalid argument "markdown" for "--format"`},
	} {
		_, _, err := execute(t, append([]string{"packet", "check"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	if out, _, err := execute(t, "packet", "check", "--telemetry", "--count-bits", "4", hcaCapture); err != nil || !strings.Contains(out, "telemetry (onereservoir-c4@resv6)") {
		t.Errorf("--telemetry --count-bits 4: %v", err)
	}
}

// TestPacketCheckInterrupt: a cancelled context stops the check.
func TestPacketCheckInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := runPacketCheck(ctx, &out, packetCheckOptions{Files: []string{hcaCapture}})
	if !errors.Is(err, context.Canceled) || strings.Contains(out.String(), "43 packets") {
		t.Errorf("got %v after\n%s", err, out.String())
	}
}

// TestPacketCheckJSONStream: the streamed JSON document is the one a single
// encoder would write of the whole report.
func TestPacketCheckJSONStream(t *testing.T) {
	var out bytes.Buffer
	if err := runPacketCheck(context.Background(), &out, packetCheckOptions{Files: []string{hcaCapture}, Format: cli.JSON}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Packets []checkedPacket `json:"packets"`
		Summary checkSummary    `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.Encode(doc)
	if out.String() != want.String() {
		t.Errorf("streamed JSON differs from one encoding of it")
	}
	if doc.Summary.Packets != 43 || len(doc.Packets) != 43 {
		t.Errorf("summary %+v, %d packets", doc.Summary, len(doc.Packets))
	}
}

// BenchmarkPacketCheck checks a 4 MB capture (the HCA capture's records
// repeated), text and streamed JSON, written to io.Discard.
func BenchmarkPacketCheck(b *testing.B) {
	raw, err := os.ReadFile(hcaCapture)
	if err != nil {
		b.Fatal(err)
	}
	big := bytes.Clone(raw)
	for len(big) < 4<<20 {
		big = append(big, raw[24:]...)
	}
	path := filepath.Join(b.TempDir(), "big.pcap")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, f := range []cli.Format{cli.Text, cli.JSON} {
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			for b.Loop() {
				if err := runPacketCheck(context.Background(), io.Discard, packetCheckOptions{Files: []string{path}, Format: f}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
