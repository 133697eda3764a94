// SPDX-License-Identifier: Apache-2.0

// ibr_switch_stage: one switch's egress stage of the one-reservoir telemetry
// scheme (Taffet, thesis section 5.7, Alg. 8), bit-exact with package refmodel
// of the ibreservoir Go model (docs/spec.md sections 2-5), on the telemetry
// field in BTH Resv6 (docs/spec.md section 2):
//
//   BTH byte 4:  7 FECN | 6 BECN | 5..0 Resv6
//   CountBits=3:   Resv6 = x | hop_bit | cong_bit | hop_count[2:0]   (bit 5 passes untouched)
//   CountBits=4:   Resv6 = hop_bit | cong_bit | hop_count[3:0]
//   sender L=3:    Resv6 = hop_bit | cong_bit | hop_rand[3:0]
//
// Per packet (spec section 5): n = hop_count; z = Draw(n+1); if z then
// hop_bit = H(id, d) and cong_bit = the port's congested bit; hop_count =
// min(n+1, 2^b-1). With sender draws z = (leading bit of hop_rand == 0) and
// hop_rand shifts left; a spent field (1 0..0) is left as it is; a field of 0
// is malformed and is left as it is, with stat_malformed_o.
//
// The ibr_stage library, leaf first (compile order; ibr_stage.f lists it):
//   ibr_pkg           kinds (enums) and the constants the Go model derives
//   ibr_crc16_bytes   combinational VCRC core over 4 or 8 bytes (IBA Vol. 1 7.8.2)
//   ibr_crc16_seg     the VCRC over a segmented 256/512-bit beat (docs/rtl.md)
//   ibr_seg_fields    where a segmented beat holds its two packets' fields
//   ibr_link_pre      per-port link encoding d and hash multiplier K (spec section 3)
//   ibr_hash          H(id, d), one bit, for every hash of package hash
//   ibr_gen_ideal     xoshiro128** with the exact rejection rule (spec section 4)
//   ibr_gen_lfsr_lut  B-bit LFSR and threshold table (thesis Fig. 5.7)
//   ibr_gen_shiftreg  circulating shift registers (thesis Fig. 5.6)
//   ibr_switch_stage  this module: stream in, field update, VCRC, stream out
// A configuration is a wrapper (ibreservoir verilog) that fixes the parameters.
//
// Stream format: DataW-bit beats (64, 128, 256 or 512 bits; "words" below is
// the 64-bit case), byte k of a beat (lane k) in bits DataW-1-8k -: 8, packet
// byte 0 in lane 0 of the sop beat (network order); one packet per beat (a
// beat never holds bytes of two packets); in_sop_i on the beat holding LRH
// byte 0, in_eop_i on the beat holding the last VCRC byte, in_empty_i =
// unused bytes at the end of the eop beat; valid/ready handshakes on both
// sides. At DataW > 64, BTH byte 4 and the PSN fall in the beats and lanes
// derived from DataW (docs/rtl.md, "Beat width"), possibly the sop beat, and
// the VCRC of the eop beat is one CRC step over the whole beat with its last
// m bytes zeroed, rewound by m zero bytes (ibr_pkg::vcrc_rewind).
//
// Segmented = 1 (DataW 256 or 512; docs/rtl.md, "Segmented beats"): a packet
// starts at any 8-byte segment (in_sop_seg_i), so a beat may hold the end of
// one packet (the tail) and the start of the next (the head), at most one
// sop and one eop. ibr_seg_fields finds both packets' BTH byte 4 and PSN;
// a beat allocates up to two decision entries (the tail's first), its PSNs
// join a 2-entry id queue before the one hash unit, the egress patches up to
// two telemetry bytes, ibr_crc16_seg checks and recomputes the eop packet's
// VCRC while starting the head's, and a beat's second status leaves a cycle
// after its first. Each packet's hash takes the port configuration its sop
// beat was taken with. The egress keeps the beat structure it was given.
//
// Datapath. Words pass through PipeDepth registers (an elastic pipeline that
// collapses bubbles), behind a one-word skid buffer that registers in_ready_o
// (ReadyPath = ReadySkid; with ReadyComb, in_ready_o follows out_ready_i
// combinationally and there is no skid buffer). As a word enters slot 0, the
// LRH gives LNH, PktLen and SLID (word 0), and the BTH (at byte 8 for LNH=2,
// byte 48 for LNH=3) gives byte 4 and DestQP (word 1 or 6, "the telemetry
// word") and the PSN (the next word). The telemetry word starts the draw; the
// PSN word gives the hash. When the telemetry word reaches the output, byte 4
// is rewritten; if the decision is not ready (a rejected ideal draw still
// retrying) the output stalls and in_ready_o falls once the pipeline is full.
// At DataW > 64 a short packet is one or two beats, so several decisions may
// be pending at once: each telemetry beat inside has its own entry in a ring
// of PipeDepth decisions (byte 4, the congested bit, the hash by the entry's
// tag, the draw and the generator state after it), the draws start in packet
// order, and the ingress never waits for a decision: packets of any length
// enter back to back, a beat a cycle.
// A streaming VCRC runs over the egress words and replaces the packet's VCRC,
// its last two bytes (the eop word's lanes 4-5 with in_empty_i = 2, lanes 0-1
// with 6; the link delivers 4k+2-byte frames, docs/spec.md section 5); a
// second one checks the incoming VCRC. A corrupt packet (docs/spec.md section
// 5, step 0: a wrong incoming VCRC, a PktLen that disagrees with the frame's
// length, or one beyond the longest legal packet, ibr_pkg::MaxLegalPktLen)
// leaves with its VCRC stomped: the complement of the valid VCRC of the bytes
// it leaves with, so it is never valid and a second stage stomps it alike. Its
// telemetry word has left by then (cut-through) and is updated as any other's.
// The ICRC and every other byte pass untouched. Packets that are not IBA
// transport packets (LNH 0 or 1) pass with only their VCRC recomputed.
//
// Combinational input-to-output paths: none with ReadySkid (every output is a
// register or a function of registers only); out_ready_i to in_ready_o with
// ReadyComb. rst_ni clears every control register (valid bits, sop/eop tags,
// counters, header fields that steer, the decision's state) asynchronously;
// the data registers (the beats in the slots and the skid buffer, the captured
// BTH byte 4, DestQP, SLID, and at DataW > 64 the entries' byte 4 and
// generator state) have no reset: nothing reads them before a valid beat (or
// draw) has written them.
//
// Latency: PipeDepth cycles at every DataW (the skid buffer adds none while
// out_ready_i is high) while each decision is ready as its telemetry beat
// reaches the output: 2 cycles after the beat enters (mxm's hash 3, SipHash
// over HashLatency stages HashLatency more, and 128 bits with LNH=2, where
// the PSN is the next beat, one more), so depth 2 keeps a beat a cycle but
// for those; at DataW > 64 the ring of PipeDepth decisions (up to 16) hides
// a later hash at depth HashLatency+2. The congested bit is sampled when the
// sop word is accepted (in_valid_i && in_ready_o). A packet's hash uses the port configuration
// (cfg_we_i) current when its PSN word enters slot 0, so cfg_we_i may come with
// the next packet's sop word. gen_load_i (seeding) must come between packets,
// when no draw is pending. cong_i on any other cycle is never read.
//
// Simulation checks (ifndef SYNTHESIS) end the run with $fatal, which every
// simulator (Icarus included) turns into a non-zero exit status.
`include "ibr_defs.svh"
`default_nettype none

