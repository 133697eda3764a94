// SPDX-License-Identifier: Apache-2.0

// ibr_gen_lfsr_lut: the comparator circuit of thesis Figure 5.7 (section 5.9),
// as package rng's lfsr-lut/b<B>[/k<K>] defines it: a B-bit maximal-length
// LFSR in Fibonacci form (bit 0 is the output, the parity of the tapped bits
// enters at bit B-1; XAPP052 taps, ibr_pkg::lfsr_taps) and a table
// T[l] = round((2^B-1)/l) (ibr_pkg::lfsr_threshold). A draw for l answers
// state <= T[l], then steps the register Steps times. One cycle per draw.
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_gen_lfsr_lut #(
  parameter int Width = 16,  // B, 3..32
  parameter int Steps = 1,   // k, LFSR steps per draw, 1..32
  parameter int MaxL  = 8,   // largest l, 1..16
  parameter int LW    = 4    // width of l_i
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             load_i,   // replace the state (seeding; test vectors)
  input  wire logic [Width-1:0] state_i,  // never zero
  input  wire logic             draw_i,   // start a draw (one-cycle pulse)
  input  wire logic [LW-1:0]    l_i,      // l of the draw, 1..MaxL
  output      logic             done_o,   // the draw finished (one-cycle pulse)
  output      logic             zero_o,   // its answer, valid with done_o and held until the next
  output      logic [Width-1:0] state_o
);
  if (Width < 3 || Width > 32 || Steps < 1 || Steps > 32 || MaxL < 1 || MaxL > 16)
  begin : gen_bad_param
    `IBR_PARAM_ERROR("ibr_gen_lfsr_lut: Width must be 3..32, Steps 1..32, MaxL 1..16")
  end

  localparam logic [31:0] Mask = ibr_pkg::lfsr_taps(Width);

  // Steps Fibonacci steps: shift right, the parity of the taps into bit B-1.
  function automatic logic [Width-1:0] advance(input logic [Width-1:0] s);
    logic [Width-1:0] x;
    x = s;
    for (int i = 0; i < Steps; i++) begin
      x = {^(x & Mask[Width-1:0]), x[Width-1:1]};
    end
    advance = x;
  endfunction

  logic [Width-1:0] s_q, s_d;
  logic [31:0]      t;
  logic             done_q, zero_q, zero;
  assign s_d = advance(s_q);
  // T[l] by l; 0 outside 1..MaxL.
  logic [32*(1 << LW)-1:0] tab;  // T[l] in bits 32*l +: 32
  for (genvar l = 0; l < (1 << LW); l++) begin : gen_tab
    if (l >= 1 && l <= MaxL) begin : gen_entry
      assign tab[32*l +: 32] = ibr_pkg::lfsr_threshold(Width, l);
    end else begin : gen_none
      assign tab[32*l +: 32] = 32'd0;
    end
  end
  assign t    = tab[32*l_i +: 32];
  assign zero = 32'(s_q) <= t;  // cmp: lfsr-lut zero state <= T[l]

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_q    <= Width'(1);
      done_q <= 1'b0;
      zero_q <= 1'b0;
    end else if (load_i) begin
      s_q    <= state_i;
      done_q <= 1'b0;
    end else begin
      done_q <= draw_i;
      if (draw_i) begin
        zero_q <= zero;
        s_q    <= s_d;
      end
    end
  end

  assign done_o  = done_q;
  assign zero_o  = zero_q;
  assign state_o = s_q;

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // Nothing to check in reset.
    end else begin
      assert (s_q != '0)
        else $fatal(1, "ibr_gen_lfsr_lut: the LFSR holds zero, which it never leaves");
      if (draw_i) begin
        assert (l_i >= 1 && int'(l_i) <= MaxL)
          else $fatal(1, "ibr_gen_lfsr_lut: l=%0d outside 1..%0d", l_i, MaxL);
      end
    end
  end
`endif
endmodule

`default_nettype wire
