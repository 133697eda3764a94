// SPDX-License-Identifier: Apache-2.0

// ibr_crc16_bytes_end_lemma: the lemma property (b) of ibr_switch_stage rests
// on at beats wider than 64 bits (ibreservoir verify --formal proves it
// first). ibr_crc16_bytes_end (one masked full-width step, rewound at the eop
// beat) equals a chain of NB/4 four-byte ibr_crc16_bytes steps, the monitor's
// restatement of the CRC over a beat (each step the bit-serial CRC by
// ibr_crc16_bytes_lemma): over a whole beat (Eop 0), and at an eop beat
// (Eop 1) up to its VCRC's 4-byte group g = NB/4-1-J (empty = 4J+2), whose
// first two lanes it returns as the VCRC. For every register value and beat;
// one check for each Eop and J, NB/4+1 in all, covers every input (with the
// tags constant both sides are linear maps, which CryptoMiniSat's Gaussian
// elimination compares at once; as inputs, their choices hide that).
// Formal only: empty unless FORMAL is defined (Yosys's read_verilog -formal).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

`ifdef FORMAL
module ibr_crc16_bytes_end_lemma #(
  parameter int DataW = 128,
  parameter bit Eop   = 1'b0,
  parameter int J     = 0
) (
  input wire logic [15:0]      crc_i,
  input wire logic [DataW-1:0] data_i
);
  localparam int NB = DataW / 8, NS = NB / 4, EmptyW = $clog2(NB);
  localparam int G = Eop ? NS - 1 - J : NS;  // the chain up to group G
  localparam int GV = Eop ? G : 0;             // the VCRC's group (Eop)
  if (J < 0 || J >= NS) begin : gen_bad_j
    `IBR_PARAM_ERROR("ibr_crc16_bytes_end_lemma: J must be 0 to DataW/32-1")
  end
  logic [15:0] crc, got;
  ibr_crc16_bytes_end #(.DataW(DataW)) u_end (
    .crc_i(crc_i), .data_i(data_i), .eop_i(Eop), .empty_i(EmptyW'(4 * J + 2)), .crc_o(crc), .got_o(got)
  );
  // The chain: the register before group g in bits 16g +: 16.
  logic [16*NS+15:0] chain;
  assign chain[15:0] = crc_i;
  for (genvar g = 0; g < NS; g++) begin : gen_chain
    ibr_crc16_bytes #(.NBytes(4)) u_step (
      .crc_i(chain[16*g +: 16]), .data_i(data_i[DataW-1-32*g -: 32]), .crc_o(chain[16*(g+1) +: 16])
    );
  end
  always @(*) begin
    assert (crc == chain[16*G +: 16]);
    if (Eop) assert (got == {data_i[DataW-9-32*GV -: 8], data_i[DataW-1-32*GV -: 8]});
  end
endmodule
`endif

`default_nettype wire
