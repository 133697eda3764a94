// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// campaignCIPair is the pair of the campaign page that CI synthesizes again
// (TestCampaignSynthesis): the default configuration at 512-bit beats, the
// widest and the most used. The checked-in page must hold it.
const campaignCIPair = "mult0_ideal_c3_w512"

// checkCampaignPage holds a campaign page and its JSON twin to what they
// must be, without running a tool: the page reads back (its coverage line
// counting its rows, its latencies the configurations', its rows exactly
// the pairs of the shards it names), renders to itself, and its JSON is its
// figures; each row's width is its configuration's, its fmax the inverse
// of its critical path and its line rate width x fmax, its FO4 depth the
// path over the library's FO4, as the page rounds them. A partial page says
// so in its first lines. stale says whether the page's RTL digest is not
// the tree's.
func checkCampaignPage(page, js []byte) (p *CampaignPartial, stale bool, err error) {
	p, err = ParseCampaignMarkdown(page)
	if err != nil {
		return nil, false, err
	}
	if again, err := CampaignMarkdown(p); err != nil || !bytes.Equal(again, page) {
		return nil, false, fmt.Errorf("the page is not what its figures render to (%v): a hand edit? first difference at line %d", err, firstLineDiff(again, page))
	}
	if want, err := CampaignJSON(p); err != nil || !bytes.Equal(want, js) {
		return nil, false, fmt.Errorf("the JSON is not the page's figures (%v): first difference at line %d", err, firstLineDiff(want, js))
	}
	lines := strings.SplitN(string(page), "\n", 6)
	if partial := strings.HasPrefix(lines[4], "**Partial:**"); partial == p.Complete() {
		return nil, false, fmt.Errorf("the page holds %d of its campaign's pairs and its first lines say partial: %v", len(p.Rows), partial)
	}
	byName := map[string]verilog.Config{}
	pairs, err := p.Campaign.Pairs()
	if err != nil {
		return nil, false, err
	}
	for _, c := range pairs {
		byName[c.Name()] = c
	}
	for _, s := range p.Rows {
		c, ok := byName[s.Config]
		if !ok {
			return nil, false, fmt.Errorf("%s is not a pair of the campaign", s.Config)
		}
		for _, m := range s.Mapped {
			l, _ := p.Tools.Lib(m.Library)
			_, dn := decimals(m.Library)
			h := math.Pow(10, -float64(dn)) / 2 // the critical path's rounding
			lo, hi := 1000/(m.Timing.CriticalNS+h)-0.5, 1000/(m.Timing.CriticalNS-h)+0.5
			rate := *round(float64(c.DataW())*m.Timing.FmaxMHz/1000, 1)
			fo4 := m.Timing.CriticalNS / l.FO4NS
			switch {
			case m.WidthBits != c.DataW():
				return nil, false, fmt.Errorf("%s in %s: width %d bits, the configuration's is %d", s.Config, m.Library, m.WidthBits, c.DataW())
			case m.Timing.FmaxMHz < lo || m.Timing.FmaxMHz > hi:
				return nil, false, fmt.Errorf("%s in %s: fmax %.0f MHz is not 1 / %.*f ns", s.Config, m.Library, m.Timing.FmaxMHz, dn, m.Timing.CriticalNS)
			case m.LineRateGbps != rate:
				return nil, false, fmt.Errorf("%s in %s: line rate %.1f Gb/s, width x fmax is %.1f", s.Config, m.Library, m.LineRateGbps, rate)
			case math.Abs(m.Timing.FO4Depth-fo4) > 0.05+h/l.FO4NS+fo4*0.00005/l.FO4NS:
				return nil, false, fmt.Errorf("%s in %s: FO4 depth %.1f, the path over FO4 is %.1f", s.Config, m.Library, m.Timing.FO4Depth, fo4)
			}
		}
	}
	rtl, err := RTLDigest()
	if err != nil {
		return nil, false, err
	}
	return p, rtl != p.RTL, nil
}

