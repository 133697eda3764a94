// SPDX-License-Identifier: Apache-2.0

// ibr_hash: H(id, d), one bit (docs/spec.md section 3, thesis section 5.4).
// Every kind but SipHash is parity((id*K) & Mask) ^ C with K a per-port
// constant (hash.Func.FormID; ibr_link_pre computes it): K = d (parity, single,
// crc32, crc16), d*d (double), 1846571429*d (mult0), so one 32x32 multiply (of
// which synthesis keeps the bits Mask selects) serves them all:
//   parity      (id & d) & 1           mult0   bit31(1846571429*id*d)
//   parity-xor  (id ^ d) & 1           crc32   bit0 CRC-32(LE(id*d))
//   single      bit31(id*d)            crc16   bit0 CRC-16(LE(id*d))
//   double      bit31(id*d*d)          siphash bit0 SipHash-2-4(LE(id) || LE(d))
// mxm has no such form: from Hmult0's K = 1846571429*d it is
//   mxm         h = id*K; h ^= h >> 16; bit31(h*0x9E3779B1)
// (ibr_pkg::mxm_fold and mxm_mul), both multipliers in one cycle. The stage
// registers the product K*id (ibr_switch_stage.sv, gen_hash_mxm) and gives it
// here as id_i with k_i = 1 a cycle later, so that each cycle has one.
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_hash #(
  parameter `IBR_ENUM(ibr_pkg::hash_e) HashKind = ibr_pkg::HashMult0,
  // SipHash key: k0 (key bytes 0..7, little-endian) in bits 63..0, k1 in 127..64.
  parameter logic [127:0] SipKey = ibr_pkg::DefaultSipKey
) (
  input  wire logic [31:0] id_i,  // packet id (spec section 3)
  input  wire logic [31:0] d_i,   // link identifier d
  input  wire logic [31:0] k_i,   // per-port multiplier K (ibr_link_pre)
  output      logic        bit_o
);
  if (HashKind == ibr_pkg::HashParityXor) begin : gen_parity_xor
    assign bit_o = id_i[0] ^ d_i[0];
    logic unused_hash_in;
    assign unused_hash_in = ^{id_i[31:1], d_i[31:1], k_i};
  end else if (HashKind == ibr_pkg::HashSiphash) begin : gen_siphash
    // SipHash-2-4 (Aumasson and Bernstein) of the 8-byte message LE(id) || LE(d):
    // one message block m = {d, id}, then the final block holding the length.
    function automatic logic [255:0] sip_round(input logic [255:0] v);
      logic [63:0] v0, v1, v2, v3;
      {v3, v2, v1, v0} = v;
      v0 = v0 + v1; v1 = {v1[50:0], v1[63:51]}; v1 = v1 ^ v0; v0 = {v0[31:0], v0[63:32]};
      v2 = v2 + v3; v3 = {v3[47:0], v3[63:48]}; v3 = v3 ^ v2;
      v0 = v0 + v3; v3 = {v3[42:0], v3[63:43]}; v3 = v3 ^ v0;
      v2 = v2 + v1; v1 = {v1[46:0], v1[63:47]}; v1 = v1 ^ v2; v2 = {v2[31:0], v2[63:32]};
      sip_round = {v3, v2, v1, v0};
    endfunction

    // One compression: v3 ^= m, two rounds, v0 ^= m.
    function automatic logic [255:0] sip_compress(input logic [255:0] v, input logic [63:0] m);
      logic [255:0] x;
      x = v;
      x[255:192] = x[255:192] ^ m;
      x = sip_round(sip_round(x));
      x[63:0] = x[63:0] ^ m;
      sip_compress = x;
    endfunction
    // Finalization: v2 ^= 0xff, four rounds, v0 ^ v1 ^ v2 ^ v3.
    function automatic logic [63:0] sip_finish(input logic [255:0] v);
      logic [255:0] x;
      x = v;
      x[191:128] = x[191:128] ^ 64'hff;
      x = sip_round(sip_round(sip_round(sip_round(x))));
      sip_finish = x[63:0] ^ x[127:64] ^ x[191:128] ^ x[255:192];
    endfunction

    logic [63:0] k0, k1, m, h;
    logic [255:0] v_init;
    assign k0 = SipKey[63:0];
    assign k1 = SipKey[127:64];
    assign m  = {d_i, id_i};
    assign v_init = {k1 ^ 64'h7465646279746573, k0 ^ 64'h6c7967656e657261,
                     k1 ^ 64'h646f72616e646f6d, k0 ^ 64'h736f6d6570736575};
    // The message is one 8-byte block, then the final block holding its length.
    assign h = sip_finish(sip_compress(sip_compress(v_init, m), {8'd8, 56'd0}));
    assign bit_o = h[0];
    logic unused_hash_in;
    assign unused_hash_in = ^{k_i, h[63:1]};
  end else if (HashKind == ibr_pkg::HashMxm) begin : gen_mxm
    logic [31:0] p;  // synthesis keeps the logic of bit 31 alone
    assign p = ibr_pkg::mxm_mul(ibr_pkg::mxm_fold(id_i * k_i));
    assign bit_o = p[31];
    logic unused_hash_in;
    assign unused_hash_in = ^{d_i, p[30:0]};
  end else begin : gen_form
    localparam logic [31:0] Mask = (HashKind == ibr_pkg::HashParity) ? 32'h0000_0001 :
                                   (HashKind == ibr_pkg::HashCrc32)  ? ibr_pkg::Crc32Mask :
                                   (HashKind == ibr_pkg::HashCrc16)  ? ibr_pkg::Crc16Mask :
                                                                       32'h8000_0000;
    localparam logic        C    = (HashKind == ibr_pkg::HashCrc32) ? ibr_pkg::Crc32C :
                                   (HashKind == ibr_pkg::HashCrc16) ? ibr_pkg::Crc16C : 1'b0;
    logic [31:0] p;
    assign p = id_i * k_i;
    assign bit_o = ^(p & Mask) ^ C;
    logic unused_hash_in;
    assign unused_hash_in = ^d_i;
  end
endmodule

`default_nettype wire
