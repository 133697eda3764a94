// SPDX-License-Identifier: Apache-2.0

// ibr_gen_ideal: the reference generator of docs/spec.md section 4,
// xoshiro128** (Blackman and Vigna) with the exact rejection rule. A draw for l
// takes outputs r until r < A(l) = l*floor(2^32/l) and answers r < Z(l) =
// floor(2^32/l); every output advances the state, including rejected ones.
// One output per clock: a draw takes 1 cycle, plus 1 per rejection
// (probability below l/2^32 each); busy_o is high while a rejected draw
// retries, and the stage holds the packet's telemetry word until done_o.
//
// State: state_o = {s3, s2, s1, s0}, the little-endian bit string of
// rng.State (bit i of the state is bit i%64 of word i/64).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_gen_ideal #(
  parameter int MaxL = 8,  // largest l drawn for: 2^CountBits, 1..ibr_pkg::MaxIdealL
  parameter int LW   = 4   // width of l_i, 1..5
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,
  input  wire logic          load_i,   // replace the state (seeding; test vectors)
  input  wire logic [127:0]  state_i,  // state to load, never all zero
  input  wire logic          draw_i,   // start a draw (one-cycle pulse, not while busy_o)
  input  wire logic [LW-1:0] l_i,      // l of the draw, 1..MaxL
  output      logic          done_o,   // the draw finished (one-cycle pulse)
  output      logic          zero_o,   // its answer, valid with done_o and held until the next
  output      logic          busy_o,   // a rejected draw is retrying
  output      logic [127:0]  state_o
);
  if (MaxL < 1 || MaxL > ibr_pkg::MaxIdealL) begin : gen_bad_maxl
    `IBR_PARAM_ERROR("ibr_gen_ideal: MaxL must be 1..ibr_pkg::MaxIdealL")
  end
  if (LW < 1 || LW > 5 || (1 << LW) <= MaxL) begin : gen_bad_lw
    `IBR_PARAM_ERROR("ibr_gen_ideal: LW must be 1..5 and wide enough for MaxL")
  end

  logic [31:0] s0_q, s1_q, s2_q, s3_q;
  logic [31:0] s0_d, s1_d, s2_d, s3_d;
  logic [31:0] r;
  logic [LW-1:0] l_q, l_sel;
  logic [4:0] l5;
  logic busy_q, done_q, zero_q, try;
  logic [65:0] ab;  // {A(l), Z(l)}
  logic accept, zero;

  // xoshiro128** output and step. The output's first multiply, s1 * 5, is
  // kept in a register beside the state (s1x5_q, written with s1_q in every
  // cycle that writes it), so that the draw's path from the registers to the
  // compares holds one adder (the * 9) instead of two.
  logic [31:0] s1x5_q, s1x5, t;
  assign s1x5 = s1x5_q;
  assign r    = {s1x5[24:0], s1x5[31:25]} * 32'd9;
  assign t    = {s1_q[22:0], 9'd0};
  logic [31:0] x2, x3;
  assign x2   = s2_q ^ s0_q;
  assign x3   = s3_q ^ s1_q;
  assign s0_d = s0_q ^ x3;
  assign s1_d = s1_q ^ x2;
  assign s2_d = x2 ^ t;
  assign s3_d = {x3[20:0], x3[31:21]};

  assign try    = draw_i || busy_q;
  assign l_sel  = busy_q ? l_q : l_i;
  assign l5     = 5'(l_sel);
  assign ab     = ibr_pkg::ideal_bounds(l5);
  assign accept = {1'b0, r} < ab[65:33];  // cmp: ideal accept r < A(l)
  assign zero   = {1'b0, r} < ab[32:0];   // cmp: ideal zero r < Z(l)

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {s3_q, s2_q, s1_q, s0_q} <= 128'd1;
      s1x5_q <= '0;  // 5 * s1 of that state (s1 = 0)
      l_q    <= '0;
      busy_q <= 1'b0;
      done_q <= 1'b0;
      zero_q <= 1'b0;
    end else if (load_i) begin
      {s3_q, s2_q, s1_q, s0_q} <= state_i;
      s1x5_q <= state_i[63:32] * 32'd5;
      busy_q <= 1'b0;
      done_q <= 1'b0;
    end else begin
      done_q <= 1'b0;
      if (try) begin
        {s0_q, s1_q, s2_q, s3_q} <= {s0_d, s1_d, s2_d, s3_d};
        s1x5_q <= s1_d * 32'd5;
        l_q <= l_sel;
        if (accept) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
          zero_q <= zero;
        end else begin
          busy_q <= 1'b1;
        end
      end
    end
  end

  assign done_o  = done_q;
  assign zero_o  = zero_q;
  assign busy_o  = busy_q;
  assign state_o = {s3_q, s2_q, s1_q, s0_q};

`ifndef SYNTHESIS
  // Reference: xoshiro128** as Blackman and Vigna write it, checked against the
  // registers after every step.
  function automatic logic [127:0] xoshiro_next(input logic [127:0] s);
    logic [31:0] y0, y1, y2, y3, tt;
    {y3, y2, y1, y0} = s;
    tt = y1 << 9;
    y2 ^= y0; y3 ^= y1; y1 ^= y2; y0 ^= y3; y2 ^= tt;
    y3 = (y3 << 11) | (y3 >> 21);
    xoshiro_next = {y3, y2, y1, y0};
  endfunction
  logic [127:0] prev_q;
  logic         stepped_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stepped_q <= 1'b0;
      prev_q    <= '0;
    end else begin
      stepped_q <= try && !load_i;
      prev_q    <= state_o;
      if (stepped_q) begin
        assert (state_o == xoshiro_next(prev_q))
          else $fatal(1, "ibr_gen_ideal: state %h does not follow %h", state_o, prev_q);
      end
      if (draw_i) begin
        assert (!busy_q) else $fatal(1, "ibr_gen_ideal: draw requested while busy");
        assert (l_i >= 1 && int'(l_i) <= MaxL)
          else $fatal(1, "ibr_gen_ideal: l=%0d outside 1..%0d", l_i, MaxL);
      end
      assert (state_o != '0) else $fatal(1, "ibr_gen_ideal: all-zero state (xoshiro's fixed point)");
      assert (s1x5_q == s1_q * 32'd5)
        else $fatal(1, "ibr_gen_ideal: s1x5_q %h is not 5 * s1 %h", s1x5_q, s1_q);
    end
  end
`endif
endmodule

`default_nettype wire
