// SPDX-License-Identifier: Apache-2.0

package mutation

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

// subset is the campaign's share that TestCampaignSubset re-runs: a status,
// a packet and a generator-state check, each caught by verify, and the bugs
// only the raw-packet vectors and the reset chain reach.
var subset = []string{"stat-field-old", "vcrc-seed", "ideal-accept-le", "lnh1-as-iba", "ideal-reset-zero"}

// TestApply: every mutation applies to the current library exactly once and
// changes only its file, on a configuration that exists; the ids are unique
// and the campaign holds at least 20 bugs of every kind it names.
func TestApply(t *testing.T) {
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, m := range Mutations {
		if seen[m.ID] {
			t.Errorf("mutation %s twice", m.ID)
		}
		seen[m.ID] = true
		kinds[m.Kind]++
		if m.Old == m.New {
			t.Errorf("%s: the patch changes nothing", m.ID)
		}
		if _, err := m.ConfigOf(); err != nil {
			t.Error(err)
		}
		out, err := m.Apply(lib)
		if err != nil {
			t.Error(err)
			continue
		}
		for i := range lib {
			changed := !bytes.Equal(out[i].Data, lib[i].Data)
			if changed != (lib[i].Name == m.File) {
				t.Errorf("%s: %s changed=%t", m.ID, lib[i].Name, changed)
			}
		}
	}
	if len(Mutations) < 20 {
		t.Errorf("%d mutations, want at least 20", len(Mutations))
	}
	for _, k := range []string{KindSampling, KindWidth, KindGapStall, KindBadPacket, KindLane, KindReset, KindGenerator, KindHash} {
		if kinds[k] == 0 {
			t.Errorf("no mutation of kind %s", k)
		}
	}
	// The checked-in library is untouched by Apply.
	again, _ := verilog.Library()
	for i := range lib {
		if !bytes.Equal(again[i].Data, lib[i].Data) {
			t.Errorf("Apply changed the library's %s", lib[i].Name)
		}
	}
}

// docRows reads the campaign's table from docs/rtl.md: its summary line and
// its rows, by mutation id.
func docRows(t *testing.T) (summary string, rows []string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "rtl.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), Section.Begin+"\n")
	body, _, ok2 := strings.Cut(rest, Section.End)
	if !ok || !ok2 {
		t.Fatalf("docs/rtl.md lacks the campaign's markers")
	}
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "| mutation |") || strings.HasPrefix(l, "|---"):
		case strings.HasPrefix(l, "| "):
			rows = append(rows, l)
		case strings.Contains(l, "planted bugs caught"):
			summary = l
		}
	}
	return summary, rows
}

// TestCampaignTable holds docs/rtl.md's campaign table to the campaign: one
// row per mutation, in order, with its id, kind, bug, file and configuration
// as the list has them, an outcome in every row, and a summary line that
// counts the rows caught. Every planted bug must be caught by a comparison
// with the model: an escape (or a bug only an RTL assertion caught) fails
// the test until vectors or traffic reach it.
func TestCampaignTable(t *testing.T) {
	summary, rows := docRows(t)
	if len(rows) != len(Mutations) {
		t.Fatalf("the table has %d rows for %d mutations: rerun go run . mutate --doc docs/rtl.md", len(rows), len(Mutations))
	}
	caught := 0
	for i, m := range Mutations {
		cells := strings.Split(strings.Trim(rows[i], "| "), " | ")
		if len(cells) != 9 {
			t.Errorf("row %d: %d cells, want 9: %s", i, len(cells), rows[i])
			continue
		}
		want := []string{m.ID, m.Kind, m.What, m.File, m.Config}
		for k, w := range want {
			if cells[k] != w {
				t.Errorf("row %d (%s) cell %d: %q, want %q: rerun the campaign", i, m.ID, k, cells[k], w)
			}
		}
		switch c, ok := rowCaught(cells); {
		case !ok:
			t.Errorf("row %d (%s): caught by %q after %q: no outcome", i, m.ID, cells[5], cells[7])
		case c:
			caught++
		default:
			t.Errorf("row %d (%s): %s: every planted bug must fail verify or the scoreboard by comparison with the model", i, m.ID, cells[5])
		}
	}
	if want := fmt.Sprintf("%d of %d planted bugs caught", caught, len(Mutations)); !strings.HasPrefix(summary, want) {
		t.Errorf("summary %q, want it to begin %q", summary, want)
	}
}