// firstLineDiff is the first line (from 1) where a and b differ.
func firstLineDiff(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func readCampaignPage(t *testing.T) (page, js []byte) {
	t.Helper()
	page, err := os.ReadFile("../" + CampaignPage)
	if err != nil {
		t.Fatal(err)
	}
	js, err = os.ReadFile("../" + JSONPath(CampaignPage))
	if err != nil {
		t.Fatal(err)
	}
	return page, js
}

// TestCampaignPage holds docs/synthesis-widths.md and its JSON
// (checkCampaignPage) and requires it to hold campaignCIPair in every
// library; a page of another RTL than the tree's is stale, and says so
// (logged) without failing: its figures are of the RTL it names.
func TestCampaignPage(t *testing.T) {
	page, js := readCampaignPage(t)
	p, stale, err := checkCampaignPage(page, js)
	if err != nil {
		t.Fatalf("%s: %v", CampaignPage, err)
	}
	pairs, _ := p.Campaign.Pairs()
	t.Logf("%s: %d of %d pairs (shards %v of %d)", CampaignPage, len(p.Rows), len(pairs), p.Done, p.Shards)
	if stale {
		rtl, _ := RTLDigest()
		t.Logf("%s is stale: its figures are of the RTL %s, the tree's is %s; the campaign (docs/rtl.md, \"Synthesis campaign\") makes them again", CampaignPage, p.RTL, rtl)
	}
	for _, s := range p.Rows {
		if s.Config == campaignCIPair {
			return
		}
	}
	t.Errorf("%s has no row of %s, which CI synthesizes again (TestCampaignSynthesis)", CampaignPage, campaignCIPair)
}

// TestCampaignPageCatches plants in copies of the checked-in page each
// error checkCampaignPage exists for, and requires it to fail on each; a
// page of another RTL is stale, not wrong.
func TestCampaignPageCatches(t *testing.T) {
	page, js := readCampaignPage(t)
	p, err := ParseCampaignMarkdown(page)
	if err != nil {
		t.Fatal(err)
	}
	row := p.Rows[0]
	a7 := row.In(ASAP7.Name)
	// A row's line of the ASAP7 table, and its fields.
	var line string
	for _, l := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(l, "| `"+row.Config+"` |") {
			line = l // the last: ASAP7's table follows OSU's
		}
	}
	f := strings.Split(line, " | ")
	edit := func(col int, v string) []byte {
		g := append([]string(nil), f...)
		g[col] = v
		return bytes.Replace(page, []byte(line), []byte(strings.Join(g, " | ")), 1)
	}
	both := func(md []byte) ([]byte, []byte) {
		q, err := ParseCampaignMarkdown(md)
		if err != nil {
			return md, js
		}
		j, _ := CampaignJSON(q)
		return md, j
	}
	cover := fmt.Sprintf("Coverage: %d of the", len(p.Rows))
	// A row renamed to another pair: on a partial page, one its shards do not
	// hold; on a whole one, where every pair has its row, a second row.
	renamed := "not the pairs of shards"
	if p.Complete() {
		renamed = "mult0_ideal_c4_w256's second row"
	}
	for _, tc := range []struct {
		name    string
		md, js  []byte
		want    string
		digests bool
	}{
		{"a hand-edited area, the JSON left", edit(7, fmt.Sprintf("%.1f", a7.AreaUM2+1)), js, "the JSON is not the page's figures", false},
		{"a hand-edited fmax, the JSON too", nil, nil, "is not 1 /", false},
		{"a hand-edited critical path, the JSON too", nil, nil, "is not 1 /", false},
		{"a hand-edited latency in one table", edit(15, "9 |"), js, "is 9 here", false},
		{"a hand-edited latency in both", nil, js, "latency 9 cycles", false},
		{"a hand-edited line rate, the JSON too", nil, nil, "line rate", false},
		{"a campaign of another matrix", bytes.Replace(page, []byte(fmt.Sprintf("Configurations: the matrix (%d).", len(verilog.Matrix()))), []byte("Configurations: the matrix (98)."), 1), js, "the matrix changed since", false},
		{"a coverage line that miscounts", bytes.Replace(page, []byte(cover), []byte(fmt.Sprintf("Coverage: %d of the", len(p.Rows)+1)), 1), js, "says it covers", false},
		{"a row dropped", bytes.Replace(page, []byte(line+"\n"), nil, 1), js, "has no asap7 figures", false},
		{"a row renamed", bytes.ReplaceAll(page, []byte("| `"+row.Config+"` |"), []byte("| `mult0_ideal_c4_w256` |")), js, renamed, false},
		{"a width that is not the configuration's", nil, nil, "width", false},
		{"a partial page without its first lines", nil, js, "first lines say partial", false},
		{"another RTL", bytes.Replace(page, []byte(p.RTL), []byte("sha256:"+strings.Repeat("0", 64)), 1), nil, "", true},
	} {
		md, j := tc.md, tc.js
		switch tc.name {
		case "a hand-edited fmax, the JSON too":
			md, j = both(edit(12, strconv.Itoa(int(math.Round(a7.Timing.FmaxMHz))+7)))
		case "a hand-edited latency in both":
			var out []string
			for _, l := range strings.Split(string(page), "\n") {
				if strings.HasPrefix(l, "| `"+row.Config+"` |") {
					l = strings.TrimSuffix(l, f[15]) + "9 |"
				}
				out = append(out, l)
			}
			md = []byte(strings.Join(out, "\n"))
		case "a hand-edited line rate, the JSON too":
			md, j = both(edit(14, fmt.Sprintf("%.1f", a7.LineRateGbps+0.2)))
		case "a hand-edited critical path, the JSON too":
			md, j = both(edit(9, fmt.Sprintf("%.3f", a7.Timing.CriticalNS*1.5)))
		case "a width that is not the configuration's":
			md, j = both(edit(13, strconv.Itoa(a7.WidthBits*2)))
		case "a partial page without its first lines":
			lines := strings.SplitN(string(page), "\n", 6)
			if strings.HasPrefix(lines[4], "**Partial:**") {
				md = []byte(strings.Join(append(lines[:4], lines[5:]...), "\n"))
			} else {
				md = []byte(strings.Join(append(lines[:4], "**Partial:** said of a whole page.", "", lines[4], lines[5]), "\n"))
			}
			tc.want = "not what its figures render to"
		case "another RTL":
			md, j = both(md)
		}
		_, stale, err := checkCampaignPage(md, j)
		switch {
		case tc.digests && (err != nil || !stale):
			t.Errorf("%s: stale %v, %v; want stale and no error", tc.name, stale, err)
		case !tc.digests && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// asap7Tolerance is how far a mapping to ASAP7 may differ from the page's
// row: ABC's mapping to it has given runs of the same netlist one
// NAND2-equivalent apart (a cell more or less of about that area). Every
// other figure, and OSU 0.18 um's every figure, must be the page's.
const asap7Tolerance = 1 // NAND2 equivalents, std cells

// compareCampaignRow compares a run's mapping of a pair with the page's
// row: OSU 0.18 um exactly (the row as the page prints it), ASAP7 within
// asap7Tolerance in std cells, area and NAND2-eq and exactly otherwise.
func compareCampaignRow(live, page *SynthStats, lib string) error {
	got, want := synthRow(live, lib), synthRow(page, lib)
	if lib != ASAP7.Name || got == want {
		if got != want {
			return fmt.Errorf("%s in %s: synthesis gives\n\t%s\nthe page has\n\t%s", live.Config, lib, got, want)
		}
		return nil
	}
	l, p := *live.In(lib), *page.In(lib)
	nand2 := p.AreaUM2 / p.NAND2Eq
	if math.Abs(float64(l.Cells-p.Cells)) > asap7Tolerance || math.Abs(l.NAND2Eq-p.NAND2Eq) > asap7Tolerance+0.5 ||
		math.Abs(l.AreaUM2-p.AreaUM2) > asap7Tolerance*nand2+0.05 {
		return fmt.Errorf("%s in %s: synthesis gives\n\t%s\nthe page has\n\t%s\n(more than %d NAND2 equivalent and std cell apart)", live.Config, lib, got, want, asap7Tolerance)
	}
	l.Cells, l.AreaUM2, l.NAND2Eq = p.Cells, p.AreaUM2, p.NAND2Eq
	q := *live
	q.Mapped = []*CellStats{&l}
	if got := synthRow(&q, lib); got != want {
		return fmt.Errorf("%s in %s: synthesis gives\n\t%s\nthe page has\n\t%s\n(beyond the std cells, area and NAND2-eq)", live.Config, lib, synthRow(live, lib), want)
	}
	return nil
}

// TestCompareCampaignRow: the comparison of TestCampaignSynthesis passes a
// row as the page has it and ASAP7's one-NAND2 wobble, and fails a row two
// NAND2 equivalents off in ASAP7, one in OSU 0.18 um, or a critical path
// off.
func TestCompareCampaignRow(t *testing.T) {
	mk := func(lib string, cells int, area, nand2, ns float64) *SynthStats {
		return &SynthStats{Config: "mult0_ideal_c3_w512", Hash: "mult0", Generator: "ideal", Field: "hop_count 3 bits", Cells: 30000, FlipFlops: 2212,
			Mapped: []*CellStats{{Library: lib, Cells: cells, AreaUM2: area, NAND2Eq: nand2, WidthBits: 512, LineRateGbps: 472.6,
				Timing: &Timing{CriticalNS: ns, LogicDepth: 30, FO4Depth: 55.6, FmaxMHz: 923}}}}
	}
	const n2 = 0.08748 // NAND2xp33's area
	page := mk("asap7", 30000, 2595.6, 2595.6/n2, 1.084)
	for _, tc := range []struct {
		name string
		live *SynthStats
		ok   bool
	}{
		{"the page's row", mk("asap7", 30000, 2595.6, 2595.6/n2, 1.084), true},
		{"one NAND2 more", mk("asap7", 30001, 2595.6+n2, 2595.6/n2+1, 1.084), true},
		{"one NAND2 fewer", mk("asap7", 29999, 2595.6-n2, 2595.6/n2-1, 1.084), true},
		{"two NAND2 more", mk("asap7", 30002, 2595.6+2*n2, 2595.6/n2+2, 1.084), false},
		{"a critical path off", mk("asap7", 30000, 2595.6, 2595.6/n2, 1.085), false},
	} {
		if err := compareCampaignRow(tc.live, page, "asap7"); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	osu := mk("osu018", 30000, 1036035, 1036035/4.0, 43.29)
	if err := compareCampaignRow(mk("osu018", 30001, 1036039, 1036039/4.0, 43.29), osu, "osu018"); err == nil {
		t.Errorf("OSU 0.18 um one cell off: no error")
	}
	if err := compareCampaignRow(mk("osu018", 30000, 1036035, 1036035/4.0, 43.29), osu, "osu018"); err != nil {
		t.Errorf("OSU 0.18 um as the page: %v", err)
	}
}

// TestCampaignSynthesis is the campaign's representative subset in CI: it
// synthesizes campaignCIPair in every library of the page and compares it
// with the page's row (compareCampaignRow). A page made with other tools
// is not compared (skipped; under CI, where the tools are the page's,
// failed); a stale page (of another RTL than the tree's) is compared, and
// its differences logged, not failed.
func TestCampaignSynthesis(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes a 512-bit stage in two libraries (about 75 s of CPU)")
	}
	testtool.Need(t, "yosys", "sta")
	page, js := readCampaignPage(t)
	p, stale, err := checkCampaignPage(page, js)
	if err != nil {
		t.Fatal(err)
	}
	var want *SynthStats
	for _, s := range p.Rows {
		if s.Config == campaignCIPair {
			want = s
		}
	}
	if want == nil {
		t.Fatalf("%s has no row of %s", CampaignPage, campaignCIPair)
	}
	pairs, _ := p.Campaign.Pairs()
	var cfg verilog.Config
	for _, c := range pairs {
		if c.Name() == campaignCIPair {
			cfg = c
		}
	}
	libs, err := p.Campaign.Libraries()
	if err != nil {
		t.Fatal(err)
	}
	dir, ctx := t.TempDir(), context.Background()
	tools, err := CurrentSynthTools(ctx, dir, libs)
	if err != nil {
		t.Fatal(err)
	}
	if tools.String() != p.Tools.String() || libLines(tools) != libLines(p.Tools) {
		testtool.SkipOrFail(t, fmt.Sprintf("%s was made with %s %v, not the installed %s %v; its figures are not compared", CampaignPage, p.Tools, p.Tools.Libs, tools, tools.Libs))
	}
	stats, err := SynthesizeAll(ctx, dir, []verilog.Config{cfg}, libs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	for _, l := range libs {
		errs = append(errs, compareCampaignRow(stats[0], want, l.Name))
	}
	if err := errors.Join(errs...); err != nil && stale {
		t.Skipf("%s is stale (of another RTL than the tree's); the tree's synthesis differs:\n%v", CampaignPage, err)
	} else if err != nil {
		t.Errorf("%v\nthe page's RTL digest is the tree's: the flow or tools changed; run the campaign again (docs/rtl.md, \"Synthesis campaign\")", err)
	}
}

// TestSynthesisPagesAgree: docs/synthesis.md's rows (64-bit beats) are the
// campaign page's rows of the same configurations at 64 bits, made by the
// same flow (compareCampaignRow), so that neither page goes stale without a
// test saying so. A campaign page of another RTL than the tree's is not
// compared (TestCampaignPage logs it stale).
func TestSynthesisPagesAgree(t *testing.T) {
	page, js := readCampaignPage(t)
	camp, stale, err := checkCampaignPage(page, js)
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		t.Skipf("%s is stale: its 64-bit rows are not compared with docs/synthesis.md", CampaignPage)
	}
	_, rows, tools := readSynthesisPage(t)
	if libLines(tools) != libLines(camp.Tools) || tools.String() != camp.Tools.String() {
		t.Fatalf("docs/synthesis.md was made with %s %v, %s with %s %v: make both again with the same tools", tools, tools.Libs, CampaignPage, camp.Tools, camp.Tools.Libs)
	}
	byName := map[string]*SynthStats{}
	for _, s := range rows {
		byName[s.Config] = s
	}
	n := 0
	var errs []error
	for _, c := range camp.Rows {
		s := byName[c.Config] // a 64-bit pair's name is its configuration's
		if s == nil {
			continue
		}
		n++
		for _, l := range camp.Campaign.Libs {
			errs = append(errs, compareCampaignRow(s, c, l))
		}
	}
	if n == 0 {
		t.Fatalf("%s and docs/synthesis.md share no configuration at 64 bits: nothing compared", CampaignPage)
	}
	if err := errors.Join(errs...); err != nil {
		t.Errorf("docs/synthesis.md and %s differ at 64 bits, so one is stale (go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md makes the first again; docs/rtl.md, \"Synthesis campaign\", the second):\n%v", CampaignPage, err)
	}
	t.Logf("%d configurations compared at 64 bits in %s", n, strings.Join(camp.Campaign.Libs, ", "))
}
