// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"errors"
	"fmt"
	"ibreservoir/internal/synthrec"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
	"io"
	"slices"
	"strings"
)

// The "which configuration to choose" table: each hash with each generator
// the RTL synthesizes, its decode verdict at every window size beside its
// cost in gates, and the cheapest configuration sound for decoding at each
// window size. The verdicts come from a decode record (DecodeRecord, written
// by `stats --decode-record`), the costs from docs/synthesis.json (written
// by `verify --synth`); ChooseTable joins them.

// DecodeRecordFormat names the decode record's JSON form.
const DecodeRecordFormat = "ibreservoir-decode-record/1"

// A DecodeRecord is what the table needs of a run: its configuration, its
// decode summary and its decode parts.
type DecodeRecord struct {
	Format  string        `json:"format"`
	Command string        `json:"command"`        // how the run was made
	Note    string        `json:"note,omitempty"` // Config.SizeNote: a quick or reduced run says so
	Config  Config        `json:"config"`
	Summary DecodeSummary `json:"summary"`
	Parts   []DecodePart  `json:"parts"`
}

// DecodeRecord returns the report's decode record; command says how the run
// was made.
func (r *Report) DecodeRecord(command string) (*DecodeRecord, error) {
	if r.Summary.Decode == nil {
		return nil, errors.New("the run has no decode family (--decode=false)")
	}
	return &DecodeRecord{Format: DecodeRecordFormat, Command: command, Note: r.Config.SizeNote(), Config: r.Config,
		Summary: *r.Summary.Decode, Parts: r.DecodeParts}, nil
}

// WriteJSON writes the record as indented JSON.
func (d *DecodeRecord) WriteJSON(w io.Writer) error { return writeIndented(w, d) }

// ReadDecodeRecord reads a record written by WriteJSON.
func ReadDecodeRecord(rd io.Reader) (*DecodeRecord, error) {
	var d DecodeRecord
	if err := readOne(rd, &d); err != nil {
		return nil, fmt.Errorf("read decode record: %w", err)
	}
	if d.Format != DecodeRecordFormat {
		return nil, fmt.Errorf("read decode record: format %q, want %q (written by ibreservoir stats --decode-record)", d.Format, DecodeRecordFormat)
	}
	return &d, nil
}

// A SynthesisEntry is one RTL configuration's cost (docs/synthesis.json).
type SynthesisEntry = synthrec.Record

