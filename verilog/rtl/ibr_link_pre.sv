// SPDX-License-Identifier: Apache-2.0

// ibr_link_pre: the link identifier d of (switch ID, output port) and the
// per-port multiplier K of the hash (docs/spec.md section 3). Combinational;
// the stage registers its outputs when the port is configured.
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_link_pre #(
  parameter `IBR_ENUM(ibr_pkg::hash_e) HashKind = ibr_pkg::HashMult0,  // the hash, for K
  parameter `IBR_ENUM(ibr_pkg::link_e) LinkEnc  = ibr_pkg::LinkThesis  // the link encoding
) (
  input  wire logic [15:0] switch_i,  // switch ID (the switch's LID)
  input  wire logic [7:0]  port_i,    // output port number
  output      logic [31:0] d_o,       // link identifier d
  output      logic [31:0] k_o        // multiplier K of parity((id*K) & Mask) ^ C
);
  if (LinkEnc == ibr_pkg::LinkThesis) begin : gen_thesis
    assign d_o = {1'b0, switch_i, 15'd0} + {15'd0, port_i, 9'd0} + 32'd509;
  end else if (LinkEnc == ibr_pkg::LinkWide) begin : gen_wide
    assign d_o = {switch_i[14:0], 17'd0} + {15'd0, port_i, 9'd0} + 32'd509;
    logic unused_switch_msb;
    assign unused_switch_msb = switch_i[15];
  end else if (LinkEnc == ibr_pkg::LinkPacked) begin : gen_packed
    assign d_o = {8'd0, switch_i, port_i};
  end else begin : gen_bad_link
    `IBR_PARAM_ERROR("ibr_link_pre: LinkEnc must be an ibr_pkg::link_e")
  end

  // K of hash.Func.FormID: d*d for Hdouble, 1846571429*d for Hmult0 (and for
  // mxm, whose first multiplication is Hmult0's), else d.
  if (HashKind == ibr_pkg::HashDouble) begin : gen_k_double
    assign k_o = d_o * d_o;
  end else if (HashKind == ibr_pkg::HashMult0 || HashKind == ibr_pkg::HashMxm) begin : gen_k_mult0
    assign k_o = ibr_pkg::Mult0Const * d_o;
  end else begin : gen_k_d
    assign k_o = d_o;
  end
endmodule

`default_nettype wire
