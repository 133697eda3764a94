// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"errors"
	"fmt"
	"strings"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// A scheme's canonical name is its short name (one5), the one the sim
// command, result.json and the plots' file names use. Its layout's name
// (onereservoir-c3@resv6), the one the vector sets and the other commands
// use, follows from its configuration; result.json writes it beside the
// short name. schemeTable is the one place that pairs them.
type namedScheme struct {
	name   string
	config func() refmodel.Config
}

// schemeTable holds the named telemetry configurations an Experiment can
// carry, in the order SchemeNames lists them.
var schemeTable = []namedScheme{
	{"fullid64", func() refmodel.Config { // section 5.1's 64-bit layout
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme, c.Telemetry.CountBits = header.FullID, 8
		return c
	}},
	{"fullid40", func() refmodel.Config { // section 5.1's 40-bit layout
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme, c.Telemetry.CountBits, c.Telemetry.SwitchBits, c.Telemetry.PortBits = header.FullID, 4, 10, 6
		return c
	}},
	{"one5", refmodel.DefaultConfig}, // Alg. 8-9, b = 3: 5 bits in BTH Resv6
	{"one6", func() refmodel.Config { // b = 4: 6 bits
		c := refmodel.DefaultConfig()
		c.Telemetry.CountBits = 4
		return c
	}},
	{"two8", func() refmodel.Config { // Alg. 5-7, b = 3: 8 bits in a footer
		c := refmodel.DefaultConfig()
		c.Telemetry.Scheme = header.TwoReservoir
		return c
	}},
}

// SchemeNames lists the short names of the schemes an Experiment accepts.
func SchemeNames() []string {
	var ns []string
	for _, s := range schemeTable {
		ns = append(ns, s.name)
	}
	return ns
}

// DefaultSchemeNames are the schemes an Experiment carries when it names
// none: the full-ID ground truth and the two probabilistic schemes.
func DefaultSchemeNames() []string { return []string{"fullid64", "one5", "two8"} }

// layoutName is the name of c's layout (onereservoir-c3@resv6), or of its
// telemetry settings when they make no layout.
func layoutName(c refmodel.Config) string {
	if l, err := c.Telemetry.Layout(); err == nil {
		return l.Name
	}
	return c.Telemetry.Name()
}

// SchemeLayout is the layout name of the scheme with short name name, and
// whether there is one.
func SchemeLayout(name string) (string, bool) {
	for _, s := range schemeTable {
		if s.name == name {
			return layoutName(s.config()), true
		}
	}
	return "", false
}

// CanonicalScheme is the short name of the scheme named n by its short name
// or by its layout name, and whether there is one.
func CanonicalScheme(n string) (string, bool) {
	n = strings.TrimSpace(n)
	for _, s := range schemeTable {
		if s.name == n || layoutName(s.config()) == n {
			return s.name, true
		}
	}
	return "", false
}

// SchemeName is the short name of the scheme whose layout c has, or c's
// layout name when no named scheme has it (a configuration built by hand).
func SchemeName(c refmodel.Config) string {
	l := layoutName(c)
	for _, s := range schemeTable {
		if layoutName(s.config()) == l {
			return s.name
		}
	}
	return l
}

// SchemeList writes every short name with its layout name:
// "fullid64 (fullid-s16p8-c8@footer), ...".
func SchemeList() string {
	var parts []string
	for _, s := range schemeTable {
		parts = append(parts, s.name+" ("+layoutName(s.config())+")")
	}
	return strings.Join(parts, ", ")
}

// Schemes returns the configurations of the named schemes (short or layout
// names), seeded with seed and sized for switches 0..maxSwitch with ports up
// to maxPort.
func Schemes(names []string, seed uint64, maxSwitch, maxPort int) ([]refmodel.Config, error) {
	var cs []refmodel.Config
	seen := map[string]bool{}
	for _, n := range names {
		short, ok := CanonicalScheme(n)
		if !ok {
			return nil, fmt.Errorf("unknown scheme %q; choose from %s", strings.TrimSpace(n), SchemeList())
		}
		if seen[short] {
			return nil, fmt.Errorf("%s listed twice", short)
		}
		seen[short] = true
		var c refmodel.Config
		for _, s := range schemeTable {
			if s.name == short {
				c = s.config()
			}
		}
		c.Seed, c.MaxSwitch, c.MaxPort = seed, maxSwitch, maxPort
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, errors.New("no scheme named")
	}
	return cs, nil
}
