// SPDX-License-Identifier: Apache-2.0

// ibr_crc16_bytes: the VCRC register (CRC-16, polynomial 0x100B, reflected;
// IBA Vol. 1 section 7.8.2) advanced over NBytes bytes, data_i[8*NBytes-1 -: 8]
// first. No initial value or final XOR: the register stays outside
// (verilog-ethernet lfsr.v style). A CRC update is linear over GF(2) in the
// register and the data, so each output bit is the parity of fixed masks of
// both; ibr_pkg::vcrc_mask (4 or 8 bytes) and vcrc_mask_wide (a wide beat's
// 16, 32 or 64) hold them, derived from package header's VCRC.
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
`include "ibr_defs.svh"
`default_nettype none

module ibr_crc16_bytes #(
  parameter int NBytes = 8  // bytes consumed per update: 4, 8, 16, 32 or 64
) (
  input  wire logic [15:0]         crc_i,   // register before the bytes
  input  wire logic [8*NBytes-1:0] data_i,  // bytes, first on the wire most significant
  output      logic [15:0]         crc_o    // register after the bytes
);
  if (NBytes != 4 && NBytes != 8 && NBytes != 16 && NBytes != 32 && NBytes != 64) begin : gen_bad_nbytes
    `IBR_PARAM_ERROR("ibr_crc16_bytes: NBytes must be 4, 8, 16, 32 or 64")
  end

  if (NBytes <= 8) begin : gen_narrow
    for (genvar i = 0; i < 16; i++) begin : gen_bit
      localparam logic [79:0] M = ibr_pkg::vcrc_mask(NBytes, i);
      // One parity over register and data: for NBytes = 4 the 48 bits fit one
      // machine word, so a simulator evaluates each bit with one popcount.
      assign crc_o[i] = ^({crc_i, data_i} & {M[79:64], M[8*NBytes-1:0]});
    end
  end else begin : gen_wide
    for (genvar i = 0; i < 16; i++) begin : gen_bit
      localparam logic [527:0] M = ibr_pkg::vcrc_mask_wide(NBytes, i);
      assign crc_o[i] = ^({crc_i, data_i} & {M[527:512], M[8*NBytes-1:0]});
    end
  end
endmodule

`default_nettype wire
