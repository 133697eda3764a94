// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"ibreservoir/cosim"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// fakeSynth stands in for Yosys and OpenSTA: figures made from each
// configuration's name, the same on every run, as the tools would give
// (ASAP7's nondeterminism aside). calls counts the pairs it synthesized.
func fakeSynth(calls *int) func(context.Context, string, []verilog.Config, []*cosim.CellLibrary, int, func(*cosim.SynthStats)) ([]*cosim.SynthStats, error) {
	return func(ctx context.Context, _ string, cfgs []verilog.Config, libs []*cosim.CellLibrary, _ int, log func(*cosim.SynthStats)) ([]*cosim.SynthStats, error) {
		var out []*cosim.SynthStats
		for _, c := range cfgs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			*calls++
			h := fnv.New64a()
			h.Write([]byte(c.Name()))
			x := h.Sum64()
			s := &cosim.SynthStats{Config: c.Name(), Hash: c.Hash.Kind.String(), Generator: c.Generator,
				Cells: 1000 + int(x%5000), FlipFlops: 300 + int(x%700)}
			if c.Generator == refmodel.GeneratorSender {
				s.Field, s.SenderL = fmt.Sprintf("hop_rand %d bits (L=%d)", c.SenderL+1, c.SenderL), c.SenderL
			} else {
				s.Field, s.CountBits = fmt.Sprintf("hop_count %d bits", c.CountBits), c.CountBits
			}
			for k, l := range libs {
				ns := 0.5 + float64(x%977)/100 + float64(k)
				fmax := 1000 / ns
				s.Mapped = append(s.Mapped, &cosim.CellStats{Library: l.Name, Cells: 900 + int(x%4000), FlipFlops: s.FlipFlops,
					AreaUM2: 123.456789 * float64(1+x%91), NAND2Eq: 4321.6, WidthBits: c.DataW(),
					LineRateGbps: float64(c.DataW()) * math.Round(fmax) / 1000, Time: 3 * time.Second,
					Timing: &cosim.Timing{CriticalNS: ns, LogicDepth: 20 + int(x%9), FO4Depth: 40.04, FmaxMHz: fmax}})
			}
			if log != nil {
				log(s)
			}
			out = append(out, s)
		}
		return out, nil
	}
}

// fakeTools describes tools and libraries without running them.
func fakeTools(_ context.Context, _ string, libs []*cosim.CellLibrary) (cosim.SynthTools, error) {
	t := cosim.SynthTools{Yosys: "Yosys 0.23 (git sha1 7ce5011c24b)", STA: "OpenSTA 2.0.17"}
	for _, l := range libs {
		t.Libs = append(t.Libs, cosim.LibTools{Name: l.Name, Label: l.Label, File: l.Name + ".lib (sha256 01234567)", FO4NS: 0.0195, TargetPS: l.TargetPS})
	}
	return t, nil
}

// withFakeSynth stands in fakeSynth and fakeTools for the test.
func withFakeSynth(t *testing.T) *int {
	calls := new(int)
	synth, tools := campaignSynth, campaignTools
	campaignSynth, campaignTools = fakeSynth(calls), fakeTools
	t.Cleanup(func() { campaignSynth, campaignTools = synth, tools })
	return calls
}

// runVerifyArgs runs verify on args as the command line gives them.
func runVerifyArgs(ctx context.Context, t *testing.T, args ...string) (string, error) {
	t.Helper()
	o := verifyOpts
	o.Work = t.TempDir()
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	bindVerifyFlags(fs, &o)
	perr := fs.Parse(args)
	o.given = givenFlags(fs)
	var out bytes.Buffer
	err := parseOrRunError(perr, func() error { return runVerify(ctx, &out, o) })
	return out.String(), err
}

