// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// synthConfigs are the configurations the tests synthesize in OSU 0.18 um:
// the thesis's default, sender draws, the default with the combinational
// ready path, and SipHash with sender draws. The first, the default, is
// also mapped to ASAP7 (asap7Configs).
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

// asap7Configs is how many of synthConfigs the tests map to ASAP7 too.
const asap7Configs = 1

var synthRun = struct {
	once  sync.Once
	stats []*SynthStats
	tools SynthTools
	err   error
	// The most loads a flip-flop output drives in the default's ASAP7
	// netlist, and which flip-flop (read before the run's directory goes).
	fanout   int
	fanoutFF string
}{}

// synthesized runs the standard-cell flow on synthConfigs once per test binary.
func synthesized(t *testing.T) ([]*SynthStats, SynthTools) {
	t.Helper()
	testtool.Need(t, "yosys", "sta")
	if _, err := os.Stat(Liberty); err != nil {
		testtool.SkipOrFail(t, Liberty+" is missing (scripts/setup.sh installs qflow-tech-osu018)")
	}
	synthRun.once.Do(func() {
		dir, ctx := t.TempDir(), context.Background()
		cfgs := synthConfigs()
		both, err := SynthesizeAll(ctx, dir, cfgs[:asap7Configs], CellLibraries, 2, nil)
		if err != nil {
			synthRun.err = err
			return
		}
		osu, err := SynthesizeAll(ctx, dir, cfgs[asap7Configs:], []*CellLibrary{OSU018}, 2, nil)
		if err != nil {
			synthRun.err = err
			return
		}
		synthRun.stats = append(both, osu...)
		lib, err := ASAP7.Load(dir)
		if err != nil {
			synthRun.err = err
			return
		}
		if synthRun.fanout, synthRun.fanoutFF, err = maxFlopFanout(both[0].In(ASAP7.Name).Netlist, lib); err != nil {
			synthRun.err = err
			return
		}
		synthRun.tools, synthRun.err = CurrentSynthTools(ctx, dir, CellLibraries)
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
		if len(s.Warnings) > 0 {
			t.Errorf("%s: warnings %v", s.Config, s.Warnings)
		}
		for _, c := range s.Mapped {
			if s.Cells == 0 || s.FlipFlops == 0 || c.FlipFlops != s.FlipFlops || c.AreaUM2 <= 0 ||
				c.Timing.CriticalNS <= 0 || c.Timing.LogicDepth == 0 || c.WidthBits != 64 ||
				math.Abs(c.LineRateGbps-64*math.Round(c.Timing.FmaxMHz)/1000) > 1e-9 {
				t.Errorf("%s in %s: generic %d cells, %d flip-flops; mapped %d flip-flops, %.0f um^2, %.2f ns, depth %d, %d bits, %.1f Gb/s",
					s.Config, c.Library, s.Cells, s.FlipFlops, c.FlipFlops, c.AreaUM2, c.Timing.CriticalNS, c.Timing.LogicDepth, c.WidthBits, c.LineRateGbps)
			}
			t.Logf("%s %s (%.1f s)", c.Library, synthRow(s, c.Library), c.Time.Seconds())
		}
	}
	// An inverter's FO4 delay is some tens of picoseconds in a 0.18 um
	// library, some picoseconds in a 7 nm-class one: a wrong time unit is off
	// a thousandfold.
	for name, want := range map[string][2]float64{"osu018": {0.03, 0.3}, "asap7": {0.003, 0.03}} {
		if l, ok := tools.Lib(name); !ok || l.FO4NS < want[0] || l.FO4NS > want[1] {
			t.Errorf("%s: FO4 = %.4f ns, want %g..%g", name, l.FO4NS, want[0], want[1])
		}
	}
}

// TestSynthesisWarnings: a Yosys warning ASAP7 causes whatever the design is
// ignored, and only it: the same words about another cell, or another
// warning, are the design's.
func TestSynthesisWarnings(t *testing.T) {
	for w, lib := range map[string]bool{
		"Warning: Found unsupported expression 'D*!SE+!D*!SI+SE*!SI' in pin attribute of cell 'SDFHx4_ASAP7_75t_R' - skipping.":   true,
		"Warning: Found unsupported expression 'D*!SE+!D*!SI+SE*!SI' in pin attribute of cell 'DFFHQNx1_ASAP7_75t_R' - skipping.": false,
		"Warning: Replacing memory \\mem with list of registers.":                                                                 false,
	} {
		if got := ASAP7.Ignore.MatchString(w); got != lib {
			t.Errorf("ASAP7.Ignore(%q) = %v, want %v", w, got, lib)
		}
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
		if got := stats[i].In(OSU018.Name).Timing.IOPaths; !slices.Equal(got, want) {
			t.Errorf("%s: combinational input-to-output paths %q, want %q", stats[i].Config, got, want)
		}
	}
}

// readSynthesisPage reads docs/synthesis.md and its rows and tools.
func readSynthesisPage(t *testing.T) ([]byte, []*SynthStats, SynthTools) {
	t.Helper()
	page, err := os.ReadFile("../docs/synthesis.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, tools, err := ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatalf("docs/synthesis.md: %v", err)
	}
	return page, rows, tools
}

// TestSynthesisPage requires docs/synthesis.md to give, for the configurations
// synthesized here, the figures this run measures, and docs/synthesis.json
// to be the page's figures, so that neither can go stale when the RTL
// changes. Other tools may count differently: then the comparison is skipped
// (visibly), except under CI, where the tools are the ones the page names.
// staleMark is the words by which docs/synthesis.md says its figures are of
// an earlier RTL.
const staleMark = "**Stale:**"

func TestSynthesisPage(t *testing.T) {
	page, rows, pageTools := readSynthesisPage(t)
	if len(rows) != len(verilog.Matrix()) {
		t.Errorf("docs/synthesis.md has %d configurations, the matrix %d", len(rows), len(verilog.Matrix()))
	}
	for _, l := range CellLibraries {
		n := 0
		for _, r := range rows {
			if r.In(l.Name) != nil {
				n++
			}
		}
		// OSU 0.18 um's table is whole; ASAP7's may be a partial run, which
		// the page says, holding the configurations mapped here.
		if n != len(rows) && (l == OSU018 || !bytes.Contains(page, []byte(fmt.Sprintf("Partial: %d of the %d configurations", n, len(rows))))) {
			t.Errorf("docs/synthesis.md's %s table has %d configurations of %d", l.Name, n, len(rows))
		} else if n != len(rows) {
			t.Logf("docs/synthesis.md's %s table is partial: %d configurations of %d", l.Name, n, len(rows))
		}
	}
	js, err := SynthesisJSON(rows, pageTools)
	if err != nil {
		t.Fatal(err)
	}
	if disk, err := os.ReadFile("../docs/synthesis.json"); err != nil || !bytes.Equal(disk, js) {
		t.Errorf("docs/synthesis.json is not docs/synthesis.md's figures (%v); regenerate both with "+
			"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md", err)
	}
	stats, tools := synthesized(t)
	if pageTools.String() != tools.String() || libLines(pageTools) != libLines(tools) {
		msg := fmt.Sprintf("docs/synthesis.md was made with %s %v, not the installed %s %v; its figures are not compared", pageTools, pageTools.Libs, tools, tools.Libs)
		testtool.SkipOrFail(t, msg)
	}
	byName := map[string]*SynthStats{}
	for _, r := range rows {
		byName[r.Config] = r
	}
	// A page whose text says it is stale (staleMark: the RTL changed after
	// the last full run, which takes tens of minutes) is compared all the
	// same; its differences are logged and the test skips, saying so. A
	// page marked stale that matches fails: the mark must go.
	stale := bytes.Contains(page, []byte(staleMark))
	compared, differ := 0, 0
	for _, s := range stats {
		if strings.HasSuffix(s.Config, "_rc") {
			continue // the matrix has the registered ready path only
		}
		for _, c := range s.Mapped {
			r := byName[s.Config]
			if r == nil || r.In(c.Library) == nil {
				t.Errorf("docs/synthesis.md has no %s row for %s", c.Library, s.Config)
				continue
			}
			compared++
			// As the campaign's rows are compared: OSU 0.18 um exactly, ASAP7
			// within ABC's one-NAND2 wobble between runs of one netlist.
			if err := compareCampaignRow(s, r, c.Library); err != nil && stale {
				differ++
				t.Logf("the stale docs/synthesis.md: %v", err)
			} else if err != nil {
				t.Errorf("docs/synthesis.md: %v\nregenerate it with "+
					"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md", err)
			}
		}
	}
	if compared < 3+asap7Configs {
		t.Errorf("compared %d rows with the page, want %d", compared, 3+asap7Configs)
	}
	switch {
	case stale && differ == 0:
		t.Errorf("docs/synthesis.md says %q, but the %d rows compared match this run: remove the mark", staleMark, compared)
	case stale:
		t.Skipf("docs/synthesis.md says %q: %d of %d rows compared differ from this run (logged); "+
			"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md regenerates it", staleMark, differ, compared)
	}
	// The README's summary of a run is the summary of the page it writes.
	var live, paged []*SynthStats
	for _, s := range stats {
		if r, ok := byName[s.Config]; ok {
			p := *r
			p.Mapped = nil
			for _, c := range s.Mapped {
				p.Mapped = append(p.Mapped, r.In(c.Library))
			}
			live, paged = append(live, s), append(paged, &p)
		}
	}
	if got, want := string(SynthesisSummary(live, tools.Libs)), string(SynthesisSummary(paged, tools.Libs)); got != want {
		t.Errorf("the summary of a synthesis run\n%s\ndiffers from the summary of the same rows on the page\n%s", got, want)
	}
}

// TestSynthesisPageRoundTrip renders statistics of two libraries as the page,
// reads them back, keeps one library's rows for a run of the other, and
// refuses to keep rows of configurations or tools the page does not have.
func TestSynthesisPageRoundTrip(t *testing.T) {
	mk := func(cfg string, cells int) *SynthStats {
		s := &SynthStats{Config: cfg, Hash: "mult0", Generator: "ideal", Field: "hop_count 3 bits", CountBits: 3, Cells: cells, FlipFlops: 456}
		for i, l := range CellLibraries {
			s.Mapped = append(s.Mapped, &CellStats{Library: l.Name, Cells: 6000 + i, FlipFlops: 456, AreaUM2: 299629 / float64(1+432*i),
				NAND2Eq: 12485, WidthBits: 64, LineRateGbps: 8.3 + 38.6*float64(i),
				Timing: &Timing{CriticalNS: 7.75 - 6.39*float64(i), LogicDepth: 40, FO4Depth: 78.1, FmaxMHz: 129 + 605*float64(i)}})
		}
		return s
	}
	tools := SynthTools{Yosys: "Yosys 0.23", STA: "OpenSTA 2.0.17"}
	for _, l := range CellLibraries {
		tools.Libs = append(tools.Libs, LibTools{Name: l.Name, Label: l.Label, File: l.Name + ".lib (sha256 01234567)", FO4NS: 0.05, TargetPS: l.TargetPS})
	}
	stats := []*SynthStats{mk("mult0_ideal_c3", 5000), mk("mult0_ideal_c4", 5100)}
	page := SynthesisMarkdown(stats, tools)
	rows, got, err := ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatal(err)
	}
	if libLines(got) != libLines(tools) || got.String() != tools.String() {
		t.Errorf("tools read back\n%s%s\nwant\n%s%s", got, libLines(got), tools, libLines(tools))
	}
	for i, s := range stats {
		for _, l := range CellLibraries {
			if a, b := synthRow(rows[i], l.Name), synthRow(s, l.Name); a != b {
				t.Errorf("row read back\n\t%s\nwant\n\t%s", a, b)
			}
		}
	}
	// A run of ASAP7 alone keeps the page's OSU rows.
	run := []*SynthStats{mk("mult0_ideal_c3", 5000)}
	run[0].Mapped = run[0].Mapped[1:]
	runTools := tools
	runTools.Libs = tools.Libs[1:]
	kept, keptTools, err := KeepLibraries(run, runTools, rows, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(keptTools.Libs) != 2 || keptTools.Libs[0].Name != OSU018.Name || kept[0].In(OSU018.Name) == nil ||
		synthRow(kept[0], OSU018.Name) != synthRow(stats[0], OSU018.Name) {
		t.Errorf("KeepLibraries: tools %v, row %+v", keptTools.Libs, kept[0].Mapped)
	}
	for name, bad := range map[string]func() ([]*SynthStats, SynthTools){
		"configuration": func() ([]*SynthStats, SynthTools) {
			r := mk("mult0_lfsr_lut_b16_c3", 5000)
			r.Mapped = r.Mapped[1:]
			return []*SynthStats{r}, runTools
		},
		"rtl changed": func() ([]*SynthStats, SynthTools) {
			r := mk("mult0_ideal_c3", 4000)
			r.Mapped = r.Mapped[1:]
			return []*SynthStats{r}, runTools
		},
		"tools": func() ([]*SynthStats, SynthTools) {
			r := mk("mult0_ideal_c3", 5000)
			r.Mapped = r.Mapped[1:]
			tt := runTools
			tt.Yosys = "Yosys 0.40"
			return []*SynthStats{r}, tt
		},
	} {
		r, tt := bad()
		if _, _, err := KeepLibraries(r, tt, rows, got); err == nil {
			t.Errorf("%s: KeepLibraries kept rows it should refuse", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// maxFlopFanout returns the most loads a flip-flop output of a mapped
// netlist drives (the pins on its net, the driver excepted), and the flip-flop.
func maxFlopFanout(netlist string, lib *Library) (int, string, error) {
	b, err := os.ReadFile(netlist)
	if err != nil {
		return 0, "", err
	}
	reInst := regexp.MustCompile(`(?s)\n\s*(\S+) (\S+) \((.*?)\);`)
	rePin := regexp.MustCompile(`\.(\w+)\(([^()]*)\)`)
	pins := map[string]int{}
	outs := map[string]string{} // flip-flop output net -> instance
	for _, m := range reInst.FindAllStringSubmatch(string(b), -1) {
		for _, p := range rePin.FindAllStringSubmatch(m[3], -1) {
			pins[p[2]]++
			if lib.Sequential[m[1]] && (p[1] == "Q" || p[1] == "QN") {
				outs[p[2]] = m[2]
			}
		}
	}
	most, which := 0, ""
	for net, inst := range outs {
		if pins[net]-1 > most {
			most, which = pins[net]-1, inst
		}
	}
	return most, which, nil
}

// TestFlipFlopFanoutBuffered: in ASAP7, where ABC is told the flip-flops'
// drive (CellLibrary.Drive), no flip-flop output of the default
// configuration drives more than ABC's buffering fanout (10) and a few
// more; mapped without it, one drives 149 gates.
func TestFlipFlopFanoutBuffered(t *testing.T) {
	stats, _ := synthesized(t)
	if n, ff := synthRun.fanout, synthRun.fanoutFF; n == 0 || n > 16 {
		t.Errorf("%s in ASAP7: flip-flop %s drives %d loads, want 1..16", stats[0].Config, ff, n)
	} else {
		t.Logf("%s in ASAP7: at most %d loads on a flip-flop output (%s)", stats[0].Config, n, ff)
	}
}

// TestMergeSynthesis reads a page back with its critical paths, merges a run
// of one configuration into it (the run's row replaces the page's, the rest
// stay, in the matrix's order, and the page renders the same critical
// paths), and refuses a run with other tools or a configuration outside
// the matrix.
func TestMergeSynthesis(t *testing.T) {
	mk := func(cfg string, cells int) *SynthStats {
		s := &SynthStats{Config: cfg, Hash: "mult0", Generator: "ideal", Field: "hop_count 3 bits", CountBits: 3, Cells: cells, FlipFlops: 456}
		for i, l := range CellLibraries {
			s.Mapped = append(s.Mapped, &CellStats{Library: l.Name, Cells: 6000 + i, FlipFlops: 456, AreaUM2: 1000 + float64(cells), NAND2Eq: 12485,
				WidthBits: 64, LineRateGbps: 8.3, Timing: &Timing{CriticalNS: 1.25, LogicDepth: 40, FO4Depth: 78.1, FmaxMHz: 800}})
		}
		return s
	}
	tools := SynthTools{Yosys: "Yosys 0.23", STA: "OpenSTA 2.0.17"}
	for _, l := range CellLibraries {
		tools.Libs = append(tools.Libs, LibTools{Name: l.Name, Label: l.Label, File: l.Name + ".lib (sha256 01234567)", FO4NS: 0.05, TargetPS: l.TargetPS})
	}
	first := mk("mult0_ideal_c3", 5000)
	ft := first.In(ASAP7.Name).Timing
	ft.Start, ft.StartSrc, ft.End, ft.EndSrc = "u_gen/s1_q_reg", "ibr_gen_ideal.sv:69", "out_valid_o", ""
	page := SynthesisMarkdown([]*SynthStats{first, mk("mult0_ideal_c4", 5100), mk("old_config", 1)}, tools)
	rows, pageTools, err := ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"mult0_ideal_c3", "mxm_ideal_c3", "mult0_ideal_c4"}
	// The run measures FO4 to more decimals than the page keeps.
	precise := tools
	precise.Libs = slices.Clone(tools.Libs)
	precise.Libs[0].FO4NS = 0.0500001
	merged, err := MergeSynthesis([]*SynthStats{mk("mxm_ideal_c3", 7000), mk("mult0_ideal_c4", 5200)}, precise, rows, pageTools, order)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range merged {
		names = append(names, fmt.Sprintf("%s:%d", s.Config, s.Cells))
	}
	if got := strings.Join(names, " "); got != "mult0_ideal_c3:5000 mxm_ideal_c3:7000 mult0_ideal_c4:5200" {
		t.Errorf("merged rows %s", got)
	}
	want := "- `mult0_ideal_c3`: 1.250 ns, 40 cells, from a flip-flop of ibr_gen_ideal.sv:69 to port `out_valid_o`."
	if out := string(SynthesisMarkdown(merged, tools)); !strings.Contains(out, want+"\n") {
		t.Errorf("the merged page lost the critical path %q", want)
	}
	other := tools
	other.Libs = slices.Clone(tools.Libs)
	other.Libs[1].FO4NS = 0.06
	for name, bad := range map[string]func() error{
		"tools": func() error { _, err := MergeSynthesis(nil, other, rows, pageTools, order); return err },
		"matrix": func() error {
			_, err := MergeSynthesis([]*SynthStats{mk("x_c3", 1)}, tools, rows, pageTools, order)
			return err
		},
	} {
		if err := bad(); err == nil {
			t.Errorf("%s: MergeSynthesis merged what it should refuse", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestLightMapping synthesizes the configurations IBR_LIGHT_SYNTH names
// (comma-separated, e.g. mxm_ideal_c3) in every library with SipHash's
// script (SynthesizeLight) and logs their figures beside SipHash's row of
// the same generator and hop field in docs/synthesis.md: the area and clock
// ratios in the same library and script. It checks that the run's generic
// synthesis is the page's (the same RTL).
func TestLightMapping(t *testing.T) {
	names := os.Getenv("IBR_LIGHT_SYNTH")
	if names == "" {
		t.Skip("IBR_LIGHT_SYNTH=<configurations> runs the synthesis")
	}
	testtool.Need(t, "yosys", "sta")
	_, rows, _ := readSynthesisPage(t)
	byName := map[string]*SynthStats{}
	for _, r := range rows {
		byName[r.Config] = r
	}
	for _, name := range strings.Split(names, ",") {
		i := slices.IndexFunc(verilog.Matrix(), func(c verilog.Config) bool { return c.Name() == name })
		if i < 0 {
			t.Fatalf("%s is not a configuration of the matrix", name)
		}
		c := verilog.Matrix()[i]
		s, err := SynthesizeLight(context.Background(), t.TempDir(), c, CellLibraries)
		if err != nil {
			t.Fatal(err)
		}
		if r := byName[name]; r != nil && (r.Cells != s.Cells || r.FlipFlops != s.FlipFlops) {
			t.Errorf("%s: %d Yosys cells and %d flip-flops, the page's row %d and %d: the page is of other RTL", name, s.Cells, s.FlipFlops, r.Cells, r.FlipFlops)
		}
		sip := byName["siphash"+strings.TrimPrefix(name, c.Hash.Kind.String())]
		for _, l := range CellLibraries {
			m := s.In(l.Name)
			line := fmt.Sprintf("LIGHT %s %s: %d cells, %.1f um^2, %.3f ns, %.0f MHz", name, l.Name, m.Cells, m.AreaUM2, m.Timing.CriticalNS, m.Timing.FmaxMHz)
			if sip != nil && sip.In(l.Name) != nil {
				sm := sip.In(l.Name)
				line += fmt.Sprintf("; %s: %.1f um^2, %.3f ns: area %.1f%%, clock %.2f times", sip.Config, sm.AreaUM2, sm.Timing.CriticalNS,
					100*m.AreaUM2/sm.AreaUM2, sm.Timing.CriticalNS/m.Timing.CriticalNS)
			}
			t.Log(line)
		}
	}
}
