// SPDX-License-Identifier: Apache-2.0

// Hash-only modules for like-for-like synthesis of candidate hashes
// (docs/hashes-and-generators.md): each registers its inputs and its bit, so
// that OpenSTA times the hash alone from flip-flop to flip-flop. k_i is the
// per-port constant the stage precomputes (ibr_link_pre): K = 1846571429*d
// for mult0 and mxm; SipHash takes d itself.
`default_nettype none

// mult0: bit31(K*id).
module ibr_hashonly_mult0 (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q;
  logic [31:0] p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= p[31];
  end
  assign p = id_q * k_q;
endmodule

// mxm: h = K*id; h ^= h >> 16; bit31(h * 0x9E3779B1).
module ibr_hashonly_mxm (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q;
  logic [31:0] h, x, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= p[31];
  end
  assign h = id_q * k_q;
  assign x = h ^ {16'd0, h[31:16]};
  assign p = x * 32'h9E37_79B1;
endmodule

// mxm2: mxm in two pipeline stages, a register after the xorshift (one
// multiplier per stage, as a stage at mult0's clock needs).
module ibr_hashonly_mxm2 (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q, x_q;
  logic [31:0] h, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    x_q   <= h ^ {16'd0, h[31:16]};
    bit_o <= p[31];
  end
  assign h = id_q * k_q;
  assign p = x_q * 32'h9E37_79B1;
endmodule

// siphash: bit0 of SipHash-2-4 under the key 00 01 .. 0f over LE(id) || LE(d).
module ibr_hashonly_siphash (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,  // d
  output      logic        bit_o
);
  function automatic logic [255:0] sip_round(input logic [255:0] v);
    logic [63:0] v0, v1, v2, v3;
    {v3, v2, v1, v0} = v;
    v0 = v0 + v1; v1 = {v1[50:0], v1[63:51]}; v1 = v1 ^ v0; v0 = {v0[31:0], v0[63:32]};
    v2 = v2 + v3; v3 = {v3[47:0], v3[63:48]}; v3 = v3 ^ v2;
    v0 = v0 + v3; v3 = {v3[42:0], v3[63:43]}; v3 = v3 ^ v0;
    v2 = v2 + v1; v1 = {v1[46:0], v1[63:47]}; v1 = v1 ^ v2; v2 = {v2[31:0], v2[63:32]};
    sip_round = {v3, v2, v1, v0};
  endfunction
  function automatic logic [255:0] sip_compress(input logic [255:0] v, input logic [63:0] m);
    logic [255:0] x;
    x = v;
    x[255:192] = x[255:192] ^ m;
    x = sip_round(sip_round(x));
    x[63:0] = x[63:0] ^ m;
    sip_compress = x;
  endfunction
  function automatic logic [63:0] sip_finish(input logic [255:0] v);
    logic [255:0] x;
    x = v;
    x[191:128] = x[191:128] ^ 64'hff;
    x = sip_round(sip_round(sip_round(sip_round(x))));
    sip_finish = x[63:0] ^ x[127:64] ^ x[191:128] ^ x[255:192];
  endfunction
  localparam logic [63:0] K0 = 64'h0706050403020100;
  localparam logic [63:0] K1 = 64'h0f0e0d0c0b0a0908;
  logic [31:0] id_q, d_q;
  logic [63:0] h;
  logic [255:0] v_init;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    d_q   <= k_i;
    bit_o <= h[0];
  end
  assign v_init = {K1 ^ 64'h7465646279746573, K0 ^ 64'h6c7967656e657261,
                   K1 ^ 64'h646f72616e646f6d, K0 ^ 64'h736f6d6570736575};
  assign h = sip_finish(sip_compress(sip_compress(v_init, {d_q, id_q}), {8'd8, 56'd0}));
endmodule

`default_nettype wire
