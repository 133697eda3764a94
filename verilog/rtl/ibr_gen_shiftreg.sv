// SPDX-License-Identifier: Apache-2.0

// ibr_gen_shiftreg: the circulating shift registers of thesis Figure 5.6
// (section 5.9), as package rng's shiftreg/... defines them: for each l =
// 1..MaxL an l-bit register r_l holding a single 0, r_l[i] at state bit
// l(l-1)/2 + i, r_l[0] its output. A draw for l answers "r_l[0] is 0"; one
// clock rotates r_l toward its output (r_l[i] <- r_l[(i+1) mod l]). Clocking
// (parameter Clock):
//   ClockPerDraw    only r_l is clocked, once
//   ClockPerPacket  every register is clocked once per draw
//   ClockFree       every register is clocked m(n) = floor((n+1)P/Q) - floor(nP/Q)
//                   times between draws n and n+1; the draw count n mod Q is the
//                   state's top PhaseW bits. A free-running clock P/Q times the
//                   packet rate, modelled exactly as the rotation it causes between
//                   samples: m(n) mod l for every n < Q and l is a constant
//                   (ibr_pkg::shift_rot), so no divider is built.
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_gen_shiftreg #(
  parameter `IBR_ENUM(ibr_pkg::clock_e) Clock = ibr_pkg::ClockPerDraw,
  parameter int P      = 1,   // free-running clock ratio P/Q: P 1..2^20, Q 1..64
  parameter int Q      = 1,
  parameter int MaxL   = 8,   // largest l, 1..16
  parameter int LW     = 4,   // width of l_i
  parameter int PhaseW = (Clock == ibr_pkg::ClockFree && Q > 1) ? $clog2(Q) : 0,
  parameter int RegW   = MaxL * (MaxL + 1) / 2,
  parameter int StateW = RegW + PhaseW
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  input  wire logic              load_i,   // replace the state (seeding; test vectors)
  input  wire logic [StateW-1:0] state_i,  // each register holding a single 0
  input  wire logic              draw_i,   // start a draw (one-cycle pulse)
  input  wire logic [LW-1:0]     l_i,      // l of the draw, 1..MaxL
  output      logic              done_o,   // the draw finished (one-cycle pulse)
  output      logic              zero_o,   // its answer, valid with done_o and held until the next
  output      logic [StateW-1:0] state_o
);
  if (MaxL < 1 || MaxL > 16 || P < 1 || P > (1 << 20) || Q < 1 || Q > 64) begin : gen_bad_param
    `IBR_PARAM_ERROR("ibr_gen_shiftreg: MaxL must be 1..16, P 1..2^20, Q 1..64")
  end
  if (Clock != ibr_pkg::ClockPerDraw && Clock != ibr_pkg::ClockPerPacket &&
      Clock != ibr_pkg::ClockFree) begin : gen_bad_clock
    `IBR_PARAM_ERROR("ibr_gen_shiftreg: Clock must be an ibr_pkg::clock_e")
  end

  // Reset: each register's 0 at its output. The port is seeded (load_i)
  // before use, as the model seeds each port's generator.
  function automatic logic [RegW-1:0] reset_regs();
    logic [RegW-1:0] r;
    r = '1;
    for (int l = 1; l <= MaxL; l++) r[l * (l - 1) / 2] = 1'b0;
    reset_regs = r;
  endfunction
  localparam logic [RegW-1:0] RegReset = reset_regs();

  logic [RegW-1:0] r_q, r_d;
  logic            done_q, zero_q, zero;
  logic [PhaseW > 0 ? PhaseW-1 : 0:0] n;  // the draw count mod Q (free-running)

  if (PhaseW > 0) begin : gen_phase
    logic [PhaseW-1:0] phase_q;
    assign n = phase_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        phase_q <= '0;
      end else if (load_i) begin
        phase_q <= state_i[StateW-1 -: PhaseW];
      end else if (draw_i) begin
        phase_q <= (phase_q == PhaseW'(Q - 1)) ? '0 : phase_q + PhaseW'(1);
      end
    end
    assign state_o = {phase_q, r_q};
  end else begin : gen_no_phase
    assign n = '0;
    assign state_o = r_q;
  end

  if (Clock != ibr_pkg::ClockFree) begin : gen_no_rot
    logic unused_n;
    assign unused_n = ^n;
  end

  // Register l: rotate toward the output by the clocks it receives; its
  // output bit is outs[l] (outs[0] and l beyond MaxL: 1, never "zero").
  logic [(1 << LW)-1:0] outs;
  assign outs[0] = 1'b1;
  for (genvar l = 1; l < (1 << LW); l++) begin : gen_reg
    if (l <= MaxL) begin : gen_live
      localparam int Off = l * (l - 1) / 2;
      logic [l-1:0] cur, rot;
      logic [3:0]   k;  // clocks this register receives, mod l
      assign cur = r_q[Off +: l];
      assign outs[l] = cur[0];
      if (Clock == ibr_pkg::ClockPerDraw) begin : gen_per_draw
        assign k = (l_i == LW'(l)) ? 4'd1 : 4'd0;
      end else if (Clock == ibr_pkg::ClockPerPacket) begin : gen_per_packet
        assign k = (l == 1) ? 4'd0 : 4'd1;
      end else begin : gen_free
        // m(n) mod l for each draw phase n < Q.
        logic [4*Q-1:0] rot_tab;
        for (genvar j = 0; j < Q; j++) begin : gen_phase_rot
          assign rot_tab[4*j +: 4] = ibr_pkg::shift_rot(P, Q, j, l);
        end
        assign k = rot_tab[4*n +: 4];
      end
      // rot[i] = cur[(i + k) mod l], k < l
      logic [2*l-1:0] dbl;
      assign dbl = {cur, cur} >> k;
      assign rot = dbl[l-1:0];
      logic unused_dbl;
      assign unused_dbl = ^dbl[2*l-1:l];
      assign r_d[Off +: l] = rot;
    end else begin : gen_none
      assign outs[l] = 1'b1;
    end
  end

  // The output bit of r_l for the l being drawn.
  assign zero = !outs[l_i];  // cmp: shiftreg zero r_l[0] == 0

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      r_q    <= RegReset;
      done_q <= 1'b0;
      zero_q <= 1'b0;
    end else if (load_i) begin
      r_q    <= state_i[RegW-1:0];
      done_q <= 1'b0;
    end else begin
      done_q <= draw_i;
      if (draw_i) begin
        zero_q <= zero;
        r_q    <= r_d;
      end
    end
  end

  assign done_o = done_q;
  assign zero_o = zero_q;
endmodule

`default_nettype wire
