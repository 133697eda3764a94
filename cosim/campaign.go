// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"ibreservoir/internal/synthrec"
	"ibreservoir/verilog"
)

// The synthesis campaign maps every configuration at every beat width to the
// standard-cell libraries (docs/rtl.md, "Synthesis campaign"): each
// (configuration, width) pair is one Yosys and OpenSTA run per library, the
// pairs dealt to shards (every n-th from the i-th) that run anywhere and
// write a partial (CampaignPartial, JSON); MergeCampaign joins partials, and
// CampaignMarkdown writes the page, whose text ParseCampaignMarkdown reads
// back into a partial, so that a page of some shards merges with the rest.
// The campaign does not co-simulate: TestWidth co-simulates every width.

// CampaignFormat is the format line of a partial and of the campaign page.
const CampaignFormat = "ibreservoir synthesis campaign 1"

// A Campaign is what a campaign synthesizes: the configurations (their
// 64-bit names), each at every width, mapped to every library.
type Campaign struct {
	Configs []string `json:"configs"`
	Widths  []int    `json:"widths"`
	Libs    []string `json:"libraries"` // CellLibrary names, in CellLibraries' order
}

// NewCampaign checks and records a campaign of cfgs (64-bit beats) at widths
// mapped to libs.
func NewCampaign(cfgs []verilog.Config, widths []int, libs []*CellLibrary) (Campaign, error) {
	var c Campaign
	if len(cfgs) == 0 || len(widths) == 0 || len(libs) == 0 {
		return c, errors.New("a campaign needs configurations, widths and libraries")
	}
	for _, cfg := range cfgs {
		if cfg.DataW() != verilog.DefaultWidth {
			return c, fmt.Errorf("configuration %s: give the campaign 64-bit configurations and the widths apart", cfg.Name())
		}
		if slices.Contains(c.Configs, cfg.Name()) {
			return c, fmt.Errorf("configuration %s twice", cfg.Name())
		}
		c.Configs = append(c.Configs, cfg.Name())
	}
	for _, w := range widths {
		if err := verilog.CheckWidth(w); err != nil {
			return c, err
		}
		if slices.Contains(c.Widths, w) {
			return c, fmt.Errorf("width %d twice", w)
		}
		c.Widths = append(c.Widths, w)
	}
	for _, l := range CellLibraries {
		if slices.Contains(libs, l) {
			c.Libs = append(c.Libs, l.Name)
		}
	}
	return c, nil
}

// Pairs are the campaign's (configuration, width) pairs, each a
// configuration at its width: configuration by configuration, the widths of
// each in the campaign's order.
func (c Campaign) Pairs() ([]verilog.Config, error) {
	byName := map[string]verilog.Config{}
	for _, cfg := range append(verilog.Matrix(), verilog.Variants()...) {
		byName[cfg.Name()] = cfg
	}
	var out []verilog.Config
	for _, n := range c.Configs {
		cfg, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("no configuration %s in the matrix or its variants", n)
		}
		for _, w := range c.Widths {
			cfg.Width = w
			if err := cfg.Validate(); err != nil {
				return nil, fmt.Errorf("%s at %d bits: %w", n, w, err)
			}
			out = append(out, cfg)
		}
	}
	return out, nil
}

// Shard is shard i of n of the pairs: every n-th from the i-th.
func Shard(pairs []verilog.Config, i, n int) []verilog.Config {
	var out []verilog.Config
	for j := i; j < len(pairs); j += n {
		out = append(out, pairs[j])
	}
	return out
}