// campaignArgs is a tiny campaign: 3 configurations at 2 widths, 6 pairs.
var campaignArgs = []string{"--synth", "--widths", "64,512", "--configs", "mult0_ideal_c3,siphash_sender_l3,mxm_lfsr_lut_b16_c4"}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCampaignShardsMerge: three shards merged give the page, JSON and
// partial of one unsharded run byte for byte; a page of two shards
// (--partial) says it is partial, and merged with the third gives the whole
// page again.
func TestCampaignShardsMerge(t *testing.T) {
	calls := withFakeSynth(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	ctx := context.Background()
	if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--synth-table", p("whole.md"))...); err != nil {
		t.Fatal(err)
	}
	if *calls != 6 {
		t.Fatalf("the unsharded run synthesized %d pairs, want 6", *calls)
	}
	for i := range 3 {
		if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--shard", fmt.Sprintf("%d/3", i), "--out", p(fmt.Sprintf("s%d.json", i)))...); err != nil {
			t.Fatal(err)
		}
	}
	if *calls != 12 {
		t.Fatalf("the shards synthesized %d pairs, want 6", *calls-6)
	}
	if _, err := runVerifyArgs(ctx, t, "--merge", p("s2.json")+","+p("s0.json")+","+p("s1.json"), "--synth-table", p("merged.md")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".md", ".json"} {
		if !bytes.Equal(read(t, p("whole"+f)), read(t, p("merged"+f))) {
			t.Errorf("the merged page%s differs from the unsharded run's:\n%s\n---\n%s", f, read(t, p("merged"+f)), read(t, p("whole"+f)))
		}
	}
	page := string(read(t, p("whole.md")))
	for _, want := range []string{"Coverage: 6 of the 6 configuration x width pairs.", "| `mxm_lfsr_lut_b16_c4_w512` |", "**predictive\n7 nm-class library**", "**no wire load model**"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "Partial") {
		t.Errorf("a whole page says Partial")
	}
	// A page of two of the three shards, then the third merged into it.
	out, err := runVerifyArgs(ctx, t, "--merge", p("s0.json")+","+p("s2.json"), "--partial", "--synth-table", p("part.md"))
	if err != nil {
		t.Fatal(err)
	}
	part := string(read(t, p("part.md")))
	head := strings.SplitN(part, "\n", 6)[4]
	if !strings.HasPrefix(head, "**Partial:** this page holds 4 of the campaign's 6 configuration x width pairs: 2 of its 3 shards ran (0, 2), the other 1 did not (1).") ||
		!strings.Contains(part, "Coverage: 4 of the 6 configuration x width pairs.") || !strings.Contains(head, "--shard i/3 --out shard-i.json") {
		t.Errorf("the partial page's first lines:\n%s\n(%s)", head, out)
	}
	if _, err := runVerifyArgs(ctx, t, "--merge", p("part.md")+","+p("s1.json"), "--synth-table", p("completed.md")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".md", ".json"} {
		if !bytes.Equal(read(t, p("whole"+f)), read(t, p("completed"+f))) {
			t.Errorf("the partial page merged with the missing shard%s differs from the unsharded run's", f)
		}
	}
}

