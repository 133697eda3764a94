// SPDX-License-Identifier: Apache-2.0

// Hash-only modules for like-for-like synthesis of the hashes
// (docs/hashes-and-generators.md): each registers its inputs and its bit, so
// that OpenSTA times the hash alone from flip-flop to flip-flop. The datapath
// is the stage's own (verilog/rtl/ibr_hash.sv, ibr_pkg's mxm halves), so that
// there is one description of each hash. k_i is the per-port constant the
// stage precomputes (ibr_link_pre): K = 1846571429*d for mult0 and mxm;
// SipHash takes d itself.
`include "ibr_defs.svh"
`default_nettype none

// One hash of ibr_hash between input and output registers.
module ibr_hashonly #(
  parameter `IBR_ENUM(ibr_pkg::hash_e) HashKind = ibr_pkg::HashMult0
) (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,  // K, or d for SipHash
  output      logic        bit_o
);
  logic [31:0] id_q, k_q;
  logic        b;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= b;
  end
  // ibr_hash reads K for every hash but SipHash, and d only for SipHash.
  ibr_hash #(.HashKind(HashKind)) u_hash (.id_i(id_q), .d_i(k_q), .k_i(k_q), .bit_o(b));
endmodule

// mult0: bit31(K*id).
module ibr_hashonly_mult0 (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  ibr_hashonly #(.HashKind(ibr_pkg::HashMult0)) u (.*);
endmodule

// mxm: h = K*id; h ^= h >> 16; bit31(h * 0x9E3779B1), in one cycle.
module ibr_hashonly_mxm (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  ibr_hashonly #(.HashKind(ibr_pkg::HashMxm)) u (.*);
endmodule

// mxm2: mxm in two pipeline stages, a register after the xorshift (one
// multiplier per stage), from ibr_pkg's two halves of the datapath.
module ibr_hashonly_mxm2 (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q, x_q, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    x_q   <= ibr_pkg::mxm_fold(id_q * k_q);
    bit_o <= p[31];
  end
  assign p = ibr_pkg::mxm_mul(x_q);
endmodule

// siphash: bit0 of SipHash-2-4 under the key 00 01 .. 0f over LE(id) || LE(d).
module ibr_hashonly_siphash (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,  // d
  output      logic        bit_o
);
  ibr_hashonly #(.HashKind(ibr_pkg::HashSiphash)) u (.*);
endmodule

`default_nettype wire