// Libraries are the campaign's libraries.
func (c Campaign) Libraries() ([]*CellLibrary, error) {
	var out []*CellLibrary
	for _, n := range c.Libs {
		i := slices.IndexFunc(CellLibraries, func(l *CellLibrary) bool { return l.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("no library %s", n)
		}
		out = append(out, CellLibraries[i])
	}
	return out, nil
}

func (c Campaign) equal(d Campaign) bool {
	return slices.Equal(c.Configs, d.Configs) && slices.Equal(c.Widths, d.Widths) && slices.Equal(c.Libs, d.Libs)
}

func (c Campaign) String() string {
	return fmt.Sprintf("%d configurations x widths %v in %s", len(c.Configs), c.Widths, strings.Join(c.Libs, ", "))
}

// RTLDigest is the SHA-256 of the library's SystemVerilog as synthesis
// reads it (verilog.SynthesisView of verilog.Library: every file's name and
// bytes, without the formal properties and simulation checks), the RTL a
// campaign's figures are of; the configurations' wrappers are made from
// their names.
func RTLDigest() (string, error) {
	lib, err := verilog.Library()
	if err != nil {
		return "", err
	}
	return rtlDigest(lib)
}

// rtlDigest is RTLDigest of the library files.
func rtlDigest(lib []verilog.File) (string, error) {
	files, err := verilog.SynthesisView(lib)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\n%d\n", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// A CampaignPartial is the figures of some shards of a campaign: one shard's
// run (--out), a merge of several, or a page read back.
type CampaignPartial struct {
	Format   string     `json:"format"`
	Campaign Campaign   `json:"campaign"`
	Tools    SynthTools `json:"tools"`
	RTL      string     `json:"rtl_digest"`
	Shards   int        `json:"shards"` // n of --shard i/n
	Done     []int      `json:"done"`   // the shards it holds, ascending
	// Rows are the pairs of Done, in the campaign's order, with the
	// figures the page prints (cell counts by type, paths and reports
	// left out).
	Rows []*SynthStats `json:"rows"`
	// Seconds is each pair's wall-clock time in Yosys and OpenSTA (every
	// library), for estimating a campaign; the page does not print it.
	Seconds map[string]float64 `json:"seconds,omitempty"`
}

// NewPartial is shard i of n's partial from its run's statistics.
func NewPartial(c Campaign, tools SynthTools, rtl string, i, n int, stats []*SynthStats) *CampaignPartial {
	p := &CampaignPartial{Format: CampaignFormat, Campaign: c, Tools: tools, RTL: rtl, Shards: n, Done: []int{i}, Seconds: map[string]float64{}}
	for _, s := range stats {
		p.Rows = append(p.Rows, pageFigures(s))
		for _, m := range s.Mapped {
			p.Seconds[s.Config] += m.Time.Seconds()
		}
	}
	return p
}

// pageFigures is a copy of s with what a page prints.
func pageFigures(s *SynthStats) *SynthStats {
	r := &SynthStats{Config: s.Config, Hash: s.Hash, Generator: s.Generator, Field: s.Field, CountBits: s.CountBits,
		SenderL: s.SenderL, Cells: s.Cells, FlipFlops: s.FlipFlops}
	for _, m := range s.Mapped {
		t := &Timing{CriticalNS: m.Timing.CriticalNS, LogicDepth: m.Timing.LogicDepth, FO4Depth: m.Timing.FO4Depth, FmaxMHz: m.Timing.FmaxMHz}
		r.Mapped = append(r.Mapped, &CellStats{Library: m.Library, Cells: m.Cells, FlipFlops: m.FlipFlops, AreaUM2: m.AreaUM2,
			NAND2Eq: m.NAND2Eq, Timing: t, WidthBits: m.WidthBits, LineRateGbps: m.LineRateGbps, LibraryTag: m.LibraryTag})
	}
	return r
}

// JSON is the partial as a shard writes it.
func (p *CampaignPartial) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadPartial reads a shard's partial (JSON) or a campaign page (Markdown,
// ParseCampaignMarkdown) and checks it whole (check).
func ReadPartial(path string) (*CampaignPartial, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p *CampaignPartial
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s: something after the partial's JSON object", path)
		}
	} else if p, err = ParseCampaignMarkdown(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// check says whether p is a partial of its campaign: its format, at least
// one shard (a partial that holds nothing checked nothing), and exactly the
// pairs of its shards, each with every library's figures.
func (p *CampaignPartial) check() error {
	if p.Format != CampaignFormat {
		return fmt.Errorf("format %q, want %q", p.Format, CampaignFormat)
	}
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return err
	}
	if p.Shards < 1 || p.Shards > len(pairs) {
		return fmt.Errorf("%d shards of %d pairs: want 1..%d", p.Shards, len(pairs), len(pairs))
	}
	if len(p.Done) == 0 || len(p.Rows) == 0 {
		return errors.New("it holds no shard: a partial that synthesized nothing")
	}
	for k, i := range p.Done {
		if i < 0 || i >= p.Shards || (k > 0 && i <= p.Done[k-1]) {
			return fmt.Errorf("shards %v: want distinct shards of 0..%d, ascending", p.Done, p.Shards-1)
		}
	}
	var want []string
	for _, c := range p.pairs(pairs) {
		want = append(want, c.Name())
	}
	var got []string
	for _, s := range p.Rows {
		got = append(got, s.Config)
		for _, l := range p.Campaign.Libs {
			if s.In(l) == nil {
				return fmt.Errorf("%s has no %s figures", s.Config, l)
			}
			if _, ok := p.Tools.Lib(l); !ok {
				return fmt.Errorf("no tools line of library %s", l)
			}
		}
		if len(s.Mapped) != len(p.Campaign.Libs) {
			return fmt.Errorf("%s is mapped to %d libraries, the campaign to %d", s.Config, len(s.Mapped), len(p.Campaign.Libs))
		}
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("its rows are not the pairs of shards %v of %d: got %d rows, want %d (%s)", p.Done, p.Shards, len(got), len(want), firstDiff(got, want))
	}
	return nil
}

// pairs are the pairs of p's shards, in the campaign's order.
func (p *CampaignPartial) pairs(all []verilog.Config) []verilog.Config {
	var out []verilog.Config
	for j, c := range all {
		if slices.Contains(p.Done, j%p.Shards) {
			out = append(out, c)
		}
	}
	return out
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return "missing " + want[i]
		case i >= len(want):
			return "extra " + got[i]
		case got[i] != want[i]:
			return fmt.Sprintf("%s where %s was due", got[i], want[i])
		}
	}
	return "the same"
}

