// SPDX-License-Identifier: Apache-2.0

// ibr_hash_lemma: the lemma property (f) of ibr_switch_stage rests on
// (ibreservoir verify --formal proves it first): for every packet id, switch
// ID and port, ibr_link_pre's link identifier d is docs/spec.md section 3's
// d(switch, port), its multiplier K is the coefficient of id in the hash's
// form, and ibr_hash's bit is H(id, d) as section 3 defines it. Combinational:
// one check closes it for all inputs. The definitions (ibr_spec.svh) are
// written from the specification alone, not from the RTL's decomposition.
// SipHash is not restated: its lemma is not checked (the formal
// configurations do not use it; the co-simulation checks it).
// Formal only: empty unless FORMAL is defined (Yosys's read_verilog -formal).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

`ifdef FORMAL
module ibr_hash_lemma #(
  parameter `IBR_ENUM(ibr_pkg::hash_e) HashKind = ibr_pkg::HashMult0,
  parameter `IBR_ENUM(ibr_pkg::link_e) LinkEnc  = ibr_pkg::LinkThesis
) (
  input wire logic [31:0] id_i,
  input wire logic [15:0] switch_i,
  input wire logic [7:0]  port_i
);
  `include "ibr_spec.svh"

  logic [31:0] d, k;
  logic        h;
  ibr_link_pre #(.HashKind(HashKind), .LinkEnc(LinkEnc)) u_link_pre (
    .switch_i(switch_i), .port_i(port_i), .d_o(d), .k_o(k)
  );
  ibr_hash #(.HashKind(HashKind)) u_hash (.id_i(id_i), .d_i(d), .k_i(k), .bit_o(h));
  always @(*) begin
    assert (d == spec_link_d(LinkEnc, switch_i, port_i));
    assert (k == spec_form_k(HashKind, d));
    assert (h == spec_hash_bit(HashKind, id_i, spec_link_d(LinkEnc, switch_i, port_i)));
  end
endmodule
`endif

`default_nettype wire
