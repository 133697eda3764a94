// SPDX-License-Identifier: Apache-2.0

// ibr_siphash: bit 0 of SipHash-2-4 (Aumasson and Bernstein) of the 8-byte
// message LE(id) || LE(d) under the key SipKey, its eight rounds (two per
// compression of the message block and of the final block holding the
// length, four of finalization) split over Latency pipeline stages, a new
// input every cycle. Latency L in 1..8 registers the bit L cycles after
// valid_i: cycle j (0..L-1) does rounds 8j/L up to 8(j+1)/L (L = 1: all
// eight, as the stage's hash register takes ibr_hash's SipHash today; 2:
// four; 4: two; 8, the default: one, the only latency whose longest stage
// fits a 1 GHz cycle in ASAP7). Latency 0 is combinational (valid_o =
// valid_i). A stage's registers load only when its input is valid.
// hash/rtl's bench checks every latency against package hash, and times
// each (docs/rtl.md, "Hash").
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_siphash #(
  // Key: k0 (key bytes 0..7, little-endian) in bits 63..0, k1 in 127..64.
  parameter logic [127:0] SipKey  = ibr_pkg::DefaultSipKey,
  parameter int           Latency = 8  // cycles from valid_i to valid_o, 0..8
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        valid_i,  // id_i and d_i are an input
  input  wire logic [31:0] id_i,     // packet id
  input  wire logic [31:0] d_i,      // link identifier d
  output      logic        valid_o,  // bit_o is the hash of the input Latency cycles ago
  output      logic        bit_o
);
  if (Latency < 0 || Latency > 8) begin : gen_bad_latency
    `IBR_PARAM_ERROR("ibr_siphash: Latency must be 0..8")
  end

  // The state between rounds: {m, v3, v2, v1, v0}, the message kept until
  // the end of its compression.
  localparam int SW = 320;
  localparam logic [63:0] LenBlock = {8'd8, 56'd0};  // the final block: the length, 8

  function automatic logic [255:0] sip_round(input logic [255:0] v);
    logic [63:0] v0, v1, v2, v3;
    {v3, v2, v1, v0} = v;
    v0 = v0 + v1; v1 = {v1[50:0], v1[63:51]}; v1 = v1 ^ v0; v0 = {v0[31:0], v0[63:32]};
    v2 = v2 + v3; v3 = {v3[47:0], v3[63:48]}; v3 = v3 ^ v2;
    v0 = v0 + v3; v3 = {v3[42:0], v3[63:43]}; v3 = v3 ^ v0;
    v2 = v2 + v1; v1 = {v1[46:0], v1[63:47]}; v1 = v1 ^ v2; v2 = {v2[31:0], v2[63:32]};
    sip_round = {v3, v2, v1, v0};
  endfunction

  // Round r (0..7) with what precedes and follows it: the message block's
  // compression (v3 ^= m, rounds 0 and 1, v0 ^= m), the final block's
  // (v3 ^= LenBlock, rounds 2 and 3, v0 ^= LenBlock), finalization
  // (v2 ^= 0xff, rounds 4 to 7).
  function automatic logic [SW-1:0] sip_step(input logic [SW-1:0] x, input int r);
    logic [255:0] v;
    logic [63:0]  m;
    {m, v} = x;
    if (r == 0) v[255:192] = v[255:192] ^ m;
    v = sip_round(v);
    if (r == 1) begin
      v[63:0]    = v[63:0] ^ m;
      v[255:192] = v[255:192] ^ LenBlock;
    end
    if (r == 3) begin
      v[63:0]    = v[63:0] ^ LenBlock;
      v[191:128] = v[191:128] ^ 64'hff;
    end
    sip_step = {m, v};
  endfunction

  // Rounds first..last-1.
  function automatic logic [SW-1:0] sip_rounds(input logic [SW-1:0] x, input int first, input int last);
    logic [SW-1:0] y;
    y = x;
    for (int r = 0; r < 8; r++) begin
      if (r >= first && r < last) y = sip_step(y, r);
    end
    sip_rounds = y;
  endfunction

  logic [63:0] k0, k1;
  logic [SW-1:0] x0;
  assign k0 = SipKey[63:0];
  assign k1 = SipKey[127:64];
  assign x0 = {d_i, id_i,  // m = LE(id) || LE(d) as one little-endian word
               k1 ^ 64'h7465646279746573, k0 ^ 64'h6c7967656e657261,
               k1 ^ 64'h646f72616e646f6d, k0 ^ 64'h736f6d6570736575};

  if (Latency == 0) begin : gen_comb
    logic [SW-1:0] x8;
    assign x8      = sip_rounds(x0, 0, 8);
    assign bit_o   = x8[0] ^ x8[64] ^ x8[128] ^ x8[192];
    assign valid_o = valid_i;
    logic unused_sip;
    assign unused_sip = ^{clk_i, rst_ni, x8[SW-1:193], x8[191:129], x8[127:65], x8[63:1]};
  end else if (Latency <= 8) begin : gen_pipe
    // vin[j]: stage j's input is valid; vin[Latency]: the output.
    logic [Latency:0]      vin;
    logic [Latency-1:0]    vld_q;
    wire  [SW*Latency-1:0] xo;  // stage j's result in bits SW*j +: SW
    assign vin = {vld_q, valid_i};
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        vld_q <= '0;
      end else begin
        vld_q <= vin[Latency-1:0];
      end
    end
    for (genvar j = 0; j < Latency; j++) begin : gen_stage
      if (j == 0) begin : gen_first
        assign xo[0 +: SW] = sip_rounds(x0, 0, 8 / Latency);
      end else begin : gen_reg
        logic [SW-1:0] x_q;
        always_ff @(posedge clk_i) begin
          if (vin[j-1]) begin
            x_q <= xo[SW*(j-1) +: SW];
          end
        end
        assign xo[SW*j +: SW] = sip_rounds(x_q, (8 * j) / Latency, (8 * (j + 1)) / Latency);
      end
    end
    logic [SW-1:0] x8;
    logic          bit_q;
    assign x8 = xo[SW*(Latency-1) +: SW];
    always_ff @(posedge clk_i) begin
      if (vin[Latency-1]) begin
        bit_q <= x8[0] ^ x8[64] ^ x8[128] ^ x8[192];
      end
    end
    assign bit_o   = bit_q;
    assign valid_o = vin[Latency];
    logic unused_sip;
    assign unused_sip = ^{x8[SW-1:193], x8[191:129], x8[127:65], x8[63:1]};
  end
endmodule

`default_nettype wire
