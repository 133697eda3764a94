// SPDX-License-Identifier: Apache-2.0

// ibr_seg_fields: where a segmented 256/512-bit beat (docs/rtl.md,
// "Segmented beats") holds the fields the stage reads and writes, for each of
// the two packets it may carry: the tail (open before the beat) and the head
// (starting in it, at lane 8*sop_seg_i). A packet's byte k is at lane 8s+k of
// its sop beat, or lane (8s+k) mod NB of a later one; BTH byte 4 (the
// telemetry byte, DestQP behind it) is packet byte 12 (LNH=2) or 52 (LNH=3),
// the PSN's first byte 17 or 57, each within one 8-byte segment. A packet
// with LNH 0 or 1 (no BTH) has neither; a field past the packet's last byte
// (a frame too short to hold it) is not reported. The tail's LNH, sop segment
// and beat count are registered from its sop beat (LNH from lane 8s+1).
`include "ibr_defs.svh"
`default_nettype none

module ibr_seg_fields #(
  parameter int DataW  = 512,                  // beat width: 256 or 512
  parameter int EmptyW = $clog2(DataW / 8),    // derived
  parameter int SegW   = $clog2(DataW / 64)    // derived
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  input  wire logic              take_i,          // the beat is taken this cycle
  input  wire logic [DataW-1:0]  data_i,          // the beat, lane 0 most significant
  input  wire logic              sop_i,           // a packet starts in the beat
  input  wire logic [SegW-1:0]   sop_seg_i,       // with sop_i: at lane 8*sop_seg_i
  input  wire logic              eop_i,           // a packet ends in the beat
  input  wire logic [EmptyW-1:0] empty_i,         // with eop_i: lanes after its last byte
  output      logic              tail_tel_o,      // the tail's BTH byte 4 is in the beat
  output      logic [EmptyW-1:0] tail_tel_lane_o, //   at this lane
  output      logic              tail_psn_o,      // the tail's PSN is in the beat
  output      logic [EmptyW-1:0] tail_psn_lane_o, //   its first byte at this lane
  output      logic              head_tel_o,      // the same for the head
  output      logic [EmptyW-1:0] head_tel_lane_o,
  output      logic              head_psn_o,
  output      logic [EmptyW-1:0] head_psn_lane_o
);
  localparam int NB = DataW / 8;

  if (DataW != 256 && DataW != 512) begin : gen_bad_width
    `IBR_PARAM_ERROR("ibr_seg_fields: DataW must be 256 or 512")
  end

  // The eop packet's last lane, and whether a sop and eop beat holds one packet.
  logic [EmptyW-1:0] last;
  assign last = EmptyW'(NB - 1) - empty_i;
  logic [EmptyW-1:0] sop_lane;
  assign sop_lane = {sop_seg_i, 3'b000};
  logic one;
  assign one = sop_i && eop_i && sop_lane <= last;
  logic open_q;  // a packet is open before the beat (the tail)

  // Where packet byte off of a packet from segment s lies: beats after its
  // sop beat (0..2) and lane.
  function automatic logic [EmptyW+1:0] at(input logic [SegW-1:0] s, input int off);
    int p;
    p  = 8 * 32'(s) + off;
    at = {2'(p / NB), EmptyW'(p % NB)};
  endfunction

  // The head: its LNH from this beat.
  logic [1:0] head_lnh;
  assign head_lnh = data_i[DataW-7-8*(32'(sop_lane)+1) -: 2];  // LRH byte 1 bits 1..0
  logic [EmptyW+1:0] h_tel, h_psn;
  assign h_tel = at(sop_seg_i, head_lnh == 2'd3 ? 52 : 12);
  assign h_psn = at(sop_seg_i, head_lnh == 2'd3 ? 57 : 17);
  // A field in the beat (0 beats on) and before the packet's last byte when it ends here.
  assign head_tel_o = sop_i && head_lnh[1] && h_tel[EmptyW+1:EmptyW] == 2'd0 && (!one || h_tel[EmptyW-1:0] <= last);
  assign head_psn_o = sop_i && head_lnh[1] && h_psn[EmptyW+1:EmptyW] == 2'd0 && (!one || h_psn[EmptyW-1:0] <= last);
  assign head_tel_lane_o = h_tel[EmptyW-1:0];
  assign head_psn_lane_o = h_psn[EmptyW-1:0];

  // The tail: registered from its sop beat; beats counts the beats since it.
  logic [1:0]      tail_lnh_q, beats_q;
  logic [SegW-1:0] tail_seg_q;
  logic [EmptyW+1:0] t_tel, t_psn;
  assign t_tel = at(tail_seg_q, tail_lnh_q == 2'd3 ? 52 : 12);
  assign t_psn = at(tail_seg_q, tail_lnh_q == 2'd3 ? 57 : 17);
  assign tail_tel_o = open_q && tail_lnh_q[1] && t_tel[EmptyW+1:EmptyW] == beats_q &&
                      (!eop_i || t_tel[EmptyW-1:0] <= last);
  assign tail_psn_o = open_q && tail_lnh_q[1] && t_psn[EmptyW+1:EmptyW] == beats_q &&
                      (!eop_i || t_psn[EmptyW-1:0] <= last);
  assign tail_tel_lane_o = t_tel[EmptyW-1:0];
  assign tail_psn_lane_o = t_psn[EmptyW-1:0];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q     <= 1'b0;
      tail_lnh_q <= '0;
      tail_seg_q <= '0;
      beats_q    <= '0;
    end else if (take_i) begin
      if (sop_i && !one) begin  // the head stays open
        open_q     <= 1'b1;
        tail_lnh_q <= head_lnh;
        tail_seg_q <= sop_seg_i;
        beats_q    <= 2'd1;
      end else if (eop_i) begin
        open_q <= 1'b0;
      end else if (beats_q != 2'd3) begin
        beats_q <= beats_q + 2'd1;  // saturates past every field
      end
    end
  end
endmodule

`default_nettype wire
