// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// FuzzReader feeds arbitrary files to the reader. It must never panic or
// loop; every packet it returns is the file's own bytes at the offset it
// reports, records are numbered upwards, and every error is a FormatError
// naming an offset inside the file.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile(hcaCapture); err == nil {
		f.Add(b)       // the HCA capture (ERF in pcap)
		f.Add(b[:200]) // cut inside record 1
	}
	f.Add(pcapFile(LinkTypeInfiniBand, []byte{0, 2, 0, 4, 0, 7, 0, 1}))                                                                                 // raw IB, short packet
	f.Add(pcapFile(LinkTypeERF, erf(ERFTypeInfiniBand|erfTypeExtBit, 0, 4, []uint64{1 << 63, 0}, []byte{1})))                                           // extension headers
	f.Add([]byte{0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0}) // empty pcapng section
	flagged := erf(ERFTypeInfiniBand, 0, 8, nil, []byte{0, 2, 0, 4, 0, 7, 0, 1})
	flagged[9] |= ERFFlagRxError | ERFFlagTrunc | ERFFlagDSError
	f.Add(pcapFile(LinkTypeERF, flagged)) // ERF error flags set
	f.Add([]byte{})                       // empty file
	f.Fuzz(func(t *testing.T, file []byte) {
		r, err := NewReader(bytes.NewReader(file))
		if err != nil {
			checkErr(t, err, file)
			return
		}
		last := 0
		for i := 0; ; i++ {
			if i > len(file) {
				t.Fatal("more records than bytes: the reader loops")
			}
			p, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				checkErr(t, err, file)
				var fe *FormatError
				if errors.As(err, &fe) && fe.Skippable {
					continue
				}
				return
			}
			if err := p.CaptureError(); p.ERF != nil && (p.ERF.Flags&(ERFFlagRxError|ERFFlagDSError|ERFFlagTrunc) != 0) != (err != nil) {
				t.Fatalf("record %d: ERF flags %#x, CaptureError %v", p.Record, p.ERF.Flags, err)
			}
			if p.Record <= last {
				t.Fatalf("record %d after %d", p.Record, last)
			}
			last = p.Record
			end := p.DataOffset + int64(len(p.Data))
			if p.DataOffset < 0 || end > int64(len(file)) || !bytes.Equal(file[p.DataOffset:end], p.Data) {
				t.Fatalf("record %d: data is not the file's bytes at offset %d", p.Record, p.DataOffset)
			}
		}
	})
}

func checkErr(t *testing.T, err error, file []byte) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a FormatError", err)
	}
	if fe.Offset < 0 || fe.Offset > int64(len(file)) {
		t.Fatalf("error offset %d outside the %d-byte file: %v", fe.Offset, len(file), err)
	}
}
