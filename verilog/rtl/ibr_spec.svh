// SPDX-License-Identifier: Apache-2.0

// ibr_spec.svh: docs/spec.md section 3 (the packet id, the link identifier d,
// H(id, d)) written as functions from the specification alone, for the formal
// checks: the lemma ibr_hash_lemma and property (f) of ibr_switch_stage
// include it inside their modules (under FORMAL; no guard, since each module
// takes its own copy). Not the RTL's decomposition: mult0 is
// bit31(1846571429*id*d) multiplied in that order, the CRC hashes are the
// bit-serial CRCs of the product's four bytes, little-endian. SipHash is not
// restated (spec_hash_bit gives x).
//
// Part of the ibr_stage library (docs/rtl.md); ibr_switch_stage.sv describes the whole.
// The link identifier d(s, p).
function automatic logic [31:0] spec_link_d(input int enc, input logic [15:0] s, input logic [7:0] p);
  case (enc)
    ibr_pkg::LinkThesis: spec_link_d = 32'(s) * 32'd32768 + 32'(p) * 32'd512 + 32'd509;
    ibr_pkg::LinkWide:   spec_link_d = 32'(s) * 32'd131072 + 32'(p) * 32'd512 + 32'd509;
    default:             spec_link_d = 32'(s) * 32'd256 + 32'(p);
  endcase
endfunction

// The coefficient of id in the hash's form with d fixed,
// parity((A*id*id + K*id) & Mask) ^ C: d*d (double), 1846571429*d (mult0), else d.
function automatic logic [31:0] spec_form_k(input int kind, input logic [31:0] d);
  case (kind)
    ibr_pkg::HashDouble: spec_form_k = d * d;
    ibr_pkg::HashMult0:  spec_form_k = 32'd1846571429 * d;
    default:             spec_form_k = d;
  endcase
endfunction

// CRC-32 (ICRC parameters: reflected 0xEDB88320, init and final XOR all
// ones) and CRC-16 (VCRC parameters: reflected 0xD008, init and final XOR
// all ones) of the four bytes of y, least-significant first, bit-serially.
function automatic logic [31:0] spec_crc32_le(input logic [31:0] y);
  logic [31:0] c;
  c = '1;
  for (int j = 0; j < 4; j++) begin
    c = c ^ {24'd0, y[8*j +: 8]};
    for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
  end
  spec_crc32_le = ~c;
endfunction
function automatic logic [15:0] spec_crc16_le(input logic [31:0] y);
  logic [15:0] c;
  c = '1;
  for (int j = 0; j < 4; j++) begin
    c = c ^ {8'd0, y[8*j +: 8]};
    for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 16'hD008) : (c >> 1);
  end
  spec_crc16_le = ~c;
endfunction

// H(id, d), every hash but SipHash; all arithmetic mod 2^32.
function automatic logic spec_hash_bit(input int kind, input logic [31:0] id, input logic [31:0] d);
  logic [31:0] y;
  case (kind)
    ibr_pkg::HashParity:    spec_hash_bit = id[0] & d[0];
    ibr_pkg::HashParityXor: spec_hash_bit = id[0] ^ d[0];
    ibr_pkg::HashSingle:    begin y = id * d; spec_hash_bit = y[31]; end
    ibr_pkg::HashDouble:    begin y = id * d * d; spec_hash_bit = y[31]; end
    ibr_pkg::HashMult0:     begin y = 32'd1846571429 * id * d; spec_hash_bit = y[31]; end
    ibr_pkg::HashCrc32:     begin y = spec_crc32_le(id * d); spec_hash_bit = y[0]; end
    ibr_pkg::HashCrc16:     begin y = {16'd0, spec_crc16_le(id * d)}; spec_hash_bit = y[0]; end
    default:                spec_hash_bit = 1'bx;
  endcase
endfunction

// The packet id from the PSN, SLID and DestQP.
function automatic logic [31:0] spec_packet_id(input int opt, input logic [23:0] psn, input logic [15:0] slid,
                                          input logic [23:0] destqp);
  case (opt)
    ibr_pkg::IdPsn:     spec_packet_id = {8'd0, psn};
    ibr_pkg::IdPsnOdd:  spec_packet_id = 32'(psn) * 32'd2 + 32'd1;
    ibr_pkg::IdPsnSlid: spec_packet_id = 32'(psn) ^ (32'(slid) << 16);
    default:            spec_packet_id = 32'(psn) ^ (32'(destqp) << 8);
  endcase
endfunction
