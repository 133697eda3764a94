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
// rest from the standard-cell mapping and OpenSTA.
type Record struct {
	Name           string   `json:"name"`
	Hash           string   `json:"hash"`
	Generator      string   `json:"generator"`
	CountBits      int      `json:"count_bits,omitempty"`
	SenderL        int      `json:"sender_l,omitempty"`
	Cells          *int     `json:"cells,omitempty"` // generic Yosys cells
	FlipFlops      *int     `json:"flip_flops,omitempty"`
	StdCells       int      `json:"std_cells,omitempty"`
	AreaUM2        *float64 `json:"area_um2,omitempty"`
	NAND2Eq        *float64 `json:"nand2_eq,omitempty"`
	CriticalPathNS *float64 `json:"critical_path_ns,omitempty"`
	LogicDepth     *int     `json:"logic_depth,omitempty"`
	FO4Depth       *float64 `json:"fo4_depth,omitempty"`
	FmaxMHz        *float64 `json:"fmax_mhz,omitempty"`
	Library        string   `json:"library,omitempty"`
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
