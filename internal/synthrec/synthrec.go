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

// Read reads the records of a docs/synthesis.json, each with its name,
// hash and generator.
func Read(rd io.Reader) ([]Record, error) {
	var rs []Record
	if err := json.NewDecoder(rd).Decode(&rs); err != nil {
		return nil, fmt.Errorf("read synthesis costs: %w", err)
	}
	for i, r := range rs {
		if r.Name == "" || r.Hash == "" || r.Generator == "" {
			return nil, fmt.Errorf("read synthesis costs: entry %d has no name, hash or generator", i+1)
		}
	}
	return rs, nil
}
