// SPDX-License-Identifier: Apache-2.0

// Checks the hash-only modules against vectors the Go model wrote
// (hashonly_test.go): one line per case, "id k d mult0 mxm siphash" in hex.
`timescale 1ns/1ps
module ibr_hashonly_tb;
  logic clk = 0;
  logic [31:0] id, k, d;
  logic b_mult0, b_mxm, b_mxm2, b_sip;
  ibr_hashonly_mult0   u0 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(b_mult0));
  ibr_hashonly_mxm     u1 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(b_mxm));
  ibr_hashonly_mxm2    u3 (.clk_i(clk), .id_i(id), .k_i(k), .bit_o(b_mxm2));
  ibr_hashonly_siphash u2 (.clk_i(clk), .id_i(id), .k_i(d), .bit_o(b_sip));
  integer fd, n, bad, cases;
  logic [31:0] e0, e1, e2;
  initial begin
    bad = 0; cases = 0;
    fd = $fopen("vectors.hex", "r");
    while (!$feof(fd)) begin
      n = $fscanf(fd, "%h %h %h %h %h %h\n", id, k, d, e0, e1, e2);
      if (n == 6) begin
        #1 clk = 1; #1 clk = 0;  // inputs registered
        #1 clk = 1; #1 clk = 0;  // bit registered
        #1 clk = 1; #1 clk = 0;  // mxm2's second stage (the others hold)
        if (b_mult0 !== e0[0] || b_mxm !== e1[0] || b_mxm2 !== e1[0] || b_sip !== e2[0]) begin
          bad = bad + 1;
          $display("MISMATCH id=%h k=%h d=%h: got %b %b %b want %h %h %h", id, k, d, b_mult0, b_mxm, b_sip, e0, e1, e2);
        end
        cases = cases + 1;
      end
    end
    $display("CASES %0d BAD %0d", cases, bad);
    $finish;
  end
endmodule
