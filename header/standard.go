// SPDX-License-Identifier: Apache-2.0

package header

import "fmt"

// Scheme is one of the thesis's three reservoir-sampling variants.
type Scheme uint8

const (
	// FullID is Algorithms 2-4: switch ID and output port of the sampled hop
	// and of the sampled congested hop, each with its saturating count.
	FullID Scheme = iota
	// TwoReservoir is Algorithms 5-7: a 1-bit hash for each of the two
	// reservoirs, each with its saturating count.
	TwoReservoir
	// OneReservoir is Algorithms 8-9 (section 5.7): one 1-bit hash, a
	// congested flag for the sampled hop, and one saturating count.
	OneReservoir
)

var schemeNames = [...]string{FullID: "fullid", TwoReservoir: "tworeservoir", OneReservoir: "onereservoir"}

func (s Scheme) String() string {
	if int(s) < len(schemeNames) {
		return schemeNames[s]
	}
	return fmt.Sprintf("Scheme(%d)", uint8(s))
}

// ParseScheme accepts the names String returns.
func ParseScheme(name string) (Scheme, error) {
	for i, n := range schemeNames {
		if n == name {
			return Scheme(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scheme %q (want fullid, tworeservoir or onereservoir)", name)
}

// Placement says where a layout's fields go.
type Placement uint8

const (
	// PlaceAuto chooses BTH Resv6 when the fields fit its 6 bits, and the
	// telemetry footer otherwise.
	PlaceAuto Placement = iota
	// PlaceResv6 puts every field in BTH Resv6, least-significant-bit aligned.
	PlaceResv6
	// PlaceReservedGlobal puts the hop fields in BTH Resv6 and the congested
	// fields in LRH Rsv5; valid only in global packets, where the LRH is
	// outside the ICRC.
	PlaceReservedGlobal
	// PlaceFooter puts every field, most-significant-bit aligned, in a
	// telemetry footer of 4 or 8 bytes between the ICRC and the VCRC.
	PlaceFooter
)

var placementNames = [...]string{PlaceAuto: "auto", PlaceResv6: "resv6", PlaceReservedGlobal: "reserved-global", PlaceFooter: "footer"}

func (p Placement) String() string {
	if int(p) < len(placementNames) {
		return placementNames[p]
	}
	return fmt.Sprintf("Placement(%d)", uint8(p))
}

// ParsePlacement accepts the names String returns.
func ParsePlacement(name string) (Placement, error) {
	for i, n := range placementNames {
		if n == name {
			return Placement(i), nil
		}
	}
	return 0, fmt.Errorf("unknown placement %q (want auto, resv6, reserved-global or footer)", name)
}

// TelemetrySpec describes the fields a scheme needs; Layout places them.
type TelemetrySpec struct {
	Scheme    Scheme
	CountBits int // width of each saturating count; ignored when SenderL > 0
	// SenderL > 0 selects the sender-generated draws of section 5.9: each
	// reservoir carries SenderL draws and a sentinel (SenderL+1 bits) in place
	// of its count. SenderL is the longest path the draws serve.
	SenderL    int
	SwitchBits int // full-ID scheme: switch ID width (thesis: 16, or 10)
	PortBits   int // full-ID scheme: port width (thesis: 8, or 6)
	Placement  Placement
}

type fieldSpec struct {
	name    string
	width   int
	meaning string
}

// fields lists the scheme's fields, hop group first, in wire order.
func (s TelemetrySpec) fields() ([]fieldSpec, int, error) {
	count := func(name, what string) fieldSpec {
		if s.SenderL > 0 {
			rn := FieldHopRand
			if name == FieldCongCount {
				rn = FieldCongRand
			}
			return fieldSpec{rn, s.SenderL + 1, fmt.Sprintf("%d sender draws for the %s reservoir, then a 1 sentinel; shifted left once per %s", s.SenderL, what, what)}
		}
		return fieldSpec{name, s.CountBits, fmt.Sprintf("%s count, saturating at %d", what, 1<<s.CountBits-1)}
	}
	if s.SenderL < 0 || s.SenderL > 62 {
		return nil, 0, fmt.Errorf("sender draws L=%d: want 1..62, or 0 for a switch generator", s.SenderL)
	}
	if s.SenderL == 0 && (s.CountBits < 1 || s.CountBits > 16) {
		return nil, 0, fmt.Errorf("count width %d bits: want 1..16", s.CountBits)
	}
	switch s.Scheme {
	case OneReservoir:
		return []fieldSpec{
			{FieldHopBit, 1, "H(id, d) of the sampled hop"},
			{FieldCongBit, 1, "1 if the sampled hop's output port was congested"},
			count(FieldHopCount, "hop"),
		}, 3, nil
	case TwoReservoir:
		return []fieldSpec{
			{FieldHopBit, 1, "H(id, d) of the sampled hop"},
			count(FieldHopCount, "hop"),
			{FieldCongBit, 1, "H(id, d) of the sampled congested hop"},
			count(FieldCongCount, "congested-hop"),
		}, 2, nil
	case FullID:
		if s.SwitchBits < 1 || s.SwitchBits > 16 || s.PortBits < 1 || s.PortBits > 8 {
			return nil, 0, fmt.Errorf("full-ID widths switch=%d port=%d bits: want 1..16 and 1..8", s.SwitchBits, s.PortBits)
		}
		return []fieldSpec{
			{FieldHopSwitch, s.SwitchBits, "switch ID of the sampled hop"},
			{FieldHopPort, s.PortBits, "output port of the sampled hop"},
			count(FieldHopCount, "hop"),
			{FieldCongSwitch, s.SwitchBits, "switch ID of the sampled congested hop"},
			{FieldCongPort, s.PortBits, "output port of the sampled congested hop"},
			count(FieldCongCount, "congested-hop"),
		}, 3, nil
	}
	return nil, 0, fmt.Errorf("unknown scheme %d", s.Scheme)
}

// Name is a short stable name for the layout, used in file names and manifests.
func (s TelemetrySpec) Name() string {
	n := s.Scheme.String()
	if s.Scheme == FullID {
		n += fmt.Sprintf("-s%dp%d", s.SwitchBits, s.PortBits)
	}
	if s.SenderL > 0 {
		n += fmt.Sprintf("-sender%d", s.SenderL)
	} else {
		n += fmt.Sprintf("-c%d", s.CountBits)
	}
	return n
}

// Layout places the spec's fields. Every field is switch-written: the sender
// NIC only initialises them (Alg. 2 and 5).
func (s TelemetrySpec) Layout() (*Layout, error) {
	fs, hopGroup, err := s.fields()
	if err != nil {
		return nil, err
	}
	total := 0
	for _, f := range fs {
		total += f.width
	}
	p := s.Placement
	if p == PlaceAuto {
		p = PlaceFooter
		if total <= regions[BTHResv6].width {
			p = PlaceResv6
		}
	}
	l := &Layout{Name: s.Name() + "@" + p.String()}
	mk := func(f fieldSpec, segs ...Segment) {
		l.Fields = append(l.Fields, Field{Name: f.name, Writer: SwitchWritten, Segments: segs, Meaning: f.meaning})
	}
	switch p {
	case PlaceResv6:
		if total > 6 {
			return nil, fmt.Errorf("%s needs %d bits; BTH Resv6 has 6", s.Name(), total)
		}
		l.Description = fmt.Sprintf("%d bits in BTH Resv6 (byte 4), outside the ICRC in every packet", total)
		hi := total - 1
		for _, f := range fs {
			mk(f, Segment{BTHResv6, hi, hi - f.width + 1})
			hi -= f.width
		}
	case PlaceReservedGlobal:
		l.Packets = GlobalPacket
		l.Description = "hop fields in BTH Resv6, congested fields in LRH Rsv5; global packets only, where the LRH is outside the ICRC"
		place := func(group []fieldSpec, r Region) error {
			w := 0
			for _, f := range group {
				w += f.width
			}
			if w > regions[r].width {
				return fmt.Errorf("%s: %d bits do not fit %s (%d bits)", s.Name(), w, r.IBAName(), regions[r].width)
			}
			hi := w - 1
			for _, f := range group {
				mk(f, Segment{r, hi, hi - f.width + 1})
				hi -= f.width
			}
			return nil
		}
		if s.Scheme == OneReservoir {
			if err := place(fs, BTHResv6); err != nil {
				return nil, err
			}
			break
		}
		if err := place(fs[:hopGroup], BTHResv6); err != nil {
			return nil, err
		}
		if err := place(fs[hopGroup:], LRHRsv5); err != nil {
			return nil, err
		}
	case PlaceFooter:
		l.FooterBytes = (total + 31) / 32 * 4
		l.Description = fmt.Sprintf("%d bits in a telemetry footer of %d bytes between the ICRC and the VCRC", total, l.FooterBytes)
		hi := 8*l.FooterBytes - 1
		for _, f := range fs {
			mk(f, Segment{Footer, hi, hi - f.width + 1})
			hi -= f.width
		}
	default:
		return nil, fmt.Errorf("unknown placement %d", p)
	}
	return l, nil
}

// Set parses name into s; with Type and String it makes *Scheme a
// github.com/spf13/pflag Value, so a command line can bind it directly.
func (s *Scheme) Set(name string) error {
	v, err := ParseScheme(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Type names the flag's value kind in help text.
func (s *Scheme) Type() string { return "scheme" }

// Set parses name into p (a pflag Value, like Scheme).
func (p *Placement) Set(name string) error {
	v, err := ParsePlacement(name)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Type names the flag's value kind in help text.
func (p *Placement) Type() string { return "placement" }
