package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ibreservoir/capture"
	"ibreservoir/header"
	"ibreservoir/internal/golden"
)

const hcaCapture = "../capture/testdata/infiniband-hca-capture.pcap"

// TestPacketCheckHCA: all 43 captured packets check good; the report is
// frozen in a golden file.
func TestPacketCheckHCA(t *testing.T) {
	golden.CheckStable(t, filepath.Join("testdata", "packet-check-hca.golden"), func() []byte {
		var out bytes.Buffer
		if err := runPacketCheck(&out, packetCheckOptions{Files: []string{hcaCapture}}); err != nil {
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
		err := runPacketCheck(&out, packetCheckOptions{Files: []string{path}})
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
	runPacketCheck(&out, packetCheckOptions{Files: []string{path}, Telemetry: true, Spec: s, JSON: true})
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
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	rootCmd.SetArgs([]string{"packet", "check"})
	err := rootCmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "name at least one capture file") {
		t.Errorf("no files: %v", err)
	}
	err = runPacketCheck(&out, packetCheckOptions{Files: []string{filepath.Join(t.TempDir(), "missing.pcap")}})
	if err == nil {
		t.Error("missing file: no error")
	}
	empty := filepath.Join(t.TempDir(), "empty.pcap")
	if err := capture.WriteFile(empty, func(*capture.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := runPacketCheck(&out, packetCheckOptions{Files: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no packets") {
		t.Errorf("empty capture: %v", err)
	}
}