// Complete says whether p holds every shard.
func (p *CampaignPartial) Complete() bool { return len(p.Done) == p.Shards }

// whole is p with every shard as one shard, 0 of 1, when it has them all:
// the page of a campaign does not depend on how it was split.
func (p *CampaignPartial) whole() *CampaignPartial {
	if !p.Complete() {
		return p
	}
	q := *p
	q.Shards, q.Done = 1, []int{0}
	return &q
}

// Missing are the shards p lacks.
func (p *CampaignPartial) Missing() []int {
	var out []int
	for i := range p.Shards {
		if !slices.Contains(p.Done, i) {
			out = append(out, i)
		}
	}
	return out
}

// MergeCampaign joins partials of one campaign: the same campaign, tools,
// libraries (their files, FO4 delays and delay targets), RTL and shard
// count, each shard once. With partial false every shard must be there.
func MergeCampaign(parts []*CampaignPartial, partial bool) (*CampaignPartial, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := parts[0]
	out := &CampaignPartial{Format: CampaignFormat, Campaign: first.Campaign, Tools: first.Tools, RTL: first.RTL, Shards: first.Shards, Seconds: map[string]float64{}}
	byName := map[string]*SynthStats{}
	for k, p := range parts {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("part %d: %w", k+1, err)
		}
		switch {
		case !p.Campaign.equal(first.Campaign):
			return nil, fmt.Errorf("part %d is of the campaign %s, part 1 of %s: run every shard with the same --configs, --widths and --synth-lib", k+1, p.Campaign, first.Campaign)
		case p.Shards != first.Shards:
			return nil, fmt.Errorf("part %d is of %d shards, part 1 of %d: run every shard with the same n in --shard i/n", k+1, p.Shards, first.Shards)
		case p.RTL != first.RTL:
			return nil, fmt.Errorf("part %d is of the RTL %s, part 1 of %s: the RTL changed between the shards; run them again on one RTL", k+1, p.RTL, first.RTL)
		case p.Tools.String() != first.Tools.String() || libLines(p.Tools) != libLines(first.Tools):
			return nil, fmt.Errorf("part %d was made with %s %v, part 1 with %s %v: its figures are not like for like", k+1, p.Tools, p.Tools.Libs, first.Tools, first.Tools.Libs)
		}
		for _, i := range p.Done {
			if slices.Contains(out.Done, i) {
				return nil, fmt.Errorf("shard %d of %d twice (part %d and an earlier one)", i, p.Shards, k+1)
			}
			out.Done = append(out.Done, i)
		}
		for _, s := range p.Rows {
			byName[s.Config] = s
		}
		for n, t := range p.Seconds {
			out.Seconds[n] = t
		}
	}
	sort.Ints(out.Done)
	if m := out.Missing(); len(m) > 0 && !partial {
		return nil, fmt.Errorf("shards %s of %d are missing: run them (--shard i/%d --out FILE) and merge every part, or write a page of the shards there are with --partial",
			joinInts(m), out.Shards, out.Shards)
	}
	all, err := out.Campaign.Pairs()
	if err != nil {
		return nil, err
	}
	for _, c := range out.pairs(all) {
		out.Rows = append(out.Rows, byName[c.Name()])
	}
	if len(out.Seconds) == 0 {
		out.Seconds = nil
	}
	return out, out.check()
}

