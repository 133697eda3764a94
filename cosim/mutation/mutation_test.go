package mutation

import (
	"bytes"
	"testing"

	"ibreservoir/verilog"
)

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
