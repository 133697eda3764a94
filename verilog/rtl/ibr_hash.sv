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
// SipHash is ibr_siphash (ibr_siphash.sv) at Latency 0, the rounds in one
// cycle; at Latency 1..8 that module pipelines them.
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
    // SipHash-2-4 in one cycle: ibr_siphash's rounds without registers.
    logic sip_valid;
    ibr_siphash #(.SipKey(SipKey), .Latency(0)) u_siphash (
      .clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .id_i, .d_i, .valid_o(sip_valid), .bit_o
    );
    logic unused_hash_in;
    assign unused_hash_in = ^{k_i, sip_valid};
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
