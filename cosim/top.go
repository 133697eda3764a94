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

// topPort is one port of the verification top: the stage's port, widened to
// the widest configuration and repeated once per lane.
type topPort struct {
	dir   string // "input" or "output"
	name  string
	width int // per lane
	lanes bool
}

// stateW is the generator-state width of the top's ports: the widest
// state the vector formats carry.
const stateW = vectors.MaxStateBits

var topPortList = []topPort{
	{"input", "clk_i", 1, false}, {"input", "rst_ni", 1, false}, {"input", "sel_i", 8, false},
	{"input", "cfg_we_i", 1, true}, {"input", "cfg_switch_i", 16, true}, {"input", "cfg_port_i", 8, true},
	{"input", "cong_i", 1, true}, {"input", "gen_load_i", 1, true}, {"input", "gen_state_i", stateW, true},
	{"output", "gen_state_o", stateW, true},
	{"input", "in_valid_i", 1, true}, {"output", "in_ready_o", 1, true}, {"input", "in_data_i", 64, true},
	{"input", "in_sop_i", 1, true}, {"input", "in_eop_i", 1, true}, {"input", "in_empty_i", 3, true},
	{"output", "out_valid_o", 1, true}, {"input", "out_ready_i", 1, true}, {"output", "out_data_o", 64, true},
	{"output", "out_sop_o", 1, true}, {"output", "out_eop_o", 1, true}, {"output", "out_empty_o", 3, true},
	{"output", "stat_valid_o", 1, true}, {"output", "stat_replace_o", 1, true}, {"output", "stat_saturated_o", 1, true},
	{"output", "stat_cong_o", 1, true}, {"output", "stat_hash_o", 1, true}, {"output", "stat_field_o", 8, true},
	{"output", "stat_malformed_o", 1, true},
}

