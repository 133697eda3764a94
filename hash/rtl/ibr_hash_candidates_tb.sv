// SPDX-License-Identifier: Apache-2.0

// Checks the candidate hash-only modules (ibr_hash_candidates.sv) against
// vectors the Go model wrote (candidates_test.go): one line per case,
// "id k s d bits" in hex, bits holding the expected bit of each module in
// the order mult0-fmix, mult0-crcid, mult0-salt, fmix-xor, crc32-xor,
// crc32-k, mxa, fmix-xor (two stages) from bit 0 up.
`timescale 1ns/1ps
module ibr_hash_candidates_tb;
  logic clk = 0;
  logic [31:0] id, k, s, d, e;
  logic [7:0] got;
  ibr_hashcand_mult0_fmix  u0 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[0]));
  ibr_hashcand_mult0_crcid u1 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[1]));
  ibr_hashcand_mult0_salt  u2 (.clk_i(clk), .id_i(id), .k_i(k), .s_i(s), .bit_o(got[2]));
  ibr_hashcand_fmix_xor    u3 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[3]));
  ibr_hashcand_crc32_xor   u4 (.clk_i(clk), .id_i(id), .d_i(d), .bit_o(got[4]));
  ibr_hashcand_crc32_k     u5 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[5]));
  ibr_hashcand_mxa         u6 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[6]));
  ibr_hashcand_fmix_xor2   u7 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(got[7]));
  integer fd, n, bad, cases;
  initial begin
    bad = 0; cases = 0;
    fd = $fopen("vectors.hex", "r");
    while (!$feof(fd)) begin
      n = $fscanf(fd, "%h %h %h %h %h\n", id, k, s, d, e);
      if (n == 5) begin
        #1 clk = 1; #1 clk = 0;  // inputs registered
        #1 clk = 1; #1 clk = 0;  // bit registered
        #1 clk = 1; #1 clk = 0;  // fmix-xor2's second stage (the others hold)
        if (got !== e[7:0]) begin
          bad = bad + 1;
          $display("MISMATCH id=%h k=%h s=%h d=%h: got %b want %b", id, k, s, d, got, e[7:0]);
        end
        cases = cases + 1;
      end
    end
    $display("CASES %0d BAD %0d", cases, bad);
    $finish;
  end
endmodule