module ibr_switch_stage #(
  parameter `IBR_ENUM(ibr_pkg::hash_e)  HashKind  = ibr_pkg::HashMult0,  // H(id, d)
  parameter `IBR_ENUM(ibr_pkg::gen_e)   GenKind   = ibr_pkg::GenIdeal,   // the generator
  parameter int                         CountBits = 3,  // hop_count width b (switch generators), 1..4
  parameter int                         SenderL   = 0,  // sender draws L, 1..3: hop_rand is L+1 bits
  parameter `IBR_ENUM(ibr_pkg::id_e)    IdOpt     = ibr_pkg::IdPsn,      // the packet id
  parameter `IBR_ENUM(ibr_pkg::link_e)  LinkEnc   = ibr_pkg::LinkThesis, // the link encoding d(s, p)
  parameter int                         PipeDepth = 2,  // pipeline registers, 2..4 (DataW > 64: 2..16)
  parameter `IBR_ENUM(ibr_pkg::ready_e) ReadyPath = ibr_pkg::ReadySkid,  // in_ready_o registered
  parameter logic [127:0]               SipKey    = ibr_pkg::DefaultSipKey,
  // SipHash only: its eight rounds over HashLatency pipeline stages
  // (ibr_siphash), 0..8; 0 does them in the PSN's cycle.
  parameter int                         HashLatency = 0,
  // GenLfsrLut: register width B (3..32) and steps k per draw (1..32).
  parameter int                         LfsrWidth = 16,
  parameter int                         LfsrSteps = 1,
  // GenShiftreg: clocking, and the free-running ratio P/Q (Q up to 64).
  parameter `IBR_ENUM(ibr_pkg::clock_e) ShiftClock = ibr_pkg::ClockPerDraw,
  parameter int                         ShiftP     = 1,
  parameter int                         ShiftQ     = 1,
  // Beat width in bits: 64, 128, 256 or 512.
  parameter int                         DataW      = 64,
  // Beats shared by two packets (docs/rtl.md, "Segmented beats"): 0, one
  // packet a beat, in_sop_seg_i ignored and out_sop_seg_o 0; 1 (DataW 256 or
  // 512 only), a beat may hold the end of one packet and the start of the
  // next, from segment in_sop_seg_i.
  parameter bit                         Segmented  = 1'b0,
  // Width of the generator state port, rng's StateBits (1 for sender draws,
  // which have none); derived, not set.
  parameter int StateW = (GenKind == ibr_pkg::GenIdeal)   ? 128 :
                         (GenKind == ibr_pkg::GenLfsrLut) ? LfsrWidth :
                         (GenKind == ibr_pkg::GenShiftreg) ?
                           (1 << CountBits) * ((1 << CountBits) + 1) / 2 +
                           ((ShiftClock == ibr_pkg::ClockFree && ShiftQ > 1) ? $clog2(ShiftQ) : 0) :
                         1,
  // Width of the hop field (hop_count, or hop_rand with sender draws); derived.
  parameter int FieldW = (GenKind == ibr_pkg::GenSender) ? SenderL + 1 : CountBits,
  // Width of in_empty_i/out_empty_o, log2 of the bytes a beat; derived.
  parameter int EmptyW = $clog2(DataW / 8),
  // Width of in_sop_seg_i/out_sop_seg_o, log2 of the 8-byte segments a beat
  // (1 at 64 and 128 bits); derived.
  parameter int SegW = (DataW > 128) ? $clog2(DataW / 64) : 1
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  // Port configuration, written by the subnet manager.
  input  wire logic              cfg_we_i,      // load switch ID and port, precompute d and K
  input  wire logic [15:0]       cfg_switch_i,  // switch ID
  input  wire logic [7:0]        cfg_port_i,    // this output port
  // The port is congested (thesis section 5.10); sampled with the sop word.
  input  wire logic              cong_i,
  // Generator state (seeding at bring-up; test vectors).
  input  wire logic              gen_load_i,    // load gen_state_i (between packets)
  input  wire logic [StateW-1:0] gen_state_i,   // the state to load (rng.State bits)
  output      logic [StateW-1:0] gen_state_o,   // with stat_valid_o: the state after that draw
  // Ingress stream.
  input  wire logic              in_valid_i,    // in_data_i holds a beat
  output      logic              in_ready_o,    // the stage takes it this cycle
  input  wire logic [DataW-1:0]  in_data_i,     // packet byte (DataW/8)w+k in lane k
  input  wire logic              in_sop_i,      // the packet's first beat
  input  wire logic              in_eop_i,      // the packet's last beat
  input  wire logic [EmptyW-1:0] in_empty_i,    // unused bytes at the end of the eop beat
  input  wire logic [SegW-1:0]   in_sop_seg_i,  // Segmented: the sop packet's first segment
  // Egress stream.
  output      logic              out_valid_o,   // out_data_o holds a beat
  input  wire logic              out_ready_i,   // the next stage takes it this cycle
  output      logic [DataW-1:0]  out_data_o,    // as in_data_i
  output      logic              out_sop_o,     // the packet's first beat
  output      logic              out_eop_o,     // the packet's last beat
  output      logic [EmptyW-1:0] out_empty_o,   // unused bytes at the end of the eop beat
  output      logic [SegW-1:0]   out_sop_seg_o, // Segmented: as in_sop_seg_i; else 0
  // Per-packet status, one cycle after the telemetry word leaves (counters, coverage;
  // Segmented: a beat's second one, two cycles after).
  output      logic              stat_valid_o,      // the fields below are this packet's
  output      logic              stat_replace_o,    // the reservoir took this hop
  output      logic              stat_saturated_o,  // count already at 2^b-1 (sender: draws spent)
  output      logic              stat_cong_o,       // the port's congested bit for this packet
  output      logic              stat_hash_o,       // H(id, d) for this hop
  output      logic [FieldW-1:0] stat_field_o,      // hop_count or hop_rand after the stage
  output      logic              stat_malformed_o   // sender draws: hop_rand was 0
);
  localparam bit Sender   = GenKind == ibr_pkg::GenSender;
  localparam int LW       = Sender ? 1 : CountBits + 1;  // width of l = count+1 <= 2^b
  localparam int CountMax = (1 << FieldW) - 1;
  localparam int MaxL     = 1 << CountBits;
  localparam int NB       = DataW / 8;   // bytes a beat
  localparam bit Wide     = DataW > 64;  // a beat of more than one 64-bit word
  // Pending decisions at DataW > 64: one per telemetry beat in the pipeline
  // (a one-beat packet's telemetry beat may fill every slot), in a ring of
  // DecN entries addressed by DecW-bit pointers (DecA entries stored).
  // Segmented: one per telemetry byte; a packet's lies in its sop beat or the
  // next, and a beat holds one sop, so PipeDepth beats hold at most
  // PipeDepth+1 of them.
  localparam int DecN     = Segmented ? PipeDepth + 1 : PipeDepth;
  localparam int DecW     = $clog2(DecN);

  // Elaboration-time parameter checks.
  if (HashKind < ibr_pkg::HashParity || HashKind > ibr_pkg::HashMxm) begin : gen_bad_hash
    `IBR_PARAM_ERROR("ibr_switch_stage: HashKind must be an ibr_pkg::hash_e")
  end
  if (GenKind < ibr_pkg::GenIdeal || GenKind > ibr_pkg::GenSender) begin : gen_bad_gen
    `IBR_PARAM_ERROR("ibr_switch_stage: GenKind must be an ibr_pkg::gen_e")
  end
  if (!Sender && (CountBits < 1 || CountBits > 4)) begin : gen_bad_count
    `IBR_PARAM_ERROR("ibr_switch_stage: CountBits must be 1..4 (the fields share Resv6's 6 bits)")
  end
  if (Sender && (SenderL < 1 || SenderL > 3)) begin : gen_bad_sender
    `IBR_PARAM_ERROR("ibr_switch_stage: SenderL must be 1..3 (the fields share Resv6's 6 bits)")
  end
  if (IdOpt < ibr_pkg::IdPsn || IdOpt > ibr_pkg::IdPsnDestqp) begin : gen_bad_id
    `IBR_PARAM_ERROR("ibr_switch_stage: IdOpt must be an ibr_pkg::id_e")
  end
  if (ReadyPath != ibr_pkg::ReadySkid && ReadyPath != ibr_pkg::ReadyComb) begin : gen_bad_ready
    `IBR_PARAM_ERROR("ibr_switch_stage: ReadyPath must be an ibr_pkg::ready_e")
  end
  if (PipeDepth < 2 || PipeDepth > (Wide ? 16 : 4)) begin : gen_bad_depth
    // 2: the telemetry word must wait one word for the PSN. 4 at 64 bits: the
    // shortest packet is 4 words, so at most one packet's decision is ever
    // pending. Wider beats keep a ring of PipeDepth decisions: 16 at most.
    `IBR_PARAM_ERROR("ibr_switch_stage: PipeDepth must be 2..4 (DataW > 64: 2..16)")
  end
  if (HashLatency < 0 || HashLatency > 8 || (HashLatency != 0 && HashKind != ibr_pkg::HashSiphash))
  begin : gen_bad_hash_latency
    `IBR_PARAM_ERROR("ibr_switch_stage: HashLatency must be 0..8, and 0 but for SipHash")
  end
  if (DataW != 64 && DataW != 128 && DataW != 256 && DataW != 512) begin : gen_bad_width
    `IBR_PARAM_ERROR("ibr_switch_stage: DataW must be 64, 128, 256 or 512")
  end
  if (EmptyW != $clog2(DataW / 8)) begin : gen_bad_empty
    `IBR_PARAM_ERROR("ibr_switch_stage: EmptyW is derived ($clog2(DataW/8)); do not set it")
  end
  if (SegW != ((DataW > 128) ? $clog2(DataW / 64) : 1)) begin : gen_bad_segw
    `IBR_PARAM_ERROR("ibr_switch_stage: SegW is derived (log2 of the segments a beat); do not set it")
  end
  if (Segmented && DataW != 256 && DataW != 512) begin : gen_bad_segmented_width
    `IBR_PARAM_ERROR("ibr_switch_stage: Segmented needs DataW 256 or 512")
  end

  // ---------------------------------------------------------------------------
  // Port configuration: d and K once per port.
  logic [31:0] d_pre, k_pre, d_q, k_q;
  ibr_link_pre #(.HashKind(HashKind), .LinkEnc(LinkEnc)) u_link_pre (
    .switch_i(cfg_switch_i), .port_i(cfg_port_i), .d_o(d_pre), .k_o(k_pre)
  );
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d_q <= '0;
      k_q <= '0;
    end else if (cfg_we_i) begin
      d_q <= d_pre;
      k_q <= k_pre;
    end
  end

  // ---------------------------------------------------------------------------
  // Ingress: the word offered to slot 0 (iw_*), from the skid buffer when it
  // holds one, else from the input.
  logic [PipeDepth-1:0] accept;  // slot i takes a new word this cycle (below)
  logic        iw_valid, iw_sop, iw_eop, iw_cong, iw_fire;
  logic [DataW-1:0]  iw_beat;
  logic [63:0]       iw_data;  // the beat's lanes 0-7 (the LRH in the sop beat; segmented: the sop segment's)
  logic [EmptyW-1:0] iw_empty;
  // The port configuration as of the beat's handshake (a write with it
  // applies): at DataW > 64 the PSN may share the sop beat, with which the
  // next packet's cfg_we_i may already come while this one waits.
  logic [31:0]       iw_d, iw_k;
  logic [SegW-1:0]   iw_seg;  // Segmented: the sop segment

  if (ReadyPath == ibr_pkg::ReadySkid) begin : gen_skid
    // A one-word skid buffer: in_ready_o is "the buffer is empty", a register.
    // A word that arrives while slot 0 cannot take it waits here; slot 0 takes
    // from here first. The buffer adds no latency while the pipeline flows.
    logic              skid_v_q, skid_sop_q, skid_eop_q, skid_cong_q;
    logic [DataW-1:0]  skid_data_q;
    logic [EmptyW-1:0] skid_empty_q;
    assign in_ready_o = !skid_v_q;
    assign iw_valid   = skid_v_q || in_valid_i;
    assign iw_beat    = skid_v_q ? skid_data_q  : in_data_i;
    assign iw_sop     = skid_v_q ? skid_sop_q   : in_sop_i;
    assign iw_eop     = skid_v_q ? skid_eop_q   : in_eop_i;
    assign iw_empty   = skid_v_q ? skid_empty_q : in_empty_i;
    assign iw_cong    = skid_v_q ? skid_cong_q  : cong_i;
    logic [31:0] skid_d_q, skid_k_q;
    assign iw_d = skid_v_q ? skid_d_q : (cfg_we_i ? d_pre : d_q);
    assign iw_k = skid_v_q ? skid_k_q : (cfg_we_i ? k_pre : k_q);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        skid_v_q     <= 1'b0;
        skid_sop_q   <= 1'b0;
        skid_eop_q   <= 1'b0;
        skid_cong_q  <= 1'b0;
        skid_empty_q <= '0;
      end else if (skid_v_q) begin
        if (accept[0]) begin
          skid_v_q <= 1'b0;
        end
      end else if (in_valid_i && !accept[0]) begin
        skid_v_q     <= 1'b1;
        skid_sop_q   <= in_sop_i;
        skid_eop_q   <= in_eop_i;
        skid_cong_q  <= cong_i;
        skid_empty_q <= in_empty_i;
      end
    end
    // The beat itself: data, no reset (read only while skid_v_q).
    always_ff @(posedge clk_i) begin
      if (!skid_v_q && in_valid_i && !accept[0]) begin
        skid_data_q <= in_data_i;
        skid_d_q    <= cfg_we_i ? d_pre : d_q;
        skid_k_q    <= cfg_we_i ? k_pre : k_q;
      end
    end
    if (Segmented) begin : gen_skid_seg
      logic [SegW-1:0] skid_seg_q;
      always_ff @(posedge clk_i) begin
        if (!skid_v_q && in_valid_i && !accept[0]) begin
          skid_seg_q <= in_sop_seg_i;  // data, no reset (read only while skid_v_q)
        end
      end
      assign iw_seg = skid_v_q ? skid_seg_q : in_sop_seg_i;
    end else begin : gen_skid_noseg
      assign iw_seg = in_sop_seg_i;
    end
  end else begin : gen_comb_ready
    // A plain elastic pipeline: the input is ready when slot 0 takes a word.
    assign in_ready_o = accept[0];
    assign iw_valid   = in_valid_i;
    assign iw_beat    = in_data_i;
    assign iw_sop     = in_sop_i;
    assign iw_eop     = in_eop_i;
    assign iw_empty   = in_empty_i;
    assign iw_cong    = cong_i;
    assign iw_d       = cfg_we_i ? d_pre : d_q;
    assign iw_k       = cfg_we_i ? k_pre : k_q;
    assign iw_seg     = in_sop_seg_i;
  end
  assign iw_fire = iw_valid && accept[0];
  if (Segmented) begin : gen_hdr_seg
    // The sop packet's LRH: its segment of the beat.
    assign iw_data = iw_beat[DataW-1-64*32'(iw_seg) -: 64];
  end else begin : gen_hdr_lane0
    assign iw_data = iw_beat[DataW-1 -: 64];
  end
  logic unused_lrh0;
  assign unused_lrh0 = ^iw_data;  // the fields read depend on DataW; the slots carry the beat whole

  // Word index and header-field extraction, as a word enters slot 0. The
  // index counts beats and saturates at 2047, above the last beat of the
  // longest frame PktLen can describe at every DataW (1023 at 64 bits).
  logic [10:0] wcnt_q, widx;
  logic [1:0]  lnh_q, lnh;
  logic [10:0] pktlen_q, pktlen;
  logic [15:0] slid_q, slid;
  logic [23:0] destqp_q;  // DestQP of the newest telemetry beat (below)
  logic        sop_cong_q;
  logic        iba, is_tel_in, is_psn_in, is_vcrc_in, len_bad_in, lane4_in;
  // Segmented: the beat holds two packets (the tail ending, the head
  // starting), and a second telemetry byte (the head's, behind the tail's).
  logic        seg_two, is_tel2_in;
  logic [7:0]  tel2_byte4;
  logic        tel_cong, tel2_cong;  // the congested bit of each telemetry byte's packet
  logic        seg_t_tel;            // the first telemetry byte is the tail's
  logic [EmptyW-1:0] seg_lane0, seg_lane1;  // the lanes of the first and second telemetry byte
  logic        seg_psn_t, seg_psn_h; // the beat holds the tail's, the head's PSN
  logic [31:0] seg_id_t, seg_id_h;   //   and their ids
  logic [31:0] seg_d_t, seg_k_t;     // the tail's port configuration (its sop beat's)
  logic [10:0] tel_widx;
  logic [7:0]  tel_byte4;   // BTH byte 4 of the beat entering slot 0, were it the telemetry beat
  logic [23:0] tel_destqp;  // DestQP (BTH bytes 5-7), likewise
  logic [23:0] psn;         // the PSN (BTH bytes 9-11) of the PSN beat

  assign widx    = iw_sop ? 11'd0 : wcnt_q;
  // LRH byte 1 bits 1..0 (LNH) and bytes 4-5 (Rsv5, PktLen) come with word 0.
  assign lnh     = iw_sop ? iw_data[49:48] : lnh_q;
  assign pktlen  = iw_sop ? iw_data[26:16] : pktlen_q;
  assign iba     = lnh[1];  // LNH 2 (local) or 3 (global)
  assign is_vcrc_in = iw_eop;
  if (!Wide) begin : gen_w64
    // BTH byte 4 is packet byte 12 (LNH=2) or 52 (LNH=3): lane 4 of word 1 or 6.
    assign tel_widx   = lnh[0] ? 11'd6 : 11'd1;
    assign is_tel_in  = iba && widx == tel_widx;
    assign is_psn_in  = iba && widx == tel_widx + 11'd1;
    assign tel_byte4  = iw_data[31:24];
    assign tel_destqp = iw_data[23:0];
    assign psn = iw_data[55:32];
    // The VCRC is the frame's last two bytes: the eop word's lanes 4-5 when two
    // bytes are unused, else lanes 0-1. PktLen must put it there: byte 4*PktLen
    // is word PktLen/2, lane 4 for an odd PktLen (in_empty_i 2), lane 0 for an
    // even one (6). The word index saturates at 2047, above any PktLen/2 (1023),
    // so a frame longer than the counter never matches. A PktLen beyond the
    // longest legal packet is corrupt whatever the frame.
    assign lane4_in   = iw_empty == 3'd2;
    assign len_bad_in = widx != {1'b0, pktlen[10:1]} || iw_empty != (pktlen[0] ? 3'd2 : 3'd6) ||
                        pktlen > 11'(ibr_pkg::MaxLegalPktLen);
  end else if (!Segmented) begin : gen_wide_in
    // The BTH starts at packet byte 8 (LNH=2) or 48 (LNH=3, behind the GRH):
    // byte 4 and DestQP (BTH bytes 4-7) and the PSN (9-11) each lie in one
    // beat at every width; beat index and lane of each, per LNH.
    localparam int Tel2 = 8 + 4, Tel3 = 48 + 4, Psn2 = 8 + 9, Psn3 = 48 + 9;
    assign tel_widx   = lnh[0] ? 11'(Tel3 / NB) : 11'(Tel2 / NB);
    assign is_tel_in  = iba && widx == tel_widx;
    assign is_psn_in  = iba && widx == (lnh[0] ? 11'(Psn3 / NB) : 11'(Psn2 / NB));
    assign tel_byte4  = lnh[0] ? iw_beat[DataW-1-8*(Tel3 % NB) -: 8] : iw_beat[DataW-1-8*(Tel2 % NB) -: 8];
    assign tel_destqp = lnh[0] ? iw_beat[DataW-9-8*(Tel3 % NB) -: 24] : iw_beat[DataW-9-8*(Tel2 % NB) -: 24];
    assign psn        = lnh[0] ? iw_beat[DataW-1-8*(Psn3 % NB) -: 24] : iw_beat[DataW-1-8*(Psn2 % NB) -: 24];
    // The frame holds 4*PktLen+2 bytes (the VCRC last), so its eop beat is
    // beat (4*PktLen+1)/NB with -(4*PktLen+2) mod NB unused bytes. The beat
    // index saturates above any such beat, so a frame longer than the counter
    // never matches.
    logic [12:0] flen;
    assign flen       = {pktlen, 2'b10};
    assign lane4_in   = 1'b0;  // the 64-bit stage's VCRC lane tag; unused here
    assign len_bad_in = widx != 11'((flen - 13'd1) >> EmptyW) || iw_empty != EmptyW'(13'd0 - flen) ||
                        pktlen > 11'(ibr_pkg::MaxLegalPktLen);
  end else begin : gen_seg_in
    // Segmented beats: ibr_seg_fields gives where the beat holds the tail's
    // (the packet open before it) and the head's (starting in it) BTH byte 4
    // and PSN. The first telemetry byte (the tail's when the beat holds it,
    // else the head's) takes the first decision entry allocated, the head's
    // behind the tail's the second (is_tel2_in).
    logic              t_tel, t_psn, h_tel, h_psn;
    logic [EmptyW-1:0] t_tel_lane, t_psn_lane, h_tel_lane, h_psn_lane;
    ibr_seg_fields #(.DataW(DataW)) u_fields (
      .clk_i, .rst_ni, .take_i(iw_fire), .data_i(iw_beat), .sop_i(iw_sop), .sop_seg_i(iw_seg),
      .eop_i(iw_eop), .empty_i(iw_empty),
      .tail_tel_o(t_tel), .tail_tel_lane_o(t_tel_lane), .tail_psn_o(t_psn), .tail_psn_lane_o(t_psn_lane),
      .head_tel_o(h_tel), .head_tel_lane_o(h_tel_lane), .head_psn_o(h_psn), .head_psn_lane_o(h_psn_lane)
    );
    logic [7:0]  t_b4, h_b4;
    logic [23:0] t_dq, h_dq, t_psnv, h_psnv;
    assign t_b4   = iw_beat[DataW-1-8*32'(t_tel_lane) -: 8];
    assign t_dq   = iw_beat[DataW-9-8*32'(t_tel_lane) -: 24];
    assign h_b4   = iw_beat[DataW-1-8*32'(h_tel_lane) -: 8];
    assign h_dq   = iw_beat[DataW-9-8*32'(h_tel_lane) -: 24];
    assign t_psnv = iw_beat[DataW-1-8*32'(t_psn_lane) -: 24];
    assign h_psnv = iw_beat[DataW-1-8*32'(h_psn_lane) -: 24];
    assign is_tel_in  = t_tel || h_tel;
    assign is_tel2_in = t_tel && h_tel;
    assign tel_byte4  = t_tel ? t_b4 : h_b4;
    assign tel2_byte4 = h_b4;
    // The tail's congested bit came with its sop beat, the head's comes now.
    assign tel_cong   = t_tel ? sop_cong_q : iw_cong;
    assign tel2_cong  = iw_cong;
    assign tel_destqp = h_tel ? h_dq : t_dq;  // the newest telemetry byte's (destqp_q)
    assign is_psn_in  = t_psn || h_psn;
    assign tel_widx   = '0;  // (the fields' beats: ibr_seg_fields)
    assign psn        = '0;  // (the two ids: below)
    // The ids: the tail's with the SLID of its sop beat and the DestQP of its
    // telemetry byte (this beat's or an earlier one's), the head's from this
    // beat. Each hash takes the port configuration its packet's sop beat was
    // taken with (a cfg_we_i with it applies): the tail's registered then
    // (this beat's write, with the head's sop, is the head's).
    logic [31:0] pkt_d_q, pkt_k_q;
    always_ff @(posedge clk_i) begin
      if (iw_fire && iw_sop) begin
        pkt_d_q <= iw_d;  // data, no reset (read only for a packet after its sop beat)
        pkt_k_q <= iw_k;
      end
    end
    assign seg_d_t    = pkt_d_q;
    assign seg_k_t    = pkt_k_q;
    assign seg_t_tel  = t_tel;
    assign seg_lane0  = t_tel ? t_tel_lane : h_tel_lane;
    assign seg_lane1  = h_tel_lane;
    assign seg_psn_t  = t_psn;
    assign seg_psn_h  = h_psn;
    assign seg_id_t   = id_of(t_psnv, slid_q, t_tel ? t_dq : destqp_q);
    assign seg_id_h   = id_of(h_psnv, iw_data[15:0], h_dq);
    // The frame-length check of the packet ending in the beat: the head when
    // the beat holds it whole, else the tail (its sop segment, PktLen and beat
    // count registered from its sop beat). The frame of 4*PktLen+2 bytes from
    // lane 8s ends in beat (8s+4*PktLen+1)/NB with -(8s+4*PktLen+2) mod NB
    // lanes empty.
    logic [EmptyW-1:0] last;
    logic              one;
    logic [SegW-1:0]   seg_q, e_seg;
    logic [10:0]       e_plen, e_widx;
    logic [13:0]       eoff;
    assign last    = EmptyW'(NB - 1) - iw_empty;
    assign one     = iw_sop && iw_eop && {iw_seg, 3'b000} <= last;
    assign seg_two = iw_sop && iw_eop && !one;
    assign e_seg   = one ? iw_seg : seg_q;
    assign e_plen  = one ? iw_data[26:16] : pktlen_q;
    assign e_widx  = one ? 11'd0 : wcnt_q;
    assign eoff    = 14'({e_seg, 3'b000}) + 14'({e_plen, 2'b10});
    assign lane4_in   = 1'b0;  // the 64-bit stage's VCRC lane tag; unused here
    assign len_bad_in = e_widx != 11'((eoff - 14'd1) >> EmptyW) || iw_empty != EmptyW'(14'd0 - eoff) ||
                        e_plen > 11'(ibr_pkg::MaxLegalPktLen);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        seg_q <= '0;
      end else if (iw_fire && iw_sop) begin
        seg_q <= iw_seg;
      end
    end
    logic unused_seg_in;
    assign unused_seg_in = ^{iba, pktlen, tel_widx, psn};
  end
  if (!Segmented) begin : gen_one_tel
    // One telemetry byte a beat; its congested bit from the sop beat (at
    // DataW > 64 possibly the telemetry beat itself).
    assign seg_two    = 1'b0;
    assign is_tel2_in = 1'b0;
    assign tel2_byte4 = '0;
    assign tel_cong   = 1'b0;  // (the ring's entries take it from the sop beat or sop_cong_q)
    assign tel2_cong  = 1'b0;
    assign seg_t_tel  = 1'b0;
    assign seg_lane0  = '0;
    assign seg_lane1  = '0;
    assign seg_psn_t  = 1'b0;
    assign seg_psn_h  = 1'b0;
    assign seg_id_t   = '0;
    assign seg_id_h   = '0;
    assign seg_d_t    = '0;
    assign seg_k_t    = '0;
    logic unused_one_tel;
    assign unused_one_tel = ^{iw_seg, seg_d_t, seg_k_t, seg_two, is_tel2_in, tel2_byte4, tel_cong, tel2_cong,
                              seg_t_tel, seg_psn_t, seg_psn_h, seg_id_t, seg_id_h, seg_lane0, seg_lane1};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wcnt_q     <= '0;
      lnh_q      <= '0;
      pktlen_q   <= '0;
      sop_cong_q <= 1'b0;
    end else if (iw_fire) begin
      wcnt_q <= (iw_eop && !seg_two) ? 11'd0 : (widx == 11'h7ff ? widx : widx + 11'd1);
      if (iw_sop) begin
        lnh_q      <= iw_data[49:48];
        pktlen_q   <= iw_data[26:16];
        sop_cong_q <= iw_cong;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (iw_fire && iw_sop) begin
      slid_q <= iw_data[15:0];  // LRH bytes 6-7: data, no reset
    end
  end

  // Telemetry word: BTH byte 4 and DestQP (BTH bytes 5-7); PSN word: BTH bytes 9-11.
  logic [7:0]  byte4_q;
  logic        tel_seen_q, dec_cong_q, draw_start_q;
  logic [23:0] destqp;  // DestQP for the id: from the beat itself when it is the telemetry beat
  logic [31:0] id;
  logic        hash_bit, hash_q, hash_ok_q;
  logic        sip_bit;   // the pipelined SipHash's bit (HashLatency > 0), taken instead of hash_bit
  if (Wide) begin : gen_id_fields_wide
    // SLID (LRH bytes 6-7) and DestQP from the beat itself when the PSN shares
    // the sop beat (DataW 256 with LNH=2, 512) or the telemetry beat (DataW
    // 128 with LNH=3, 256, 512).
    assign slid   = iw_sop ? iw_data[15:0] : slid_q;
    assign destqp = is_tel_in ? tel_destqp : destqp_q;
  end else begin : gen_id_fields_w64
    assign slid   = slid_q;
    assign destqp = destqp_q;
  end
  // The id of a segmented beat's two packets (gen_id_seg): the rule of the
  // gen_id_* blocks below, for any PSN, SLID and DestQP.
  function automatic logic [31:0] id_of(input logic [23:0] p, input logic [15:0] sl, input logic [23:0] dq);
    case (IdOpt)
      ibr_pkg::IdPsn:     id_of = {8'd0, p};
      ibr_pkg::IdPsnOdd:  id_of = {7'd0, p, 1'b1};
      ibr_pkg::IdPsnSlid: id_of = {8'd0, p} ^ {sl, 16'd0};
      default:            id_of = {8'd0, p} ^ {dq, 8'd0};
    endcase
  endfunction
  if (IdOpt == ibr_pkg::IdPsn) begin : gen_id_psn
    assign id = {8'd0, psn};
    logic unused_id_fields;
    assign unused_id_fields = ^{slid, destqp};
  end else if (IdOpt == ibr_pkg::IdPsnOdd) begin : gen_id_psn_odd
    assign id = {7'd0, psn, 1'b1};
    logic unused_id_fields;
    assign unused_id_fields = ^{slid, destqp};
  end else if (IdOpt == ibr_pkg::IdPsnSlid) begin : gen_id_psn_slid
    assign id = {8'd0, psn} ^ {slid, 16'd0};
    logic unused_id_fields;
    assign unused_id_fields = ^destqp;
  end else begin : gen_id_psn_destqp
    assign id = {8'd0, psn} ^ {destqp, 8'd0};
    logic unused_id_fields;
    assign unused_id_fields = ^slid;
  end
  // hash_bit is the packet's hash in the cycle hash_take is high: the PSN
  // word's own cycle for every hash but mxm, whose two multipliers in series
  // would set the stage's clock. mxm takes a pipeline register between them
  // (docs/rtl.md, "Hash"): the product K*id is latched with the PSN word, and
  // ibr_hash takes it as its id with K = 1 a cycle later (mxm_fold, mxm_mul).
  //
  // hash_id is the id the hash takes in the cycle psn_take is high: the PSN
  // word's own at 64 bits. At DataW > 64 it is registered first and taken a
  // cycle later: the PSN may share the sop beat, and the port configuration
  // written with that beat (cfg_we_i) must apply to it; nor does any path
  // then run from the beat's lanes into the hash. (One cycle of the decision's
  // latency; the telemetry beat still reaches the head no earlier.)
  //
  // At DataW > 64 each hash carries the tag of its packet's pending decision
  // (tel_tag: the entry of the newest telemetry beat, or of the one entering
  // with the PSN beat), so that it is written to that packet's entry however
  // many decisions are pending (below, "The decisions").
  logic [31:0] hash_id, hash_d, hash_k;  // with the configuration the PSN beat was taken with
  logic        psn_take;
  logic [DecW-1:0] tel_tag, psn_tag, hash_tag;
  logic [DecW-1:0] seg_tag_t, seg_tag_h;  // segmented: the entries of the tail's and the head's telemetry bytes
  if (!Segmented) begin : gen_no_seg_tags
    logic unused_seg_tags;
    assign unused_seg_tags = ^{seg_tag_t, seg_tag_h};
  end
  if (Wide && !Segmented) begin : gen_id_reg
    logic id_ok_q;
    logic [31:0] id_q, id_d_q, id_k_q;
    logic [DecW-1:0] id_tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        id_ok_q  <= 1'b0;
        id_tag_q <= '0;
      end else begin
        id_ok_q <= iw_fire && is_psn_in;
        if (iw_fire && is_psn_in) begin
          id_tag_q <= tel_tag;
        end
      end
    end
    always_ff @(posedge clk_i) begin
      if (iw_fire && is_psn_in) begin
        id_q   <= id;  // data, no reset
        id_d_q <= iw_d;
        id_k_q <= iw_k;
      end
    end
    assign hash_id  = id_q;
    assign hash_d   = id_d_q;
    assign hash_k   = id_k_q;
    assign psn_take = id_ok_q;
    assign psn_tag  = id_tag_q;
  end else if (Wide) begin : gen_id_seg
    // Up to two PSNs a beat (the tail's, then the head's) join a 2-entry
    // queue of (id, configuration, tag) before the one hash unit, which takes
    // the oldest a cycle. A beat holds one sop, so at most one id waits a
    // cycle (docs/rtl.md, "Segmented beats"): two entries suffice.
    localparam int QW = 96 + DecW;  // {id, d, k, tag}
    logic          q0_v_q, q1_v_q, push_t, push_h;
    logic [QW-1:0] q0_q, q1_q, ent_t, ent_h;
    assign push_t = iw_fire && seg_psn_t;
    assign push_h = iw_fire && seg_psn_h;
    assign ent_t  = {seg_id_t, seg_d_t, seg_k_t, seg_tag_t};
    assign ent_h  = {seg_id_h, iw_d, iw_k, seg_tag_h};
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        q0_v_q <= 1'b0;
        q1_v_q <= 1'b0;
      end else begin
        // The hash takes entry 0 (when valid); entry 1 moves up, the new ids join behind.
        q0_v_q <= q1_v_q || push_t || push_h;
        q1_v_q <= q1_v_q ? (push_t || push_h) : (push_t && push_h);
      end
    end
    always_ff @(posedge clk_i) begin  // data, no reset (read only with the valid bits)
      q0_q <= q1_v_q ? q1_q : (push_t ? ent_t : ent_h);
      q1_q <= (q1_v_q && push_t) ? ent_t : ent_h;
    end
    assign hash_id  = q0_q[QW-1 -: 32];
    assign hash_d   = q0_q[QW-33 -: 32];
    assign hash_k   = q0_q[QW-65 -: 32];
    assign psn_take = q0_v_q;
    assign psn_tag  = q0_q[DecW-1:0];
    logic unused_id_one;
    assign unused_id_one = ^{id, tel_tag, is_psn_in};
`ifndef SYNTHESIS
    always @(posedge clk_i) begin
      assert (!(q1_v_q && push_t && push_h))
        else $fatal(1, "ibr_switch_stage: a third id queued for the hash");
    end
`endif
  end else begin : gen_id_now
    assign hash_id  = id;
    assign hash_d   = d_q;
    assign hash_k   = k_q;
    assign psn_take = iw_fire && is_psn_in;
    assign psn_tag  = '0;
    logic unused_iw_cfg;
    assign unused_iw_cfg = ^{iw_d, iw_k, tel_tag};
  end
  logic [31:0] mxm_h_q;
  logic        hash_take;
  if (HashKind == ibr_pkg::HashMxm) begin : gen_hash_mxm
    logic mxm_ok_q;
    logic [DecW-1:0] mxm_tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        mxm_h_q   <= '0;
        mxm_ok_q  <= 1'b0;
        mxm_tag_q <= '0;
      end else begin
        mxm_ok_q <= psn_take;
        if (psn_take) begin
          mxm_h_q   <= hash_id * hash_k;
          mxm_tag_q <= psn_tag;
        end
      end
    end
    assign hash_take = mxm_ok_q;
    assign hash_tag  = mxm_tag_q;
  end else if (HashLatency > 0) begin : gen_hash_sip
    // SipHash over HashLatency stages (ibr_siphash, a new id every cycle):
    // the bit comes HashLatency cycles after the PSN, with its packet's tag.
    logic [DecW*HashLatency-1:0] sip_tag_q;  // stage j's tag in bits DecW*j +: DecW
    logic [DecW*(HashLatency+1)-1:0] sip_tags;
    assign sip_tags = {sip_tag_q, psn_tag};
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sip_tag_q <= '0;
      end else begin
        sip_tag_q <= sip_tags[DecW*HashLatency-1:0];
      end
    end
    ibr_siphash #(.SipKey(SipKey), .Latency(HashLatency)) u_siphash (
      .clk_i, .rst_ni, .valid_i(psn_take), .id_i(hash_id), .d_i(hash_d), .valid_o(hash_take), .bit_o(sip_bit)
    );
    assign mxm_h_q  = '0;
    assign hash_tag = sip_tags[DecW*HashLatency +: DecW];
    logic unused_sip_k;
    assign unused_sip_k = ^{hash_k, mxm_h_q, hash_bit};  // (ibr_hash's one-cycle SipHash: unused)
  end else begin : gen_hash_now
    assign mxm_h_q   = '0;
    assign hash_take = psn_take;
    assign hash_tag  = psn_tag;
  end
  if (HashLatency == 0) begin : gen_no_sip
    assign sip_bit = 1'b0;
    logic unused_sip_bit;
    assign unused_sip_bit = sip_bit;
  end
  ibr_hash #(.HashKind(HashKind), .SipKey(SipKey)) u_hash (
    .id_i(HashKind == ibr_pkg::HashMxm ? mxm_h_q : hash_id), .d_i(hash_d),
    .k_i(HashKind == ibr_pkg::HashMxm ? 32'd1 : hash_k), .bit_o(hash_bit)
  );

  logic tel_done;  // the telemetry word left: its decision is consumed
  // Segmented: a beat's second telemetry byte left (tel2_done), its entry
  // (behind the head entry) and its decision's inputs.
  logic              tel2_done, tel2_seen, dec2_cong, hash2, hash2_ok, head2_drawn, head2_zero;
  logic [7:0]        byte4_2;
  logic [StateW-1:0] dec_state, dec2_state;  // the state after each leaving entry's draw
  // The generator's answer (gen_busy: an ideal draw retries), and the
  // decision's draw answered at DataW > 64 (head_drawn, head_zero: below).
  logic              gen_done, gen_zero, gen_busy, head_drawn, head_zero;
  logic [StateW-1:0] gen_state;   // the generator's state (after the draw gen_done answers)
  logic [FieldW-1:0] draw_field;  // the hop field the draw started now (draw_start_q) is for
  if (!Wide) begin : gen_dec_one
    // One decision pending at most: the shortest packet is 4 words, at least
    // PipeDepth, so a telemetry word never meets a pending decision.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tel_seen_q   <= 1'b0;
        dec_cong_q   <= 1'b0;
        draw_start_q <= 1'b0;
        hash_q       <= 1'b0;
        hash_ok_q    <= 1'b0;
      end else begin
        draw_start_q <= 1'b0;
        if (tel_done) begin
          tel_seen_q <= 1'b0;
          hash_ok_q  <= 1'b0;
        end
        if (iw_fire && is_tel_in) begin
          tel_seen_q   <= 1'b1;
          dec_cong_q   <= sop_cong_q;
          draw_start_q <= !Sender;
        end
        if (hash_take) begin
          hash_q    <= (HashLatency > 0) ? sip_bit : hash_bit;
          hash_ok_q <= 1'b1;
        end
      end
    end
    // BTH byte 4 as the telemetry word enters: data, no reset.
    always_ff @(posedge clk_i) begin
      if (iw_fire && is_tel_in) begin
        byte4_q <= tel_byte4;
      end
    end
    assign draw_field = byte4_q[FieldW-1:0];
    assign tel_tag    = '0;
    assign seg_tag_t  = '0;
    assign seg_tag_h  = '0;
    assign tel2_seen   = 1'b0;
    assign byte4_2     = '0;
    assign dec2_cong   = 1'b0;
    assign hash2       = 1'b0;
    assign hash2_ok    = 1'b0;
    assign head2_drawn = 1'b0;
    assign head2_zero  = 1'b0;
    assign dec_state   = '0;
    assign dec2_state  = '0;
    logic unused_tel2;
    assign unused_tel2 = tel2_done;  // (64 bits: one telemetry word a beat)
    assign head_drawn = 1'b0;
    assign head_zero  = 1'b0;
    // No later draw starts before the status: the state is the generator's.
    assign gen_state_o = gen_state;
    logic unused_dec;
    assign unused_dec = ^{hash_tag, gen_busy};
  end else begin : gen_dec_queue
    // The decisions: one entry per telemetry beat in the pipeline, in packet
    // order (a ring; a one-beat packet's telemetry beat may fill every slot,
    // so DecN = PipeDepth entries suffice: a beat enters slot 0 only when a
    // slot is free or the head leaves). An entry is allocated as its
    // telemetry beat enters slot 0 (byte 4, the congested bit) and is the head
    // entry (rd_q) while its beat is the oldest telemetry beat inside; it is
    // freed as that beat leaves (tel_done). Its hash comes by its tag; its
    // draw starts in packet order (dr_q: the oldest entry not yet drawn for,
    // when the generator is not retrying), and the generator answers the
    // draws in that order (dn_q). Ingress never waits for a decision: a
    // telemetry beat reaching the head before its decision is ready holds the
    // output there, as at 64 bits.
    localparam int DecA = 1 << DecW;  // entries stored (DecN of them used)
    logic [DecW-1:0]   wr_q, rd_q, dr_q, dn_q;  // allocate, head, next draw, next answer
    logic [DecA-1:0]   e_v_q, e_cong_q, e_hash_q, e_hok_q, e_drawn_q, e_zero_q, e_iss_q;
    logic [8*DecA-1:0] e_byte4_q;  // entry e's BTH byte 4 in bits 8e +: 8
    // Entry e's generator state after its draw, in bits StateW*e +: StateW: the
    // generator may have drawn for later packets by the time a packet's status
    // (stat_valid_o, with gen_state_o) comes out.
    logic [StateW*DecA-1:0] e_state_q;
    logic              draw_go;
    function automatic logic [DecW-1:0] dec_next(input logic [DecW-1:0] p);
      dec_next = (p == DecW'(DecN - 1)) ? '0 : p + DecW'(1);
    endfunction
    // The entry of the telemetry beat entering now, else of the newest one in.
    assign tel_tag = is_tel_in ? wr_q : ((wr_q == '0) ? DecW'(DecN - 1) : wr_q - DecW'(1));
    // Segmented: the tail's telemetry byte is the first allocated now, or
    // the newest before (no later packet's has come in); the head's is the
    // first or, behind the tail's, the second.
    logic [DecW-1:0] wr2, rd2;  // the entries after wr_q and rd_q
    assign wr2       = dec_next(wr_q);
    assign rd2       = dec_next(rd_q);
    assign seg_tag_t = seg_t_tel ? wr_q : ((wr_q == '0) ? DecW'(DecN - 1) : wr_q - DecW'(1));
    assign seg_tag_h = seg_t_tel ? wr2 : wr_q;
    // A draw starts for the oldest entry not yet drawn for (its byte 4 is in
    // the entry from the cycle after its beat entered, as at 64 bits).
    assign draw_go = !Sender && e_v_q[dr_q] && !e_iss_q[dr_q] && !gen_busy;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wr_q      <= '0;
        rd_q      <= '0;
        dr_q      <= '0;
        dn_q      <= '0;
        e_v_q     <= '0;
        e_cong_q  <= '0;
        e_hash_q  <= '0;
        e_hok_q   <= '0;
        e_drawn_q <= '0;
        e_zero_q  <= '0;
        e_iss_q   <= '0;
      end else begin
        if (tel_done) begin
          e_v_q[rd_q] <= 1'b0;
          rd_q        <= dec_next(rd_q);
          if (tel2_done) begin  // segmented: the second telemetry byte of the beat too
            e_v_q[rd2] <= 1'b0;
            rd_q       <= dec_next(rd2);
          end
        end
        if (iw_fire && is_tel_in) begin  // after the free above: a full ring frees and takes one
          e_v_q[wr_q]     <= 1'b1;
          e_cong_q[wr_q]  <= sop_cong_q;
          if (iw_sop) begin
            e_cong_q[wr_q] <= iw_cong;  // BTH byte 4 in the sop beat itself
          end
          if (Segmented) begin
            e_cong_q[wr_q] <= tel_cong;  // the tail's from its sop beat, else the head's
          end
          e_hok_q[wr_q]   <= 1'b0;
          e_drawn_q[wr_q] <= 1'b0;
          e_iss_q[wr_q]   <= 1'b0;
          wr_q            <= wr2;
          if (is_tel2_in) begin  // segmented: the head's behind the tail's
            e_v_q[wr2]     <= 1'b1;
            e_cong_q[wr2]  <= tel2_cong;
            e_hok_q[wr2]   <= 1'b0;
            e_drawn_q[wr2] <= 1'b0;
            e_iss_q[wr2]   <= 1'b0;
            wr_q           <= dec_next(wr2);
          end
        end
        if (draw_go) begin
          e_iss_q[dr_q] <= 1'b1;
          dr_q          <= dec_next(dr_q);
        end
        if (gen_done) begin
          // (Not into the head entry as it leaves with this very answer: a
          // full ring takes that entry again for the beat entering now.)
          if (!(tel_done && dn_q == rd_q)) begin
            if (!(tel2_done && dn_q == rd2)) begin  // (segmented: nor the entry behind it)
              e_drawn_q[dn_q] <= 1'b1;
              e_zero_q[dn_q]  <= gen_zero;
            end
          end
          dn_q <= dec_next(dn_q);
        end
        if (hash_take) begin
          e_hash_q[hash_tag] <= (HashLatency > 0) ? sip_bit : hash_bit;
          e_hok_q[hash_tag]  <= 1'b1;
        end
      end
    end
    // BTH byte 4 as the telemetry beat enters, the state after its draw:
    // data, no reset.
    always_ff @(posedge clk_i) begin
      if (iw_fire && is_tel_in) begin
        e_byte4_q[8*wr_q +: 8] <= tel_byte4;
      end
      if (iw_fire && is_tel2_in) begin
        e_byte4_q[8*wr2 +: 8] <= tel2_byte4;
      end
      if (gen_done) begin
        e_state_q[StateW*dn_q +: StateW] <= gen_state;
      end
    end
    // With stat_valid_o (the cycle after its beat left, its entry freed and
    // not yet written again: the next draw answered is at least a cycle
    // later), the state after the draw of the packet it reports.
    if (!Segmented) begin : gen_state_entry
      logic [DecW-1:0] prev_rd;
      assign prev_rd     = (rd_q == '0) ? DecW'(DecN - 1) : rd_q - DecW'(1);
      assign gen_state_o = Sender ? '0 : e_state_q[StateW*prev_rd +: StateW];  // (sender: no state)
      assign dec_state   = '0;
      assign dec2_state  = '0;
    end else begin : gen_state_stat
      // Segmented: the status register captures the state with the status
      // (a beat's second status waits a cycle there), as the entry leaves.
      assign dec_state  = Sender ? '0 : (e_drawn_q[rd_q] ? e_state_q[StateW*rd_q +: StateW] : gen_state);
      assign dec2_state = Sender ? '0 : (e_drawn_q[rd2] ? e_state_q[StateW*rd2 +: StateW] : gen_state);
    end
    // The head entry's decision, and the draw's hop field. A draw answered
    // this cycle for the head entry counts at once (the generator holds its
    // answer in a register), so depth 2 keeps one beat a cycle.
    assign tel_seen_q   = e_v_q[rd_q];
    assign byte4_q      = e_byte4_q[8*rd_q +: 8];
    assign dec_cong_q   = e_cong_q[rd_q];
    assign hash_q       = e_hash_q[rd_q];
    assign hash_ok_q    = e_hok_q[rd_q];
    assign head_drawn   = e_drawn_q[rd_q] || (gen_done && dn_q == rd_q);
    assign head_zero    = e_drawn_q[rd_q] ? e_zero_q[rd_q] : gen_zero;
    assign draw_start_q = draw_go;
    assign draw_field   = e_byte4_q[8*dr_q +: FieldW];
    // The second decision of a segmented beat: the entry behind the head.
    assign tel2_seen   = e_v_q[rd2];
    assign byte4_2     = e_byte4_q[8*rd2 +: 8];
    assign dec2_cong   = e_cong_q[rd2];
    assign hash2       = e_hash_q[rd2];
    assign hash2_ok    = e_hok_q[rd2];
    assign head2_drawn = e_drawn_q[rd2] || (gen_done && dn_q == rd2);
    assign head2_zero  = e_drawn_q[rd2] ? e_zero_q[rd2] : gen_zero;
`ifndef SYNTHESIS
    always @(posedge clk_i) begin
      if (iw_fire && is_tel_in) begin
        assert (!e_v_q[wr_q] || (tel_done && rd_q == wr_q) || (tel2_done && rd2 == wr_q))
          else $fatal(1, "ibr_switch_stage: a telemetry beat entered with every decision entry pending");
      end
      if (iw_fire && is_tel2_in) begin
        assert (!e_v_q[wr2] || (tel_done && rd_q == wr2) || (tel2_done && rd2 == wr2))
          else $fatal(1, "ibr_switch_stage: a second telemetry byte entered with every decision entry pending");
      end
      if (hash_take) begin
        assert (e_v_q[hash_tag] && !e_hok_q[hash_tag])
          else $fatal(1, "ibr_switch_stage: a hash for decision entry %0d, which awaits none", hash_tag);
      end
      if (gen_done) begin
        assert (e_v_q[dn_q] && e_iss_q[dn_q] && !e_drawn_q[dn_q])
          else $fatal(1, "ibr_switch_stage: a draw answered for decision entry %0d, which awaits none", dn_q);
      end
    end
`endif
  end

  // DestQP as the telemetry beat enters (the PSN beat of the same packet
  // follows it, before any other packet's): data, no reset.
  always_ff @(posedge clk_i) begin
    if (iw_fire && is_tel_in) begin
      destqp_q <= tel_destqp;
    end
  end

  // ---------------------------------------------------------------------------
  // The draw.
  logic [FieldW-1:0] field_in;
  logic              drawn_q, zero_q, draw_ok;
  assign field_in = byte4_q[FieldW-1:0];

  if (!Sender) begin : gen_switch_gen
    logic [LW-1:0] l;
    assign l = {1'b0, draw_field} + LW'(1);
    if (GenKind == ibr_pkg::GenIdeal) begin : gen_ideal
      ibr_gen_ideal #(.MaxL(MaxL), .LW(LW)) u_gen (
        .clk_i, .rst_ni, .load_i(gen_load_i), .state_i(gen_state_i),
        .draw_i(draw_start_q), .l_i(l), .done_o(gen_done), .zero_o(gen_zero), .busy_o(gen_busy),
        .state_o(gen_state)
      );
    end else if (GenKind == ibr_pkg::GenLfsrLut) begin : gen_lfsr_lut
      ibr_gen_lfsr_lut #(.Width(LfsrWidth), .Steps(LfsrSteps), .MaxL(MaxL), .LW(LW)) u_gen (
        .clk_i, .rst_ni, .load_i(gen_load_i), .state_i(gen_state_i), .draw_i(draw_start_q), .l_i(l),
        .done_o(gen_done), .zero_o(gen_zero), .state_o(gen_state)
      );
      assign gen_busy = 1'b0;  // one cycle a draw
    end else begin : gen_shiftreg
      ibr_gen_shiftreg #(.Clock(ShiftClock), .P(ShiftP), .Q(ShiftQ), .MaxL(MaxL), .LW(LW)) u_gen (
        .clk_i, .rst_ni, .load_i(gen_load_i), .state_i(gen_state_i), .draw_i(draw_start_q), .l_i(l),
        .done_o(gen_done), .zero_o(gen_zero), .state_o(gen_state)
      );
      assign gen_busy = 1'b0;  // one cycle a draw
    end
    if (!Wide) begin : gen_drawn_one
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          drawn_q <= 1'b0;
        end else if (tel_done) begin
          drawn_q <= 1'b0;
        end else if (gen_done) begin
          drawn_q <= 1'b1;
        end
      end
      // A draw answered this cycle counts at once (the generator's answer is a
      // register), so depth 2 keeps one word a cycle.
      assign zero_q  = gen_zero;
      assign draw_ok = drawn_q || gen_done;
      logic unused_head_draw;
      assign unused_head_draw = ^{head_drawn, head_zero};
    end else begin : gen_drawn_queue
      assign drawn_q = head_drawn;
      assign zero_q  = head_zero;
      assign draw_ok = drawn_q;
    end
  end else begin : gen_sender
    // Sender draws (thesis section 5.9): the leading bit of hop_rand decides.
    assign drawn_q     = 1'b1;
    assign zero_q      = !field_in[FieldW-1];  // cmp: sender zero leading bit of hop_rand == 0
    assign draw_ok     = 1'b1;
    assign gen_state   = '0;
    assign gen_done    = 1'b0;
    assign gen_zero    = 1'b0;
    assign gen_busy    = 1'b0;
    logic unused_gen;
    assign unused_gen = ^{gen_load_i, gen_state_i, draw_start_q, drawn_q, draw_field, head_drawn, head_zero,
                          gen_done, gen_zero};
  end

  // The decision: Alg. 8 lines 2-9 on byte 4.
  logic              dec_ready, replace, saturated, malformed;
  logic [FieldW-1:0] field_new;
  logic [7:0]        byte4_new;
  assign dec_ready = tel_seen_q && hash_ok_q && draw_ok;
  if (Sender) begin : gen_dec_sender
    logic spent;
    assign malformed = field_in == '0;
    assign spent     = field_in == {1'b1, {(FieldW-1){1'b0}}};  // cmp: sender spent hop_rand == 1 0..0
    assign saturated = spent;
    assign replace   = zero_q && !spent && !malformed;
    assign field_new = (spent || malformed) ? field_in : {field_in[FieldW-2:0], 1'b0};
  end else begin : gen_dec_count
    assign malformed = 1'b0;
    assign saturated = field_in == FieldW'(CountMax);  // cmp: count saturated n == 2^b-1
    assign replace   = zero_q;
    assign field_new = saturated ? field_in : field_in + FieldW'(1);
  end
  assign byte4_new = replace ? {byte4_q[7:FieldW+2], hash_q, dec_cong_q, field_new}
                             : {byte4_q[7:FieldW], field_new};

  // Segmented: the second decision of a beat holding two telemetry bytes
  // (the head's, from the entry behind the head entry), as the first above.
  logic              dec2_ready, replace2, saturated2, malformed2;
  logic [FieldW-1:0] field_new2;
  logic [7:0]        byte4_new2;
  if (Segmented) begin : gen_dec2
    logic [FieldW-1:0] field_in2;
    logic              zero2, draw_ok2;
    assign field_in2 = byte4_2[FieldW-1:0];
    if (Sender) begin : gen_dec2_sender
      logic spent2;
      assign zero2      = !field_in2[FieldW-1];
      assign draw_ok2   = 1'b1;
      assign malformed2 = field_in2 == '0;
      assign spent2     = field_in2 == {1'b1, {(FieldW-1){1'b0}}};
      assign saturated2 = spent2;
      assign replace2   = zero2 && !spent2 && !malformed2;
      assign field_new2 = (spent2 || malformed2) ? field_in2 : {field_in2[FieldW-2:0], 1'b0};
      logic unused_head2_draw;
      assign unused_head2_draw = ^{head2_drawn, head2_zero};
    end else begin : gen_dec2_count
      assign zero2      = head2_zero;
      assign draw_ok2   = head2_drawn;
      assign malformed2 = 1'b0;
      assign saturated2 = field_in2 == FieldW'(CountMax);
      assign replace2   = zero2;
      assign field_new2 = saturated2 ? field_in2 : field_in2 + FieldW'(1);
    end
    assign dec2_ready = tel2_seen && hash2_ok && draw_ok2;
    assign byte4_new2 = replace2 ? {byte4_2[7:FieldW+2], hash2, dec2_cong, field_new2}
                                 : {byte4_2[7:FieldW], field_new2};
`ifndef SYNTHESIS
    always @(posedge clk_i) begin
      if (tel2_done) begin
        assert (byte4_new2 == alg8_ref(byte4_2, zero2, hash2, dec2_cong))
          else $fatal(1, "ibr_switch_stage: second byte 4 %h, Alg. 8 reference %h", byte4_new2,
                      alg8_ref(byte4_2, zero2, hash2, dec2_cong));
      end
    end
`endif
  end else begin : gen_dec2_none
    assign dec2_ready = 1'b0;
    assign replace2   = 1'b0;
    assign saturated2 = 1'b0;
    assign malformed2 = 1'b0;
    assign field_new2 = '0;
    assign byte4_new2 = '0;
    logic unused_dec2;
    assign unused_dec2 = ^{tel2_seen, byte4_2, dec2_cong, hash2, hash2_ok, head2_drawn, head2_zero, dec_state,
                           dec2_state, dec2_ready, replace2, saturated2, malformed2, field_new2, byte4_new2};
  end

  // ---------------------------------------------------------------------------
  // The pipeline: PipeDepth slots, each a word and its tags: sop, eop, empty,
  // tel (holds BTH byte 4), vcrc (holds the VCRC), lane4 (the VCRC is in lanes
  // 4-5, else 0-1), glob (its packet has LNH=3: where byte 4 lies in a wide beat).
  logic [EmptyW*PipeDepth-1:0] empty_q;  // slot i in bits EmptyW*i +: EmptyW
  logic [PipeDepth-1:0] v_q, sop_q, eop_q, tel_q, vcrc_q, lane4_q, glob_q;
  logic                 len_bad_q;  // slot 0: its eop word ends a frame PktLen does not describe
  logic [PipeDepth-1:1] bad_q;  // the word's packet failed its incoming VCRC
  logic                 head_leave, head_ok;
  logic                 head_sop, head_tel, head_vcrc, head_lane4, head_bad, head_glob;
  logic [DataW-1:0]     head_data;
  logic [EmptyW-1:0]    head_empty;
  // Segmented: the sop segment of slot 0's beat and of the head's, whether
  // the head holds a second telemetry byte, and the lanes of its first and
  // second.
  logic [SegW-1:0]      s0_seg, head_seg;
  logic                 head_tel2;
  logic [EmptyW-1:0]    head_lane0, head_lane1;

  assign head_data  = gen_slot[PipeDepth-1].data_q;
  assign head_empty = empty_q[EmptyW*(PipeDepth-1) +: EmptyW];
  assign head_glob  = glob_q[PipeDepth-1];
  assign head_sop   = sop_q[PipeDepth-1];
  assign head_tel   = tel_q[PipeDepth-1];
  assign head_vcrc  = vcrc_q[PipeDepth-1];
  assign head_lane4 = lane4_q[PipeDepth-1];
  assign head_bad   = bad_q[PipeDepth-1];
  assign head_ok    = !(head_tel && !dec_ready) && !(head_tel2 && !dec2_ready);
  assign head_leave = v_q[PipeDepth-1] && head_ok && out_ready_i;
  // A slot takes a new word when it is empty or its word moves on.
  // (Slot i moves on when slot i+1 is empty or moves on, so slot i accepts when
  // the head leaves or any slot from i up is empty.)
  for (genvar i = 1; i < PipeDepth; i++) begin : gen_accept
    assign accept[i] = head_leave || !(&v_q[PipeDepth-1:i]);
  end
  // (No slot waits for a decision but the head: at 64 bits the shortest
  // packet is 4 words, at least PipeDepth, so one decision is pending at
  // most; at DataW > 64 each telemetry beat inside has its own entry.)
  assign accept[0] = head_leave || !(&v_q);

  // The incoming VCRC (spec section 5, step 0): a CRC over the words as they
  // leave slot 0 (one register after the ingress, off the input path),
  // compared with the VCRC bytes there; the verdict joins the word in slot 1.
  // A packet that fails it has already begun to leave (cut-through), so it
  // cannot be dropped here; its outgoing VCRC is stomped (inverted) so the
  // next receiver drops it, and no fresh VCRC ever covers corrupt bytes.
  logic [DataW-1:0] s0_data;
  logic [15:0] icrc_q, icrc_base, icrc_hi, icrc8, ivcrc, ivcrc_got;
  logic        vcrc_bad;
  assign s0_data   = gen_slot[0].data_q;
  assign icrc_base = sop_q[0] ? 16'hffff : icrc_q;
  if (!Wide) begin : gen_icrc_w64
    // Eight bytes as two steps of four; the first step also gives the register
    // before a VCRC in lanes 4-5.
    ibr_crc16_bytes #(.NBytes(4)) u_icrc_hi (.crc_i(icrc_base), .data_i(s0_data[63:32]), .crc_o(icrc_hi));
    ibr_crc16_bytes #(.NBytes(4)) u_icrc_lo (.crc_i(icrc_hi), .data_i(s0_data[31:0]), .crc_o(icrc8));
    assign ivcrc     = ~(lane4_q[0] ? icrc_hi : icrc_base);
    assign ivcrc_got = lane4_q[0] ? {s0_data[23:16], s0_data[31:24]}
                                  : {s0_data[55:48], s0_data[63:56]};
  end else if (!Segmented) begin : gen_icrc_wide
    // One step over the whole beat; at the eop beat its last m = empty+2
    // bytes (the VCRC and the unused bytes) are zeroed and the result rewound
    // by m zero bytes: the CRC of the bytes before the VCRC.
    logic [15:0] icrc_end;
    ibr_crc16_bytes_end #(.DataW(DataW)) u_icrc (
      .crc_i(icrc_base), .data_i(s0_data), .eop_i(vcrc_q[0]),
      .empty_i(empty_q[EmptyW-1:0]), .crc_o(icrc_end), .got_o(ivcrc_got)
    );
    assign icrc8   = icrc_end;  // the register after the beat (the next one's base)
    assign ivcrc   = ~icrc_end;
    assign icrc_hi = icrc_end;  // (the 64-bit check's half-word step; unused)
  end else begin : gen_icrc_seg
    // Segmented: the tail's register runs on from icrc_q, the head's starts
    // at its segment (ibr_crc16_seg); the check is the eop packet's.
    logic [15:0] icrc_end;
    ibr_crc16_seg #(.DataW(DataW)) u_icrc (
      .crc_i(icrc_q), .data_i(s0_data), .sop_i(sop_q[0]), .sop_seg_i(s0_seg), .eop_i(vcrc_q[0]),
      .empty_i(empty_q[EmptyW-1:0]), .crc_o(icrc8), .end_o(icrc_end), .got_o(ivcrc_got)
    );
    assign ivcrc   = ~icrc_end;
    assign icrc_hi = icrc_end;  // (the 64-bit check's half-word step; unused)
    logic unused_icrc_base;
    assign unused_icrc_base = ^icrc_base;
  end
  assign vcrc_bad  = v_q[0] && vcrc_q[0] && (ivcrc_got != ivcrc || len_bad_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      icrc_q <= 16'hffff;
    end else if (v_q[0] && accept[1]) begin  // slot 0's word moves on
      icrc_q <= icrc8;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q     <= '0;
      sop_q   <= '0;
      eop_q   <= '0;
      tel_q   <= '0;
      vcrc_q  <= '0;
      lane4_q <= '0;
      glob_q  <= '0;
      len_bad_q <= 1'b0;
      bad_q   <= '0;
      empty_q <= '0;
    end else begin
      if (accept[0]) begin
        v_q[0]       <= iw_valid;
        sop_q[0]     <= iw_sop;
        eop_q[0]     <= iw_eop;
        empty_q[EmptyW-1:0] <= iw_empty;
        tel_q[0]     <= is_tel_in;
        glob_q[0]    <= lnh[0];
        vcrc_q[0]    <= is_vcrc_in;
        lane4_q[0]   <= lane4_in;
        len_bad_q    <= iw_eop && len_bad_in;
      end
      if (accept[1]) begin
        bad_q[1] <= vcrc_bad;
      end
      for (int i = 2; i < PipeDepth; i++) begin
        if (accept[i]) begin
          bad_q[i] <= bad_q[i-1];
        end
      end
      for (int i = 1; i < PipeDepth; i++) begin
        if (accept[i]) begin
          v_q[i]     <= v_q[i-1];
          sop_q[i]   <= sop_q[i-1];
          eop_q[i]   <= eop_q[i-1];
          empty_q[EmptyW*i +: EmptyW] <= empty_q[EmptyW*(i-1) +: EmptyW];
          tel_q[i]   <= tel_q[i-1];
          vcrc_q[i]  <= vcrc_q[i-1];
          lane4_q[i] <= lane4_q[i-1];
          glob_q[i]  <= glob_q[i-1];
        end
      end
    end
  end
  if (Segmented) begin : gen_seg_slots
    // Segmented: each slot's beat also carries its sop segment, whether it
    // holds a second telemetry byte, and the lanes of its first and second.
    logic [SegW*PipeDepth-1:0]   sseg_q;   // slot i in bits SegW*i +: SegW
    logic [PipeDepth-1:0]        tel2_q;
    logic [EmptyW*PipeDepth-1:0] lane0_q, lane1_q;  // slot i in bits EmptyW*i +: EmptyW
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sseg_q  <= '0;
        tel2_q  <= '0;
        lane0_q <= '0;
        lane1_q <= '0;
      end else begin
        if (accept[0]) begin
          sseg_q[SegW-1:0]    <= iw_seg;
          tel2_q[0]           <= is_tel2_in;
          lane0_q[EmptyW-1:0] <= seg_lane0;
          lane1_q[EmptyW-1:0] <= seg_lane1;
        end
        for (int i = 1; i < PipeDepth; i++) begin
          if (accept[i]) begin
            sseg_q[SegW*i +: SegW]      <= sseg_q[SegW*(i-1) +: SegW];
            tel2_q[i]                   <= tel2_q[i-1];
            lane0_q[EmptyW*i +: EmptyW] <= lane0_q[EmptyW*(i-1) +: EmptyW];
            lane1_q[EmptyW*i +: EmptyW] <= lane1_q[EmptyW*(i-1) +: EmptyW];
          end
        end
      end
    end
    assign s0_seg     = sseg_q[SegW-1:0];
    assign head_seg   = sseg_q[SegW*(PipeDepth-1) +: SegW];
    assign head_tel2  = tel2_q[PipeDepth-1];
    assign head_lane0 = lane0_q[EmptyW*(PipeDepth-1) +: EmptyW];
    assign head_lane1 = lane1_q[EmptyW*(PipeDepth-1) +: EmptyW];
  end else begin : gen_one_slots
    assign s0_seg     = '0;
    assign head_seg   = '0;
    assign head_tel2  = 1'b0;
    assign head_lane0 = '0;
    assign head_lane1 = '0;
    logic unused_one_slots;
    assign unused_one_slots = ^{s0_seg, head_seg, head_tel2, head_lane0, head_lane1};
  end

  // The beats, one register per slot: data, no reset (read only with v_q).
  for (genvar i = 0; i < PipeDepth; i++) begin : gen_slot
    logic [DataW-1:0] data_q, data_d;
    if (i == 0) begin : gen_first
      assign data_d = iw_beat;
    end else begin : gen_next
      assign data_d = gen_slot[i-1].data_q;
    end
    always_ff @(posedge clk_i) begin
      if (accept[i]) begin
        data_q <= data_d;
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Egress: field update and the streaming VCRC over the words as they leave.
  logic [DataW-1:0] edited;
  logic [15:0] crc_q, crc_base, crc8, crc4, vcrc;
  assign crc_base = head_sop ? 16'hffff : crc_q;
  if (!Wide) begin : gen_egress_w64
    assign edited = head_tel ? {head_data[63:32], byte4_new, head_data[23:0]} : head_data;
    // Eight bytes as two steps of four, as at the ingress check.
    ibr_crc16_bytes #(.NBytes(4)) u_crc_hi (.crc_i(crc_base), .data_i(edited[63:32]), .crc_o(crc4));
    ibr_crc16_bytes #(.NBytes(4)) u_crc_lo (.crc_i(crc4), .data_i(edited[31:0]), .crc_o(crc8));
    // A failed incoming VCRC stomps the outgoing one (inverted: never valid).
    assign vcrc = (head_lane4 ? crc4 : crc_base) ^ (head_bad ? 16'h0000 : 16'hffff);
    // The VCRC is sent least-significant byte first.
    assign out_data_o = !head_vcrc ? edited :
                        head_lane4 ? {edited[63:32], vcrc[7:0], vcrc[15:8], edited[15:0]}
                                   : {vcrc[7:0], vcrc[15:8], edited[47:0]};
    logic unused_glob;
    assign unused_glob = ^{glob_q, head_glob, head_empty};
  end else if (!Segmented) begin : gen_egress_wide
    // BTH byte 4 in lane 12 (LNH=2) or 52 (LNH=3) modulo the beat's bytes.
    localparam int Tel2 = (8 + 4) % NB, Tel3 = (48 + 4) % NB;
    for (genvar k = 0; k < NB; k++) begin : gen_edit_lane
      localparam bit At2 = k == Tel2, At3 = k == Tel3;
      assign edited[DataW-1-8*k -: 8] = head_tel && (At2 && !head_glob || At3 && head_glob) ?
                                        byte4_new : head_data[DataW-1-8*k -: 8];
    end
    logic [15:0] crc_end, got_unused;
    ibr_crc16_bytes_end #(.DataW(DataW)) u_crc (
      .crc_i(crc_base), .data_i(edited), .eop_i(head_vcrc), .empty_i(head_empty),
      .crc_o(crc_end), .got_o(got_unused)
    );
    assign crc8 = crc_end;  // the register after the beat
    assign crc4 = crc_end;  // (the 64-bit stage's half-word step; unused)
    // A failed incoming VCRC stomps the outgoing one (inverted: never valid).
    assign vcrc = crc_end ^ {16{!head_bad}};
    // The VCRC, least-significant byte first, in lanes NB-4j-4 and NB-4j-3 of
    // the eop beat (j = (empty-2)/4).
    logic [EmptyW-3:0] head_j;
    assign head_j = head_empty[EmptyW-1:2];
    for (genvar g = 0; g < NB / 4; g++) begin : gen_out_slot
      // 4-byte slot g holds the VCRC in its first two lanes when g = NB/4-1-j.
      localparam int Hi = DataW - 1 - 32 * g;
      assign out_data_o[Hi -: 16] = (head_vcrc && 32'(head_j) == 32'(NB / 4 - 1 - g)) ?
                                    {vcrc[7:0], vcrc[15:8]} : edited[Hi -: 16];
      assign out_data_o[Hi-16 -: 16] = edited[Hi-16 -: 16];
    end
    logic unused_w64;
    assign unused_w64 = ^{head_lane4, lane4_q, got_unused, crc4, icrc_hi};
  end else begin : gen_egress_seg
    // Segmented: the first decision to the first telemetry byte's lane, the
    // second to the second's; the VCRC of the eop packet from ibr_crc16_seg
    // (the tail's register from crc_q, the head's from its segment).
    for (genvar k = 0; k < NB; k++) begin : gen_edit_lane
      assign edited[DataW-1-8*k -: 8] = (head_tel && 32'(head_lane0) == k) ? byte4_new :
                                        (head_tel2 && 32'(head_lane1) == k) ? byte4_new2 :
                                        head_data[DataW-1-8*k -: 8];
    end
    logic [15:0] crc_end, got_unused;
    ibr_crc16_seg #(.DataW(DataW)) u_crc (
      .crc_i(crc_q), .data_i(edited), .sop_i(head_sop), .sop_seg_i(head_seg), .eop_i(head_vcrc),
      .empty_i(head_empty), .crc_o(crc8), .end_o(crc_end), .got_o(got_unused)
    );
    assign crc4 = crc_end;  // (the 64-bit stage's half-word step; unused)
    // A failed incoming VCRC stomps the outgoing one (inverted: never valid).
    assign vcrc = crc_end ^ {16{!head_bad}};
    logic [EmptyW-3:0] head_j;
    assign head_j = head_empty[EmptyW-1:2];
    for (genvar g = 0; g < NB / 4; g++) begin : gen_out_slot
      localparam int Hi = DataW - 1 - 32 * g;
      assign out_data_o[Hi -: 16] = (head_vcrc && 32'(head_j) == 32'(NB / 4 - 1 - g)) ?
                                    {vcrc[7:0], vcrc[15:8]} : edited[Hi -: 16];
      assign out_data_o[Hi-16 -: 16] = edited[Hi-16 -: 16];
    end
    logic unused_seg_egress;
    assign unused_seg_egress = ^{head_lane4, lane4_q, got_unused, crc4, icrc_hi, crc_base, glob_q, head_glob};
  end
  assign out_valid_o = v_q[PipeDepth-1] && head_ok;
  assign out_sop_o   = head_sop;
  assign out_eop_o   = eop_q[PipeDepth-1];
  assign out_empty_o = head_empty;
  if (Segmented) begin : gen_out_seg
    assign out_sop_seg_o = head_seg;
  end else begin : gen_out_seg0
    // One packet a beat (Segmented = 0): every packet starts at segment 0.
    assign out_sop_seg_o = '0;
  end
  assign tel_done    = head_leave && head_tel;
  assign tel2_done   = head_leave && head_tel2;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_q <= 16'hffff;
    end else if (head_leave) begin
      crc_q <= crc8;
    end
  end

  // Per-packet status.
  if (!Segmented) begin : gen_stat_one
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        stat_valid_o     <= 1'b0;
        stat_replace_o   <= 1'b0;
        stat_saturated_o <= 1'b0;
        stat_cong_o      <= 1'b0;
        stat_hash_o      <= 1'b0;
        stat_field_o     <= '0;
        stat_malformed_o <= 1'b0;
      end else begin
        stat_valid_o <= tel_done;
        if (tel_done) begin
          stat_replace_o   <= replace;
          stat_saturated_o <= saturated;
          stat_cong_o      <= dec_cong_q;
          stat_hash_o      <= hash_q;
          stat_field_o     <= field_new;
          stat_malformed_o <= malformed;
        end
      end
    end
  end else begin : gen_stat_seg
    // Segmented (docs/rtl.md, "Status port"): one status a cycle, in packet
    // order; a beat's second status waits a cycle in a one-entry register
    // (pend), and the generator state leaves with its status. A packet's
    // telemetry byte lies in its sop beat or the next and a beat holds one
    // sop, so one entry suffices.
    localparam int SW = 5 + FieldW + StateW;  // {replace, saturated, cong, hash, malformed, field, state}
    logic [SW-1:0] st1, st2, pend_q;
    logic          pend_v_q;
    assign st1 = {replace, saturated, dec_cong_q, hash_q, malformed, field_new, dec_state};
    assign st2 = {replace2, saturated2, dec2_cong, hash2, malformed2, field_new2, dec2_state};
    logic [SW-1:0] out_d;
    assign out_d = pend_v_q ? pend_q : st1;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        stat_valid_o     <= 1'b0;
        stat_replace_o   <= 1'b0;
        stat_saturated_o <= 1'b0;
        stat_cong_o      <= 1'b0;
        stat_hash_o      <= 1'b0;
        stat_malformed_o <= 1'b0;
        stat_field_o     <= '0;
        gen_state_o      <= '0;
        pend_v_q         <= 1'b0;
      end else begin
        stat_valid_o <= pend_v_q || tel_done;
        if (pend_v_q || tel_done) begin
          {stat_replace_o, stat_saturated_o, stat_cong_o, stat_hash_o, stat_malformed_o, stat_field_o,
           gen_state_o} <= out_d;
        end
        pend_v_q <= pend_v_q ? tel_done : tel2_done;
      end
    end
    always_ff @(posedge clk_i) begin  // data, no reset (read only with pend_v_q)
      pend_q <= pend_v_q ? st1 : st2;
    end
`ifndef SYNTHESIS
    always @(posedge clk_i) begin
      assert (!(pend_v_q && tel2_done))
        else $fatal(1, "ibr_switch_stage: a third status in one cycle");
    end
`endif
  end

  // Alg. 8 written out on integers: the field update as the thesis states it,
  // for the simulation check below and the formal properties.
  function automatic logic [7:0] alg8_ref(input logic [7:0] b4, input logic z, input logic h,
                                          input logic c);
    logic [7:0] o;
    integer n;  // the incoming hop field
    o = b4;
    n = {24'd0, b4} & CountMax;
    if (Sender) begin
      // hop_rand: 0 is malformed and 1 0..0 spent, both left alone; else the
      // leading bit is the draw (0: replace) and the field shifts left.
      if (n != 0 && n != (CountMax + 1) / 2) begin
        if (n < (CountMax + 1) / 2) begin
          o[FieldW+1] = h;
          o[FieldW]   = c;
        end
        n = (2 * n) & CountMax;
      end
    end else begin
      // hop_count: replace on a zero draw; count up, saturating.
      if (z) begin
        o[FieldW+1] = h;
        o[FieldW]   = c;
      end
      if (n < CountMax) n = n + 1;
    end
    o[FieldW-1:0] = n[FieldW-1:0];
    alg8_ref = o;
  endfunction

`ifndef SYNTHESIS
  // The Alg. 8 reference compared with the datapath every time a telemetry
  // word leaves. (The registers are reset, so neither condition holds during reset.)
  always @(posedge clk_i) begin
    if (tel_done) begin
      assert (byte4_new == alg8_ref(byte4_q, zero_q, hash_q, dec_cong_q))
        else $fatal(1, "ibr_switch_stage: byte 4 %h, Alg. 8 reference %h", byte4_new,
                    alg8_ref(byte4_q, zero_q, hash_q, dec_cong_q));
    end
    if (iw_fire && iw_eop) begin
      assert (iw_empty[1:0] == 2'b10)
        else $fatal(1, "ibr_switch_stage: eop with in_empty_i=%0d; frames are 4k+2 bytes (2 mod 4)",
                    iw_empty);
    end
    if (!Wide && iw_fire && is_tel_in) begin  // (DataW > 64: the ring's own check)
      assert (!tel_seen_q || tel_done)
        else $fatal(1, "ibr_switch_stage: a telemetry word entered while another's was pending");
    end
  end
`endif
`ifdef FORMAL
  // ===========================================================================
  // Formal properties (Yosys's SMT flow: read_verilog -formal; yosys-smtbmc;
  // ibreservoir verify --formal runs them). assume: the environment; assert:
  // the stage's promises; cover: each promise is reachable, so none holds
  // vacuously. Each group is compiled in by its define, so a run proves one:
  //   IBR_PROP_A  every byte but BTH byte 4's telemetry bits and the VCRC leaves unchanged
  //   IBR_PROP_B  the outgoing VCRC is correct when the incoming one was (else stomped)
  //   IBR_PROP_C  the hop count saturates and never wraps (sender: a spent field stays)
  //   IBR_PROP_D  the telemetry update is Alg. 8 (alg8_ref) of the drawn value
  //   IBR_PROP_E  the stream neither drops, duplicates nor reorders words; the egress
  //               handshake holds its word while stalled
  //   IBR_PROP_F  the hash bit is H(id, d) of the packet's id and the configured link
  //   IBR_PROP_G  the congested bit is cong_i of the cycle the packet's sop word was taken
  // The stream monitors restate the packet layout from docs/spec.md on the ports
  // (BTH byte 4 at packet byte 12 or 52, the VCRC the frame's last two bytes),
  // independent of the datapath's own counters, at every beat width: packet
  // byte n lies in beat n / NB, lane n mod NB (bits DataW-1-8*(n mod NB) -: 8).
  //
  // The BTH at packet byte 8 (LNH=2) or 48 (LNH=3, behind the GRH); its byte
  // 4 and DestQP (BTH bytes 4-7), and the PSN (BTH bytes 9-11). FTelLo and
  // FPsnLo are the bit offsets of byte 4's bit 0 and of the PSN's in its beat.
  localparam int FTel2 = 8 + 4, FTel3 = 48 + 4, FPsn2 = 8 + 9, FPsn3 = 48 + 9;
  localparam int FTelLo2 = DataW - 8 - 8 * (FTel2 % NB), FTelLo3 = DataW - 8 - 8 * (FTel3 % NB);
  localparam int FPsnLo2 = DataW - 24 - 8 * (FPsn2 % NB), FPsnLo3 = DataW - 24 - 8 * (FPsn3 % NB);
  localparam int FTelGrp2 = (FTel2 % NB) / 4, FTelGrp3 = (FTel3 % NB) / 4;  // byte 4's 4-byte group
  // The beats of the longest frame PktLen describes (2047 4-byte words and the
  // VCRC: 1024 at 64 bits, 128 at 512), and the least eop beat of an LNH=2
  // (6 4-byte words) and an LNH=3 (16) frame.
  localparam int FMaxBeats = (4 * 2047 + 2 + NB - 1) / NB;
  localparam int FMinEop2 = (4 * 6 + 1) / NB, FMinEop3 = (4 * 16 + 1) / NB;
  // The VCRC of an eop beat with e unused bytes (e = 2 mod 4) is in the first
  // two lanes of its 4-byte group NB/4-1-(e-2)/4 (group g: lanes 4g..4g+3),
  // least-significant byte first. At 64 bits the group is the stage's lane
  // tag (1: lanes 4-5, e = 2; 0: lanes 0-1, e = 6).
  localparam int FGrpW = (EmptyW > 3) ? EmptyW - 2 : 1;
  function automatic logic [FGrpW-1:0] f_vcrc_grp(input logic [EmptyW-1:0] e);
    f_vcrc_grp = '0;
    for (int g = 0; g < NB / 4; g++) begin
      if (e == EmptyW'(NB - 4 * g - 2)) f_vcrc_grp = FGrpW'(g);
    end
  endfunction
  // The VCRC bytes of a beat whose VCRC is in group g, {second, first}.
  function automatic logic [15:0] f_vcrc_of(input logic [DataW-1:0] d, input logic [FGrpW-1:0] g);
    f_vcrc_of = '0;
    for (int i = 0; i < NB / 4; i++) begin
      if (g == FGrpW'(i)) f_vcrc_of = {d[DataW-9-32*i -: 8], d[DataW-1-32*i -: 8]};
    end
  endfunction
  // The bits of those two bytes.
  function automatic logic [DataW-1:0] f_vcrc_bits(input logic [FGrpW-1:0] g);
    f_vcrc_bits = '0;
    for (int i = 0; i < NB / 4; i++) begin
      if (g == FGrpW'(i)) f_vcrc_bits[DataW-1-32*i -: 16] = '1;
    end
  endfunction
  logic f_past;
  initial f_past = 1'b0;
  always @(posedge clk_i) f_past <= 1'b1;

  // Environment: reset in the first cycle only.
  always @(*) begin
    if (!f_past) assume (!rst_ni);
    else assume (rst_ni);
  end

  // ---- Ingress: the handshake holds a word until it is taken, and frames
  // are whole 4k+2-byte frames of every length up to the most PktLen can
  // describe (2047 4-byte words, 1024 stream words): a first word with sop,
  // the last with eop and 2 or 6 unused bytes (in_empty_i), so a frame whose
  // eop word is word w holds 2w+1 (2 unused) or 2w (6 unused) 4-byte words
  // and 2 bytes; LNH 2 and 3 frames long enough to hold their BTH. Every
  // value is an input port, so a counterexample replays from its inputs alone.
  // The LRH's PktLen field is free: it may describe the frame or lie (longer,
  // shorter: a corrupt packet), and may exceed the longest legal packet.
  // cong_i is free on every cycle. At DataW > 64 the words are beats: an eop
  // beat has e = 2 mod 4 unused bytes (e <= NB-2), so a frame whose eop beat is
  // beat w holds (NB/4)w + NB/4-1-(e-2)/4 4-byte words and 2 bytes, up to
  // FMaxBeats beats (64 bits: 2w+1 or 2w words, 1024 words).
  logic        f_in_fire, f_out_fire;
  logic [10:0] f_in_word;   // the index of the next word taken in its packet
  logic [10:0] f_cur_fl;    // this word's frame length in 4-byte words, were it the last
  logic [63:0] f_in_lrh;    // lanes 0-7 of the beat (the LRH in the sop beat)
  logic [10:0] f_in_plen, f_cur_plen;  // the packet's LRH PktLen
  logic [1:0]  f_in_lnh, f_cur_lnh;
  logic [15:0] f_in_slid, f_cur_slid;  // its SLID (LRH bytes 6-7)
  logic        f_cur_plok;  // at the last word: PktLen describes the frame, a legal length
  assign f_in_fire  = in_valid_i && in_ready_o;
  assign f_out_fire = out_valid_o && out_ready_i;
  assign f_cur_fl   = 11'({f_in_word, f_vcrc_grp(in_empty_i)});
  assign f_in_lrh   = in_data_i[DataW-1 -: 64];
  assign f_cur_plen = in_sop_i ? f_in_lrh[26:16] : f_in_plen;
  assign f_cur_lnh  = in_sop_i ? f_in_lrh[49:48] : f_in_lnh;
  assign f_cur_slid = in_sop_i ? f_in_lrh[15:0] : f_in_slid;
  assign f_cur_plok = f_cur_plen == f_cur_fl && f_cur_fl <= 11'(ibr_pkg::MaxLegalPktLen);
  always @(posedge clk_i) begin
    if (f_past && $past(rst_ni) && $past(in_valid_i && !in_ready_o)) begin
      assume (in_valid_i && $stable(in_data_i) && $stable(in_sop_i) && $stable(in_eop_i) &&
              $stable(in_empty_i) && (!Segmented || $stable(in_sop_seg_i)));
    end
  end
  // (Segmented beats: the rules of docs/rtl.md's "Segmented beats" below.)
  always @(*) begin
    if (!Segmented && in_valid_i) begin
      assume (in_sop_i == (f_in_word == 11'd0));
      if (in_eop_i) begin
        assume (in_empty_i[1:0] == 2'd2 && in_empty_i <= EmptyW'(NB - 2));
        assume (f_cur_lnh[1] ? f_cur_fl >= (f_cur_lnh[0] ? 11'd16 : 11'd6) : f_cur_fl >= 11'd2);
      end else begin
        assume (f_in_word < 11'(FMaxBeats - 1));
      end
    end
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_word <= '0;
      f_in_plen <= '0;
      f_in_lnh  <= '0;
      f_in_slid <= '0;
    end else if (f_in_fire) begin
      f_in_word <= in_eop_i ? 11'd0 : f_in_word + 11'd1;
      f_in_plen <= f_cur_plen;
      f_in_lnh  <= f_cur_lnh;
      f_in_slid <= f_cur_slid;
    end
  end

  // The current word's place in its packet: BTH byte 4 (packet byte 12 or
  // 52), the PSN (BTH bytes 9-11: at 64 bits the next word; at wider beats
  // possibly the same beat, or the sop beat), the VCRC (the frame's last two
  // bytes: group f_vcrc_grp of the eop word; lanes 4-5 at 64 bits with 2
  // unused bytes, else 0-1).
  logic [10:0]      f_tel_word, f_psn_word;
  logic             f_is_tel, f_is_psn, f_is_vcrc;
  logic [FGrpW-1:0] f_vgrp_in;
  assign f_tel_word = f_cur_lnh[0] ? 11'(FTel3 / NB) : 11'(FTel2 / NB);
  assign f_psn_word = f_cur_lnh[0] ? 11'(FPsn3 / NB) : 11'(FPsn2 / NB);
  assign f_is_tel   = f_cur_lnh[1] && f_in_word == f_tel_word;
  assign f_is_psn   = f_cur_lnh[1] && f_in_word == f_psn_word;
  assign f_is_vcrc  = in_eop_i;
  assign f_vgrp_in  = f_vcrc_grp(in_empty_i);

  // Words counted on both sides.
  logic [7:0] f_in_cnt, f_out_cnt;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_cnt  <= '0;
      f_out_cnt <= '0;
    end else begin
      if (f_in_fire) f_in_cnt <= f_in_cnt + 8'd1;
      if (f_out_fire) f_out_cnt <= f_out_cnt + 8'd1;
    end
  end

  // One word, chosen by the solver, followed through the stage.
  (* anyconst *) logic [7:0] f_k;
  logic              f_got;  // the k-th input word has been taken
  logic [DataW-1:0]  f_word;
  logic              f_sop, f_eop, f_tel, f_vcrc, f_glob;
  logic [FGrpW-1:0]  f_lane4;  // its VCRC's group (64 bits: 1 for lanes 4-5)
  logic [EmptyW-1:0] f_empty;
  // cong_i in the cycle the current packet's sop word was taken, and the k-th
  // word's packet's.
  logic        f_pkt_cong, f_cong;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_pkt_cong <= 1'b0;
    end else if (f_in_fire && in_sop_i) begin
      f_pkt_cong <= cong_i;
    end
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_got <= 1'b0;
      {f_word, f_sop, f_eop, f_tel, f_vcrc, f_glob, f_lane4, f_empty, f_cong} <= '0;
    end else if (f_in_fire && f_in_cnt == f_k) begin
      f_got   <= 1'b1;
      f_cong  <= in_sop_i ? cong_i : f_pkt_cong;
      f_word  <= in_data_i;
      f_sop   <= in_sop_i;
      f_eop   <= in_eop_i;
      f_empty <= in_empty_i;
      f_tel   <= f_is_tel;
      f_vcrc  <= f_is_vcrc;
      f_glob  <= f_cur_lnh[0];
      f_lane4 <= f_vgrp_in;
    end
  end
  logic f_k_out;  // the k-th output word leaves now
  assign f_k_out = f_out_fire && f_out_cnt == f_k;

  // The generator is seeded (gen_load_i) only between packets, with nothing
  // inside the stage, as ibr_switch_stage's header requires.
  always @(*) begin
    if (gen_load_i) assume (f_in_cnt == f_out_cnt && (Segmented || f_in_word == 11'd0) && !in_valid_i);
  end

  // ---- Segmented beats (Segmented = 1; docs/rtl.md, "Segmented beats"). The
  // ingress: exactly the legal segmented streams (verilog.UnpackSegments'
  // rules): a beat is 8-byte segments; a packet starts at a segment boundary,
  // its byte 0 in lane 8*in_sop_seg_i of its sop beat, then lane after lane,
  // beat after beat; a beat holds at most one sop and one eop, so the tail of
  // the packet open before it (A) and the head of one starting in it (B); with
  // both flags it holds two packets exactly when B's first lane lies after A's
  // last (lane NB-1-in_empty_i), which must agree with the stream (a packet
  // open before the beat: two; none: one whole packet); a beat with neither
  // flag continues the open packet. Idle lanes (after A's last byte, before a
  // sop with no packet open, after a lone eop) are free, as are PktLen and
  // cong_i. Frames are 4k+2 bytes (empty = 2 mod 4) of every length to 8,190
  // bytes (PktLen's 2047 4-byte words and the VCRC), long enough for their
  // BTH (LNH 2: 26 bytes, LNH 3: 66; else 10). One packet a beat (sop
  // segment 0, no beat shared) is one of these streams. The monitors restate
  // the packet layout on the ports (a packet from segment s has byte k at
  // lane 8s+k of its sop beat, then on), independent of the datapath.
  localparam int FSegs = NB / 8;
  logic              fs_open;     // a packet is open before this beat (A)
  logic [SegW-1:0]   fs_oseg;     // its sop segment
  logic [10:0]       fs_obeat;    // this beat's place in it (its sop beat is 0)
  logic [1:0]        fs_olnh;     // its LNH
  logic [EmptyW-1:0] fs_last;     // the eop packet's last lane
  logic [EmptyW-1:0] fs_soplane;  // the sop packet's first lane
  logic              fs_two, fs_whole;  // two packets' bytes; one packet whole
  logic [63:0]       fs_hlrh;     // the sop packet's LRH (B, or a whole packet)
  logic [1:0]        fs_hlnh;
  logic [15:0]       fs_tbytes, fs_hbytes;  // A's bytes through this beat; a whole packet's
  logic [15:0]       fs_tpos, fs_hpos;  // BTH byte 4 from lane 0 of A's sop beat; of this beat, B's
  logic              fs_ttel, fs_htel;  // the beat holds A's, B's BTH byte 4
  logic [EmptyW-1:0] fs_ttl, fs_htl;    // at these lanes
  logic [DataW-1:0]  fs_mask;     // the bits the stage may change in this beat
  function automatic logic [15:0] f_min_frame(input logic [1:0] lnh);
    f_min_frame = lnh[1] ? (lnh[0] ? 16'd66 : 16'd26) : 16'd10;
  endfunction
  assign fs_last    = EmptyW'(NB - 1) - in_empty_i;
  assign fs_soplane = EmptyW'({in_sop_seg_i, 3'b000});
  assign fs_two     = in_sop_i && in_eop_i && fs_soplane > fs_last;
  assign fs_whole   = in_sop_i && in_eop_i && !fs_two;
  always @(*) begin
    fs_hlrh = '0;
    for (int s = 0; s < FSegs; s++) begin
      if (in_sop_seg_i == SegW'(s)) fs_hlrh = in_data_i[DataW-1-64*s -: 64];
    end
  end
  assign fs_hlnh   = fs_hlrh[49:48];
  assign fs_tbytes = 16'(fs_obeat) * 16'(NB) + (in_eop_i ? 16'(fs_last) + 16'd1 : 16'(NB)) - 16'({fs_oseg, 3'b000});
  assign fs_hbytes = 16'(fs_last) + 16'd1 - 16'(fs_soplane);
  assign fs_tpos   = 16'({fs_oseg, 3'b000}) + (fs_olnh[0] ? 16'(FTel3) : 16'(FTel2));
  assign fs_hpos   = 16'(fs_soplane) + (fs_hlnh[0] ? 16'(FTel3) : 16'(FTel2));
  assign fs_ttel   = fs_open && fs_olnh[1] && fs_tpos / 16'(NB) == 16'(fs_obeat);
  assign fs_htel   = in_sop_i && fs_hlnh[1] && fs_hpos < 16'(NB);
  assign fs_ttl    = EmptyW'(fs_tpos);  // (mod NB)
  assign fs_htl    = EmptyW'(fs_hpos);
  always @(*) begin
    if (Segmented && in_valid_i) begin
      if (in_eop_i) assume (in_empty_i[1:0] == 2'd2);
      if (fs_open) assume (!in_sop_i || fs_two);
      else assume (in_sop_i && !fs_two);
      if (fs_open && in_eop_i) assume (fs_tbytes >= f_min_frame(fs_olnh) && fs_tbytes <= 16'd8190);
      if (fs_open && !in_eop_i) assume (fs_tbytes <= 16'd8188);
      if (fs_whole) assume (fs_hbytes >= f_min_frame(fs_hlnh));
    end
    if (Segmented && gen_load_i) assume (!fs_open);  // seeded between packets
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fs_open  <= 1'b0;
      fs_oseg  <= '0;
      fs_obeat <= '0;
      fs_olnh  <= '0;
    end else if (f_in_fire) begin
      if (in_sop_i && !fs_whole) begin  // B (or a packet alone) starts and stays open
        fs_open  <= 1'b1;
        fs_oseg  <= in_sop_seg_i;
        fs_obeat <= 11'd1;
        fs_olnh  <= fs_hlnh;
      end else if (in_eop_i) begin
        fs_open <= 1'b0;
      end else begin
        fs_obeat <= fs_obeat + 11'd1;
      end
    end
  end
  // The bits a segmented beat's packets may have changed: the telemetry bits
  // of A's BTH byte 4 and of B's (or a whole packet's) where the beat holds
  // them, and the eop packet's two VCRC bytes (lanes last-1 and last).
  always @(*) begin
    fs_mask = in_eop_i ? ~f_vcrc_bits(f_vcrc_grp(in_empty_i)) : '1;
    for (int k = 0; k < NB; k++) begin
      if (fs_ttel && fs_ttl == EmptyW'(k) || fs_htel && fs_htl == EmptyW'(k)) begin
        fs_mask[DataW-8-8*k +: FieldW + 2] = '0;
      end
    end
  end
  // The k-th beat's: its mask, sop segment, the two packets' telemetry bytes
  // and congested bits (A's: cong_i as its sop beat was taken; B's: now),
  // and whether it held two packets.
  logic [DataW-1:0]  f_smask;
  logic [SegW-1:0]   f_sseg;
  logic              f_two, f_ttel, f_htel, f_tcong, f_hcong;
  logic [EmptyW-1:0] f_ttl, f_htl;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {f_smask, f_sseg, f_two, f_ttel, f_htel, f_tcong, f_hcong, f_ttl, f_htl} <= '0;
    end else if (f_in_fire && f_in_cnt == f_k) begin
      f_smask <= fs_mask;
      f_sseg  <= in_sop_seg_i;
      f_two   <= fs_two;
      f_ttel  <= fs_ttel;
      f_htel  <= fs_htel;
      f_tcong <= f_pkt_cong;
      f_hcong <= cong_i;
      f_ttl   <= fs_ttl;
      f_htl   <= fs_htl;
    end
  end
  // Byte L of a beat.
  function automatic logic [7:0] f_byte(input logic [DataW-1:0] d, input logic [EmptyW-1:0] l);
    f_byte = '0;
    for (int k = 0; k < NB; k++) begin
      if (l == EmptyW'(k)) f_byte = d[DataW-1-8*k -: 8];
    end
  endfunction

  // The bits the stage may change in the k-th word: the telemetry bits
  // (hop_bit, cong_bit, the hop field: Resv6's low FieldW+2 bits) of BTH byte 4
  // in the telemetry word, the two VCRC bytes in the VCRC word (at DataW > 64
  // a beat may be both). f_tel_lo is byte 4's bit 0 in the k-th word.
  logic [DataW-1:0] f_mask;
  always @(*) begin
    f_mask = '1;
    if (Segmented) begin
      f_mask = f_smask;
    end else begin
      if (f_tel) begin
        if (f_glob) f_mask[FTelLo3 +: FieldW + 2] = '0;
        else f_mask[FTelLo2 +: FieldW + 2] = '0;
      end
      if (f_vcrc) f_mask = f_mask & ~f_vcrc_bits(f_lane4);
    end
  end

`ifdef IBR_PROP_A
`define IBR_FORMAL_SEGCONG
`endif
`ifdef IBR_PROP_G
`define IBR_FORMAL_SEGCONG
`endif
`ifdef IBR_FORMAL_SEGCONG
  if (Segmented) begin : gen_seg_cong
    // Segmented ((a) and (g)): each telemetry byte of the k-th beat's packets
    // (A's, B's) takes one of the stage's two decisions of the beat (the
    // first at head_lane0, the second at head_lane1), and no other lane does;
    // a decision that takes the hop writes the congested bit of that byte's
    // packet (A's: cong_i as A's sop beat was taken, an earlier cycle; B's:
    // as this beat was).
    logic       f_at_t, f_at_h, f_rep_t, f_rep_h, f_chg_t, f_chg_h;
    logic [7:0] f_ob_t, f_ob_h;  // the bytes out at A's and B's byte-4 lanes
    assign f_ob_t  = f_byte(out_data_o, f_ttl);
    assign f_ob_h  = f_byte(out_data_o, f_htl);
    assign f_at_t  = f_ttel && (head_tel && head_lane0 == f_ttl || head_tel2 && head_lane1 == f_ttl);
    assign f_at_h  = f_htel && (head_tel && head_lane0 == f_htl || head_tel2 && head_lane1 == f_htl);
    assign f_rep_t = head_tel && head_lane0 == f_ttl ? replace : head_tel2 && head_lane1 == f_ttl && replace2;
    assign f_rep_h = head_tel && head_lane0 == f_htl ? replace : head_tel2 && head_lane1 == f_htl && replace2;
    assign f_chg_t = f_ob_t != f_byte(f_word, f_ttl);
    assign f_chg_h = f_ob_h != f_byte(f_word, f_htl);
    always @(*) begin
      if (f_past && rst_ni && f_k_out) begin
        assert (f_at_t == f_ttel && f_at_h == f_htel);
        if (head_tel) assert (f_ttel && head_lane0 == f_ttl || f_htel && head_lane0 == f_htl);
        if (head_tel2) assert (f_ttel && head_lane1 == f_ttl || f_htel && head_lane1 == f_htl);
        if (head_tel && head_tel2) assert (head_lane0 != head_lane1);
        if (f_ttel && f_rep_t) assert (f_ob_t[FieldW] == f_tcong);
        if (f_htel && f_rep_h) assert (f_ob_h[FieldW] == f_hcong);
      end
    end
    always @(*) begin
      // A shared beat with A's telemetry byte changed, one with B's, and (512
      // bits, where one beat can hold both: at 256 none can) one with both.
      cover (f_past && rst_ni && f_k_out && f_two && f_ttel && f_chg_t && f_rep_t && f_tcong != cong_i);
      cover (f_past && rst_ni && f_k_out && f_two && f_htel && f_chg_h);
    end
    if (DataW == 512) begin : gen_cover_both
      always @(*) cover (f_past && rst_ni && f_k_out && f_two && f_ttel && f_htel && f_chg_t && f_chg_h);
    end
  end
`undef IBR_FORMAL_SEGCONG
`endif
`ifdef IBR_PROP_A
  // (a) The k-th output word is the k-th input word but for the bits f_mask
  // clears; and when it is a telemetry word whose hop the reservoir takes, its
  // cong_bit is cong_i of the cycle its packet's sop word was taken (cong_i is
  // free on every other cycle, so no other cycle's value can pass).
  always @(*) begin
    if (f_past && rst_ni && f_k_out) begin
      assert (f_got);
      assert (((out_data_o ^ f_word) & f_mask) == '0);
      assert (out_sop_o == f_sop && out_eop_o == f_eop && (!f_eop || out_empty_o == f_empty));
      if (!Segmented && f_tel && replace) begin
        assert ((f_glob ? out_data_o[FTelLo3 + FieldW] : out_data_o[FTelLo2 + FieldW]) == f_cong);
      end
    end
  end
  if (!Segmented) begin : gen_a_cover
    always @(*) begin
      cover (f_past && rst_ni && f_k_out && f_tel && f_word[DataW-1 -: 32] != 32'd0);
      cover (f_past && rst_ni && f_k_out && f_vcrc && f_lane4 == FGrpW'(NB / 4 - 1));
      cover (f_past && rst_ni && f_k_out && f_tel && replace && f_cong != cong_i);
    end
  end else begin : gen_a_seg
    always @(*) begin
      if (f_past && rst_ni && f_k_out && f_sop) assert (out_sop_seg_o == f_sseg);
    end
  end
`endif

`ifdef IBR_PROP_B
  // (b) At the VCRC word (the frame's last), the outgoing VCRC is the CRC of
  // the outgoing bytes before it when the packet was sound (its incoming VCRC
  // right and its PktLen describing the frame: spec section 5, step 0), and is
  // not otherwise (stomped). The reference registers advance over a word's
  // bytes, or at the eop word over the bytes before the VCRC (at 64 bits the
  // four before lanes 4-5, or none before lanes 0-1), in steps of four bytes
  // by ibr_crc16_bytes, which its lemma (ibr_crc16_bytes_lemma, proved before
  // this property) shows equal to the bit-serial CRC-16 of IBA Vol. 1 7.8.2:
  // at 64 bits a chain of two steps; wider, ibr_crc16_bytes_end, which
  // ibr_crc16_bytes_end_lemma shows equal to a chain of NB/4 steps (so the
  // stage's masked step and rewind, ibr_pkg::vcrc_rewind, are checked). Each side
  // finds the VCRC from its own eop and empty tags; whether a packet was
  // sound is kept by packet number (at most a few packets are ever inside
  // the stage). The check (verify --formal) puts one uninterpreted function
  // in place of every CRC step, the stage's and the monitors' alike (the
  // 4-byte ibr_crc16_bytes at 64 bits, ibr_crc16_f32; wider, the full-width
  // step, ibr_crc16_f<W>): the property holding for every such function
  // holds for the CRC. f_crc_before(cs, base, g) is the CRC before group g
  // of a chain cs (group j's step in bits 16j +: 16) started from base.
  function automatic logic [15:0] f_crc_before(input logic [8*NB/2-1:0] cs, input logic [15:0] base,
                                               input logic [FGrpW-1:0] g);
    f_crc_before = base;
    for (int j = 1; j < NB / 4; j++) begin
      if (g == FGrpW'(j)) f_crc_before = cs[16*(j-1) +: 16];
    end
  endfunction
  logic [15:0]       f_in_crc, f_in_base, f_in_next;
  logic [15:0]       f_out_crc, f_out_base, f_out_next;
  logic [8*NB/2-1:0] f_in_cs, f_out_cs;  // the CRC after each 4-byte group
  logic [8*NB/2+15:0] f_in_chain, f_out_chain;  // the CRC before each group, and after the last
  logic [1:0]        f_in_pkt, f_out_pkt;
  logic [3:0]        f_pkt_ok;   // the packet was sound
  logic [3:0]        f_pkt_len;  // its PktLen described the frame (for the covers)
  logic [15:0]       f_in_vcrc, f_out_vcrc;
  logic              f_out_is_vcrc;
  logic [FGrpW-1:0]  f_out_lane4;
  assign f_in_base = in_sop_i ? 16'hffff : f_in_crc;
  if (!Wide) begin : gen_f_next64
    assign f_in_chain = {f_in_cs, f_in_base};
    assign f_out_chain = {f_out_cs, f_out_base};
    for (genvar j = 0; j < NB / 4; j++) begin : gen_f_crc
      ibr_crc16_bytes #(.NBytes(4)) f_u_in (
        .crc_i(f_in_chain[16*j +: 16]), .data_i(in_data_i[DataW-1-32*j -: 32]), .crc_o(f_in_cs[16*j +: 16])
      );
      ibr_crc16_bytes #(.NBytes(4)) f_u_out (
        .crc_i(f_out_chain[16*j +: 16]), .data_i(out_data_o[DataW-1-32*j -: 32]), .crc_o(f_out_cs[16*j +: 16])
      );
    end
    assign f_in_next = !f_is_vcrc ? f_in_cs[8*NB/2-1 -: 16] : f_crc_before(f_in_cs, f_in_base, f_vgrp_in);
    assign f_out_next = !f_out_is_vcrc ? f_out_cs[8*NB/2-1 -: 16] : f_crc_before(f_out_cs, f_out_base, f_out_lane4);
  end else begin : gen_f_next_wide
    // Wider beats: the chain is restated once, in ibr_crc16_bytes_end_lemma,
    // which shows ibr_crc16_bytes_end equal to it for every input; here the
    // reference registers take ibr_crc16_bytes_end of each side's own
    // bytes, eop and empty (each full-width step uninterpreted in the check,
    // as above), so the solver follows which bytes each CRC covers and
    // when, not the trees.
    ibr_crc16_bytes_end #(.DataW(DataW)) f_u_in_end (
      .crc_i(f_in_base), .data_i(in_data_i), .eop_i(f_is_vcrc), .empty_i(in_empty_i), .crc_o(f_in_next), .got_o()
    );
    ibr_crc16_bytes_end #(.DataW(DataW)) f_u_out_end (
      .crc_i(f_out_base), .data_i(out_data_o), .eop_i(f_out_is_vcrc), .empty_i(out_empty_o), .crc_o(f_out_next), .got_o()
    );
  end
  // A VCRC, least-significant byte first, at lane 0 or 4 (64 bits).
  assign f_in_vcrc = f_vcrc_of(in_data_i, f_vgrp_in);

  assign f_out_is_vcrc = out_eop_o;
  assign f_out_lane4   = f_vcrc_grp(out_empty_o);
  assign f_out_base    = out_sop_o ? 16'hffff : f_out_crc;
  assign f_out_vcrc = f_vcrc_of(out_data_o, f_out_lane4);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_crc  <= 16'hffff;
      f_out_crc <= 16'hffff;
      f_in_pkt  <= '0;
      f_out_pkt <= '0;
      f_pkt_ok  <= '0;
      f_pkt_len <= '0;
    end else begin
      if (f_in_fire) begin
        f_in_crc <= f_in_next;
        if (f_is_vcrc) begin
          f_pkt_ok[f_in_pkt]  <= f_in_vcrc == ~f_in_next && f_cur_plok;
          f_pkt_len[f_in_pkt] <= f_cur_plok;
        end
        if (in_eop_i) f_in_pkt <= f_in_pkt + 2'd1;
      end
      if (f_out_fire) begin
        f_out_crc <= f_out_next;
        if (out_eop_o) f_out_pkt <= f_out_pkt + 2'd1;
      end
    end
  end
  always @(*) begin
    if (f_past && rst_ni && f_out_fire && f_out_is_vcrc) begin
      if (f_pkt_ok[f_out_pkt]) assert (f_out_vcrc == ~f_out_next);
      else assert (f_out_vcrc != ~f_out_next);
    end
  end
  always @(*) begin
    cover (f_past && rst_ni && f_out_fire && f_out_is_vcrc && f_pkt_ok[f_out_pkt] &&
           f_out_lane4 == FGrpW'(NB / 4 - 1));
    cover (f_past && rst_ni && f_out_fire && f_out_is_vcrc && !f_pkt_ok[f_out_pkt] &&
           f_pkt_len[f_out_pkt]);
    cover (f_past && rst_ni && f_out_fire && f_out_is_vcrc && !f_pkt_len[f_out_pkt]);
  end
`endif

`ifdef IBR_PROP_C
  // (c) A hop count at its largest value stays there and any other grows by
  // exactly one (no wrap to 0); a spent sender field stays spent.
  always @(*) begin
    if (f_past && rst_ni && tel_done) begin
      if (!Sender) begin
        if (field_in == FieldW'(CountMax)) assert (field_new == field_in);
        else assert (field_new == field_in + FieldW'(1));
      end else if (field_in == {1'b1, {(FieldW-1){1'b0}}}) begin
        assert (field_new == field_in);
      end
    end
  end
  always @(*) begin
    cover (f_past && rst_ni && tel_done && field_in == FieldW'(CountMax));
    cover (f_past && rst_ni && tel_done && field_in != FieldW'(CountMax));
  end
  if (Segmented) begin : gen_c_seg
    // Segmented: the beat's second telemetry byte (B's) alike.
    always @(*) begin
      if (f_past && rst_ni && tel2_done) begin
        if (!Sender) begin
          if (gen_dec2.field_in2 == FieldW'(CountMax)) assert (field_new2 == gen_dec2.field_in2);
          else assert (field_new2 == gen_dec2.field_in2 + FieldW'(1));
        end else if (gen_dec2.field_in2 == {1'b1, {(FieldW-1){1'b0}}}) begin
          assert (field_new2 == gen_dec2.field_in2);
        end
      end
    end
    // (A beat holds two telemetry bytes at 512 bits only: at 256 a packet
    // whose byte 4 shares a beat with the next packet's is too long to end
    // before that packet's segment.)
    if (DataW == 512) begin : gen_c_cover2
      always @(*) cover (f_past && rst_ni && tel2_done);
    end
  end
`endif

`ifdef IBR_PROP_D
  // (d) Whenever a telemetry word leaves, the byte 4 it carries out is Alg. 8
  // (alg8_ref) applied to the incoming byte 4 with the drawn value, the hash
  // bit and the port's congested bit. (That the rest of the word passes
  // unchanged is (a).)
  always @(*) begin
    if (f_past && rst_ni && tel_done) begin
      assert (byte4_new == alg8_ref(byte4_q, zero_q, hash_q, dec_cong_q));
    end
  end
  always @(*) begin
    cover (f_past && rst_ni && tel_done && replace);
    cover (f_past && rst_ni && tel_done && !replace);
  end
  if (Segmented) begin : gen_d_seg
    // Segmented: the beat's second telemetry byte (B's) alike, from the
    // second decision.
    always @(*) begin
      if (f_past && rst_ni && tel2_done) begin
        assert (byte4_new2 == alg8_ref(byte4_2, gen_dec2.zero2, hash2, dec2_cong));
      end
    end
    if (DataW == 512) begin : gen_d_cover2  // (at 256 bits no beat holds two: (c))
      always @(*) cover (f_past && rst_ni && tel2_done && replace2);
    end
  end
`endif

`ifdef IBR_PROP_E
  // (e) The egress never emits a word it was not given, emits the k-th word
  // taken as its k-th (so nothing is dropped, duplicated or reordered), and
  // holds a stalled word and its tags until it is taken.
  always @(*) begin
    if (f_past && rst_ni) begin
      assert (8'(f_in_cnt - f_out_cnt) <= 8'(PipeDepth + 1));
      if (out_valid_o) assert (f_in_cnt != f_out_cnt);
      if (f_k_out) begin
        assert (f_got);
        assert (out_sop_o == f_sop && out_eop_o == f_eop);
        assert (((out_data_o ^ f_word) & f_mask) == '0);
      end
    end
  end
  // The bits the stall check follows: all but the two VCRC bytes of a VCRC
  // word, which the check of (e) leaves to free values (cosim cuts the CRC
  // trees); that the VCRC is right is (b).
  // (At 64 bits the stage tags the VCRC's lanes, lane4_q; wider, its group
  // follows from the eop beat's empty bytes.)
  logic [DataW-1:0] f_hold;
  assign f_hold = !head_vcrc ? '1 : ~f_vcrc_bits(Wide ? f_vcrc_grp(head_empty) : FGrpW'(head_lane4));
  always @(posedge clk_i) begin
    if (f_past && $past(rst_ni) && rst_ni && $past(out_valid_o && !out_ready_i)) begin
      assert (out_valid_o && $stable(out_data_o & f_hold) && $stable(out_sop_o) && $stable(out_eop_o) &&
              $stable(out_empty_o) && $stable(out_sop_seg_o));
    end
  end
  if (Segmented) begin : gen_e_seg
    // Segmented: the k-th beat leaves at the sop segment it came with, and a
    // shared beat (A's eop and B's sop) passes.
    always @(*) begin
      if (f_past && rst_ni && f_k_out && f_sop) assert (out_sop_seg_o == f_sseg);
    end
    always @(*) begin
      cover (f_past && rst_ni && f_k_out && f_two && f_sseg != '0);
    end
  end
  always @(*) begin
    // (A packet well behind the first: the seventh word on, at 64 bits; at
    // wider beats, where a packet is a beat or two, the third beat on.)
    cover (f_past && rst_ni && f_k_out && f_eop && f_k > (Wide ? 8'd2 : 8'd6));
    cover (f_past && rst_ni && out_valid_o && !out_ready_i && !in_ready_o);
  end
`endif
`ifdef IBR_PROP_F
`define IBR_FORMAL_INGRESS
`endif
`ifdef IBR_PROP_G
`define IBR_FORMAL_INGRESS
`define IBR_FORMAL_DECISION
`endif
`ifdef IBR_PROP_B
`define IBR_FORMAL_INGRESS
`endif
`ifdef IBR_PROP_A
`define IBR_FORMAL_INGRESS
`define IBR_FORMAL_DECISION
`define IBR_FORMAL_STREAM
`endif
`ifdef IBR_PROP_E
`define IBR_FORMAL_INGRESS
`define IBR_FORMAL_DECISION
`define IBR_FORMAL_STREAM
`endif
`ifdef IBR_FORMAL_INGRESS
  // The ingress account (f), (g), (a) and (e) share: the last word taken and
  // the current packet's DestQP as the ports carried them, with strengthening
  // invariants (below) that make them provable by k-induction for every length.
  //
  // (f) The hash bit is a function of this packet's id and the configured
  // link: whenever the stage takes its hash bit (the PSN word entering slot
  // 0), the word is the packet's PSN word and the hash's inputs are the id
  // docs/spec.md section 3 makes of it (spec_packet_id of the PSN, the
  // SLID and the DestQP the ports carried), and the d and K of the link the
  // ports configured (spec_link_d, spec_form_k); and a telemetry
  // word whose hop the reservoir takes leaves with that bit. With the lemma
  // ibr_hash_lemma (ibr_hash of those inputs is H(id, d) of the spec, proved
  // first for every input), the hop bit written is H(id, d). The hash is not
  // cut. The subnet manager configures the port between packets, with no word
  // waiting in the skid buffer (the RTL's header: the configuration a packet
  // sees is the one current when its PSN word enters slot 0).
  `include "ibr_spec.svh"
  logic [31:0] f_d_exp;  // d of the link the ports configured
  logic [23:0] f_in_destqp;  // the current packet's DestQP (BTH bytes 5-7)
  logic [DataW-1:0] f_last_data;  // the last word taken, and its place
  logic        f_last_sop, f_last_eop, f_last_psn;
  logic [10:0] f_last_word;
  // d of the link the ports configured as of this handshake (a write with it
  // applies), and as of the last word's: at DataW > 64 the PSN may share the
  // sop beat, with which cfg_we_i may come.
  logic [31:0] f_d_now, f_last_d;
  assign f_d_now = cfg_we_i ? spec_link_d(LinkEnc, cfg_switch_i, cfg_port_i) : f_d_exp;
  // DestQP of a beat, were it its packet's telemetry beat (LNH[0] lnh0).
  function automatic logic [23:0] f_destqp_of(input logic [DataW-1:0] d, input logic lnh0);
    f_destqp_of = lnh0 ? d[FTelLo3-24 +: 24] : d[FTelLo2-24 +: 24];
  endfunction
`ifdef IBR_PROP_F
  always @(*) begin
    if (cfg_we_i) assume (f_in_word == 11'd0 && in_ready_o);
  end
`endif
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_d_exp     <= '0;
      f_in_destqp <= '0;
      f_last_data <= '0;
      f_last_sop  <= 1'b0;
      f_last_eop  <= 1'b1;  // as if a packet had just ended
      f_last_psn  <= 1'b0;
      f_last_word <= '0;
      f_last_d    <= '0;
    end else begin
      if (cfg_we_i) begin
        f_d_exp <= spec_link_d(LinkEnc, cfg_switch_i, cfg_port_i);
      end
      if (f_in_fire) begin
        if (f_is_tel) f_in_destqp <= f_destqp_of(in_data_i, f_cur_lnh[0]);
        f_last_data <= in_data_i;
        f_last_d    <= f_d_now;
        f_last_sop  <= in_sop_i;
        f_last_eop  <= in_eop_i;
        f_last_psn  <= f_is_psn;
        f_last_word <= f_in_word;
      end
    end
  end
  // The word entering slot 0: the one taken now if one is (the skid buffer is
  // then empty), else the last one taken (waiting in the skid buffer); its
  // packet's LNH, SLID and DestQP (at DataW > 64 the PSN beat may be the sop
  // beat or the telemetry beat itself), and the link as of its handshake.
  logic [DataW-1:0] f_h_data;
  logic        f_h_psn;
  logic [1:0]  f_h_lnh;
  logic [15:0] f_h_slid;
  logic [23:0] f_h_destqp;
  logic [31:0] f_id_exp, f_h_d;
  assign f_h_data   = f_in_fire ? in_data_i : f_last_data;
  assign f_h_psn    = f_in_fire ? f_is_psn : f_last_psn;
  assign f_h_lnh    = f_in_fire ? f_cur_lnh : f_in_lnh;
  assign f_h_slid   = f_in_fire ? f_cur_slid : f_in_slid;
  assign f_h_destqp = f_in_fire && f_is_tel ? f_destqp_of(in_data_i, f_cur_lnh[0]) : f_in_destqp;
  assign f_h_d      = f_in_fire ? f_d_now : f_last_d;
  assign f_id_exp   = spec_packet_id(IdOpt, f_h_lnh[0] ? f_h_data[FPsnLo3 +: 24] : f_h_data[FPsnLo2 +: 24],
                                     f_h_slid, f_h_destqp);
`ifdef IBR_PROP_F
  // At DataW > 64 the id and the link's d and K are registered as the PSN
  // beat enters slot 0 and the hash takes them a cycle later (psn_take):
  // the monitor registers what it expects with them.
  logic [31:0] f_id_q, f_hd_q;
  always @(posedge clk_i) begin
    if (iw_fire && is_psn_in) begin
      f_id_q <= f_id_exp;
      f_hd_q <= f_h_d;
    end
  end
  always @(*) begin
    if (f_past && rst_ni) begin
      assert (d_q == f_d_exp);
      if (iw_fire && is_psn_in) begin
        assert (f_h_psn);
        assert (id == f_id_exp);
        if (Wide) assert (iw_d == f_h_d);
      end
      if (Wide && psn_take) assert (hash_id == f_id_q && hash_d == f_hd_q);
      if (tel_done && replace) begin
        assert ((head_glob ? out_data_o[FTelLo3 + FieldW + 1] : out_data_o[FTelLo2 + FieldW + 1]) == hash_q);
      end
    end
  end
`endif
  // Strengthening invariants for the induction (ReadySkid): the stage's word
  // counter, header registers and skid buffer agree with the ports' account,
  // for every packet length (the counter is 11 bits; frames reach 1024 words,
  // FMaxBeats beats).
  // (Segmented beats: no induction; these describe one packet a beat.)
  if (ReadyPath == ibr_pkg::ReadySkid && !Segmented) begin : gen_f_inv
    logic [63:0] f_last_lrh;
    logic        f_mid;  // the next word into slot 0 continues a packet whose sop word went in
    assign f_last_lrh = f_last_data[DataW-1 -: 64];
    assign f_mid      = gen_skid.skid_v_q ? !f_last_sop : f_in_word != 11'd0;
    always @(*) begin
      if (f_past && rst_ni) begin
        assert (f_in_word < 11'(FMaxBeats) && f_last_word < 11'(FMaxBeats));
        assert (f_last_eop ? f_in_word == 11'd0 : f_in_word == f_last_word + 11'd1);
        assert (!f_last_sop || f_last_word == 11'd0);
        assert (f_last_psn == (f_in_lnh[1] && f_last_word == (f_in_lnh[0] ? 11'(FPsn3 / NB) : 11'(FPsn2 / NB))));
        if (f_last_eop && f_in_lnh[1]) assert (f_last_word >= (f_in_lnh[0] ? 11'(FMinEop3) : 11'(FMinEop2)));
        if (f_last_sop) begin
          assert (f_in_lnh == f_last_lrh[49:48] && f_in_slid == f_last_lrh[15:0] &&
                  f_in_plen == f_last_lrh[26:16]);
        end
        if (f_in_lnh[1] && f_last_word == (f_in_lnh[0] ? 11'(FTel3 / NB) : 11'(FTel2 / NB))) begin
          assert (f_in_destqp == f_destqp_of(f_last_data, f_in_lnh[0]));
        end
        if (gen_skid.skid_v_q) begin
          assert (gen_skid.skid_data_q == f_last_data && gen_skid.skid_sop_q == f_last_sop &&
                  gen_skid.skid_eop_q == f_last_eop);
          assert (wcnt_q == f_last_word);
`ifdef IBR_PROP_F
          // (f)'s alone: it rests on (f)'s invariant d_q == f_d_exp (the
          // skid buffer takes d_q), without which it is not inductive.
          if (Wide) assert (gen_skid.skid_d_q == f_last_d);
`endif
        end else begin
          assert (wcnt_q == f_in_word);
        end
        if (f_mid) begin
          assert (lnh_q == f_in_lnh && slid_q == f_in_slid && pktlen_q == f_in_plen);
          if (f_in_lnh[1] && wcnt_q > (f_in_lnh[0] ? 11'(FTel3 / NB) : 11'(FTel2 / NB))) begin
            assert (destqp_q == f_in_destqp);
          end
        end
        // (At 64 bits no word is both; at DataW > 64 a one-beat packet's is,
        // its VCRC past its byte 4, in a later 4-byte group: every eop word
        // inside has a frame's empty bytes, and one in the skid buffer ends a
        // frame no shorter than its LNH allows.)
        if (!Wide) for (int i = 0; i < PipeDepth; i++) assert (!(v_q[i] && tel_q[i] && vcrc_q[i]));
        if (Wide) begin
          for (int i = 0; i < PipeDepth; i++) begin
            if (v_q[i] && eop_q[i]) assert (empty_q[EmptyW*i +: 2] == 2'd2);
            if (v_q[i] && tel_q[i] && vcrc_q[i]) begin
              assert (32'(f_vcrc_grp(empty_q[EmptyW*i +: EmptyW])) > (glob_q[i] ? FTelGrp3 : FTelGrp2));
            end
          end
          if (gen_skid.skid_v_q && gen_skid.skid_eop_q) begin
            assert (gen_skid.skid_empty_q[1:0] == 2'd2);
            if (f_in_lnh[1]) begin
              assert (11'({f_last_word, f_vcrc_grp(gen_skid.skid_empty_q)}) >= (f_in_lnh[0] ? 11'd16 : 11'd6));
            end
          end
        end
      end
    end
  end
`ifdef IBR_PROP_F
  always @(*) begin
    cover (f_past && rst_ni && iw_fire && is_psn_in && f_d_exp != 32'd0 && id != 32'd0);
    cover (f_past && rst_ni && tel_done && replace && f_d_exp != 32'd0);
  end
`endif
`ifdef IBR_FORMAL_DECISION
  // (g) The congested bit written is cong_i of the cycle this packet's sop
  // word was taken: a telemetry word whose hop the reservoir takes leaves
  // with the congested bit the ports' account gives its packet (f_pkt_cong,
  // captured at the sop word's handshake; cong_i is free on every other
  // cycle). Its invariants: the skid buffer's and the slot-0 packet's
  // congested bits are the ports', at most one valid slot holds a telemetry
  // word, the stage has one pending exactly then, and the words taken after
  // it are those behind it (so no later packet's telemetry word can arrive
  // while it waits: three words always separate two telemetry words).
  logic        f_tel_cong, f_tel_in_pkt;
  logic [10:0] f_since_tel;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_tel_cong   <= 1'b0;
      f_tel_in_pkt <= 1'b0;
      f_since_tel  <= 11'h7ff;
    end else if (f_in_fire) begin
      if (f_is_tel) begin
        f_tel_cong   <= f_pkt_cong;
        f_tel_in_pkt <= 1'b1;
        f_since_tel  <= '0;
      end else begin
        if (in_sop_i) f_tel_in_pkt <= 1'b0;
        if (f_since_tel != 11'h7ff) f_since_tel <= f_since_tel + 11'd1;
      end
    end
  end
`ifdef IBR_PROP_G
  // At DataW > 64 several telemetry beats may be inside at once, each with
  // its own decision entry: (g) follows the k-th beat taken, as (a) does
  // (f_cong: cong_i as its packet's sop beat was taken).
  always @(*) begin
    if (f_past && rst_ni) begin
      if (!Wide && tel_done && replace) assert (out_data_o[FTelLo2 + FieldW] == f_tel_cong);
      if (Wide && !Segmented && f_k_out && f_tel && replace) begin
        assert ((f_glob ? out_data_o[FTelLo3 + FieldW] : out_data_o[FTelLo2 + FieldW]) == f_cong);
      end
    end
  end
`endif
  // (g)'s invariants follow the one telemetry word a 64-bit stage holds; at
  // DataW > 64 (a ring of decisions) they do not apply, and the properties
  // that take them are bounded only there.
`ifdef IBR_PROP_G
  localparam bit FDecInv = ReadyPath == ibr_pkg::ReadySkid && !Wide;
`else
  // (a) and (e) take (g)'s invariants (and state their own) where they were
  // proved: ReadySkid with PipeDepth 2, as every formal configuration;
  // elsewhere their induction is not attempted with them (bounded only).
  localparam bit FDecInv = ReadyPath == ibr_pkg::ReadySkid && PipeDepth == 2 && !Wide;
`endif
  // The congested bits the skid buffer and the stage's sop register hold are
  // the ports' account of their packets' (f_pkt_cong): an invariant of (g),
  // (a) and (e) wherever theirs are stated (gen_g_inv, gen_g_wide).
  if (FDecInv || Wide && !Segmented && ReadyPath == ibr_pkg::ReadySkid) begin : gen_cong_inv
    always @(*) begin
      if (f_past && rst_ni) begin
        if (gen_skid.skid_v_q && f_last_sop) assert (gen_skid.skid_cong_q == f_pkt_cong);
        if (gen_f_inv.f_mid) assert (sop_cong_q == f_pkt_cong);
      end
    end
  end
  if (FDecInv) begin : gen_g_inv
    logic [3:0] f_behind;  // words taken after the pending telemetry word
    logic       f_tel_slot;
    always @(*) begin
      f_behind   = {3'd0, gen_skid.skid_v_q};
      f_tel_slot = 1'b0;
      for (int i = 0; i < PipeDepth; i++) begin
        if (v_q[i] && tel_q[i]) f_tel_slot = 1'b1;
      end
      for (int i = PipeDepth - 1; i >= 0; i--) begin
        if (v_q[i] && tel_q[i]) f_behind = {3'd0, gen_skid.skid_v_q};
        else if (v_q[i]) f_behind = f_behind + 4'd1;
      end
    end
    always @(*) begin
      if (f_past && rst_ni) begin
        assert (f_tel_in_pkt == (f_in_lnh[1] && f_last_word >= (f_in_lnh[0] ? 11'd6 : 11'd1)));
        if (f_tel_in_pkt) begin
          assert (f_since_tel == f_last_word - (f_in_lnh[0] ? 11'd6 : 11'd1) && f_in_lnh[1]);
          assert (f_tel_cong == f_pkt_cong);
        end else begin
          assert (f_since_tel >= f_last_word + 11'd2);
        end
        assert (tel_seen_q == f_tel_slot);
        assert ($countones(v_q & tel_q) <= 1);
        if (tel_seen_q) begin
          assert (dec_cong_q == f_tel_cong);
          assert (11'(f_behind) == f_since_tel);
        end
      end
    end
  end
  // The invariants of (g), (a) and (e) at DataW > 64 (one packet a beat,
  // ReadySkid, any PipeDepth), where each telemetry beat inside has its own
  // entry in the ring of decisions: the beats inside (the valid slots, head
  // first, then the skid buffer) are the beats taken and not yet emitted, in
  // order, so the k-th sits at place f_k - f_out_cnt with its tags (for (a)
  // and (e) its bytes too); the ring's entries are the telemetry beats
  // inside, head first (the telemetry beat with j telemetry beats ahead of
  // it has entry rd_q + j, and wr_q is the entry after the newest); and the
  // k-th beat's entry holds the congested bit the ports' account gives its
  // packet (the skid buffer's and the stage's sop registers hold the ports')
  // and, for (a) and (e), its BTH byte 4.
  if (Wide && !Segmented && ReadyPath == ibr_pkg::ReadySkid) begin : gen_g_wide
    logic [7:0] f_held, f_kpos, f_ntel;  // beats inside; the k-th's place; telemetry beats inside
    // The ring from the head entry: the entry at place p, and entry e's place.
    logic [31:0] f_rd;
    assign f_rd = 32'(gen_dec_queue.rd_q);
    function automatic logic [31:0] f_entry(input logic [31:0] p, input logic [31:0] from);
      f_entry = (from + p) % DecN;
    endfunction
    function automatic logic [31:0] f_place(input logic [31:0] e, input logic [31:0] from);
      f_place = (e + DecN - from) % DecN;
    endfunction
    always @(*) begin
      f_held = {7'd0, gen_skid.skid_v_q};
      f_ntel = '0;
      for (int i = 0; i < PipeDepth; i++) begin
        f_held = f_held + {7'd0, v_q[i]};
        f_ntel = f_ntel + {7'd0, v_q[i] && tel_q[i]};
      end
    end
    assign f_kpos = f_k - f_out_cnt;
    always @(*) begin
      if (f_past && rst_ni) begin
        assert (8'(f_in_cnt - f_out_cnt) == f_held);
        if (gen_skid.skid_v_q) assert (&v_q);
        if (f_kpos < f_held) assert (f_got);
        assert (f_vcrc == f_eop && (!f_eop || f_empty[1:0] == 2'd2) && f_lane4 == f_vcrc_grp(f_empty));
        for (int i = 0; i < PipeDepth; i++) begin
          if (v_q[i]) assert (vcrc_q[i] == eop_q[i]);
        end
        assert (f_rd < DecN && 32'(gen_dec_queue.wr_q) < DecN);
        assert (32'(gen_dec_queue.wr_q) == f_entry(32'(f_ntel), f_rd));
        if (gen_skid.skid_v_q && f_kpos == f_held - 8'd1) begin
          assert (f_tel == is_tel_in && f_glob == lnh[0] && f_cong == f_pkt_cong);
`ifdef IBR_FORMAL_STREAM
          assert (gen_skid.skid_data_q == f_word && gen_skid.skid_sop_q == f_sop &&
                  gen_skid.skid_eop_q == f_eop && gen_skid.skid_empty_q == f_empty);
`endif
        end
      end
    end
`ifdef IBR_PROP_E
    // (e)'s hold: a stalled telemetry beat's byte 4 is made from its entry,
    // which nothing rewrites while it waits. The entries valid are those of
    // the telemetry beats inside (f_ntel of them from rd_q); a hash on its
    // way (f_pend: the registered PSN id, and mxm's product, each with its
    // entry's tag) is for a valid entry without one, two on their way for two
    // entries; and while a packet's PSN beat has not yet entered slot 0
    // behind its telemetry beat (f_await), the newest entry is that beat's,
    // without its hash and with none on its way. So no hash reaches an entry
    // that has one. (SipHash's stages are not named: no formal configuration
    // has SipHash.)
    localparam int FDecA = 1 << DecW;  // the ring's entries stored
    logic [DecW-1:0]  f_newest;
    logic             f_await;
    logic [FDecA-1:0] f_pend;
    assign f_newest = DecW'(f_entry(DecN - 1, 32'(gen_dec_queue.wr_q)));
    assign f_await  = gen_f_inv.f_mid && lnh_q[1] && wcnt_q > (lnh_q[0] ? 11'(FTel3 / NB) : 11'(FTel2 / NB)) &&
                      wcnt_q <= (lnh_q[0] ? 11'(FPsn3 / NB) : 11'(FPsn2 / NB));
    always @(*) begin
      for (int e = 0; e < FDecA; e++) begin
        f_pend[e] = gen_id_reg.id_ok_q && gen_id_reg.id_tag_q == DecW'(e) ||
                    HashKind == ibr_pkg::HashMxm && gen_hash_mxm.mxm_ok_q && gen_hash_mxm.mxm_tag_q == DecW'(e);
      end
    end
    always @(*) begin
      if (f_past && rst_ni) begin
        for (int e = 0; e < FDecA; e++) begin
          assert (gen_dec_queue.e_v_q[e] == (e < DecN && f_place(e, f_rd) < 32'(f_ntel)));
          if (f_pend[e]) assert (gen_dec_queue.e_v_q[e] && !gen_dec_queue.e_hok_q[e]);
        end
        if (HashKind == ibr_pkg::HashMxm && gen_id_reg.id_ok_q && gen_hash_mxm.mxm_ok_q) begin
          assert (gen_id_reg.id_tag_q != gen_hash_mxm.mxm_tag_q);
        end
        if (f_await) begin
          assert (f_ntel != 8'd0 && !gen_dec_queue.e_hok_q[f_newest] && !f_pend[f_newest]);
        end
      end
    end
    // And the draws (a switch generator): the entries drawn for (f_iss) and
    // answered (f_drn) are the oldest, in ring order, from rd_q; dr_q and
    // dn_q are the entries after them; and the one draw started and not yet
    // answered is the generator's (retrying, or answering now), so no answer
    // reaches an entry that has one.
    logic [7:0] f_iss, f_drn;
    always @(*) begin
      f_iss = '0;
      f_drn = '0;
      for (int e = 0; e < FDecA; e++) begin
        f_iss = f_iss + {7'd0, gen_dec_queue.e_v_q[e] && gen_dec_queue.e_iss_q[e]};
        f_drn = f_drn + {7'd0, gen_dec_queue.e_v_q[e] && gen_dec_queue.e_drawn_q[e]};
      end
    end
    always @(*) begin
      if (f_past && rst_ni && !Sender) begin
        for (int e = 0; e < DecN; e++) begin
          if (gen_dec_queue.e_v_q[e]) begin
            assert (gen_dec_queue.e_iss_q[e] == (f_place(e, f_rd) < 32'(f_iss)));
            assert (gen_dec_queue.e_drawn_q[e] == (f_place(e, f_rd) < 32'(f_drn)));
          end
        end
        assert (32'(gen_dec_queue.dr_q) == f_entry(32'(f_iss), f_rd));
        assert (32'(gen_dec_queue.dn_q) == f_entry(32'(f_drn), f_rd));
        assert (f_iss - f_drn == {7'd0, gen_done || gen_busy} && !(gen_done && gen_busy));
      end
    end
`endif
    for (genvar i = 0; i < PipeDepth; i++) begin : gen_g_slot
      logic [7:0] f_above, f_tabove;  // valid slots ahead of slot i; telemetry slots among them
      always @(*) begin
        f_above  = '0;
        f_tabove = '0;
        for (int j = i + 1; j < PipeDepth; j++) begin
          f_above  = f_above + {7'd0, v_q[j]};
          f_tabove = f_tabove + {7'd0, v_q[j] && tel_q[j]};
        end
      end
      always @(*) begin
        if (f_past && rst_ni && v_q[i] && f_kpos == f_above) begin
          assert (tel_q[i] == f_tel && glob_q[i] == f_glob);
          if (f_tel) begin
            assert (gen_dec_queue.e_cong_q[f_entry(32'(f_tabove), f_rd)] == f_cong);
          end
`ifdef IBR_FORMAL_STREAM
          // (a), (e): its bytes and tags as the ports gave them, and its
          // entry's BTH byte 4 (the byte the egress edits) its own.
          assert (gen_slot[i].data_q == f_word && sop_q[i] == f_sop && eop_q[i] == f_eop &&
                  empty_q[EmptyW*i +: EmptyW] == f_empty && vcrc_q[i] == f_vcrc);
          if (f_tel) begin
            assert (gen_dec_queue.e_byte4_q[8*f_entry(32'(f_tabove), f_rd) +: 8] ==
                    (f_glob ? f_word[FTelLo3 +: 8] : f_word[FTelLo2 +: 8]));
          end
`endif
        end
      end
    end
  end
`ifdef IBR_PROP_G
  always @(*) begin
    if (!Wide) begin
      cover (f_past && rst_ni && tel_done && replace && f_tel_cong);
      cover (f_past && rst_ni && tel_done && replace && !f_tel_cong);
    end else if (!Segmented) begin
      cover (f_past && rst_ni && f_k_out && f_tel && replace && f_cong);
      cover (f_past && rst_ni && f_k_out && f_tel && replace && !f_cong);
    end
  end
`endif
`endif  // IBR_FORMAL_DECISION
`ifdef IBR_PROP_B
  // (b)'s strengthening invariants (ReadySkid): the words inside the stage
  // (the valid slots, head first, then the skid buffer) continue the stream
  // emitted so far (each one's sop is its predecessor's eop) and end with the
  // last word taken; each belongs to packet f_out_pkt plus the eop words
  // ahead of it, and the last taken to f_in_pkt's predecessor, or f_in_pkt
  // mid-packet; the ingress monitor's running CRC is the stage's incoming
  // CRC register carried over the words not yet checked (slot 0's and the
  // skid buffer's); each VCRC word's verdict, registered (bad_q), about to be
  // (slot 0) or yet to come (the skid buffer: the check slot 0 will make of
  // it), is the monitor's f_pkt_ok for its packet; the egress monitor's
  // running CRC is the stage's outgoing CRC register within a packet.
  logic f_out_mid;  // the last word emitted was not its packet's last
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_out_mid <= 1'b0;
    end else if (f_out_fire) begin
      f_out_mid <= !out_eop_o;
    end
  end
  if (ReadyPath == ibr_pkg::ReadySkid) begin : gen_b_inv
    // The check slot 0 will make of the skid buffer's word, after its own
    // word's (icrc8): the CRC before its VCRC and over all its bytes, as
    // the monitors restate it (at 64 bits the chain of 4-byte steps, its
    // first four bytes and all eight; wider, ibr_crc16_bytes_end).
    logic [15:0]        f_sk_base, f_sk_c8, f_sk_vcrc, f_sk_got;
    logic [DataW-1:0]   f_sk_data;
    logic [FGrpW-1:0]   f_sk_lane4;
    assign f_sk_data  = gen_skid.skid_data_q;
    assign f_sk_lane4 = f_vcrc_grp(gen_skid.skid_empty_q);
    assign f_sk_base  = gen_skid.skid_sop_q ? 16'hffff : icrc8;
    if (!Wide) begin : gen_f_sk64
      logic [8*NB/2-1:0]  f_sk_cs;
      logic [8*NB/2+15:0] f_sk_chain;
      assign f_sk_chain = {f_sk_cs, f_sk_base};
      for (genvar j = 0; j < NB / 4; j++) begin : gen_f_sk_crc
        ibr_crc16_bytes #(.NBytes(4)) f_u_sk (
          .crc_i(f_sk_chain[16*j +: 16]), .data_i(f_sk_data[DataW-1-32*j -: 32]), .crc_o(f_sk_cs[16*j +: 16])
        );
      end
      assign f_sk_c8   = f_sk_cs[8*NB/2-1 -: 16];
      assign f_sk_vcrc = ~f_crc_before(f_sk_cs, f_sk_base, f_sk_lane4);
    end else begin : gen_f_sk_wide
      // (Each is read only when the word is, or is not, its packet's last.)
      logic [15:0] f_sk_end;
      ibr_crc16_bytes_end #(.DataW(DataW)) f_u_sk_end (
        .crc_i(f_sk_base), .data_i(f_sk_data), .eop_i(gen_skid.skid_eop_q), .empty_i(gen_skid.skid_empty_q),
        .crc_o(f_sk_end), .got_o()
      );
      assign f_sk_c8   = f_sk_end;
      assign f_sk_vcrc = ~f_sk_end;
    end
    assign f_sk_got  = f_vcrc_of(f_sk_data, f_sk_lane4);
    // Each slot's packet number, the skid buffer's, the one after the last
    // word inside; whether each sop follows its predecessor's eop.
    logic [2*PipeDepth-1:0] f_slot_pkt;
    logic [1:0] f_sk_pkt, f_end_pkt;
    logic       f_end_eop, f_chain;
    always @(*) begin
      f_end_pkt = f_out_pkt;
      f_end_eop = !f_out_mid;
      f_chain   = 1'b1;
      for (int i = PipeDepth - 1; i >= 0; i--) begin
        f_slot_pkt[2*i +: 2] = f_end_pkt;
        if (v_q[i]) begin
          if (sop_q[i] != f_end_eop) f_chain = 1'b0;
          f_end_eop = eop_q[i];
          if (eop_q[i]) f_end_pkt = f_end_pkt + 2'd1;
        end
      end
      f_sk_pkt = f_end_pkt;
      if (gen_skid.skid_v_q) begin
        if (gen_skid.skid_sop_q != f_end_eop) f_chain = 1'b0;
        f_end_eop = gen_skid.skid_eop_q;
        if (gen_skid.skid_eop_q) f_end_pkt = f_end_pkt + 2'd1;
      end
    end
    always @(*) begin
      if (f_past && rst_ni) begin
        assert (f_chain && f_end_eop == f_last_eop && f_end_pkt == f_in_pkt);
        if (gen_skid.skid_v_q) assert (&v_q);
        assert (vcrc_q == eop_q);
        if (f_out_mid) assert (crc_q == f_out_crc);
        if (gen_skid.skid_v_q) begin
          if (gen_skid.skid_eop_q) assert (f_pkt_ok[f_sk_pkt] == (f_sk_got == f_sk_vcrc && !len_bad_in));
          else assert (f_in_crc == f_sk_c8);
        end else if (v_q[0]) begin
          if (!eop_q[0]) assert (f_in_crc == icrc8);
        end else if (!f_last_eop) begin
          assert (f_in_crc == icrc_q);
        end
        if (v_q[0] && eop_q[0]) assert (f_pkt_ok[f_slot_pkt[1:0]] == !vcrc_bad);
      end
    end
    for (genvar i = 0; i < PipeDepth; i++) begin : gen_b_slot
      always @(*) begin
        // (64 bits: the lane tag; wider stages place the VCRC by empty_q.)
        if (!Wide && f_past && rst_ni && v_q[i]) assert (lane4_q[i] == (empty_q[EmptyW*i +: EmptyW] == 3'd2));
      end
      if (i > 0) begin : gen_b_bad
        always @(*) begin
          if (f_past && rst_ni && v_q[i] && eop_q[i]) assert (bad_q[i] == !f_pkt_ok[f_slot_pkt[2*i +: 2]]);
        end
      end
    end
  end
`endif
`ifdef IBR_FORMAL_STREAM
  // Strengthening invariants of (a) and (e), which follow the k-th word: the
  // words inside the stage (the valid slots, head first, then the skid
  // buffer) are the words taken and not yet emitted, f_out_cnt's word at the
  // head, in order; so the k-th word, while inside, sits at place f_k -
  // f_out_cnt (mod 256: the counters wrap, their difference does not) with
  // its bytes and tags as the ports gave them, and the pending telemetry
  // word's byte 4 and congested bit are the stage's decision registers. With
  // (f)'s and (g)'s invariants, inductive for every frame length.
  if (FDecInv) begin : gen_s_inv
    logic [7:0] f_held, f_kpos;
    always @(*) begin
      f_held = {7'd0, gen_skid.skid_v_q};
      for (int i = 0; i < PipeDepth; i++) f_held = f_held + {7'd0, v_q[i]};
    end
    assign f_kpos = f_k - f_out_cnt;
    // The hash is taken (or, mxm, latched for the next cycle) exactly while
    // the pending telemetry word has its PSN word behind it in the slots.
    logic [3:0] f_below;      // words in the slots behind the pending telemetry word
    logic       f_hash_wait;  // mxm: the PSN word's hash comes next cycle
    assign f_below = gen_g_inv.f_behind - {3'd0, gen_skid.skid_v_q};
    if (HashKind == ibr_pkg::HashMxm) begin : gen_s_mxm
      assign f_hash_wait = gen_hash_mxm.mxm_ok_q;
    end else begin : gen_s_now
      assign f_hash_wait = 1'b0;
    end
    always @(*) begin
      if (f_past && rst_ni) begin
        assert (8'(f_in_cnt - f_out_cnt) == f_held);
        if (gen_skid.skid_v_q) assert (&v_q);
        if (f_kpos < f_held) assert (f_got);
        // The stage has a telemetry word pending exactly while the last one
        // taken is in a slot (past the skid buffer, not yet emitted).
        assert (tel_seen_q == (f_since_tel < 11'(f_held) && f_since_tel >= 11'(gen_skid.skid_v_q)));
        // A telemetry word leaves after its PSN word has entered (it waits
        // for the hash), so the last word taken is never a telemetry word
        // that has left.
        assert (f_since_tel != 11'd0 || f_held != 8'd0);
        assert ((hash_ok_q || f_hash_wait) == (tel_seen_q && f_below != 4'd0));
        assert (!(hash_ok_q && f_hash_wait));
        if (gen_skid.skid_v_q && f_kpos == f_held - 8'd1) begin
          assert (gen_skid.skid_data_q == f_word && gen_skid.skid_sop_q == f_sop &&
                  gen_skid.skid_eop_q == f_eop && gen_skid.skid_empty_q == f_empty);
          assert (f_tel == is_tel_in && f_vcrc == gen_skid.skid_eop_q &&
                  f_lane4 == FGrpW'(gen_skid.skid_empty_q == 3'd2));
          if (f_tel) assert (f_cong == f_pkt_cong);
        end
      end
    end
    for (genvar i = 0; i < PipeDepth; i++) begin : gen_s_slot
      logic [7:0] f_above;  // valid slots ahead of slot i: its place
      always @(*) begin
        f_above = '0;
        for (int j = i + 1; j < PipeDepth; j++) f_above = f_above + {7'd0, v_q[j]};
      end
      always @(*) begin
        if (f_past && rst_ni && v_q[i]) begin
          if (tel_q[i]) assert (byte4_q == gen_slot[i].data_q[31:24]);
          if (f_kpos == f_above) begin
            assert (gen_slot[i].data_q == f_word && sop_q[i] == f_sop && eop_q[i] == f_eop &&
                    empty_q[EmptyW*i +: EmptyW] == f_empty);
            assert (tel_q[i] == f_tel && vcrc_q[i] == f_vcrc && FGrpW'(lane4_q[i]) == f_lane4);
            if (f_tel) assert (f_cong == dec_cong_q);
          end
        end
      end
    end
  end
`ifdef IBR_PROP_E
  // (e)'s hold: a stalled telemetry word's byte 4 is made from registers that
  // hold while it waits. Nothing reloads them then: the hash is taken once a
  // packet (its PSN word is the one behind the telemetry word, and no later
  // PSN word can enter while it waits), and the generator answers one draw a
  // telemetry word (started as it enters slot 0; retrying, answering, or
  // answered until it leaves).
  if (FDecInv) begin : gen_e_inv
    always @(*) begin
      if (f_past && rst_ni) begin
        if (!Sender) begin
          if (!tel_seen_q) assert (!draw_start_q && !gen_done && !drawn_q && !gen_busy);
          else assert ($countones({draw_start_q, gen_done, drawn_q, gen_busy}) == 1);
        end
      end
    end
  end
`endif
`endif  // IBR_FORMAL_STREAM
`undef IBR_FORMAL_INGRESS
`undef IBR_FORMAL_DECISION
`undef IBR_FORMAL_STREAM
`endif
`endif  // FORMAL
endmodule

`default_nettype wire
