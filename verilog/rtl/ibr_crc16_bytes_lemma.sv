// SPDX-License-Identifier: Apache-2.0

// ibr_crc16_bytes_lemma: the lemma property (b) of ibr_switch_stage rests on
// (ibreservoir verify --formal proves it first): ibr_crc16_bytes equals the
// CRC-16 of IBA Vol. 1 7.8.2 computed bit-serially (polynomial 0x100B,
// reflected 0xD008), one bit at a time, for every register value and every
// four bytes. Combinational: one check closes it for all inputs. Formal only:
// empty unless FORMAL is defined (Yosys's read_verilog -formal).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

`ifdef FORMAL
module ibr_crc16_bytes_lemma (
  input wire logic [15:0] crc_i,
  input wire logic [31:0] data_i
);
  function automatic logic [15:0] crc_serial(input logic [15:0] c, input logic [31:0] d);
    logic [15:0] x;
    x = c;
    for (int j = 0; j < 4; j++) begin
      x = x ^ {8'd0, d[31-8*j -: 8]};
      for (int k = 0; k < 8; k++) x = x[0] ? ((x >> 1) ^ 16'hD008) : (x >> 1);
    end
    crc_serial = x;
  endfunction

  logic [15:0] crc;
  ibr_crc16_bytes #(.NBytes(4)) u_crc (.crc_i(crc_i), .data_i(data_i), .crc_o(crc));
  always @(*) assert (crc == crc_serial(crc_i, data_i));
endmodule
`endif

`default_nettype wire
