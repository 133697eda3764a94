package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/cosim"
	"ibreservoir/internal/golden"
	"ibreservoir/vectors"
)

// TestReadmeSynthesisSummary checks that the README's synthesis summary is
// the one docs/synthesis.md gives (both are written by verify --synth);
// -update rewrites the README's summary from docs/synthesis.md.
func TestReadmeSynthesisSummary(t *testing.T) {
	page, err := os.ReadFile("../docs/synthesis.md")
	if err != nil {
		t.Fatal(err)
	}
	stats, err := cosim.ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatalf("docs/synthesis.md: %v", err)
	}
	if len(stats) != len(vectors.RTLMatrix()) {
		t.Errorf("docs/synthesis.md has %d configurations, the RTL matrix %d", len(stats), len(vectors.RTLMatrix()))
	}
	table := cosim.SynthesisSummary(stats)
	if *golden.Update {
		if err := writeSummary("../README.md", table); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceSummary(readme, table)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if d := cmp.Diff(string(want), string(readme)); d != "" {
		t.Errorf("README.md's synthesis summary differs from docs/synthesis.md (go test ./cmd -run ReadmeSynthesis -update rewrites it) (-want +got):\n%s", d)
	}
}

func TestReplaceSummary(t *testing.T) {
	doc := "# x\n\n" + summaryBegin + "\nold\n" + summaryEnd + "\ntail\n"
	got, err := replaceSummary([]byte(doc), []byte("| new |\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# x\n\n" + summaryBegin + "\n| new |\n" + summaryEnd + "\ntail\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"no markers\n", summaryEnd + "\n" + summaryBegin + "\n", summaryBegin + "\n"} {
		if _, err := replaceSummary([]byte(bad), nil); err == nil || !strings.Contains(err.Error(), "markers") {
			t.Errorf("replaceSummary(%q): error %v, want one naming the markers", bad, err)
		}
	}
}
