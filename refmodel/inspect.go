// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"reflect"
	"strings"

	"ibreservoir/header"
)

// Reading, writing and comparing a packet's telemetry fields by name (the
// names of package header: hop_bit, cong_bit, hop_count, hop_rand, ...), for
// testbenches that set a packet's incoming state and explain a mismatch.

// CheckLink refuses a link outside the configured fabric (Config.MaxSwitch,
// Config.MaxPort), as Stage and Port do.
func (m *Model) CheckLink(l Link) error { return m.checkLink(l.Switch, l.Port) }

// HopFieldName is the name of the hop reservoir's count field:
// header.FieldHopCount, or header.FieldHopRand with sender draws. After a
// stage it holds what the RTL reports as stat_field_o.
func (m *Model) HopFieldName() string {
	if m.cfg.SenderMode() {
		return header.FieldHopRand
	}
	return header.FieldHopCount
}

// HopField reads the field HopFieldName names from pkt, a packet of the
// model's kind, without looking the name up.
func (m *Model) HopField(pkt []byte) (uint64, error) {
	n, err := m.frame(pkt)
	if err != nil {
		return 0, err
	}
	if m.cfg.SenderMode() {
		return m.f.hopRand.get(pkt, n), nil
	}
	return m.f.hopCount.get(pkt, n), nil
}

// Field reads telemetry field name of pkt, a packet of the model's kind.
func (m *Model) Field(pkt []byte, name string) (uint64, error) {
	n, err := m.frame(pkt)
	if err != nil {
		return 0, err
	}
	return m.layout.Get(pkt, header.Frame{BTH: m.bth, PktLen: n}, name)
}

// SetField writes telemetry field name of pkt, a packet of the model's kind,
// and recomputes the VCRC, as a switch would. A value too wide for the field
// is refused and pkt left unchanged.
func (m *Model) SetField(pkt []byte, name string, v uint64) error {
	n, err := m.frame(pkt)
	if err != nil {
		return err
	}
	if err := m.layout.Set(pkt, header.Frame{BTH: m.bth, PktLen: n}, name, v); err != nil {
		return err
	}
	m.writeVCRC(pkt, n)
	return nil
}

// Diff explains how packet got differs from want, one difference a line:
// the length, every IBA header field (by its package header name), every
// telemetry field of the model's layout, the ICRC and VCRC as carried, and
// then every differing byte. It returns "" for equal packets. Packets that do
// not decode are compared byte by byte.
func (m *Model) Diff(got, want []byte) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "length: got %d bytes, want %d\n", len(got), len(want))
	}
	pg, eg := header.DecodePacket(got, m.layout.FooterBytes)
	pw, ew := header.DecodePacket(want, m.layout.FooterBytes)
	switch {
	case eg == nil && ew == nil:
		diffStruct(&b, "LRH", reflect.ValueOf(pg.LRH), reflect.ValueOf(pw.LRH))
		if pg.Global() || pw.Global() {
			diffStruct(&b, "GRH", reflect.ValueOf(pg.GRH), reflect.ValueOf(pw.GRH))
		}
		diffStruct(&b, "BTH", reflect.ValueOf(pg.BTH), reflect.ValueOf(pw.BTH))
		if pg.LRH.LNH == m.cfg.LNH && pw.LRH.LNH == m.cfg.LNH {
			for _, f := range m.layout.Fields {
				vg, err1 := m.Field(got, f.Name)
				vw, err2 := m.Field(want, f.Name)
				if err1 == nil && err2 == nil && vg != vw {
					fmt.Fprintf(&b, "telemetry %s (%s): got %d, want %d\n", f.Name, f.Segments[0].Region.IBAName(), vg, vw)
				}
			}
		}
		if pg.ICRC != pw.ICRC {
			fmt.Fprintf(&b, "ICRC: got %#08x, want %#08x\n", pg.ICRC, pw.ICRC)
		}
		if pg.VCRC != pw.VCRC {
			fmt.Fprintf(&b, "VCRC: got %#04x, want %#04x\n", pg.VCRC, pw.VCRC)
		}
	case eg != nil:
		fmt.Fprintf(&b, "got does not decode: %v\n", eg)
	default:
		fmt.Fprintf(&b, "want does not decode: %v\n", ew)
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			fmt.Fprintf(&b, "byte %d: got %02x, want %02x\n", i, got[i], want[i])
		}
	}
	return b.String()
}

// diffStruct lists the fields of two header structs that differ.
func diffStruct(b *strings.Builder, name string, g, w reflect.Value) {
	for i := range g.NumField() {
		fg, fw := g.Field(i), w.Field(i)
		if fg.Equal(fw) {
			continue
		}
		switch fg.Kind() {
		case reflect.Array:
			fmt.Fprintf(b, "%s.%s: got %x, want %x\n", name, g.Type().Field(i).Name, fg.Interface(), fw.Interface())
		case reflect.Bool:
			fmt.Fprintf(b, "%s.%s: got %t, want %t\n", name, g.Type().Field(i).Name, fg.Bool(), fw.Bool())
		default:
			fmt.Fprintf(b, "%s.%s: got %#x, want %#x\n", name, g.Type().Field(i).Name, fg.Interface(), fw.Interface())
		}
	}
}
