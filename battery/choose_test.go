// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chooseRecord is a decode record of two hashes (every id option on the
// thesis encoding) and two generators, at windows 2^12 and 2^14.
func chooseRecord() *DecodeRecord {
	c := DefaultConfig()
	c.IDs = []string{"psn", "psn-slid"}
	d := &DecodeRecord{Format: DecodeRecordFormat, Command: "test", Config: c, Summary: DecodeSummary{Windows: []int{12, 14}}}
	wv := func(vs ...Verdict) []WindowVerdict {
		var out []WindowVerdict
		for i, v := range vs {
			out = append(out, WindowVerdict{Window: 12 + 2*i, Verdict: v, Tests: 1})
		}
		return out
	}
	d.Parts = []DecodePart{
		{PartName: PartName{Kind: "hash", Hash: "mult0", ID: "psn", Link: "thesis"}, Windows: wv(Fail, Fail)},
		{PartName: PartName{Kind: "hash", Hash: "mult0", ID: "psn-slid", Link: "thesis"}, Windows: wv(Fail, Pass)},
		{PartName: PartName{Kind: "hash", Hash: "siphash", ID: "psn", Link: "thesis"}, Windows: wv(Pass, Pass)},
		{PartName: PartName{Kind: "hash", Hash: "siphash", ID: "psn-slid", Link: "thesis"}, Windows: wv(Pass, Pass)},
		{PartName: PartName{Kind: "generator", Generator: "ideal", CountBits: 3}, Windows: wv(Pass)},
		{PartName: PartName{Kind: "generator", Generator: "sender", CountBits: 2}, Windows: wv(Fail)},
	}
	return d
}

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }

// The table names the id options that pass, a failing generator, the
// cheapest sound configuration per window (by cells, or by area when every
// candidate has one), and shows area and critical path only when measured.
func TestChooseTable(t *testing.T) {
	synth := []SynthesisEntry{
		{Name: "mult0_ideal_c3", Hash: "mult0", Generator: "ideal", CountBits: 3, Cells: ip(5860), FlipFlops: ip(385)},
		{Name: "mult0_ideal_c4", Hash: "mult0", Generator: "ideal", CountBits: 4, Cells: ip(5888)},
		{Name: "mult0_sender_l3", Hash: "mult0", Generator: "sender", SenderL: 3, Cells: ip(4476)},
		{Name: "siphash_ideal_c3", Hash: "siphash", Generator: "ideal", CountBits: 3, Cells: ip(18855)},
	}
	tab, err := ChooseTable(chooseRecord(), synth)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| mult0 | ideal | FAIL | PASS: psn-slid | 5860 | 385 |",
		"| mult0 | sender (L=3) | FAIL (generator) | FAIL (generator) | 4476 | - |",
		"| siphash | ideal | PASS | PASS | 18855 | - |",
		"| 2^12 | siphash with ideal (`siphash_ideal_c3`, 18855 cells): PASS |",
		"| 2^14 | mult0 with ideal (`mult0_ideal_c3`, 5860 cells): PASS: psn-slid |",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	if strings.Contains(tab, "c4") || strings.Contains(tab, "area") || strings.Contains(tab, "RUN") {
		t.Errorf("the 4-bit row, an area column or a size warning crept in:\n%s", tab)
	}
	// A quick run's record says so above its table.
	quick := chooseRecord()
	quick.Config.Size = QuickSize()
	if tab, err := ChooseTable(quick, synth); err != nil || !strings.HasPrefix(tab, "**QUICK RUN (--quick)") {
		t.Errorf("a quick record's table does not start with the quick warning (err %v):\n%s", err, tab)
	}
	// With standard-cell area, the cheapest is by area, and the columns show.
	synth[0].AreaUM2, synth[3].AreaUM2 = fp(90000), fp(80000)
	synth[0].CriticalPathNS = fp(3.25)
	tab, err = ChooseTable(chooseRecord(), synth)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"area (µm²)", "critical path (ns)", "| 90000 | 3.25 |", "| 2^14 | siphash with ideal (`siphash_ideal_c3`, 80000 µm²): PASS |"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	// A configuration the record has no verdict for is an error, not a gap.
	if _, err := ChooseTable(chooseRecord(), []SynthesisEntry{{Name: "x", Hash: "crc16", Generator: "ideal", CountBits: 3}}); err == nil {
		t.Error("a hash without a decode part was accepted")
	}
}