func joinInts(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ", ")
}

// latencyColumn is the campaign page's column after synthColumns: the
// stage's latency, verilog.Config.Latency of the row's configuration.
const latencyColumn = "latency (cycles)"

// CampaignPage is where the campaign's checked-in page is, from the
// repository's root (its JSON twin beside it, JSONPath).
const CampaignPage = "docs/synthesis-widths.md"

// The page's machine-read lines.
var (
	reCampaignConfigs = regexp.MustCompile("^Configurations: (.+)\\.$")
	reCampaignWidths  = regexp.MustCompile("^Widths: ([0-9, ]+) bits\\.$")
	reCampaignShards  = regexp.MustCompile("^Shards: ([0-9]+) of ([0-9]+) \\(([0-9, ]+)\\)\\.$")
	reCampaignCover   = regexp.MustCompile("^Coverage: ([0-9]+) of the ([0-9]+) configuration x width pairs\\.$")
	reCampaignRTL     = regexp.MustCompile("^RTL: `(sha256:[0-9a-f]{64})`")
	reCampaignLibs    = regexp.MustCompile("^Libraries: ([a-z0-9, ]+)\\.$")
)

// matrixNames are the matrix's configurations' names.
func matrixNames() []string {
	var out []string
	for _, c := range verilog.Matrix() {
		out = append(out, c.Name())
	}
	return out
}

// CampaignCommand is the ibreservoir command that runs shard i of n of
// campaign c (i < 0: "i").
func CampaignCommand(c Campaign, i, n int) string {
	var ws []string
	for _, w := range c.Widths {
		ws = append(ws, strconv.Itoa(w))
	}
	cmd := "verify --synth --widths " + strings.Join(ws, ",")
	if !slices.Equal(c.Configs, matrixNames()) {
		cmd += " --configs " + strings.Join(c.Configs, ",")
	}
	if len(c.Libs) != len(CellLibraries) {
		cmd += " --synth-lib " + strings.Join(c.Libs, ",")
	}
	return cmd + fmt.Sprintf(" --shard %s/%d --out shard-%s.json", i2s(i), n, i2s(i))
}

func i2s(i int) string {
	if i < 0 {
		return "i"
	}
	return strconv.Itoa(i)
}

// latencyByName maps each pair's configuration name to its latency in
// cycles (verilog.Config.Latency), for the page's latency column.
func latencyByName(pairs []verilog.Config) map[string]int {
	latency := map[string]int{}
	for _, c := range pairs {
		latency[c.Name()] = c.Latency()
	}
	return latency
}

