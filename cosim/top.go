// SPDX-License-Identifier: Apache-2.0

// Package cosim co-simulates the RTL switch stage of package verilog against
// the golden vectors of package vectors: a self-checking Verilator testbench
// (one build holding every configuration, chosen at run time), the same
// vectors, or a subset, on Icarus Verilog as a second simulator, and Yosys
// synthesis reporting cells and flip-flops per configuration. It is what
// `ibreservoir verify` runs.
package cosim

import (
	"bytes"
	"fmt"
	"strings"

	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// TopModule is the verification top of the Verilator build.
const TopModule = "ibr_cosim_top"

// topPort is one port of the verification top: the stage's port (from
// verilog.Ports, the one definition of the list), widened to the widest
// configuration and repeated once per lane; sel_i and the clock and reset
// are the top's own.
type topPort struct {
	dir   string // "input" or "output"
	name  string
	width int // per lane
	lanes bool
}

// stateW is the generator-state width of the top's ports: the widest
// state the vector formats carry; fieldW the widest hop field.
const (
	stateW = vectors.MaxStateBits
	fieldW = 8
)

// topPorts derives the top's ports from the stage's: clk_i, rst_ni shared,
// then sel_i, then every other port per lane at its widest.
func topPorts(width int) []topPort {
	ps := []topPort{{"input", "clk_i", 1, false}, {"input", "rst_ni", 1, false}, {"input", "sel_i", 8, false}}
	widest := verilog.DefaultConfig()
	widest.Width = width // the data and empty ports: the configurations' one beat width
	for _, p := range verilog.Ports() {
		if p.Name == "clk_i" || p.Name == "rst_ni" {
			continue
		}
		w := p.Bits(widest)
		switch p.Width {
		case "StateW-1":
			w = stateW
		case "FieldW-1":
			w = fieldW
		}
		ps = append(ps, topPort{p.Dir, p.Name, w, true})
	}
	return ps
}

// Top returns the verification top: every configuration instantiated lanes
// times (lanes egress ports, as a switch has one stage per port, each with
// its own stream), each configuration clocked only while sel_i selects it (so
// an idle one costs the simulator nothing per cycle), inputs steered to and
// outputs taken from the selected one. Lane k of a port of width w is bits
// k*w+w-1..k*w. It is a testbench module, not part of the stage.
func Top(cfgs []verilog.Config, lanes int) []byte {
	mods := make([]string, len(cfgs))
	for i, c := range cfgs {
		mods[i] = c.Module()
	}
	return topOf(cfgs, mods, lanes)
}

// topOf is Top with modules[i] the module instantiated for cfgs[i]: the
// library's wrapper, or a user's top implementing that configuration.
func topOf(cfgs []verilog.Config, modules []string, lanes int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n//\n// %s: the co-simulation top of package cosim. It instantiates every\n", verilog.Header, TopModule)
	fmt.Fprintf(&b, "// configuration below %d time(s) (lanes: independent egress ports); sel_i\n", lanes)
	fmt.Fprintf(&b, "// (static during a run) picks the configuration that is clocked and whose\n")
	fmt.Fprintf(&b, "// outputs are seen. Testbench only, not synthesized.\n//\n")
	for i := range cfgs {
		fmt.Fprintf(&b, "//   sel %3d  %s\n", i, modules[i])
	}
	fmt.Fprintf(&b, "`default_nettype none\n\nmodule %s (\n", TopModule)
	ports := topPorts(cfgs[0].DataW()) // Sources holds every configuration to one width
	for i, p := range ports {
		w := p.width
		if p.lanes {
			w *= lanes
		}
		dir := "input  wire logic"
		if p.dir == "output" {
			dir = "output      logic"
		}
		sep := ","
		if i == len(ports)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s [%d:0] %s%s\n", dir, w-1, p.name, sep)
	}
	fmt.Fprintf(&b, ");\n")
	n := len(cfgs)
	for _, p := range ports {
		if p.dir == "output" {
			fmt.Fprintf(&b, "  logic [%d:0] %s_all [%d];\n", p.width*lanes-1, strings.TrimSuffix(p.name, "_o"), n)
		}
	}
	for i, c := range cfgs {
		fmt.Fprintf(&b, "\n  // sel %d: %s\n  logic clk_%d, en_%d;\n", i, modules[i], i, i)
		fmt.Fprintf(&b, "  assign en_%d  = sel_i == 8'd%d;\n  assign clk_%d = clk_i & en_%d;\n", i, i, i, i)
		fmt.Fprintf(&b, "  for (genvar k = 0; k < %d; k++) begin : gen_lane_%d\n", lanes, i)
		fmt.Fprintf(&b, "    logic [%d:0] gen_state;\n    logic [%d:0] stat_field;\n", c.StateBits()-1, c.FieldBits()-1)
		fmt.Fprintf(&b, "    %s u_stage (\n", modules[i])
		b.WriteString(verilog.Connections("      ", func(p verilog.Port) string {
			w := p.Bits(c)
			switch {
			case p.Name == "clk_i":
				return fmt.Sprintf("clk_%d", i)
			case p.Name == "rst_ni":
				return "rst_ni"
			case p.Name == "gen_state_o":
				return "gen_state"
			case p.Name == "stat_field_o":
				return "stat_field"
			case p.Name == "cfg_we_i" || p.Name == "gen_load_i" || p.Name == "in_valid_i":
				// Only the selected configuration sees writes and words.
				return fmt.Sprintf("%s[k] && en_%d", p.Name, i)
			case p.Input() && p.Width == "StateW-1":
				return fmt.Sprintf("%s[%d*k +: %d]", p.Name, stateW, w)
			case p.Input() && w == 1:
				return fmt.Sprintf("%s[k]", p.Name)
			case p.Input():
				return fmt.Sprintf("%s[%d*k +: %d]", p.Name, w, w)
			case w == 1:
				return fmt.Sprintf("%s_all[%d][k]", strings.TrimSuffix(p.Name, "_o"), i)
			}
			return fmt.Sprintf("%s_all[%d][%d*k +: %d]", strings.TrimSuffix(p.Name, "_o"), i, w, w)
		}))
		fmt.Fprintf(&b, "    );\n")
		fmt.Fprintf(&b, "    assign gen_state_all[%d][%d*k +: %d] = %d'(gen_state);\n", i, stateW, stateW, stateW)
		fmt.Fprintf(&b, "    assign stat_field_all[%d][%d*k +: %d] = %d'(stat_field);\n", i, fieldW, fieldW, fieldW)
		fmt.Fprintf(&b, "  end\n")
	}
	// Configurations narrower than the ports leave bits unused.
	fmt.Fprintf(&b, "\n  logic unused_state;\n  assign unused_state = ^gen_state_i;\n")
	fmt.Fprintf(&b, "\n  always_comb begin\n")
	for _, p := range ports {
		if p.dir == "output" {
			fmt.Fprintf(&b, "    %s = '0;\n", p.name)
		}
	}
	fmt.Fprintf(&b, "    for (int i = 0; i < %d; i++) begin\n      if (int'(sel_i) == i) begin\n", n)
	for _, p := range ports {
		if p.dir == "output" {
			fmt.Fprintf(&b, "        %s = %s_all[i];\n", p.name, strings.TrimSuffix(p.name, "_o"))
		}
	}
	fmt.Fprintf(&b, "      end\n    end\n  end\nendmodule\n\n`default_nettype wire\n")
	return b.Bytes()
}
