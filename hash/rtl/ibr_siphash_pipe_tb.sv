// SPDX-License-Identifier: Apache-2.0

// Checks ibr_siphash (verilog/rtl/ibr_hash.sv) at every latency, 0 to 8,
// against vectors the Go model wrote (siphash_pipe_test.go, the hash-only
// format: "id k d mult0 mxm siphash" in hex). The nine instances take the same
// stream: back to back, with bubbles of one to three cycles (chosen from the
// id's bits, so the same every run) in which the inputs hold other values.
// Each instance must answer every input exactly once, in order, exactly
// Latency cycles after it (in the same cycle for 0), with the model's bit.
`timescale 1ns/1ps
module ibr_siphash_pipe_tb;
  localparam int MaxCases = 4096;
  localparam int NLat     = 9;  // latencies 0..8
  logic clk = 0, rst_n = 1, valid = 0;
  logic [31:0] id = '0, d = '0;
  logic [NLat-1:0] v_o, b_o;
  for (genvar l = 0; l < NLat; l++) begin : gen_dut
    ibr_siphash #(.Latency(l)) u (
      .clk_i(clk), .rst_ni(rst_n), .valid_i(valid), .id_i(id), .d_i(d), .valid_o(v_o[l]), .bit_o(b_o[l])
    );
  end

  logic [31:0] f_id [MaxCases];
  logic [31:0] f_d [MaxCases];
  logic        f_bit [MaxCases];
  integer      f_cycle [MaxCases];  // the cycle each case entered
  integer      got [NLat];          // answers taken from each instance
  integer      fd, n, bad, cases, sent, cycle, l, gap;
  logic [31:0] k, e0, e1, e2, rid, rd;

  // At the end of every cycle, before the clock edge: the answers.
  task automatic check_outputs();
    for (int i = 0; i < NLat; i++) begin
      if (v_o[i] === 1'b1) begin
        if (got[i] >= sent || b_o[i] !== f_bit[got[i]] || cycle - f_cycle[got[i]] != i) begin
          bad = bad + 1;
          if (bad <= 10) $display("MISMATCH latency %0d answer %0d at cycle %0d: bit %b, want %b of the case sent at cycle %0d",
                                  i, got[i], cycle, b_o[i], f_bit[got[i]], f_cycle[got[i]]);
        end
        got[i] = got[i] + 1;
      end else if (v_o[i] !== 1'b0) begin
        bad = bad + 1;
        $display("MISMATCH latency %0d: valid_o is %b at cycle %0d", i, v_o[i], cycle);
      end
    end
  endtask

  task automatic step();
    #1 check_outputs();
    clk = 1; #1 clk = 0;
    cycle = cycle + 1;
  endtask

  initial begin
    bad = 0; cases = 0; sent = 0; cycle = 0;
    for (int i = 0; i < NLat; i++) got[i] = 0;
    fd = $fopen("vectors.hex", "r");
    while (!$feof(fd) && cases < MaxCases) begin
      n = $fscanf(fd, "%h %h %h %h %h %h\n", rid, k, rd, e0, e1, e2);
      if (n == 6) begin
        f_id[cases] = rid; f_d[cases] = rd; f_bit[cases] = e2[0];
        cases = cases + 1;
      end
    end
    #1 rst_n = 0;  // the valid chain resets
    #1 rst_n = 1;
    for (int c = 0; c < cases; c++) begin
      gap = (f_id[c][4:3] == 2'd0) ? 1 + f_id[c][6:5] % 3 : 0;
      for (int g = 0; g < gap; g++) begin
        valid = 0; id = ~f_id[c]; d = f_d[c] ^ 32'h5a5a_5a5a;  // not an input: must not be taken
        step();
      end
      valid = 1; id = f_id[c]; d = f_d[c];
      f_cycle[c] = cycle;
      sent = sent + 1;
      step();
    end
    valid = 0; id = '0; d = '0;
    for (int c = 0; c < NLat + 1; c++) step();
    for (int i = 0; i < NLat; i++) begin
      if (got[i] != cases) begin
        bad = bad + 1;
        $display("MISMATCH latency %0d answered %0d of %0d cases", i, got[i], cases);
      end
    end
    $display("CASES %0d BAD %0d", cases, bad);
    $finish;
  end
endmodule
