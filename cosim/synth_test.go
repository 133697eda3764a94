package cosim

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// synthConfigs are the configurations the tests synthesize: the thesis's
// default, sender draws, the default with the combinational ready path, and
// SipHash with sender draws.
func synthConfigs() []verilog.Config {
	d := verilog.DefaultConfig()
	s := d
	s.Generator, s.CountBits, s.SenderL = refmodel.GeneratorSender, 0, 3
	rc := d
	rc.Ready = verilog.ReadyComb
	sip := s // SipHash's light mapping (MappingScript)
	sip.Hash = hash.New(hash.SipHash)
	return []verilog.Config{d, s, rc, sip}
}

var synthRun = struct {
	once  sync.Once
	stats []*SynthStats
	tools SynthTools
	err   error
}{}

// synthesized runs the standard-cell flow on synthConfigs once per test binary.
func synthesized(t *testing.T) ([]*SynthStats, SynthTools) {
	t.Helper()
	testtool.Need(t, "yosys", "sta")
	if _, err := os.Stat(Liberty); err != nil {
		testtool.SkipOrFail(t, Liberty+" is missing (scripts/setup.sh installs qflow-tech-osu018)")
	}
	synthRun.once.Do(func() {
		dir := t.TempDir()
		synthRun.stats, synthRun.err = SynthesizeAll(context.Background(), dir, synthConfigs(), 2, nil)
		if synthRun.err == nil {
			synthRun.tools, synthRun.err = CurrentSynthTools(context.Background(), dir)
		}
	})
	if synthRun.err != nil {
		t.Fatal(synthRun.err)
	}
	return synthRun.stats, synthRun.tools
}

// TestSynthesisClean: Yosys maps each configuration without a warning, to a
// netlist with flip-flops and a timed critical path.
func TestSynthesisClean(t *testing.T) {
	stats, tools := synthesized(t)
	for _, s := range stats {
		c := s.Cell
		if len(s.Warnings) > 0 || s.Cells == 0 || s.FlipFlops == 0 || c.FlipFlops != s.FlipFlops || c.AreaUM2 <= 0 ||
			c.Timing.CriticalNS <= 0 || c.Timing.LogicDepth == 0 {
			t.Errorf("%s: generic %d cells, %d flip-flops; mapped %d flip-flops, %.0f um^2, %.2f ns, depth %d; warnings %v",
				s.Config, s.Cells, s.FlipFlops, c.FlipFlops, c.AreaUM2, c.Timing.CriticalNS, c.Timing.LogicDepth, s.Warnings)
		}
		t.Logf("%s", synthRow(s))
	}
	// An inverter's FO4 delay in a 0.18 um library is some tens of picoseconds.
	if tools.FO4NS < 0.03 || tools.FO4NS > 0.3 {
		t.Errorf("FO4 = %.4f ns, not a 0.18 um inverter's", tools.FO4NS)
	}
}

// TestReadyPath holds the ready path to docs/rtl.md: with the registered
// (skid) ready path the mapped netlist of the default configuration has no
// combinational path from any input to any output (rst_ni's asynchronous
// clear excepted); with ReadyComb it has exactly out_ready_i -> in_ready_o,
// which shows the check finds such a path when there is one.
func TestReadyPath(t *testing.T) {
	stats, _ := synthesized(t)
	for i, want := range [][]string{nil, nil, {"out_ready_i -> in_ready_o"}} {
		if got := stats[i].Cell.Timing.IOPaths; !slices.Equal(got, want) {
			t.Errorf("%s: combinational input-to-output paths %q, want %q", stats[i].Config, got, want)
		}
	}
}

// TestSynthesisPage requires docs/synthesis.md to give, for the configurations
// synthesized here, the figures this run measures, and docs/synthesis.json
// to be the page's figures, so that neither can go stale when the RTL
// changes. Other tools may count differently: then the comparison is skipped
// (visibly), except under CI, where the tools are the ones the page names.
func TestSynthesisPage(t *testing.T) {
	page, err := os.ReadFile("../docs/synthesis.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, pageTools, err := ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatalf("docs/synthesis.md: %v", err)
	}
	if len(rows) != len(verilog.Matrix()) {
		t.Errorf("docs/synthesis.md has %d configurations, the matrix %d", len(rows), len(verilog.Matrix()))
	}
	for _, r := range rows {
		r.Cell.LibraryTag = pageTools.Library
	}
	js, err := SynthesisJSON(rows)
	if err != nil {
		t.Fatal(err)
	}
	if disk, err := os.ReadFile("../docs/synthesis.json"); err != nil || !bytes.Equal(disk, js) {
		t.Errorf("docs/synthesis.json is not docs/synthesis.md's figures (%v); regenerate both with "+
			"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md", err)
	}
	stats, tools := synthesized(t)
	if pageTools.String() != tools.String() {
		msg := "docs/synthesis.md was made with " + pageTools.String() + ", not the installed " + tools.String() + "; its figures are not compared"
		testtool.SkipOrFail(t, msg)
	}
	byName := map[string]string{}
	for _, r := range rows {
		byName[r.Config] = synthRow(r)
	}
	for _, s := range stats {
		if strings.HasSuffix(s.Config, "_rc") {
			continue // the matrix has the registered ready path only
		}
		if got, want := synthRow(s), byName[s.Config]; got != want {
			t.Errorf("synthesis gives\n\t%s\ndocs/synthesis.md has\n\t%s\nregenerate it with "+
				"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md", got, want)
		}
	}
	// The README's summary of a run is the summary of the page it writes.
	rowOf := map[string]*SynthStats{}
	for _, r := range rows {
		rowOf[r.Config] = r
	}
	var live, paged []*SynthStats
	for _, s := range stats {
		if r, ok := rowOf[s.Config]; ok {
			live, paged = append(live, s), append(paged, r)
		}
	}
	if got, want := string(SynthesisSummary(live)), string(SynthesisSummary(paged)); got != want {
		t.Errorf("the summary of a synthesis run\n%s\ndiffers from the summary of the same rows on the page\n%s", got, want)
	}
}
