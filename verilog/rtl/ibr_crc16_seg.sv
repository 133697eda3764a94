// SPDX-License-Identifier: Apache-2.0

// ibr_crc16_seg: the VCRC (CRC-16, IBA Vol. 1 7.8.2) over one segmented beat
// of 256 or 512 bits (docs/rtl.md, "Segmented beats"), where a beat may hold
// the end of one packet (the tail, open before the beat, from the running
// register crc_i) and the start of the next (the head, from 0xFFFF at lane
// 8*sop_seg_i), or one whole packet.
//
// The CRC update is linear: one full-width step from register X over a beat
// whose only nonzero bytes are those of 4-byte slots [a, b) is X*A^NB xor the
// xor of the slots' contributions T_k (ibr_pkg::vcrc_mask_wide, restricted to
// slot k). So one parity tree per slot serves both packets, each taking the
// xor of its own slots:
//   tail  crc_i*A^NB        xor T_0 .. T_{e-1}
//   head  0xFFFF*A^(NB-8s)  xor T_2s .. T_{NS-1}  (0xFFFF rewound to lane 0)
//   one   0xFFFF*A^(NB-8s)  xor T_2s .. T_{e-1}
// where e is the eop packet's VCRC slot (the frame is 4k+2 bytes from a
// segment boundary, so its VCRC and the 2 bytes after it fill one slot); the
// eop packet's sum is then rewound by the m = NB-4e bytes from its VCRC slot
// on (ibr_pkg::vcrc_rewind), as ibr_crc16_bytes_end does.
`include "ibr_defs.svh"
`default_nettype none

module ibr_crc16_seg #(
  parameter int DataW  = 512,                  // beat width: 256 or 512
  parameter int EmptyW = $clog2(DataW / 8),    // derived
  parameter int SegW   = $clog2(DataW / 64)    // derived: log2 of the 8-byte segments a beat
) (
  input  wire logic [15:0]       crc_i,      // the open packet's register before the beat
  input  wire logic [DataW-1:0]  data_i,     // the beat, lane 0 (first on the wire) most significant
  input  wire logic              sop_i,      // a packet starts in the beat
  input  wire logic [SegW-1:0]   sop_seg_i,  // with sop_i: at lane 8*sop_seg_i
  input  wire logic              eop_i,      // a packet ends in the beat (with its VCRC)
  input  wire logic [EmptyW-1:0] empty_i,    // with eop_i: lanes after its last byte (2 mod 4)
  output      logic [15:0]       crc_o,      // the register after the beat of the packet open after it
  output      logic [15:0]       end_o,      // with eop_i: the eop packet's register before its VCRC
  output      logic [15:0]       got_o       // with eop_i: its VCRC bytes, {second, first}
);
  localparam int NB = DataW / 8;  // bytes a beat
  localparam int NS = NB / 4;     // 4-byte slots a beat

  if (DataW != 256 && DataW != 512) begin : gen_bad_width
    `IBR_PARAM_ERROR("ibr_crc16_seg: DataW must be 256 or 512")
  end

  // Per bit i: the open register's part, and each slot's contribution.
  logic [15:0]    run;       // crc_i*A^NB
  logic [15:0]    h0;        // 0xFFFF*A^NB (a constant)
  logic [16*NS-1:0] t;      // t[NS*i+k]: bit i of T_k
  for (genvar i = 0; i < 16; i++) begin : gen_bit
    localparam logic [527:0] M = ibr_pkg::vcrc_mask_wide(NB, i);
    assign run[i] = ^(crc_i & M[527:512]);
    assign h0[i]  = ^(16'hffff & M[527:512]);
    for (genvar k = 0; k < NS; k++) begin : gen_slot
      assign t[NS*i+k] = ^(data_i[DataW-1-32*k -: 32] & M[DataW-1-32*k -: 32]);
    end
  end

  // The register 0xFFFF at lane 8s, carried to the beat's end:
  // 0xFFFF*A^(NB-8s), h0 rewound by 8s bytes (constants).
  logic [16*(2**SegW)-1:0] hinit;  // segment s in bits 16s+15..16s
  for (genvar s = 0; s < 2**SegW; s++) begin : gen_hinit
    localparam logic [255:0] R = ibr_pkg::vcrc_rewind(s == 0 ? 4 : 8 * s);
    for (genvar i = 0; i < 16; i++) begin : gen_bit
      assign hinit[16*s+i] = s == 0 ? h0[i] : ^(h0 & R[16*i +: 16]);
    end
  end

  // The eop packet's VCRC slot e = NS-1-j, j = empty_i / 4; its last byte's lane.
  logic [EmptyW-3:0] j;
  assign j = empty_i[EmptyW-1:2];
  logic unused_empty;
  assign unused_empty = ^empty_i[1:0];  // 2: frames are 4k+2 bytes
  logic [EmptyW-1:0] last;
  assign last = EmptyW'(NB - 1) - empty_i;
  // The beat holds one whole packet: sop at or before the eop's last byte.
  logic one;
  assign one = sop_i && eop_i && {sop_seg_i, 3'b000} <= last;

  // Slot masks: from the head's first slot, and before the eop's VCRC slot.
  logic [NS-1:0] from_sop, before_vcrc;
  for (genvar k = 0; k < NS; k++) begin : gen_mask
    assign from_sop[k]    = 32'(k) >= 2 * 32'(sop_seg_i);
    assign before_vcrc[k] = 32'(k) + 32'(j) < 32'(NS - 1);
  end

  logic [15:0] hsel;  // the sop segment's
  assign hsel = hinit[16*sop_seg_i +: 16];
  logic [15:0] full, head, sum;
  for (genvar i = 0; i < 16; i++) begin : gen_sum
    assign full[i] = run[i] ^ (^t[NS*i +: NS]);
    assign head[i] = hsel[i] ^ (^(t[NS*i +: NS] & from_sop));
    assign sum[i]  = (one ? hsel[i] : run[i]) ^
                     (^(t[NS*i +: NS] & before_vcrc & (one ? from_sop : {NS{1'b1}})));
  end
  assign crc_o = sop_i ? head : full;

  // The eop packet's sum rewound by m = 4(j+1) zero bytes, for each j.
  logic [16*NS-1:0] rew;  // j = k in bits 16k+15..16k
  for (genvar k = 0; k < NS; k++) begin : gen_rewind
    localparam logic [255:0] R = ibr_pkg::vcrc_rewind(4 * (k + 1));
    for (genvar i = 0; i < 16; i++) begin : gen_bit
      assign rew[16*k+i] = ^(sum & R[16*i +: 16]);
    end
  end
  assign end_o = rew[16*j +: 16];

  // The VCRC: lanes NB-4j-4 (first) and NB-4j-3.
  logic [16*NS-1:0] got;
  for (genvar k = 0; k < NS; k++) begin : gen_got
    assign got[16*k +: 16] = {data_i[DataW-1-8*(NB-4*k-3) -: 8], data_i[DataW-1-8*(NB-4*k-4) -: 8]};
  end
  assign got_o = got[16*j +: 16];
endmodule

`default_nettype wire
