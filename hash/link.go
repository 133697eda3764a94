// SPDX-License-Identifier: Apache-2.0

package hash

import "fmt"

// LinkEncoding maps a link, named by the switch that transmits on it and its
// output port, to the integer d, the second argument of H.
//
//	thesis  d = switchID*2^15 + port*2^9 + 509     section 5.4; needs port < 64
//	wide    d = switchID*2^17 + port*2^9 + 509     room for 8-bit ports; needs switchID < 2^15
//	packed  d = switchID*2^8 + port                the naive packing, for comparison: small d
//
// The thesis encoding keeps d >= 509 (509 is the largest prime in 9 bits) so
// that d is never small, which is where Hmult0's pairwise dependence shows
// (ids or links 2 and 6 agree on 2/3 of the other argument). Its port field is
// bits 9..14; a port of 64 or more reaches the switch-ID bits and two links
// would share a d, so Encode refuses it. IBA allows ports 1..254: switches
// with more than 63 ports need the wide encoding.
type LinkEncoding uint8

const (
	LinkThesis LinkEncoding = iota
	LinkWide
	LinkPacked
	numLinkEncodings
)

var linkNames = [numLinkEncodings]string{LinkThesis: "thesis", LinkWide: "wide", LinkPacked: "packed"}

func (e LinkEncoding) String() string {
	if e < numLinkEncodings {
		return linkNames[e]
	}
	return fmt.Sprintf("LinkEncoding(%d)", uint8(e))
}

// LinkEncodings lists every encoding.
func LinkEncodings() []LinkEncoding {
	es := make([]LinkEncoding, numLinkEncodings)
	for i := range es {
		es[i] = LinkEncoding(i)
	}
	return es
}

// ParseLinkEncoding accepts the names String returns.
func ParseLinkEncoding(name string) (LinkEncoding, error) {
	for i, n := range linkNames {
		if n == name {
			return LinkEncoding(i), nil
		}
	}
	return 0, fmt.Errorf("unknown link encoding %q (want one of %v)", name, linkNames)
}

// MaxPort and MaxSwitch are the largest port and switch ID the encoding keeps
// distinct.
func (e LinkEncoding) MaxPort() int {
	if e == LinkThesis {
		return 63
	}
	return 255
}

func (e LinkEncoding) MaxSwitch() int {
	if e == LinkWide {
		return 1<<15 - 1
	}
	return 1<<16 - 1
}

// Encode returns d for the link leaving switch sw through port, or an error if
// the encoding cannot keep that link apart from others.
func (e LinkEncoding) Encode(sw uint16, port uint8) (uint32, error) {
	if int(port) > e.MaxPort() {
		return 0, fmt.Errorf("link encoding %s: port %d exceeds %d, its largest distinct port", e, port, e.MaxPort())
	}
	if int(sw) > e.MaxSwitch() {
		return 0, fmt.Errorf("link encoding %s: switch ID %d exceeds %d", e, sw, e.MaxSwitch())
	}
	return e.encode(sw, port), nil
}

// encode is Encode without the domain check, for callers that checked it.
func (e LinkEncoding) encode(sw uint16, port uint8) uint32 {
	switch e {
	case LinkThesis:
		return uint32(sw)<<15 + uint32(port)<<9 + 509
	case LinkWide:
		return uint32(sw)<<17 + uint32(port)<<9 + 509
	}
	return uint32(sw)<<8 + uint32(port)
}