// Top returns the verification top: every configuration instantiated lanes
// times (lanes egress ports, as a switch has one stage per port, each with
// its own stream), each configuration clocked only while sel_i selects it (so
// an idle one costs the simulator nothing per cycle), inputs steered to and
// outputs taken from the selected one. Lane k of a port of width w is bits
// k*w+w-1..k*w. It is a testbench module, not part of the stage.
func Top(cfgs []verilog.Config, lanes int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n//\n// %s: the co-simulation top of package cosim. It instantiates every\n", verilog.Header, TopModule)
	fmt.Fprintf(&b, "// configuration below %d time(s) (lanes: independent egress ports); sel_i\n", lanes)
	fmt.Fprintf(&b, "// (static during a run) picks the configuration that is clocked and whose\n")
	fmt.Fprintf(&b, "// outputs are seen. Testbench only, not synthesized.\n//\n")
	for i, c := range cfgs {
		fmt.Fprintf(&b, "//   sel %3d  %s\n", i, c.Module())
	}
	fmt.Fprintf(&b, "`default_nettype none\n\nmodule %s (\n", TopModule)
	for i, p := range topPortList {
		w := p.width
		if p.lanes {
			w *= lanes
		}
		dir := "input  wire logic"
		if p.dir == "output" {
			dir = "output      logic"
		}
		sep := ","
		if i == len(topPortList)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s [%d:0] %s%s\n", dir, w-1, p.name, sep)
	}
	fmt.Fprintf(&b, ");\n")
	n := len(cfgs)
	for _, p := range topPortList {
		if p.dir == "output" {
			fmt.Fprintf(&b, "  logic [%d:0] %s_all [%d];\n", p.width*lanes-1, strings.TrimSuffix(p.name, "_o"), n)
		}
	}
	for i, c := range cfgs {
		sw := c.StateBits()
		fw := c.FieldBits()
		fmt.Fprintf(&b, "\n  // sel %d: %s\n  logic clk_%d, en_%d;\n", i, c.Module(), i, i)
		fmt.Fprintf(&b, "  assign en_%d  = sel_i == 8'd%d;\n  assign clk_%d = clk_i & en_%d;\n", i, i, i, i)
		fmt.Fprintf(&b, "  for (genvar k = 0; k < %d; k++) begin : gen_lane_%d\n", lanes, i)
		fmt.Fprintf(&b, "    logic [%d:0] gen_state;\n    logic [%d:0] stat_field;\n", sw-1, fw-1)
		fmt.Fprintf(&b, "    %s u_stage (\n", c.Module())
		fmt.Fprintf(&b, "      .clk_i(clk_%d), .rst_ni, .cfg_we_i(cfg_we_i[k] && en_%d), .cfg_switch_i(cfg_switch_i[16*k +: 16]),\n", i, i)
		fmt.Fprintf(&b, "      .cfg_port_i(cfg_port_i[8*k +: 8]), .cong_i(cong_i[k]),\n")
		fmt.Fprintf(&b, "      .gen_load_i(gen_load_i[k] && en_%d), .gen_state_i(gen_state_i[%d*k +: %d]), .gen_state_o(gen_state),\n", i, stateW, sw)
		fmt.Fprintf(&b, "      .in_valid_i(in_valid_i[k] && en_%d), .in_ready_o(in_ready_all[%d][k]), .in_data_i(in_data_i[64*k +: 64]),\n", i, i)
		fmt.Fprintf(&b, "      .in_sop_i(in_sop_i[k]), .in_eop_i(in_eop_i[k]), .in_empty_i(in_empty_i[3*k +: 3]),\n")
		fmt.Fprintf(&b, "      .out_valid_o(out_valid_all[%d][k]), .out_ready_i(out_ready_i[k]), .out_data_o(out_data_all[%d][64*k +: 64]),\n", i, i)
		fmt.Fprintf(&b, "      .out_sop_o(out_sop_all[%d][k]), .out_eop_o(out_eop_all[%d][k]), .out_empty_o(out_empty_all[%d][3*k +: 3]),\n", i, i, i)
		fmt.Fprintf(&b, "      .stat_valid_o(stat_valid_all[%d][k]), .stat_replace_o(stat_replace_all[%d][k]),\n", i, i)
		fmt.Fprintf(&b, "      .stat_saturated_o(stat_saturated_all[%d][k]), .stat_cong_o(stat_cong_all[%d][k]),\n", i, i)
		fmt.Fprintf(&b, "      .stat_hash_o(stat_hash_all[%d][k]), .stat_field_o(stat_field), .stat_malformed_o(stat_malformed_all[%d][k])\n", i, i)
		fmt.Fprintf(&b, "    );\n")
		fmt.Fprintf(&b, "    assign gen_state_all[%d][%d*k +: %d] = %d'(gen_state);\n", i, stateW, stateW, stateW)
		fmt.Fprintf(&b, "    assign stat_field_all[%d][8*k +: 8] = 8'(stat_field);\n", i)
		fmt.Fprintf(&b, "  end\n")
	}
	// Configurations narrower than the ports leave bits unused.
	fmt.Fprintf(&b, "\n  logic unused_state;\n  assign unused_state = ^gen_state_i;\n")
	fmt.Fprintf(&b, "\n  always_comb begin\n")
	for _, p := range topPortList {
		if p.dir == "output" {
			fmt.Fprintf(&b, "    %s = '0;\n", p.name)
		}
	}
	fmt.Fprintf(&b, "    for (int i = 0; i < %d; i++) begin\n      if (int'(sel_i) == i) begin\n", n)
	for _, p := range topPortList {
		if p.dir == "output" {
			fmt.Fprintf(&b, "        %s = %s_all[i];\n", p.name, strings.TrimSuffix(p.name, "_o"))
		}
	}
	fmt.Fprintf(&b, "      end\n    end\n  end\nendmodule\n\n`default_nettype wire\n")
	return b.Bytes()
}
