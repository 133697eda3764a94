// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/cosim"
	"ibreservoir/internal/golden"
	"ibreservoir/internal/markers"
	"ibreservoir/verilog"
)

// TestReadmeSynthesisSummary checks that the README's synthesis summary is
// the one docs/synthesis.md gives (both are written by verify --synth);
// -update rewrites the README's summary from docs/synthesis.md.
func TestReadmeSynthesisSummary(t *testing.T) {
	page, err := os.ReadFile("../docs/synthesis.md")
	if err != nil {
		t.Fatal(err)
	}
	stats, tools, err := cosim.ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatalf("docs/synthesis.md: %v", err)
	}
	if len(stats) != len(verilog.Matrix()) {
		t.Errorf("docs/synthesis.md has %d configurations, the RTL matrix %d", len(stats), len(verilog.Matrix()))
	}
	checkReadmeSection(t, cosim.ReadmeSummary, cosim.SynthesisSummary(stats, tools.Libs),
		"synthesis summary differs from docs/synthesis.md (go test ./cmd -run ReadmeSynthesis -update rewrites it)")
}

// TestReadmeCampaignSummary checks that the README's summary of the
// synthesis campaign at its widest beat is the one docs/synthesis-widths.md
// gives (verify --merge ... --synth-readme writes both); -update rewrites it
// from the page.
func TestReadmeCampaignSummary(t *testing.T) {
	p, err := cosim.ReadPartial("../docs/synthesis-widths.md")
	if err != nil {
		t.Fatal(err)
	}
	table, err := cosim.CampaignSummary(p)
	if err != nil {
		t.Fatalf("docs/synthesis-widths.md: %v", err)
	}
	checkReadmeSection(t, cosim.ReadmeCampaignSummary, table,
		"summary of the campaign differs from docs/synthesis-widths.md (go test ./cmd -run ReadmeCampaign -update rewrites it)")
}

// checkReadmeSection requires the README's generated section sec to be
// table (-update rewrites it); what says how it differs and how to mend it.
func checkReadmeSection(t *testing.T, sec markers.Section, table []byte, what string) {
	t.Helper()
	if *golden.Update {
		if err := sec.Rewrite("../README.md", table); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := sec.Replace(readme, table)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if d := cmp.Diff(string(want), string(readme)); d != "" {
		t.Errorf("README.md's %s (-want +got):\n%s", what, d)
	}
}

// TestVerifyFlags: every synth and formal flag combination that would do
// nothing, or whose output could not be written, is refused before any work,
// naming the flag; the files named stay untouched.
func TestVerifyFlags(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "R.md")
	if err := os.WriteFile(readme, []byte("# no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(dir, "t.md")
	for _, tc := range []struct {
		f    func(*verifyOptions)
		want string
	}{
		{func(o *verifyOptions) {
			o.Vectors, o.Synth, o.SynthTable, o.given = "v.bin", true, table, map[string]bool{"synth": true, "synth-table": true}
		}, "--synth has no effect with --vectors"},
		{func(o *verifyOptions) { o.Vectors, o.Formal, o.given = "v.bin", true, map[string]bool{"formal": true} }, "--formal has no effect with --vectors"},
		{func(o *verifyOptions) { o.SynthTable = table }, "need --synth"},
		{func(o *verifyOptions) { o.Synth, o.Configs = true, "none" }, "--configs none leaves none"},
		{func(o *verifyOptions) { o.SynthLib, o.given = "asap7", map[string]bool{"synth-lib": true} }, "need --synth"},
		{func(o *verifyOptions) { o.Synth, o.SynthLib = true, "sky130" }, `--synth-lib: library "sky130": want osu018, asap7 or all`},
		{func(o *verifyOptions) { o.Synth, o.SynthTable = true, filepath.Join(dir, "nodir", "t.md") }, "is not a directory"},
		{func(o *verifyOptions) { o.Synth, o.SynthTable = true, filepath.Join(dir, "t.txt") }, "want a .md file"},
		{func(o *verifyOptions) { o.Synth, o.SynthReadme = true, readme }, "markers"},
		{func(o *verifyOptions) { o.SynthMerge = true }, "need --synth"},
		{func(o *verifyOptions) { o.Synth, o.SynthMerge = true, true }, "give --synth-table"},
		{func(o *verifyOptions) { o.Synth, o.SynthMerge, o.SynthTable = true, true, table }, "--synth-merge: open"},
		{func(o *verifyOptions) { o.Synth, o.SynthMerge, o.SynthTable = true, true, readme }, "no configuration rows"},
		{func(o *verifyOptions) { o.FormalDepth, o.given = 30, map[string]bool{"formal-depth": true} }, "--formal-depth needs --formal"},
		{func(o *verifyOptions) { o.Formal, o.FormalDepth = true, 3 }, "--formal-depth 3"},
		{func(o *verifyOptions) { o.Configs = "none" }, "nothing to verify"},
		{func(o *verifyOptions) { o.Formal, o.Configs, o.FormalDepth = true, "none", 500 }, "--formal-depth 500"},
		{func(o *verifyOptions) { o.FormalProps, o.given = "a", map[string]bool{"formal-props": true} }, "--formal-props needs --formal"},
		{func(o *verifyOptions) { o.Formal, o.Configs, o.FormalProps = true, "none", "a,h" }, `no property "h"`},
		{func(o *verifyOptions) { o.Formal, o.Configs, o.FormalProps = true, "none", "c,c" }, "c twice"},
	} {
		o := verifyOpts
		o.Work = filepath.Join(dir, "work")
		tc.f(&o)
		err := runVerify(context.Background(), io.Discard, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", o, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "work")); err == nil {
		t.Error("a refused run created its work directory")
	}
	if _, err := os.Stat(table); err == nil {
		t.Error("a refused run wrote the table")
	}
}

// TestFormalProps: by default and with all --formal checks every property;
// a list chooses exactly what it names.
func TestFormalProps(t *testing.T) {
	ids := func(spec string) string {
		ps, err := formalProps(spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		var s []string
		for _, p := range ps {
			s = append(s, p.ID)
		}
		return strings.Join(s, ",")
	}
	for spec, want := range map[string]string{"": "a,b,c,d,e,f,g", "all": "a,b,c,d,e,f,g", "b": "b", "e, a": "e,a"} {
		if got := ids(spec); got != want {
			t.Errorf("--formal-props %q chose %s, want %s", spec, got, want)
		}
	}
}
