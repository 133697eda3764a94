// SPDX-License-Identifier: Apache-2.0

// Hash-only modules of the other candidate families (hash/candidates_more.go,
// docs/hashes-and-generators.md "Candidates"), registered like those of
// ibr_hashonly.sv: inputs and the bit in flip-flops, so that OpenSTA times
// the hash alone. k_i is the per-port constant K = 1846571429*d, s_i a second
// per-port constant where a candidate has one, d_i the link's d. Two
// candidates need no module of their own: mult0-randk is ibr_hashonly_mult0
// with K = fmix32(d) | 1, and a sender-drawn id is hashed by
// ibr_hashonly_mult0 or ibr_hashonly_mxm.
`default_nettype none

package ibr_hash_candidates_pkg;
  // MurmurHash3's 32-bit finalizer.
  function automatic logic [31:0] fmix32(input logic [31:0] x);
    logic [31:0] h;
    h = x ^ {16'd0, x[31:16]};
    h = h * 32'h85EB_CA6B;
    h = h ^ {13'd0, h[31:13]};
    h = h * 32'hC2B2_AE35;
    fmix32 = h ^ {16'd0, h[31:16]};
  endfunction
  // The IEEE CRC-32 (reflected 0x04C11DB7, init and final XOR all ones) of
  // the four bytes of x, least-significant byte first: bit i of x is the
  // i-th bit the reflected CRC takes in.
  function automatic logic [31:0] crc32_word(input logic [31:0] x);
    logic [31:0] c;
    integer i;
    c = 32'hFFFF_FFFF;
    for (i = 0; i < 32; i = i + 1) begin
      c = (c[0] ^ x[i]) ? ({1'b0, c[31:1]} ^ 32'hEDB8_8320) : {1'b0, c[31:1]};
    end
    crc32_word = ~c;
  endfunction
endpackage

// mult0-fmix: bit31(K * fmix32(id)).
module ibr_hashcand_mult0_fmix (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);

  logic [31:0] id_q, k_q, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= p[31];
  end
  assign p = k_q * ibr_hash_candidates_pkg::fmix32(id_q);
endmodule

// mult0-crcid: bit31(K * crc32(LE(id))).
module ibr_hashcand_mult0_crcid (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);

  logic [31:0] id_q, k_q, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= p[31];
  end
  assign p = k_q * ibr_hash_candidates_pkg::crc32_word(id_q);
endmodule

// mult0-salt: bit31(K * (id ^ S)), S = fmix32(d) a second per-port constant.
module ibr_hashcand_mult0_salt (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  input  wire logic [31:0] s_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q, s_q, p;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    s_q   <= s_i;
    bit_o <= p[31];
  end
  assign p = k_q * (id_q ^ s_q);
endmodule

// fmix-xor: bit31(fmix32(id ^ K)).
module ibr_hashcand_fmix_xor (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);

  logic [31:0] id_q, k_q, h;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= h[31];
  end
  assign h = ibr_hash_candidates_pkg::fmix32(id_q ^ k_q);
endmodule

// fmix-xor2: fmix-xor in two pipeline stages, a register after the first
// constant multiplication (one multiplier per stage, as mxm2).
module ibr_hashcand_fmix_xor2 (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q, x, m_q, y, h;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    m_q   <= x * 32'h85EB_CA6B;
    bit_o <= h[31];
  end
  assign x = (id_q ^ k_q) ^ {16'd0, id_q[31:16] ^ k_q[31:16]};
  assign y = (m_q ^ {13'd0, m_q[31:13]}) * 32'hC2B2_AE35;
  assign h = y ^ {16'd0, y[31:16]};
endmodule

// crc32-xor: bit0 of crc32(LE(id ^ d)).
module ibr_hashcand_crc32_xor (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] d_i,
  output      logic        bit_o
);

  logic [31:0] id_q, d_q, c;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    d_q   <= d_i;
    bit_o <= c[0];
  end
  assign c = ibr_hash_candidates_pkg::crc32_word(id_q ^ d_q);
endmodule

// crc32-k: bit0 of crc32(LE(K * id)).
module ibr_hashcand_crc32_k (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);

  logic [31:0] id_q, k_q, c;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= c[0];
  end
  assign c = ibr_hash_candidates_pkg::crc32_word(k_q * id_q);
endmodule

// mxa: h = K*id; x = h ^ (h >> 16); bit31(x * 0x00010001), that is bit 15
// of x[31:16] + x[15:0].
module ibr_hashcand_mxa (
  input  wire logic        clk_i,
  input  wire logic [31:0] id_i,
  input  wire logic [31:0] k_i,
  output      logic        bit_o
);
  logic [31:0] id_q, k_q, h, x;
  logic [15:0] s;
  always_ff @(posedge clk_i) begin
    id_q  <= id_i;
    k_q   <= k_i;
    bit_o <= s[15];
  end
  assign h = id_q * k_q;
  assign x = h ^ {16'd0, h[31:16]};
  assign s = x[31:16] + x[15:0];
endmodule

`default_nettype wire