// TestChooseTableNewerHash: a synthesized hash the record did not test (the
// record predates it) is listed as not in the record, never chosen however
// cheap, and named below the table; a hash the record tested without a part
// for the configuration stays an error.
func TestChooseTableNewerHash(t *testing.T) {
	d := chooseRecord()
	d.Config.Hashes = []string{"mult0", "siphash"}
	synth := []SynthesisEntry{
		{Name: "mult0_ideal_c3", Hash: "mult0", Generator: "ideal", CountBits: 3, Cells: ip(5860)},
		{Name: "siphash_ideal_c3", Hash: "siphash", Generator: "ideal", CountBits: 3, Cells: ip(18855)},
		{Name: "mxm_ideal_c3", Hash: "mxm", Generator: "ideal", CountBits: 3, Cells: ip(10)},
	}
	tab, err := ChooseTable(d, synth)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| mxm | ideal | not in the record | not in the record | 10 | - |",
		"mxm: not in the decode record, which tested mult0, siphash",
		"| 2^12 | siphash with ideal (`siphash_ideal_c3`, 18855 cells): PASS |",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	d.Config.Hashes = append(d.Config.Hashes, "mxm")
	if _, err := ChooseTable(d, synth); err == nil {
		t.Error("a hash the record tested, without its parts, was accepted")
	}
}

// TestReadSynthesisRefuses: docs/synthesis.json reads whole, and each way
// a file can mislead the choice (a negative area would be the cheapest, a
// missing configuration changes the choice silently, a duplicate or a row
// whose fields contradict its name) is refused, naming the entry.
func TestReadSynthesisRefuses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "synthesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSynthesis(bytes.NewReader(raw)); err != nil {
		t.Fatalf("docs/synthesis.json: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func([]map[string]any) []map[string]any
		want string
	}{
		{"negative area", func(rs []map[string]any) []map[string]any { rs[3]["area_um2"] = -5.0; return rs }, "entry 4 (parity_lfsr_lut_b16_c4): area_um2 -5: a measured cost is above zero"},
		{"negative cells", func(rs []map[string]any) []map[string]any { rs[0]["cells"] = -1; return rs }, "entry 1 (parity_ideal_c3): cells -1: a count is zero or more"},
		{"missing configuration", func(rs []map[string]any) []map[string]any { return rs[1:] }, "no entry for 1 configurations of the RTL (parity_ideal_c3)"},
		{"duplicate", func(rs []map[string]any) []map[string]any { return append(rs, rs[0]) }, "entries 1 and 100 are both parity_ideal_c3"},
		{"contradicting row", func(rs []map[string]any) []map[string]any { rs[0]["hash"] = "siphash"; return rs }, "entry 1: parity_ideal_c3 says hash siphash"},
		{"width and sender draws", func(rs []map[string]any) []map[string]any { rs[0]["sender_l"] = 3; return rs }, "count_bits 3, sender_l 3: want one of them"},
		{"unknown configuration", func(rs []map[string]any) []map[string]any { rs[0]["name"] = "parity_ideal_c9"; return rs }, "parity_ideal_c9 is no configuration of the RTL"},
	} {
		var rs []map[string]any
		if err := json.Unmarshal(raw, &rs); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(c.edit(rs))
		if _, err := ReadSynthesis(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := ReadSynthesis(bytes.NewReader(append(bytes.Clone(raw), "[]"...))); err == nil || !strings.Contains(err.Error(), "more after the list of entries") {
		t.Errorf("junk after the list: %v", err)
	}
}