// CampaignMarkdown renders a (merged) partial as the campaign page: how the
// figures were made, the campaign, its coverage, the RTL and tools, then one
// table per library with a row per (configuration, width) pair and its
// latency. A page of some shards says so in its first lines, with the
// commands that complete it.
func CampaignMarkdown(p *CampaignPartial) ([]byte, error) {
	p = p.whole()
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return nil, err
	}
	latency := latencyByName(pairs)
	var b strings.Builder
	b.WriteString("<!-- Code generated by ibreservoir verify --synth --widths; DO NOT EDIT. -->\n\n")
	b.WriteString("# Synthesis at every beat width\n\n")
	if !p.Complete() {
		fmt.Fprintf(&b, "**Partial:** this page holds %d of the campaign's %d configuration x width pairs: %d of its %d shards ran (%s), the other %d did not (%s). "+
			"To complete it, run each missing shard i with ibreservoir (`%s`) and merge them with this page (`verify --merge <this page>,shard-i.json,... --synth-table <this page>`; docs/rtl.md, \"Synthesis campaign\").\n\n",
			len(p.Rows), len(pairs), len(p.Done), p.Shards, joinInts(p.Done), len(p.Missing()), joinInts(p.Missing()), CampaignCommand(p.Campaign, -1, p.Shards))
	}
	b.WriteString(`Every (configuration, width) pair of the campaign below, synthesized by Yosys and mapped to
the libraries' standard cells and timed by OpenSTA as docs/synthesis.md describes (the same
script, delay targets and constraints; **no wire load model**: wires have zero capacitance
and resistance, so placement and routing add to every figure). ASAP7 is a **predictive
7 nm-class library** for research, not a foundry process. A configuration at a width wider
than 64 bits is named with the suffix ` + "`_w<W>`" + `; every other parameter is the matrix's
(pipeline depth 2, registered ready path, packet id = PSN, thesis link encoding).
The campaign does not co-simulate: TestWidth co-simulates the stage at every width.

Columns: as docs/synthesis.md's (flip-flops from Yosys; area, critical path, fmax and
line rate = width x fmax from the mapping), then the **latency**: cycles from a telemetry
beat's entry to its exit with the egress ready, max(pipeline depth, the cycle the packet's
decision is ready), the most over packet kinds (` + "`verilog.Config.Latency`" + `; docs/rtl.md,
"Beat width"): 2 at depth 2, 3 for mxm (its second multiply) and at 128 bits (a local
packet's PSN comes a beat later), 4 for mxm at 128 bits. The ideal generator's rejections,
which stall now and then, are not counted.

`)
	if slices.Equal(p.Campaign.Configs, matrixNames()) {
		fmt.Fprintf(&b, "Configurations: the matrix (%d).\n", len(p.Campaign.Configs))
	} else {
		fmt.Fprintf(&b, "Configurations: %s.\n", strings.Join(p.Campaign.Configs, ", "))
	}
	var ws []string
	for _, w := range p.Campaign.Widths {
		ws = append(ws, strconv.Itoa(w))
	}
	fmt.Fprintf(&b, "Widths: %s bits.\n", strings.Join(ws, ", "))
	fmt.Fprintf(&b, "Libraries: %s.\n", strings.Join(p.Campaign.Libs, ", "))
	if !p.Complete() {
		fmt.Fprintf(&b, "Shards: %d of %d (%s).\n", len(p.Done), p.Shards, joinInts(p.Done))
	}
	fmt.Fprintf(&b, "Coverage: %d of the %d configuration x width pairs.\n", len(p.Rows), len(pairs))
	fmt.Fprintf(&b, "RTL: `%s` (SHA-256 of the library's SystemVerilog, verilog/rtl, as synthesis reads it: without the formal properties and simulation checks; a test marks the page stale when the RTL's differs).\n\n", p.RTL)
	fmt.Fprintf(&b, "Tools: %s.\n\n", p.Tools)
	for _, l := range p.Tools.Libs {
		b.WriteString(l.line() + "\n")
	}
	writeTables(&b, p.Rows, p.Tools, &extraColumn{name: latencyColumn, value: func(s *SynthStats) string {
		return strconv.Itoa(latency[s.Config])
	}})
	return []byte(b.String()), nil
}

