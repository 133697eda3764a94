// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// A gate-level netlist as Yosys's write_json gives it, after techmap: the
// one module's cells, each a fine-grained gate ($_AND_, $_XOR_, ...) or a
// formal cell ($assert, $assume), and its bits (an integer, or "0", "1",
// "x" or "z" for a constant).
type jsonNetlist struct {
	Modules map[string]struct {
		Cells map[string]struct {
			Type        string                       `json:"type"`
			Connections map[string][]json.RawMessage `json:"connections"`
		} `json:"cells"`
	} `json:"modules"`
}

// writeXORCNF writes the combinational netlist of Yosys's write_json (r,
// one module, flattened and mapped to fine-grained gates by techmap) as a
// CNF miter in CryptoMiniSat's DIMACS with XOR clauses: satisfiable exactly
// when some input makes some $assert fail (its enable true and its
// condition false) while every $assume holds. Each XOR, XNOR, NOT and BUF
// gate is one XOR clause, so that CryptoMiniSat's Gaussian elimination sees
// the CRC trees as the linear equations they are; ABC's CNF of the
// and-inverter graph hides them (an equivalence of two CRC trees over 16
// bytes takes CryptoMiniSat minutes that way, and over 64 bytes hours). A
// bit of value x or z is a free variable: the asserts must hold for any.
func writeXORCNF(r io.Reader, w io.Writer) error {
	var n jsonNetlist
	if err := json.NewDecoder(r).Decode(&n); err != nil {
		return fmt.Errorf("the netlist: %w", err)
	}
	if len(n.Modules) != 1 {
		return fmt.Errorf("the netlist has %d modules, want one (flattened)", len(n.Modules))
	}
	var (
		vars    = map[string]int{} // a bit's name (its number, or "x" and "z" fresh each) -> variable
		nv      int
		clauses []string
		bad     []int
	)
	newVar := func() int { nv++; return nv }
	tru := newVar()
	clauses = append(clauses, fmt.Sprintf("%d 0", tru))
	lit := func(b json.RawMessage) (int, error) {
		var s string
		if json.Unmarshal(b, &s) == nil {
			switch s {
			case "0":
				return -tru, nil
			case "1":
				return tru, nil
			case "x", "z":
				return newVar(), nil
			}
			return 0, fmt.Errorf("a bit %q", s)
		}
		k := string(b)
		if v, ok := vars[k]; ok {
			return v, nil
		}
		v := newVar()
		vars[k] = v
		return v, nil
	}
	cl := func(ls ...int) {
		clauses = append(clauses, fmtClause("", ls))
	}
	// xor: the XOR of the literals is true.
	xor := func(ls ...int) {
		// An XOR clause takes variables; a negated literal flips the parity,
		// which CryptoMiniSat's syntax puts on the first variable.
		odd := true
		vs := make([]int, len(ls))
		for i, l := range ls {
			if l < 0 {
				odd, l = !odd, -l
			}
			vs[i] = l
		}
		if !odd {
			vs[0] = -vs[0]
		}
		clauses = append(clauses, fmtClause("x", vs))
	}
	for _, mod := range n.Modules {
		names := make([]string, 0, len(mod.Cells))
		for name := range mod.Cells {
			names = append(names, name)
		}
		sort.Strings(names) // the same CNF for the same netlist
		for _, name := range names {
			c := mod.Cells[name]
			port := func(p string) (int, error) {
				bs := c.Connections[p]
				if len(bs) != 1 {
					return 0, fmt.Errorf("cell %s (%s): port %s has %d bits, want 1", name, c.Type, p, len(bs))
				}
				return lit(bs[0])
			}
			var ports []int
			for _, p := range gatePorts[c.Type] {
				l, err := port(p)
				if err != nil {
					return err
				}
				ports = append(ports, l)
			}
			switch c.Type {
			case "$_BUF_":
				a, y := ports[0], ports[1]
				xor(y, -a)
			case "$_NOT_":
				a, y := ports[0], ports[1]
				xor(y, a)
			case "$_XOR_", "$_XNOR_":
				a, b, y := ports[0], ports[1], ports[2]
				if c.Type == "$_XOR_" {
					y = -y
				}
				xor(y, a, b)
			case "$_AND_", "$_NAND_", "$_ANDNOT_", "$_OR_", "$_NOR_", "$_ORNOT_":
				a, b, y := ports[0], ports[1], ports[2]
				if c.Type == "$_NAND_" || c.Type == "$_NOR_" {
					y = -y
				}
				if c.Type == "$_ANDNOT_" || c.Type == "$_ORNOT_" {
					b = -b
				}
				if c.Type == "$_OR_" || c.Type == "$_NOR_" || c.Type == "$_ORNOT_" {
					a, b, y = -a, -b, -y // y = a OR b is NOT y = NOT a AND NOT b
				}
				cl(-y, a)
				cl(-y, b)
				cl(y, -a, -b)
			case "$_MUX_":
				a, b, s, y := ports[0], ports[1], ports[2], ports[3]
				cl(-s, -b, y)
				cl(-s, b, -y)
				cl(s, -a, y)
				cl(s, a, -y)
			case "$assert":
				a, en := ports[0], ports[1]
				f := newVar() // f: this assert fails
				cl(-f, en)
				cl(-f, -a)
				bad = append(bad, f)
			case "$assume":
				a, en := ports[0], ports[1]
				cl(-en, a)
			default:
				return fmt.Errorf("cell %s: type %s is not a gate of the lemma netlist (run techmap first)", name, c.Type)
			}
		}
	}
	if len(bad) == 0 {
		return fmt.Errorf("the netlist has no $assert: nothing to prove")
	}
	cl(bad...)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "p cnf %d %d\n", nv, len(clauses))
	for _, c := range clauses {
		bw.WriteString(c)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// gatePorts are the ports of each cell type writeXORCNF takes, in the order
// its cases read them.
var gatePorts = map[string][]string{
	"$_BUF_": {"A", "Y"}, "$_NOT_": {"A", "Y"},
	"$_XOR_": {"A", "B", "Y"}, "$_XNOR_": {"A", "B", "Y"},
	"$_AND_": {"A", "B", "Y"}, "$_NAND_": {"A", "B", "Y"}, "$_ANDNOT_": {"A", "B", "Y"},
	"$_OR_": {"A", "B", "Y"}, "$_NOR_": {"A", "B", "Y"}, "$_ORNOT_": {"A", "B", "Y"},
	"$_MUX_":  {"A", "B", "S", "Y"},
	"$assert": {"A", "EN"}, "$assume": {"A", "EN"},
}

// fmtClause is a DIMACS clause line: prefix ("" or "x", written against
// the first literal), the literals, 0.
func fmtClause(prefix string, ls []int) string {
	b := []byte(prefix)
	for i, l := range ls {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(l), 10)
	}
	return string(append(b, " 0"...))
}
