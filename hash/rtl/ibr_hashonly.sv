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

// sip<L>: ibr_siphash, SipHash's rounds pipelined over L cycles
// (verilog/rtl/ibr_siphash.sv), between the same input registers; its bit is
// registered inside (sip1: all eight rounds in one cycle, as siphash).
module ibr_hashonly_sippipe #(
  parameter int Latency = 1
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        valid_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,  // d
  output      logic        valid_o,
  output      logic        bit_o
);
  logic [31:0] id_q, d_q;
  logic        valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else begin
      valid_q <= valid_i;
    end
  end
  always_ff @(posedge clk_i) begin
    id_q <= id_i;
    d_q  <= k_i;
  end
  ibr_siphash #(.Latency(Latency)) u_sip (
    .clk_i, .rst_ni, .valid_i(valid_q), .id_i(id_q), .d_i(d_q), .valid_o, .bit_o
  );
endmodule

module ibr_hashonly_sip1 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(1)) u (.*);
endmodule

module ibr_hashonly_sip2 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(2)) u (.*);
endmodule

module ibr_hashonly_sip3 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(3)) u (.*);
endmodule

module ibr_hashonly_sip4 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(4)) u (.*);
endmodule

module ibr_hashonly_sip5 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(5)) u (.*);
endmodule

module ibr_hashonly_sip6 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(6)) u (.*);
endmodule

module ibr_hashonly_sip7 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(7)) u (.*);
endmodule

module ibr_hashonly_sip8 (
  input  wire logic clk_i, rst_ni, valid_i,
  input  wire logic [31:0] id_i, k_i,
  output      logic valid_o, bit_o
);
  ibr_hashonly_sippipe #(.Latency(8)) u (.*);
endmodule

`default_nettype wire
