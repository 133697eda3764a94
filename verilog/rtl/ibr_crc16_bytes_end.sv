// SPDX-License-Identifier: Apache-2.0

// ibr_crc16_bytes_end: the VCRC register advanced over one wide beat (16, 32
// or 64 bytes) of a stream of 4k+2-byte frames, the VCRC the frame's last two
// bytes. Within a packet's beats it is one ibr_crc16_bytes step over the
// whole beat. At the eop beat the bytes before the VCRC are 4(NB/4-1-j) with
// j = (empty_i-2)/4, so m = 4(j+1) bytes follow them (the VCRC and the unused
// bytes): those are zeroed and the one full-width step is rewound by m zero
// bytes (ibr_pkg::vcrc_rewind, the inverse of the update over m zero bytes;
// the update is linear, so CRC(s, d || 0^m) = CRC(s, d) * A^m). The depth is
// one full-width parity tree, a 16-input parity and an NB/4-way choice, in
// place of a chain of NB/4 four-byte steps. got_o is the frame's VCRC as it
// arrived (first byte least significant, as the stage compares it).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_crc16_bytes_end #(
  parameter int DataW  = 128,                 // beat width: 128, 256 or 512
  parameter int EmptyW = $clog2(DataW / 8)    // derived
) (
  input  wire logic [15:0]       crc_i,    // register before the beat
  input  wire logic [DataW-1:0]  data_i,   // the beat, lane 0 (first on the wire) most significant
  input  wire logic              eop_i,    // the packet's last beat: it ends with the VCRC
  input  wire logic [EmptyW-1:0] empty_i,  // with eop_i: unused bytes at its end (2 mod 4)
  output      logic [15:0]       crc_o,    // register after the beat (eop: before its VCRC)
  output      logic [15:0]       got_o     // with eop_i: the beat's VCRC bytes, {second, first}
);
  localparam int NB = DataW / 8;  // bytes a beat
  localparam int NS = NB / 4;     // 4-byte slots a beat

  if (DataW != 128 && DataW != 256 && DataW != 512) begin : gen_bad_width
    `IBR_PARAM_ERROR("ibr_crc16_bytes_end: DataW must be 128, 256 or 512")
  end

  logic [EmptyW-3:0] j;  // the VCRC's slot, counted from the beat's last
  assign j = empty_i[EmptyW-1:2];
  logic unused_empty;
  assign unused_empty = ^empty_i[1:0];  // 2: frames are 4k+2 bytes

  // Keep every byte, or at the eop beat the slots before the VCRC's.
  logic [DataW-1:0] keep;
  for (genvar g = 0; g < NS; g++) begin : gen_keep
    assign keep[DataW-1-32*g -: 32] = {32{!eop_i || 32'(g) + 32'(j) < 32'(NS - 1)}};
  end
  logic [15:0] full;
  ibr_crc16_bytes #(.NBytes(NB)) u_crc (.crc_i(crc_i), .data_i(data_i & keep), .crc_o(full));

  // The step rewound by m = 4(k+1) zero bytes, for each k; j chooses.
  logic [16*NS-1:0] rew;  // slot k in bits 16k+15..16k
  for (genvar k = 0; k < NS; k++) begin : gen_rewind
    localparam logic [255:0] R = ibr_pkg::vcrc_rewind(4 * (k + 1));
    for (genvar i = 0; i < 16; i++) begin : gen_bit
      assign rew[16*k+i] = ^(full & R[16*i +: 16]);
    end
  end
  assign crc_o = eop_i ? rew[16*j +: 16] : full;

  // The VCRC: lanes NB-4j-4 (first) and NB-4j-3.
  logic [16*NS-1:0] got;
  for (genvar k = 0; k < NS; k++) begin : gen_got
    assign got[16*k +: 16] = {data_i[DataW-1-8*(NB-4*k-3) -: 8], data_i[DataW-1-8*(NB-4*k-4) -: 8]};
  end
  assign got_o = got[16*j +: 16];
endmodule

`default_nettype wire