// ReadSynthesis reads docs/synthesis.json (synthrec.Read checks each entry)
// and checks it whole: every entry is a configuration of the RTL
// (verilog.Matrix) whose name, hash, generator and width agree, and every
// configuration of the RTL has its entry, so that the cheapest sound
// configuration is chosen among all of them, not among those a file kept.
func ReadSynthesis(rd io.Reader) ([]SynthesisEntry, error) {
	rs, err := synthrec.Read(rd)
	if err != nil {
		return nil, err
	}
	byName := map[string]verilog.Config{}
	for _, c := range verilog.Matrix() {
		byName[c.Name()] = c
	}
	have := map[string]bool{}
	for i, r := range rs {
		c, ok := byName[r.Name]
		if !ok {
			return nil, fmt.Errorf("read synthesis costs: entry %d: %s is no configuration of the RTL (verilog --all lists them)", i+1, r.Name)
		}
		cb := c.CountBits
		if c.Generator == refmodel.GeneratorSender {
			cb = 0
		}
		if r.Hash != c.Hash.Kind.String() || r.Generator != c.Generator || r.CountBits != cb || r.SenderL != c.SenderL {
			return nil, fmt.Errorf("read synthesis costs: entry %d: %s says hash %s, generator %s, count_bits %d, sender_l %d, but %s is hash %s, generator %s, count_bits %d, sender_l %d",
				i+1, r.Name, r.Hash, r.Generator, r.CountBits, r.SenderL, r.Name, c.Hash.Kind, c.Generator, cb, c.SenderL)
		}
		have[r.Name] = true
	}
	var missing []string
	for _, c := range verilog.Matrix() {
		if !have[c.Name()] {
			missing = append(missing, c.Name())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("read synthesis costs: no entry for %d configurations of the RTL (%s): the cheapest would be chosen among the rest; synthesize every one (verify --synth --synth-table)",
			len(missing), strings.Join(missing[:min(3, len(missing))], ", ")+map[bool]string{true: ", ...", false: ""}[len(missing) > 3])
	}
	return rs, nil
}

// chooseCountBits is the hop-count width the table compares at: section
// 5.7's b >= 3 for fat trees (the sender draws at their synthesized L).
const chooseCountBits = 3

// chooseLink is the link encoding of the table's verdicts: the thesis's,
// which the RTL implements.
const chooseLink = "thesis"

// ChooseTable returns the table as Markdown: one row per synthesized hash
// and generator at a b = 3 hop count (the sender draws at theirs), the
// decode verdict at each window size (the packet-id options that pass, the
// link encoding the thesis's), the costs the synthesis measured, and then
// the cheapest configuration sound for decoding at each window size (by
// standard-cell area where every candidate has one, else by cells). A
// record of a quick or reduced run puts its warning (Config.SizeNote) above
// the table. A synthesized hash the record did not test (one newer than the
// record) is listed with its costs, never chosen, and named below the table.
func ChooseTable(d *DecodeRecord, synth []SynthesisEntry) (string, error) {
	ks := d.Summary.Windows
	hashVerdict := map[string][]WindowVerdict{} // hash|id -> per window
	gen := map[string]WindowVerdict{}           // generator|b
	for _, p := range d.Parts {
		switch {
		case p.Kind == "hash" && p.Link == chooseLink:
			hashVerdict[p.Hash+"|"+p.ID] = p.Windows
		case p.Kind == "generator":
			gen[fmt.Sprintf("%s|%d", p.Generator, p.CountBits)] = p.Windows[0]
		}
	}
	type row struct {
		e     SynthesisEntry
		cells []string
		pass  []bool
	}
	var rows []row
	var unrecorded []string // synthesized hashes the record did not test
	hasArea, hasPath := false, false
	for _, e := range synth {
		b := e.CountBits
		if e.SenderL > 0 {
			// The battery tests the sender draws at count width b with
			// L = 2^b - 1 (both serve paths of up to L hops exactly).
			b = senderWidth(e.SenderL)
		} else if e.CountBits != chooseCountBits {
			continue
		}
		if b == 0 {
			continue
		}
		gv, ok := gen[fmt.Sprintf("%s|%d", e.Generator, b)]
		if !ok {
			return "", fmt.Errorf("the decode record has no generator part for %s at b = %d (synthesized as %s)", e.Generator, b, e.Name)
		}
		r := row{e: e}
		if !slices.Contains(d.Config.Hashes, e.Hash) {
			// A hash newer than the record: listed with its costs, never
			// chosen, and named below the table.
			if !slices.Contains(unrecorded, e.Hash) {
				unrecorded = append(unrecorded, e.Hash)
			}
			for range ks {
				r.cells = append(r.cells, "not in the record")
				r.pass = append(r.pass, false)
			}
			hasArea = hasArea || e.AreaUM2 != nil
			hasPath = hasPath || e.CriticalPathNS != nil
			rows = append(rows, r)
			continue
		}
		for i := range ks {
			var ids []string
			measured := false
			for _, id := range d.Config.IDs {
				wv, ok := hashVerdict[e.Hash+"|"+id]
				if !ok {
					return "", fmt.Errorf("the decode record has no hash part for %s %s %s (synthesized as %s)", e.Hash, id, chooseLink, e.Name)
				}
				if wv[i].Tests > 0 {
					measured = true
				}
				if wv[i].Verdict == Pass {
					ids = append(ids, id)
				}
			}
			cell, pass := "FAIL", false
			switch {
			case gv.Verdict != Pass:
				cell = "FAIL (generator)"
			case !measured:
				cell = "not measured"
			case len(ids) == len(d.Config.IDs):
				cell, pass = "PASS", true
			case len(ids) > 0:
				cell, pass = "PASS: "+strings.Join(ids, ", "), true
			}
			r.cells = append(r.cells, cell)
			r.pass = append(r.pass, pass)
		}
		hasArea = hasArea || e.AreaUM2 != nil
		hasPath = hasPath || e.CriticalPathNS != nil
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return "", errors.New("no synthesized configuration at a 3-bit hop count or with sender draws")
	}
	var b strings.Builder
	if note := d.Config.SizeNote(); note != "" {
		fmt.Fprintf(&b, "**%s**\n\n", note)
	}
	fmt.Fprintf(&b, "| hash | generator |")
	for _, k := range ks {
		fmt.Fprintf(&b, " %s |", windowName(k))
	}
	fmt.Fprintf(&b, " cells | flip-flops |")
	if hasArea {
		fmt.Fprintf(&b, " area (µm²) |")
	}
	if hasPath {
		fmt.Fprintf(&b, " critical path (ns) |")
	}
	fmt.Fprintf(&b, "\n|---|---|%s---:|---:|", strings.Repeat("---|", len(ks)))
	if hasArea {
		b.WriteString("---:|")
	}
	if hasPath {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		g := r.e.Generator
		if r.e.SenderL > 0 {
			g = fmt.Sprintf("sender (L=%d)", r.e.SenderL)
		}
		fmt.Fprintf(&b, "| %s | %s |", r.e.Hash, g)
		for _, c := range r.cells {
			fmt.Fprintf(&b, " %s |", c)
		}
		fmt.Fprintf(&b, " %s | %s |", intOrDash(r.e.Cells), intOrDash(r.e.FlipFlops))
		if hasArea {
			fmt.Fprintf(&b, " %s |", floatOrDash(r.e.AreaUM2, 0))
		}
		if hasPath {
			fmt.Fprintf(&b, " %s |", floatOrDash(r.e.CriticalPathNS, 2))
		}
		b.WriteString("\n")
	}
	if len(unrecorded) > 0 {
		fmt.Fprintf(&b, "\n%s: not in the decode record, which tested %s; a record made since (`stats --decode-record`) has every hash.\n",
			strings.Join(unrecorded, ", "), strings.Join(d.Config.Hashes, ", "))
	}
	fmt.Fprintf(&b, "\n| window | cheapest configuration sound for decoding |\n|---|---|\n")
	for i, k := range ks {
		var cands []row
		for _, r := range rows {
			if r.pass[i] {
				cands = append(cands, r)
			}
		}
		if len(cands) == 0 {
			fmt.Fprintf(&b, "| %s | none |\n", windowName(k))
			continue
		}
		byArea := true
		for _, r := range cands {
			byArea = byArea && r.e.AreaUM2 != nil
		}
		cost := func(r row) float64 {
			switch {
			case byArea:
				return *r.e.AreaUM2
			case r.e.Cells != nil:
				return float64(*r.e.Cells)
			}
			return 1e300
		}
		best := slices.MinFunc(cands, func(x, y row) int {
			switch cx, cy := cost(x), cost(y); {
			case cx < cy:
				return -1
			case cx > cy:
				return 1
			}
			return strings.Compare(x.e.Name, y.e.Name)
		})
		unit := fmt.Sprintf("%s cells", intOrDash(best.e.Cells))
		if byArea {
			unit = fmt.Sprintf("%s µm²", floatOrDash(best.e.AreaUM2, 0))
		}
		fmt.Fprintf(&b, "| %s | %s with %s (`%s`, %s): %s |\n", windowName(k), best.e.Hash, best.e.Generator, best.e.Name, unit, best.cells[i])
	}
	return b.String(), nil
}

// senderWidth is the count width b whose sender draws have L = 2^b - 1 (the
// battery's pairing), 0 when L is not of that form.
func senderWidth(L int) int {
	for b := 1; b <= MaxCountBits; b++ {
		if senderL(b) == L {
			return b
		}
	}
	return 0
}

func intOrDash(v *int) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}

func floatOrDash(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, *v)
}
