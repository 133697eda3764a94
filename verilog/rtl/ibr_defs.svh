// SPDX-License-Identifier: Apache-2.0

// ibr_defs.svh: the two macros of the ibr_stage library, included by every
// module file (guarded, so any compilation-unit arrangement works). Both exist
// only to bridge Icarus Verilog 11, which has neither of the constructs they
// stand for; Verilator, Yosys and commercial tools see plain SystemVerilog.
//
//   `IBR_ENUM(T)          the type of an enum-typed parameter: T, or int under
//                         Icarus ("cannot currently create a parameter of type");
//                         the values are the same ibr_pkg enum constants.
//   `IBR_PARAM_ERROR(msg) an elaboration-time parameter check: $error in a
//                         generate block, or $fatal at time 0 under Icarus, which
//                         has no elaboration-time $error.
`ifndef IBR_DEFS_SVH
`define IBR_DEFS_SVH

`ifdef __ICARUS__
`define IBR_ENUM(T) int
`define IBR_PARAM_ERROR(msg) initial $fatal(1, msg);
`else
`define IBR_ENUM(T) T
`define IBR_PARAM_ERROR(msg) $error(msg);
`endif

`endif  // IBR_DEFS_SVH
