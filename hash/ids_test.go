// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"strings"
	"testing"
)

func TestIDOptions(t *testing.T) {
	const slid, destQP, psn = 0x1234, 0xABCDEF, 0x00F00D
	want := map[IDOption]uint32{
		IDPSN:       psn,
		IDPSNOdd:    2*psn + 1,
		IDPSNSLID:   psn ^ slid<<16,
		IDPSNDestQP: psn ^ destQP<<8,
	}
	for _, o := range IDOptions() {
		if got := o.ID(slid, destQP, psn); got != want[o] {
			t.Errorf("%s.ID = %#x, want %#x", o, got, want[o])
		}
		p, err := ParseIDOption(o.String())
		if err != nil || p != o {
			t.Errorf("ParseIDOption(%q) = %v, %v", o.String(), p, err)
		}
	}
	// PSN and DestQP are 24-bit fields: higher bits are ignored.
	if got := IDPSN.ID(0, 0, 0xFF000005); got != 5 {
		t.Errorf("psn ignores bits above 24: got %#x", got)
	}
	if got := IDPSNDestQP.ID(0, 0xFF000001, 0); got != 1<<8 {
		t.Errorf("psn-destqp ignores DestQP bits above 24: got %#x", got)
	}
	// Domain limits: psn gives id 0 at PSN 0 and wraps at 2^24; psn-odd never
	// gives 0 or an even id.
	if IDPSN.ID(0, 0, 0) != 0 || IDPSN.ID(0, 0, 1<<24) != 0 {
		t.Errorf("psn: PSN 0 and 2^24 should both give id 0")
	}
	for _, psn := range []uint32{0, 1, 1<<24 - 1} {
		if id := IDPSNOdd.ID(0, 0, psn); id == 0 || id&1 == 0 {
			t.Errorf("psn-odd(%d) = %d, want odd", psn, id)
		}
	}
	if _, err := ParseIDOption("lid"); err == nil || !strings.Contains(err.Error(), "psn-slid") {
		t.Errorf("ParseIDOption(lid) error %v should list the options", err)
	}
}

func TestLinkEncodings(t *testing.T) {
	for _, c := range []struct {
		e    LinkEncoding
		sw   uint16
		port uint8
		want uint32
	}{
		{LinkThesis, 0, 0, 509},
		{LinkThesis, 1, 1, 1<<15 + 1<<9 + 509},
		{LinkThesis, 65535, 63, 65535<<15 + 63<<9 + 509},
		{LinkWide, 3, 200, 3<<17 + 200<<9 + 509},
		{LinkPacked, 2, 6, 2<<8 + 6},
	} {
		got, err := c.e.Encode(c.sw, c.port)
		if err != nil || got != c.want {
			t.Errorf("%s.Encode(%d, %d) = %d, %v; want %d", c.e, c.sw, c.port, got, err, c.want)
		}
		p, err := ParseLinkEncoding(c.e.String())
		if err != nil || p != c.e {
			t.Errorf("ParseLinkEncoding(%q) = %v, %v", c.e.String(), p, err)
		}
	}
	if _, err := LinkThesis.Encode(1, 64); err == nil || !strings.Contains(err.Error(), "port 64") {
		t.Errorf("thesis encoding accepted port 64 (err %v)", err)
	}
	if _, err := LinkWide.Encode(1<<15, 1); err == nil {
		t.Errorf("wide encoding accepted switch 2^15")
	}
	// Every encoding keeps every link in its domain apart, and the thesis and
	// wide encodings keep d >= 509.
	for _, e := range LinkEncodings() {
		seen := map[uint32]bool{}
		for sw := 0; sw <= e.MaxSwitch(); sw += 97 {
			for port := 0; port <= e.MaxPort(); port++ {
				d, err := e.Encode(uint16(sw), uint8(port))
				if err != nil {
					t.Fatalf("%s.Encode(%d, %d): %v", e, sw, port, err)
				}
				if seen[d] {
					t.Fatalf("%s: two links share d = %d", e, d)
				}
				seen[d] = true
				if e != LinkPacked && d < 509 {
					t.Fatalf("%s: d = %d < 509", e, d)
				}
			}
		}
	}
}

func FuzzParseIDOption(f *testing.F) {
	for _, o := range IDOptions() {
		f.Add(o.String())
	}
	f.Fuzz(func(t *testing.T, s string) {
		if o, err := ParseIDOption(s); err == nil && o.String() != s {
			t.Fatalf("ParseIDOption(%q) = %v", s, o)
		}
	})
}

func FuzzParseLinkEncoding(f *testing.F) {
	for _, e := range LinkEncodings() {
		f.Add(e.String())
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := ParseLinkEncoding(s); err == nil && e.String() != s {
			t.Fatalf("ParseLinkEncoding(%q) = %v", s, e)
		}
	})
}
