// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestXORCNF: a two-gate netlist (y = a XOR b, z = NOT y, an assert that
// z is a XNOR b) becomes its clauses: each XOR-like gate one XOR clause, the
// assert's failure a variable implying its enable and its condition's
// negation, and the clause that some assert fails. Netlists it cannot take
// are refused, naming why.
func TestXORCNF(t *testing.T) {
	const netlist = `{"modules": {"top": {"cells": {
	  "g1": {"type": "$_XOR_", "connections": {"A": [2], "B": [3], "Y": [4]}},
	  "g2": {"type": "$_NOT_", "connections": {"A": [4], "Y": [5]}},
	  "g3": {"type": "$_XNOR_", "connections": {"A": [2], "B": [3], "Y": [6]}},
	  "g4": {"type": "$_XNOR_", "connections": {"A": [5], "B": [6], "Y": [7]}},
	  "z":  {"type": "$assert", "connections": {"A": [7], "EN": ["1"]}}}}}}`
	var out bytes.Buffer
	if err := writeXORCNF(strings.NewReader(netlist), &out); err != nil {
		t.Fatal(err)
	}
	// Variables: 1 true; 2 a, 3 b, 4 y (g1); 5 z (g2); 6 (g3); 7 (g4); 8 the assert fails.
	want := `p cnf 8 8
1 0
x-4 2 3 0
x5 4 0
x6 2 3 0
x7 5 6 0
-8 1 0
-8 -7 0
8 0
`
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("CNF (-want +got):\n%s", d)
	}
	for _, c := range []struct{ netlist, err string }{
		{`{"modules": {"a": {}, "b": {}}}`, "2 modules"},
		{`{"modules": {"top": {"cells": {"g": {"type": "$_NOT_", "connections": {"A": [2], "Y": [3]}}}}}}`, "no $assert"},
		{`{"modules": {"top": {"cells": {"g": {"type": "$add", "connections": {"A": [2], "Y": [3]}}}}}}`, "type $add is not a gate"},
		{`{"modules": {"top": {"cells": {"g": {"type": "$_AND_", "connections": {"A": [2, 4], "B": [3], "Y": [5]}}}}}}`, "port A has 2 bits"},
		{`{"modules": {"top": {"cells": {"g": {"type": "$_NOT_", "connections": {"A": ["q"], "Y": [3]}}}}}}`, `a bit "q"`},
		{`{"modules": `, "the netlist"},
	} {
		err := writeXORCNF(strings.NewReader(c.netlist), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error with %q", c.netlist, err, c.err)
		}
	}
}

// FuzzXORCNF: any input is converted or refused with an error, never a
// panic; a CNF written has its header's clause count.
func FuzzXORCNF(f *testing.F) {
	f.Add(`{"modules": {"top": {"cells": {"z": {"type": "$assert", "connections": {"A": [2], "EN": ["1"]}}}}}}`)
	f.Add(`{"modules": {"top": {"cells": {"g": {"type": "$_MUX_", "connections": {"A": [2], "B": ["x"], "S": [3], "Y": [4]}}, "z": {"type": "$assume", "connections": {"A": [4], "EN": ["0"]}}}}}}`)
	f.Fuzz(func(t *testing.T, netlist string) {
		var out bytes.Buffer
		if err := writeXORCNF(strings.NewReader(netlist), &out); err != nil {
			return
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		var vars, clauses int
		if _, err := fmt.Sscanf(lines[0], "p cnf %d %d", &vars, &clauses); err != nil || clauses != len(lines)-1 {
			t.Errorf("header %q with %d clauses", lines[0], len(lines)-1)
		}
	})
}
