// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"fmt"
	"slices"
	"strings"

	"ibreservoir/internal/markers"
	"ibreservoir/verilog"
)

// ReadmeCampaignSummary is the README's generated summary of the synthesis
// campaign at its widest beat (CampaignSummary).
var ReadmeCampaignSummary = markers.Section{
	Begin: "<!-- synthesis at the widest beat: begin (ibreservoir verify --merge docs/synthesis-widths.md --synth-table docs/synthesis-widths.md --synth-readme README.md) -->",
	End:   "<!-- synthesis at the widest beat: end -->",
}

// PortGbps is the line rate of the port the stage is sized for: an NDR
// InfiniBand port, 400 Gb/s.
const PortGbps = 400

// CampaignSummary renders a complete campaign's figures at its widest beat
// in its predictive modern library (ASAP7) as the README's compact table:
// one row per hash, one column per generator, each entry the areas of the
// 3-bit and the 4-bit hop count (um^2), then the 3-bit one's fmax, line rate
// and latency in cycles ("2592 / 2600, 924 MHz, 473 Gb/s, 2"). Before the
// table, the default configuration's figures, which configurations fall
// short of PortGbps, and the largest area. Hashes and generators keep the
// campaign's order.
func CampaignSummary(p *CampaignPartial) ([]byte, error) {
	if !p.Complete() {
		return nil, fmt.Errorf("the campaign holds %d of its %d shards (missing %s): its summary needs every one", len(p.Done), p.Shards, joinInts(p.Missing()))
	}
	if !slices.Contains(p.Campaign.Libs, ASAP7.Name) {
		return nil, fmt.Errorf("the campaign maps to %s, not %s: its summary is %s's", strings.Join(p.Campaign.Libs, ", "), ASAP7.Name, ASAP7.Label)
	}
	width := slices.Max(p.Campaign.Widths)
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return nil, err
	}
	latency := latencyByName(pairs)
	def := verilog.DefaultConfig()
	def.Width = width
	var (
		rows          []*SynthStats
		gens          []string
		defRow, large *SynthStats
	)
	for _, s := range p.Rows {
		c := s.In(ASAP7.Name)
		if c == nil || c.WidthBits != width {
			continue
		}
		rows = append(rows, s)
		if !slices.Contains(gens, s.Generator) {
			gens = append(gens, s.Generator)
		}
		if s.Config == def.Name() {
			defRow = s
		}
		if large == nil || c.AreaUM2 > large.In(ASAP7.Name).AreaUM2 {
			large = s
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the campaign has no %s row at %d bits", ASAP7.Name, width)
	}
	hashes := hashesOf(rows)
	entry := func(s *SynthStats) string {
		c := s.In(ASAP7.Name)
		return fmt.Sprintf("%.0f MHz, %.0f Gb/s, %d", *round(c.Timing.FmaxMHz, 0), *round(c.LineRateGbps, 1), latency[s.Config])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %d bits, from docs/synthesis-widths.md: area in um^2 (3-bit / 4-bit hop count), then the 3-bit\n", ASAP7.Label, width)
	b.WriteString("configuration's fmax, line rate (width x fmax) and latency in cycles.\n\n")
	if defRow != nil {
		c := defRow.In(ASAP7.Name)
		fmt.Fprintf(&b, "- The default, `%s`: %.0f um^2, %.0f MHz, %.0f Gb/s, latency %d cycles.\n", defRow.Config,
			*round(c.AreaUM2, 1), *round(c.Timing.FmaxMHz, 0), *round(c.LineRateGbps, 1), latency[defRow.Config])
	}
	fmt.Fprintf(&b, "- %s\n", shortOf(rows))
	lc := large.In(ASAP7.Name)
	fmt.Fprintf(&b, "- The largest, `%s`: %.0f um^2 (%.4f mm^2).\n\n", large.Config, *round(lc.AreaUM2, 1), *round(lc.AreaUM2, 1)/1e6)

	writeHashGenTable(&b, hashes, gens, func(h, g string) string {
		var area []string
		var first *SynthStats
		for _, s := range rows {
			if s.Hash == h && s.Generator == g {
				area = append(area, fmt.Sprintf("%.0f", *round(s.In(ASAP7.Name).AreaUM2, 1)))
				if first == nil {
					first = s
				}
			}
		}
		if first == nil {
			return "-"
		}
		return strings.Join(area, " / ") + ", " + entry(first)
	})
	return []byte(b.String()), nil
}

// shortOf says which rows fall short of PortGbps: every configuration of a
// hash when all of that hash's do, else each by name.
func shortOf(rows []*SynthStats) string {
	var short []string
	n, lo, hi := 0, 0.0, 0.0
	for _, h := range hashesOf(rows) {
		var mine, below []*SynthStats
		for _, s := range rows {
			if s.Hash == h {
				mine = append(mine, s)
				if *round(s.In(ASAP7.Name).LineRateGbps, 1) < PortGbps {
					below = append(below, s)
				}
			}
		}
		for _, s := range below {
			r := s.In(ASAP7.Name).LineRateGbps
			if n == 0 || r < lo {
				lo = r
			}
			if n == 0 || r > hi {
				hi = r
			}
			n++
		}
		switch {
		case len(below) == 0:
		case len(below) == len(mine):
			short = append(short, "every "+h+" configuration")
		default:
			for _, s := range below {
				short = append(short, "`"+s.Config+"`")
			}
		}
	}
	if n == 0 {
		return fmt.Sprintf("Every one of the %d configurations reaches %d Gb/s (an NDR port).", len(rows), PortGbps)
	}
	return fmt.Sprintf("%d of the %d configurations reach %d Gb/s (an NDR port); below it (%.0f-%.0f Gb/s): %s.",
		len(rows)-n, len(rows), PortGbps, lo, hi, strings.Join(short, ", "))
}

// hashesOf is the hashes of rows in their order.
func hashesOf(rows []*SynthStats) []string {
	var hs []string
	for _, s := range rows {
		if !slices.Contains(hs, s.Hash) {
			hs = append(hs, s.Hash)
		}
	}
	return hs
}
