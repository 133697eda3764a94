// SPDX-License-Identifier: Apache-2.0

// Package synthrec is the record of docs/synthesis.json: one RTL
// configuration's cost, as `ibreservoir verify --synth` writes it (package
// cosim) and `ibreservoir stats choose` reads it (package battery).
package synthrec

import (
	"encoding/json"
	"fmt"
	"io"
)

// A Record is one configuration's cost. A figure not measured is absent
// (nil), never zero: generic cells and flip-flops come from Yosys, the
// rest from the standard-cell mappings and OpenSTA: the OSU 0.18 um
// library's (osu018) in the record's own fields, as the first records had
// them, and every other library's (asap7, a predictive 7 nm-class library)
// in OtherLibraries. In gives any library's the same way.
type Record struct {
	Name           string    `json:"name"`
	Hash           string    `json:"hash"`
	Generator      string    `json:"generator"`
	CountBits      int       `json:"count_bits,omitempty"`
	SenderL        int       `json:"sender_l,omitempty"`
	Cells          *int      `json:"cells,omitempty"` // generic Yosys cells
	FlipFlops      *int      `json:"flip_flops,omitempty"`
	StdCells       int       `json:"std_cells,omitempty"`
	AreaUM2        *float64  `json:"area_um2,omitempty"`
	NAND2Eq        *float64  `json:"nand2_eq,omitempty"`
	CriticalPathNS *float64  `json:"critical_path_ns,omitempty"`
	LogicDepth     *int      `json:"logic_depth,omitempty"`
	FO4Depth       *float64  `json:"fo4_depth,omitempty"`
	FmaxMHz        *float64  `json:"fmax_mhz,omitempty"`
	Library        string    `json:"library,omitempty"`        // the osu018 Liberty file and its sha256
	WidthBits      int       `json:"width_bits,omitempty"`     // the data word moved per cycle
	LineRateGbps   *float64  `json:"line_rate_gbps,omitempty"` // WidthBits x fmax
	OtherLibraries []Mapping `json:"other_libraries,omitempty"`
	// LatencyCycles is the stage's latency (verilog.Config.Latency), in the
	// width campaign's records (docs/synthesis-widths.json) only.
	LatencyCycles int `json:"latency_cycles,omitempty"`
}

// OSU018 names the library of a Record's own standard-cell fields.
const OSU018 = "osu018"

// A Mapping is one configuration mapped to one library and timed.
type Mapping struct {
	Library        string   `json:"library"`      // "osu018", "asap7"
	Label          string   `json:"label"`        // "ASAP7 (predictive 7 nm-class)"
	File           string   `json:"library_file"` // the Liberty file and its sha256
	StdCells       int      `json:"std_cells"`
	AreaUM2        *float64 `json:"area_um2,omitempty"`
	NAND2Eq        *float64 `json:"nand2_eq,omitempty"`
	CriticalPathNS *float64 `json:"critical_path_ns,omitempty"`
	LogicDepth     *int     `json:"logic_depth,omitempty"`
	FO4Depth       *float64 `json:"fo4_depth,omitempty"`
	FmaxMHz        *float64 `json:"fmax_mhz,omitempty"`
	WidthBits      int      `json:"width_bits"`
	LineRateGbps   *float64 `json:"line_rate_gbps,omitempty"`
}

// In returns the record's mapping to library lib ("osu018", "asap7"), or
// false if it has none.
func (r Record) In(lib string) (Mapping, bool) {
	if lib == OSU018 {
		if r.StdCells == 0 {
			return Mapping{}, false
		}
		return Mapping{Library: OSU018, Label: "OSU 0.18 um", File: r.Library, StdCells: r.StdCells, AreaUM2: r.AreaUM2,
			NAND2Eq: r.NAND2Eq, CriticalPathNS: r.CriticalPathNS, LogicDepth: r.LogicDepth, FO4Depth: r.FO4Depth,
			FmaxMHz: r.FmaxMHz, WidthBits: r.WidthBits, LineRateGbps: r.LineRateGbps}, true
	}
	for _, m := range r.OtherLibraries {
		if m.Library == lib {
			return m, true
		}
	}
	return Mapping{}, false
}

// Read reads the records of a docs/synthesis.json and checks each one:
// a name, hash and generator, either a count width or sender draws, each
// configuration once, and every figure a cost can be (counts zero or more,
// area, NAND2 equivalents, critical path, FO4 depth and Fmax above zero).
// Its errors name the entry.
func Read(rd io.Reader) ([]Record, error) {
	var rs []Record
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rs); err != nil {
		return nil, fmt.Errorf("read synthesis costs: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("read synthesis costs: more after the list of entries (byte %d): one JSON list is a synthesis record", dec.InputOffset())
	}
	seen := map[string]int{}
	for i, r := range rs {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("read synthesis costs: entry %d (%s): %w", i+1, r.Name, err)
		}
		if j, ok := seen[r.Name]; ok {
			return nil, fmt.Errorf("read synthesis costs: entries %d and %d are both %s: each configuration is synthesized once", j, i+1, r.Name)
		}
		seen[r.Name] = i + 1
		libs := map[string]bool{}
		for _, m := range r.OtherLibraries {
			if m.Library == "" || m.Library == OSU018 || libs[m.Library] {
				return nil, fmt.Errorf("read synthesis costs: entry %d (%s) has a mapping to library %q, which is empty, osu018's (the record's own fields) or repeated", i+1, r.Name, m.Library)
			}
			libs[m.Library] = true
		}
	}
	return rs, nil
}

func (r Record) check() error {
	if r.Name == "" || r.Hash == "" || r.Generator == "" {
		return fmt.Errorf("no name, hash or generator")
	}
	if (r.CountBits > 0) == (r.SenderL > 0) || r.CountBits < 0 || r.SenderL < 0 {
		return fmt.Errorf("count_bits %d, sender_l %d: want one of them, above zero", r.CountBits, r.SenderL)
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"cells", r.Cells}, {"flip_flops", r.FlipFlops}, {"logic_depth", r.LogicDepth}, {"std_cells", &r.StdCells}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Errorf("%s %d: a count is zero or more", f.name, *f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"area_um2", r.AreaUM2}, {"nand2_eq", r.NAND2Eq}, {"critical_path_ns", r.CriticalPathNS}, {"fo4_depth", r.FO4Depth}, {"fmax_mhz", r.FmaxMHz}} {
		if f.v != nil && !(*f.v > 0) {
			return fmt.Errorf("%s %g: a measured cost is above zero (leave it out when not measured)", f.name, *f.v)
		}
	}
	return nil
}