// rowCaught reads a table row's cells: whether the comparison with the model
// caught the bug, and whether the row holds an outcome at all. A bug only an
// RTL assertion caught (its $fatal stopped the run) is not caught.
func rowCaught(cells []string) (caught, ok bool) {
	by, _, _ := strings.Cut(cells[5], " (then an RTL assertion stopped ")
	switch {
	case by == "verify" && strings.HasSuffix(cells[7], " vectors"), by == "scoreboard" && strings.HasSuffix(cells[7], " packets"):
		return true, true
	case strings.HasPrefix(by, "escaped") && cells[6] == "-" && cells[7] == "-":
		return false, true
	case strings.HasPrefix(by, "RTL assertion only (it stopped ") && cells[6] == "-" && cells[7] == "-" && cells[8] != "0":
		return false, true
	}
	return false, false
}

// TestRowStopped: a mutant whose run an RTL assertion ended counts as the
// assertion's catch, never the comparison's, unless a mismatch came first;
// the table's reading and Table's summary agree.
func TestRowStopped(t *testing.T) {
	m := Mutations[0]
	for _, tc := range []struct {
		o      Outcome
		by     string
		caught bool
	}{
		{Outcome{ID: m.ID, Stopped: "verify", Assertions: 1, OfVectors: 9}, "RTL assertion only (it stopped verify)", false},
		{Outcome{ID: m.ID, Stopped: "verify", Assertions: 1, Caught: true, By: "verify", Check: "stat", Vectors: 3, OfVectors: 9, Mismatches: 1},
			"verify (then an RTL assertion stopped verify)", true},
		{Outcome{ID: m.ID, OfVectors: 9}, "escaped", false},
		{Outcome{ID: m.ID, Caught: true, By: "verify", Check: "stat", Vectors: 3, OfVectors: 9, Mismatches: 1}, "verify", true},
	} {
		cells := strings.Split(strings.Trim(Row(m, &tc.o), "| "), " | ")
		caught, ok := rowCaught(cells)
		if cells[5] != tc.by || !ok || caught != tc.caught {
			t.Errorf("%+v: caught by %q (outcome %t, caught %t), want %q, caught %t", tc.o, cells[5], ok, caught, tc.by, tc.caught)
		}
		if tc.o.Stopped != "" && !strings.Contains(tc.o.Summary(), "an RTL assertion stopped verify") {
			t.Errorf("%+v: summary %q does not say the run was stopped", tc.o, tc.o.Summary())
		}
	}
}

// TestCampaignSubset re-runs a few of the campaign's mutations, one per
// kind of check, and requires each row of the table as written: the CI's
// share of the campaign.
func TestCampaignSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Verilator model per mutation")
	}
	testtool.Need(t, "verilator")
	_, rows := docRows(t)
	work, err := os.UserCacheDir()
	if err != nil {
		work = os.TempDir()
	}
	for _, id := range subset {
		m, ok := ByID(id)
		if !ok {
			t.Fatalf("no mutation %s", id)
		}
		out, err := Run(context.Background(), m, Options{WorkDir: filepath.Join(work, "ibreservoir-test", "mutation")})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", id, out.Summary())
		got := Row(m, out)
		found := false
		for _, r := range rows {
			if strings.HasPrefix(r, "| "+id+" |") {
				found = true
				if r != got {
					t.Errorf("%s:\n got  %s\n want %s (docs/rtl.md)", id, got, r)
				}
			}
		}
		if !found {
			t.Errorf("%s: no row in docs/rtl.md", id)
		}
	}
}