// ParseCampaignMarkdown reads a page CampaignMarkdown wrote back into its
// partial (without Seconds), checking that the rows' latencies are their
// configurations' and that the coverage line counts its rows.
func ParseCampaignMarkdown(page []byte) (*CampaignPartial, error) {
	if !bytes.HasPrefix(page, []byte("<!-- Code generated by ibreservoir verify --synth --widths;")) {
		return nil, errors.New("not a campaign page (ibreservoir verify --synth --widths writes them)")
	}
	rows, tools, lat, err := parseSynthesisTables(page, latencyColumn)
	if err != nil {
		return nil, err
	}
	p := &CampaignPartial{Format: CampaignFormat, Tools: tools, Rows: rows}
	covered, total := -1, -1
	for _, line := range strings.Split(string(page), "\n") {
		if m := reCampaignConfigs.FindStringSubmatch(line); m != nil {
			var n int
			if _, err := fmt.Sscanf(m[1], "the matrix (%d)", &n); err == nil {
				if p.Campaign.Configs = matrixNames(); n != len(p.Campaign.Configs) {
					return nil, fmt.Errorf("the page's campaign is the matrix of %d configurations, the tree's matrix has %d: the matrix changed since; run the campaign again", n, len(p.Campaign.Configs))
				}
			} else {
				p.Campaign.Configs = strings.Split(m[1], ", ")
			}
		} else if m := reCampaignWidths.FindStringSubmatch(line); m != nil {
			for _, w := range strings.Split(m[1], ", ") {
				v, _ := strconv.Atoi(w)
				p.Campaign.Widths = append(p.Campaign.Widths, v)
			}
		} else if m := reCampaignLibs.FindStringSubmatch(line); m != nil {
			p.Campaign.Libs = strings.Split(m[1], ", ")
		} else if m := reCampaignShards.FindStringSubmatch(line); m != nil {
			done, _ := strconv.Atoi(m[1])
			p.Shards, _ = strconv.Atoi(m[2])
			for _, i := range strings.Split(m[3], ", ") {
				v, _ := strconv.Atoi(i)
				p.Done = append(p.Done, v)
			}
			if len(p.Done) != done {
				return nil, fmt.Errorf("%q: %d shards listed", line, len(p.Done))
			}
		} else if m := reCampaignCover.FindStringSubmatch(line); m != nil {
			covered, _ = strconv.Atoi(m[1])
			total, _ = strconv.Atoi(m[2])
		} else if m := reCampaignRTL.FindStringSubmatch(line); m != nil {
			p.RTL = m[1]
		}
	}
	if p.Shards == 0 { // a whole page: the campaign as one shard
		p.Shards, p.Done = 1, []int{0}
	}
	switch {
	case p.Campaign.Configs == nil || p.Campaign.Widths == nil || p.Campaign.Libs == nil || p.RTL == "":
		return nil, errors.New("no Configurations:, Widths:, Libraries: or RTL: line")
	case covered < 0:
		return nil, errors.New("no Coverage: line")
	case covered != len(rows):
		return nil, fmt.Errorf("the page says it covers %d pairs and has %d rows", covered, len(rows))
	}
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return nil, err
	}
	if total != len(pairs) {
		return nil, fmt.Errorf("the page says its campaign has %d pairs, its Configurations: and Widths: lines %d", total, len(pairs))
	}
	for _, c := range pairs {
		if v, ok := lat[c.Name()]; ok && v != strconv.Itoa(c.Latency()) {
			return nil, fmt.Errorf("%s: latency %s cycles, the configuration's is %d (verilog.Config.Latency)", c.Name(), v, c.Latency())
		}
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// CampaignJSON is the page's figures as JSON (the page's JSON twin): the
// campaign, its coverage, RTL and tools, and a record per pair as
// docs/synthesis.json has them, with the latency.
func CampaignJSON(p *CampaignPartial) ([]byte, error) {
	p = p.whole()
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return nil, err
	}
	latency := latencyByName(pairs)
	recs, err := synthesisRecords(p.Rows, p.Tools, func(s *SynthStats) int { return latency[s.Config] })
	if err != nil {
		return nil, err
	}
	doc := struct {
		Format   string            `json:"format"`
		Campaign Campaign          `json:"campaign"`
		Pairs    int               `json:"pairs"`
		Covered  int               `json:"covered"`
		Shards   int               `json:"shards"`
		Done     []int             `json:"done"`
		RTL      string            `json:"rtl_digest"`
		Tools    string            `json:"tools"`
		Records  []synthrec.Record `json:"records"`
	}{CampaignFormat, p.Campaign, len(pairs), len(p.Rows), p.Shards, p.Done, p.RTL, p.Tools.String(), recs}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
