// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Port is one port of ibr_switch_stage, as its declaration in
// rtl/ibr_switch_stage.sv gives it. That declaration is the one definition of
// the stage's port list: the wrappers, the co-simulation top, the example
// testbench and the formal and lint harnesses are all generated from Ports.
type Port struct {
	Dir     string // "input" or "output"
	Name    string // e.g. "in_data_i"
	Width   string // the declared range's upper bound: "" (1 bit), "15", "StateW-1", "FieldW-1", "DataW-1", "EmptyW-1", "SegW-1"
	Comment string // the declaration's trailing comment, if any
}

// Input reports whether p is an input.
func (p Port) Input() bool { return p.Dir == "input" }

// Bits is the port's width in configuration c.
func (p Port) Bits(c Config) int {
	switch p.Width {
	case "":
		return 1
	case "StateW-1":
		return c.StateBits()
	case "FieldW-1":
		return c.FieldBits()
	case "DataW-1":
		return c.DataW()
	case "EmptyW-1":
		return c.EmptyBits()
	case "SegW-1":
		return c.SegBits()
	}
	n, _ := strconv.Atoi(p.Width) // parsePorts accepts nothing else
	return n + 1
}

// Decl is the port's declaration in configuration c, as a wrapper module
// writes it: "input  wire logic [63:0] in_data_i".
func (p Port) Decl(c Config) string {
	dir := "input  wire logic"
	if !p.Input() {
		dir = "output      logic"
	}
	return fmt.Sprintf("%s %-7s %s", dir, rangeOf(p.Bits(c)), p.Name)
}

// rangeOf is the packed range of an n-bit signal ("" for one bit).
func rangeOf(n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0]", n-1)
}

var (
	ports    []Port
	portsErr error

	rePortLine = regexp.MustCompile(`^\s*(input|output)\s+(?:wire\s+)?logic\s*(?:\[\s*([^:\]]+?)\s*:\s*0\s*\])?\s*([a-z][a-z0-9_]*)\s*,?\s*(?://\s*(.*))?$`)
)

// Ports returns the stage's ports in declaration order.
func Ports() []Port { return ports }

// parsePorts reads the ANSI port list of module ibr_switch_stage: the lines
// from "module ibr_switch_stage" to the closing ");" that declare a port.
// Anything in the list it cannot read is an error, so the list cannot
// silently lose a port.
func parsePorts(src string) ([]Port, error) {
	_, rest, ok := strings.Cut(src, "\nmodule ibr_switch_stage #(")
	if !ok {
		return nil, fmt.Errorf("verilog: no module ibr_switch_stage")
	}
	_, rest, ok = strings.Cut(rest, "\n) (\n")
	if !ok {
		return nil, fmt.Errorf("verilog: ibr_switch_stage has no port list after its parameters")
	}
	list, _, ok := strings.Cut(rest, "\n);")
	if !ok {
		return nil, fmt.Errorf("verilog: ibr_switch_stage's port list is not closed")
	}
	var ps []Port
	seen := map[string]bool{}
	for i, line := range strings.Split(list, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		m := rePortLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("verilog: ibr_switch_stage port list line %d: cannot read %q", i+1, t)
		}
		p := Port{Dir: m[1], Width: strings.ReplaceAll(m[2], " ", ""), Name: m[3], Comment: m[4]}
		switch p.Width {
		case "", "StateW-1", "FieldW-1", "DataW-1", "EmptyW-1", "SegW-1":
		default:
			if _, err := strconv.Atoi(p.Width); err != nil {
				return nil, fmt.Errorf("verilog: port %s: width [%s:0] is neither a number nor StateW-1, FieldW-1, DataW-1, EmptyW-1 or SegW-1", p.Name, p.Width)
			}
		}
		if want := map[string]string{"input": "_i", "output": "_o"}[p.Dir]; !strings.HasSuffix(p.Name, want) && p.Name != "rst_ni" {
			return nil, fmt.Errorf("verilog: port %s: an %s's name ends in %s", p.Name, p.Dir, want)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("verilog: port %s declared twice", p.Name)
		}
		seen[p.Name] = true
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("verilog: ibr_switch_stage declares no ports")
	}
	return ps, nil
}

// Connections renders the named port connections of an instance of a stage
// module, each port to the expression conn returns for it, one per line with
// the given indent: ".clk_i(clk_i),\n  .rst_ni(rst_ni),\n...".
func Connections(indent string, conn func(Port) string) string {
	var b strings.Builder
	for i, p := range ports {
		sep := ","
		if i == len(ports)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s.%s(%s)%s\n", indent, p.Name, conn(p), sep)
	}
	return b.String()
}

// Signals declares, one per line with the given indent, a signal for every
// port of configuration c, named by name(p) ("logic [63:0] in_data_i;").
func Signals(c Config, indent string, name func(Port) string) string {
	var b strings.Builder
	for _, p := range ports {
		r := rangeOf(p.Bits(c))
		if r != "" {
			r += " "
		}
		fmt.Fprintf(&b, "%slogic %s%s;\n", indent, r, name(p))
	}
	return b.String()
}