// TestCampaignReadmeSummary: --synth-readme writes the campaign's summary
// at its widest beat between its markers, the same from an unsharded run
// and from its shards merged, leaving the rest of the file; a merge missing
// a shard writes nothing.
func TestCampaignReadmeSummary(t *testing.T) {
	withFakeSynth(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	ctx := context.Background()
	doc := "# R\n\nbefore\n" + cosim.ReadmeCampaignSummary.Begin + "\nold\n" + cosim.ReadmeCampaignSummary.End + "\nafter\n"
	for _, f := range []string{"whole.md", "merged.md", "partial.md"} {
		if err := os.WriteFile(p("R"+f), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--synth-table", p("whole.md"), "--synth-readme", p("Rwhole.md"))...); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--shard", fmt.Sprintf("%d/2", i), "--out", p(fmt.Sprintf("s%d.json", i)))...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runVerifyArgs(ctx, t, "--merge", p("s1.json")+","+p("s0.json"), "--out", p("m.json"), "--synth-readme", p("Rmerged.md")); err != nil {
		t.Fatal(err)
	}
	whole, merged := string(read(t, p("Rwhole.md"))), string(read(t, p("Rmerged.md")))
	if whole != merged {
		t.Errorf("the merged shards' summary differs from the unsharded run's:\n%s\n---\n%s", merged, whole)
	}
	part, err := cosim.ReadPartial(p("m.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := cosim.CampaignSummary(part)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(doc, "\nold\n", "\n"+string(sum), 1); whole != want {
		t.Errorf("the README:\n%s\nwant:\n%s", whole, want)
	}
	for _, want := range []string{"ASAP7 (predictive 7 nm-class) at 512 bits", "- The default, `mult0_ideal_c3_w512`: ", "| mxm | - | ", ", 3 |"} {
		if !strings.Contains(whole, want) {
			t.Errorf("the summary lacks %q:\n%s", want, whole)
		}
	}
	if _, err := runVerifyArgs(ctx, t, "--merge", p("s1.json"), "--out", p("m1.json"), "--synth-readme", p("Rpartial.md")); err == nil || !strings.Contains(err.Error(), "shard") {
		t.Errorf("a merge missing a shard: %v, want an error naming the missing shard", err)
	}
	if got := string(read(t, p("Rpartial.md"))); got != doc {
		t.Errorf("a refused merge wrote the README:\n%s", got)
	}
	if _, err := os.Stat(p("m1.json")); err == nil {
		t.Errorf("a refused merge wrote its --out")
	}
}

// TestCampaignMergeRefuses: every partial that would make a wrong page is
// refused, naming what is wrong, and nothing is written.
func TestCampaignMergeRefuses(t *testing.T) {
	withFakeSynth(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	ctx := context.Background()
	for i := range 2 {
		if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--shard", fmt.Sprintf("%d/2", i), "--out", p(fmt.Sprintf("s%d.json", i)))...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--widths", "64,128", "--shard", "1/2", "--out", p("w128.json"))...); err != nil {
		t.Fatal(err)
	}
	if _, err := runVerifyArgs(ctx, t, append(campaignArgs, "--shard", "1/3", "--out", p("n3.json"))...); err != nil {
		t.Fatal(err)
	}
	// edit writes a copy of shard 1 changed by f.
	edit := func(name string, f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(read(t, p("s1.json")), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		if err := os.WriteFile(p(name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	rows := func(m map[string]any) []any { return m["rows"].([]any) }
	otherRTL := edit("rtl.json", func(m map[string]any) { m["rtl_digest"] = "sha256:" + strings.Repeat("0", 64) })
	otherTools := edit("tools.json", func(m map[string]any) { m["tools"].(map[string]any)["Yosys"] = "Yosys 0.40" })
	empty := edit("empty.json", func(m map[string]any) { m["rows"] = []any{} })
	dropped := edit("dropped.json", func(m map[string]any) { m["rows"] = rows(m)[1:] })
	renamed := edit("renamed.json", func(m map[string]any) { rows(m)[0].(map[string]any)["config"] = "mult0_ideal_c4" })
	oneLib := edit("onelib.json", func(m map[string]any) {
		r := rows(m)[0].(map[string]any)
		r["mapped"] = r["mapped"].([]any)[:1]
	})
	if err := os.WriteFile(p("trailing.json"), append(read(t, p("s1.json")), "{}"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		merge []string
		want  string
	}{
		{[]string{p("s0.json")}, "shards 1 of 2 are missing"},
		{[]string{p("s0.json"), p("s1.json"), p("s1.json")}, "shard 1 of 2 twice"},
		{[]string{p("s0.json"), otherRTL}, "the RTL changed between the shards"},
		{[]string{p("s0.json"), otherTools}, "its figures are not like for like"},
		{[]string{p("s0.json"), p("w128.json")}, "run every shard with the same --configs, --widths and --synth-lib"},
		{[]string{p("s0.json"), p("n3.json")}, "part 2 is of 3 shards, part 1 of 2"},
		{[]string{p("s0.json"), empty}, "a partial that synthesized nothing"},
		{[]string{p("s0.json"), dropped}, "its rows are not the pairs of shards [1] of 2"},
		{[]string{p("s0.json"), renamed}, "mult0_ideal_c4 where mult0_ideal_c3_w512 was due"},
		{[]string{p("s0.json"), oneLib}, "has no asap7 figures"},
		{[]string{p("s0.json"), p("trailing.json")}, "something after the partial's JSON object"},
		{[]string{p("s0.json"), p("nothing.json")}, "no such file"},
	} {
		out := p("page.md")
		_, err := runVerifyArgs(ctx, t, "--merge", strings.Join(tc.merge, ","), "--synth-table", out)
		if !mentions(err, tc.want) {
			t.Errorf("--merge %v: %v, want an error with %q", tc.merge, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("--merge %v wrote %s", tc.merge, out)
		}
	}
}

// TestCampaignFlagErrors: a flag out of its mode or without effect, and an
// output that cannot be written, are refused before anything is
// synthesized.
func TestCampaignFlagErrors(t *testing.T) {
	calls := withFakeSynth(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "synthesis.md")
	if err := os.WriteFile(other, []byte("<!-- Code generated by ibreservoir verify --synth --synth-table; DO NOT EDIT. -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--widths", "64,512", "--out", out}, "give --synth with it"},
		{[]string{"--synth", "--widths", "64,100", "--out", out}, "beat width 100 bits"},
		{[]string{"--synth", "--widths", "64,64", "--out", out}, "64 twice"},
		{[]string{"--synth", "--widths", "64", "--shard", "0/2"}, "--shard needs --out"},
		{[]string{"--synth", "--widths", "64", "--shard", "2/2", "--out", out}, `--shard "2/2": want i/n`},
		{[]string{"--synth", "--widths", "64", "--configs", "mult0_ideal_c3", "--shard", "0/2", "--out", out}, "at most 1 shards"},
		{[]string{"--synth", "--widths", "64", "--shard", "0/2", "--out", out, "--synth-table", filepath.Join(dir, "w.md")}, "needs every shard"},
		{[]string{"--synth", "--widths", "64"}, "or the run's hours are lost"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--random", "5"}, "--random has no effect with --widths"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--width", "512"}, "--width has no effect with --widths"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--synth-readme", other}, "--synth-readme: " + other + ": no markers"},
		{[]string{"--synth", "--widths", "64", "--shard", "0/2", "--out", out, "--synth-readme", other}, "--synth-readme writes the campaign's summary, which needs every shard"},
		{[]string{"--merge", out, "--partial", "--out", out, "--synth-readme", other}, "--synth-readme with --partial"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--partial"}, "--partial has no effect with --widths"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--configs", "flags"}, "--configs flags with --widths"},
		{[]string{"--synth", "--widths", "64", "--out", out, "--configs", "nope"}, `no configuration "nope"`},
		{[]string{"--synth", "--widths", "64", "--synth-table", other}, "is not a campaign page"},
		{[]string{"--synth", "--widths", "64", "--out", filepath.Join(other, "s.json")}, "its directory cannot be made"},
		{[]string{"--synth", "--merge", out, "--synth-table", filepath.Join(dir, "w.md")}, "--synth has no effect with --merge"},
		{[]string{"--merge", out}, "give one"},
		{[]string{"--merge", "", "--out", out}, "--merge is empty"},
		{[]string{"--merge", out, "--widths", "64", "--out", out}, "--merge joins partials and --widths synthesizes"},
		{[]string{"--merge", out, "--out", out, "--configs", "all"}, "--configs has no effect with --merge"},
		{[]string{"--shard", "0/2", "--out", out}, "--shard is a flag of the synthesis campaign"},
		{[]string{"--synth", "--jobs", "2", "--configs", "mult0_ideal_c3"}, "--jobs is a flag of the synthesis campaign"},
	} {
		_, err := runVerifyArgs(context.Background(), t, tc.args...)
		if !mentions(err, tc.want) {
			t.Errorf("verify %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if *calls != 0 {
		t.Errorf("a refused command synthesized %d pairs", *calls)
	}
}

// TestCampaignInterrupted: Ctrl-C during the synthesis exits 130 and writes
// nothing.
func TestCampaignInterrupted(t *testing.T) {
	withFakeSynth(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := runVerifyArgs(ctx, t, append(campaignArgs, "--out", filepath.Join(dir, "s.json"), "--synth-table", filepath.Join(dir, "w.md"))...)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 130 {
		t.Errorf("interrupted: %v, want exit status 130", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("an interrupted campaign wrote %v", ents)
	}
}
