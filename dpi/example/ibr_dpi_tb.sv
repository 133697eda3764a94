// SPDX-License-Identifier: Apache-2.0

// ibr_dpi_tb: a constrained-random scoreboard for the RTL switch stage, with
// the reference model called through DPI-C (ibr_dpi_pkg) for every packet.
//
// It generates random packets (random LRH, GRH and BTH fields, local and
// global, random incoming telemetry bits in BTH Resv6, random payloads of a
// realistic mix of lengths: most short, some to 512 bytes, some to the
// longest legal packet), has the model build them (CRCs), damages one in
// eight as a link can (a bad VCRC, a bad ICRC behind a right VCRC, a PktLen
// longer or shorter than the frame, a PktLen beyond the longest legal
// packet), drives them
// through the DUT as beats of DataW bits under the stage's beat rules
// (docs/rtl.md, "Beat width": one packet per beat, the sop beat from lane 0,
// byte k of a beat in bits DataW-1-8k -: 8, in_empty_i the unused bytes of
// the eop beat; with Segmented, the rules of "Segmented beats": each packet
// at an 8-byte segment, a beat holding the end of one packet and the start
// of the next, packed densely but for random idle segments now and then and
// a chain's first packet, which starts a beat of its own; idle lanes random)
// with random input gaps before any beat (inside packets too),
// random egress stalls on any beat, and cong_i random on every cycle but the
// sop beat's, and checks every output
// packet, every per-packet status and the generator state after every draw
// against the model's cut-through switch stage (ibr_dpi_stage_frame), which it
// runs on the same frame with the same generator state as the packet enters:
// the model gives every expected byte, a corrupt frame's stomped VCRC too. Packets come in chains: each
// chain is one output port (random switch ID and port) whose generator is
// loaded, between packets, with the state the configuration's seed gives it.
//
// The DUT is ibr_cosim_top (package cosim): every configuration of the build,
// the one that +sel picks clocked, its data ports DataW bits wide (the build
// sets DataW, -GDataW, to its configurations' beat width). The C++ harness
// (tb_main.cpp) only drives the clock and reset.
//
// Plusargs:
//   +config_local=S +config_global=S  the model's configuration strings for
//                   local (LNH=2) and global (LNH=3) packets
//   +sel=N          the configuration of ibr_cosim_top to run
//   +name=S         its name, for the report
//   +packets=N      packets to check (default 1000)
//   +seed=N         the stimulus seed (default 1)
//   +chain=N        packets per chain (default 64)
//   +stall=P +gap=P percent of cycles with egress ready low / an idle ingress
//                   cycle, before any beat of a packet (default 10, 5)
//   +maxfail=N      mismatches reported in full (default 5; all are counted)
//   +repro=S        the command prefix that reruns one packet through the
//                   model (ibreservoir stage and the RTL flags)
//   +packlog=1      Segmented: print each packet's placement and each ingress
//                   beat's structure (SEGPLACE len idle, SEGBEAT sop seg eop
//                   empty), to hold the packing to verilog.PackSegments
//
// Output lines (parsed by package dpi):
//   MISMATCH packet=I what=W   then indented lines: the packet, the field diff
//                              and the command that reproduces it as a vector.
//                              W: packet, status, state, extra, extra-status,
//                              deadlock; with Segmented also sop-seg (the
//                              packet left at another sop segment than it
//                              entered at) and segment-rule (an egress beat
//                              breaking a rule of "Segmented beats")
//   CORRUPT vcrc=A icrc=B pktlen-longer=C pktlen-shorter=D oversize=E stomped=S
//                              the corrupt packets made, by kind, and how many
//                              the model stomped (all but the icrc ones)
//   SEGMENTED beats=B shared=S  (Segmented) ingress beats, and those holding
//                              two packets
//   RESULT packets=N mismatches=M malformed=K cycles=C
module ibr_dpi_tb #(
  // Beat width in bits, the DUT's (64, 128, 256 or 512).
  parameter int DataW = 64,
  // Segmented beats (256 and 512 bits only; the DUT's Segmented, set by the
  // build as DataW is): packets packed into shared beats (docs/rtl.md,
  // "Segmented beats"). 0: one packet a beat.
  parameter int Segmented = 0
) (
  input bit clk_i,
  input bit rst_ni
);
  import ibr_dpi_pkg::*;

  localparam int BeatBytes = DataW / 8;
  localparam int EmptyW = $clog2(BeatBytes);  // in_empty_i and out_empty_o
  localparam int SegW = DataW > 128 ? $clog2(DataW / 64) : 1;  // in_sop_seg_i and out_sop_seg_o
  localparam bit SegOn = Segmented != 0;
  localparam int Segs = BeatBytes / 8;  // 8-byte segments a beat (Segmented)
  localparam longint SegsL = longint'(Segs);  // the same, for stream positions
  typedef bit [DataW-1:0] beat_t;

  // Random payloads (bytes after the BTH before the pad) of a realistic mix:
  // 40 in 64 of 0..ShortPayload bytes (acknowledgements, requests, small
  // sends), 14 up to 512, 10 up to MaxPayload, the longest legal packet's
  // (a global packet of 4194 bytes: docs/spec.md section 5).
  localparam int ShortPayload = 60;
  localparam int MaxPayload = 4128;
  // Corrupt packets (docs/spec.md section 5, step 0): one in CorruptOneIn,
  // of the kinds below, equally likely. The testbench damages the frame; the
  // model (ibr_dpi_stage_frame) says what leaves, and its verdict must be the
  // kind's (a check that the damage was made).
  localparam int CorruptOneIn = 8;
  typedef enum int {
    KindSound,     // as built
    KindVcrc,      // one bit of the VCRC flipped
    KindIcrc,      // one bit of the ICRC flipped, the VCRC resealed: sound to the stage
    KindLonger,    // PktLen 1.. words more than the frame (to 2047), the VCRC resealed
    KindShorter,   // PktLen 1.. words fewer than the frame (down to 0), the VCRC resealed
    KindOversize,  // PktLen 1049..2047, beyond the longest legal packet, the frame as long
    NumKinds
  } kind_e;
  localparam int MaxLegalPktLen = 1048;  // words (ibreservoir.h IBR_MAX_LEGAL_PKTLEN)
  localparam int MaxPktLen = 2047;  // the most an 11-bit PktLen holds
  // Packets in flight, at most: at wide beats the stage holds up to 16 one-beat
  // packets in its pipeline (verilog.MaxPipeDepthWide) and one in its skid
  // buffer, their statuses a cycle behind.
  localparam int RingSize = 32;
  localparam int MaxBeats = (MaxBytes + BeatBytes - 1) / BeatBytes;  // beats of the longest packet
  // Beats of the longest packet from its segment (Segmented: one more).
  localparam int MaxSegBeats = MaxBeats + (SegOn ? 1 : 0);
  typedef bit [$clog2(RingSize)-1:0] slot_t;  // a packet's place in the ring (RingSize a power of 2)

  // ---- run parameters and the model
  string cfg_local, cfg_global, repro, name;
  bit [7:0] sel;
  int unsigned packets, chain_len, stall_pct, gap_pct, max_fail;
  bit packlog;
  longint unsigned rs;  // xorshift64* state of the stimulus
  chandle models[2];    // for local and global packets
  int state_bits, sender_l, max_switch, max_port;

  function automatic int unsigned arg(string key, int unsigned def);
    int unsigned v;
    if ($value$plusargs({key, "=%d"}, v)) return v;
    return def;
  endfunction

  initial begin
    int scheme, lnh, count_bits, st;
    if (!$value$plusargs("config_local=%s", cfg_local)) cfg_local = "";
    if (!$value$plusargs("config_global=%s", cfg_global)) cfg_global = "global=true";
    if (!$value$plusargs("repro=%s", repro)) repro = "ibreservoir stage";
    if (!$value$plusargs("name=%s", name)) name = "?";
    sel = 8'(arg("sel", 0));
    packets = arg("packets", 1000);
    chain_len = arg("chain", 64);
    stall_pct = arg("stall", 10);
    gap_pct = arg("gap", 5);
    max_fail = arg("maxfail", 5);
    packlog = arg("packlog", 0) != 0;
    rs = 64'h9E3779B97F4A7C15 ^ 64'(arg("seed", 1));
    foreach (models[k]) begin
      st = ibr_dpi_model_new(k == 0 ? cfg_local : cfg_global, models[k]);
      if (st != IbrOk) begin
        $display("ERROR model configuration %0d: %s", st, ibr_dpi_error(null));
        $finish;
      end
    end
    st = ibr_dpi_info(models[0], scheme, lnh, count_bits, sender_l, state_bits, max_switch, max_port);
    if (st != IbrOk || scheme != IbrSchemeOneReservoir || lnh != 2 || chain_len == 0) begin
      $display("ERROR the RTL stage is the one-reservoir scheme on local and global packets (%0d: %s)", st,
               ibr_dpi_error(models[0]));
      $finish;
    end
    if (SegOn && DataW != 256 && DataW != 512) begin
      $display("ERROR segmented beats at %0d bits: they are 256 or 512 bits", DataW);
      $finish;
    end
    $display("MODEL %s %s (state %0d bits, count %0d bits, sender draws %0d, digest %s)", ibr_dpi_version(),
             ibr_dpi_config(models[0]), state_bits, count_bits, sender_l, ibr_dpi_digest(models[0]));
  end

  final begin
    foreach (models[k]) ibr_dpi_free(models[k]);
  end

  function automatic longint unsigned rnd();
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 64'h2545F4914F6CDD1D;
  endfunction

  function automatic int unsigned below(int unsigned n);
    return int'(rnd() >> 32) % n;
  endfunction

  // ---- the DUT
  logic [7:0] sel_q;
  logic cfg_we_q, cong_q, gen_load_q, in_valid_q, in_sop_q, in_eop_q, out_ready_q;
  logic [15:0] cfg_switch_q;
  logic [7:0] cfg_port_q;
  logic [255:0] gen_state_q;
  logic [DataW-1:0] in_data_q;
  logic [EmptyW-1:0] in_empty_q;
  logic [SegW-1:0] in_sop_seg_q;  // 0 but Segmented
  logic in_ready, out_valid, out_sop, out_eop, stat_valid, stat_replace, stat_saturated, stat_cong, stat_hash;
  logic stat_malformed;
  logic [SegW-1:0] out_sop_seg;  // one packet a beat: every packet starts at segment 0
  logic [DataW-1:0] out_data;
  logic [EmptyW-1:0] out_empty;
  logic [7:0] stat_field;
  logic [255:0] gen_state;

  ibr_cosim_top u_dut (
    .clk_i, .rst_ni, .sel_i(sel_q),
    .cfg_we_i(cfg_we_q), .cfg_switch_i(cfg_switch_q), .cfg_port_i(cfg_port_q), .cong_i(cong_q),
    .gen_load_i(gen_load_q), .gen_state_i(gen_state_q), .gen_state_o(gen_state),
    .in_valid_i(in_valid_q), .in_ready_o(in_ready), .in_data_i(in_data_q), .in_sop_i(in_sop_q),
    .in_eop_i(in_eop_q), .in_empty_i(in_empty_q), .in_sop_seg_i(in_sop_seg_q),
    .out_valid_o(out_valid), .out_ready_i(out_ready_q), .out_data_o(out_data), .out_sop_o(out_sop),
    .out_eop_o(out_eop), .out_empty_o(out_empty), .out_sop_seg_o(out_sop_seg),
    .stat_valid_o(stat_valid), .stat_replace_o(stat_replace), .stat_saturated_o(stat_saturated),
    .stat_cong_o(stat_cong), .stat_hash_o(stat_hash), .stat_field_o(stat_field),
    .stat_malformed_o(stat_malformed)
  );

  // ---- what the model expects of each packet in flight
  // A packet is kept as memory, one beat per entry as it crosses the DUT's
  // ports (byte 0 in bits DataW-1..DataW-8), never as a packet_t: Verilator
  // evaluates a packed vector word by word, so a 65,536-bit packet_t copied,
  // cleared or compared costs about two thousand operations each time, and a
  // packet_t temporary of the clocked process is cleared on every clock.
  // Beats are compared as they leave the DUT; packet_t appears only at the
  // model's calls, once per packet, and in the report of a mismatch.
  typedef struct packed {
    state_t state_in, state_out;
    int unsigned index;
    int len;
    bit [15:0] switch_id;
    bit [7:0] port;
    bit congested, malformed, replaced, saturated, hash_bit;
    int hop_l, hop_field;
    int kind, corrupt;  // the damage made (kind_e) and the model's reasons (IbrCorrupt*)
  } expect_t;

  expect_t ring[RingSize];
  expect_t blank;  // the record of an output with no packet in flight: zero
  // The packets in flight, as they enter and as the model expects them out,
  // beats_of(len) beats each; and the fields the checks read on every packet,
  // beside the ring: reading a member of ring[i] copies the whole record.
  beat_t in_mem[RingSize][MaxBeats], exp_mem[RingSize][MaxBeats];
  state_t exp_state_out[RingSize];
  int exp_len[RingSize], exp_field[RingSize];
  bit [4:0] exp_stat[RingSize];  // replaced, saturated, congested, hash, malformed: as the RTL's stat_* outputs
  int unsigned made, out_head, stat_head;  // packets generated; the next to leave; the next status
  int unsigned mismatches, malformed, stomped;
  int unsigned made_kind[NumKinds];  // packets made of each kind
  longint unsigned cycles, idle;
  longint unsigned seg_beats, seg_shared;  // Segmented: ingress beats taken; those holding two packets

  // ---- the packet being driven (in_mem[cur_slot]), and the one leaving
  slot_t cur_slot;
  int cur_beats, beat;
  bit have, loaded;
  state_t model_state;
  bit [15:0] chain_switch;
  bit [7:0] chain_port;
  int unsigned chain_left;
  beat_t got_mem[MaxBeats];  // the beats of the packet leaving, for a report
  int got_beats;
  bit held;  // Segmented: the beat offered last cycle was not taken
  bit got_differs;  // a beat of the packet leaving differs from the model's (or comes past its end)
  bit [4:0] got_stat;

  // The report's functions stay functions (no_inline_task): inlined into the
  // clocked process, their wide locals (a packet_t per call site) would be
  // cleared on every clock.

  // beats_of is the beats a packet of len bytes takes: one packet per beat.
  function automatic int beats_of(int len);
    return (len + BeatBytes - 1) / BeatBytes;
  endfunction

  // hex_of is the packet of len bytes in beats w in hex.
  function automatic string hex_of(input beat_t w[MaxBeats], int len);
    /*verilator no_inline_task*/
    string s = "";
    for (int i = 0; i < len; i++) s = {s, $sformatf("%02x", w[i/BeatBytes][DataW-1-8*(i%BeatBytes)-:8])};
    return s;
  endfunction

  // packet_of is the packet of len bytes in beats w as a packet_t, for the
  // model's diff.
  function automatic void packet_of(input beat_t w[MaxBeats], int len, output packet_t p);
    /*verilator no_inline_task*/
    p = '0;  // shifted in from the last beat: a write at a variable offset needs a module-level temporary
    for (int i = beats_of(len) - 1; i >= 0; i--) p = {p[8*MaxBytes-DataW-1:0], {<<8{w[i]}}};
  endfunction

  function automatic string kind_name(int kind);
    /*verilator no_inline_task*/
    case (kind)
      KindVcrc: return "vcrc";
      KindIcrc: return "icrc";
      KindLonger: return "pktlen-longer";
      KindShorter: return "pktlen-shorter";
      KindOversize: return "oversize";
      default: return "none";
    endcase
  endfunction

  // kind_ok says whether the model's reasons are what damage of the kind
  // makes: a PktLen made longer may be beyond the longest legal packet too.
  function automatic bit kind_ok(int kind, int corrupt);
    case (kind)
      KindSound, KindIcrc: return corrupt == 0;
      KindVcrc: return corrupt == IbrCorruptVcrc;
      KindLonger: return corrupt == IbrCorruptLength || corrupt == (IbrCorruptLength | IbrCorruptOversize);
      KindShorter: return corrupt == IbrCorruptLength;
      KindOversize: return corrupt == IbrCorruptOversize;
      default: return 0;
    endcase
  endfunction

  // result prints the CORRUPT and RESULT lines.
  function void result();
    if (SegOn) $display("SEGMENTED beats=%0d shared=%0d", seg_beats, seg_shared);
    $display("CORRUPT vcrc=%0d icrc=%0d pktlen-longer=%0d pktlen-shorter=%0d oversize=%0d stomped=%0d",
             made_kind[KindVcrc], made_kind[KindIcrc], made_kind[KindLonger], made_kind[KindShorter],
             made_kind[KindOversize], stomped);
    $display("RESULT packets=%0d mismatches=%0d malformed=%0d cycles=%0d", out_head, mismatches, malformed, cycles);
  endfunction

  function automatic string state_hex(state_t st, int bits);
    /*verilator no_inline_task*/
    string s = "";
    for (int i = (bits + 3) / 4 - 1; i >= 0; i--) s = {s, $sformatf("%1x", st[4*i+:4])};
    return s;
  endfunction

  // indent prefixes every line of a multi-line text.
  function automatic string indent(string text);
    /*verilator no_inline_task*/
    string s = "    ";
    for (int i = 0; i < text.len(); i++) begin
      s = {s, text.substr(i, i)};
      if (text[i] == "\n" && i + 1 < text.len()) s = {s, "    "};
    end
    return s;
  endfunction

  // report is the full report of a mismatch of packet x (entered as in_beats):
  // what differs, the packet as it entered, detail, and the command that
  // reruns it in the model. An output with no packet in flight is reported
  // with index, the packet that comes next, and a blank record.
  function automatic string report(expect_t x, input beat_t in_beats[MaxBeats], int unsigned index,
                                   string what, string detail, string config_name, string command, int bits);
    /*verilator no_inline_task*/
    string s, state = "", state_arg = "", cong_arg = "", in = hex_of(in_beats, x.len);
    if (x.congested) cong_arg = " --congested";
    if (bits > 0) begin
      state = {" state ", state_hex(x.state_in, bits)};
      state_arg = {" --state ", state_hex(x.state_in, bits)};
    end
    s = $sformatf("MISMATCH packet=%0d what=%s configuration=%s\n", index, what, config_name);
    s = {s, $sformatf("  switch %0d port %0d congested %0d%s\n", x.switch_id, x.port, x.congested, state)};
    if (x.kind != KindSound)
      s = {s, $sformatf("  corrupt %s: the model's reasons %0d (1 vcrc, 2 length, 4 oversize; 0 sound)\n",
                        kind_name(x.kind), x.corrupt)};
    s = {s, $sformatf("  in   %s\n", in), detail};
    return {s, $sformatf("  reproduce: %s --switch %0d --port %0d%s%s --packet %s --out out/repro\n", command,
                         x.switch_id, x.port, cong_arg, state_arg, in)};
  endfunction

  // packet_detail compares the packet that left (g_len bytes, at most
  // MaxBytes of them kept in g) with the model's.
  function automatic string packet_detail(chandle model, input beat_t g[MaxBeats], int g_len,
                                          input beat_t want[MaxBeats], int want_len);
    /*verilator no_inline_task*/
    packet_t pg, pw;
    int n = g_len < MaxBytes ? g_len : MaxBytes;
    packet_of(g, n, pg);
    packet_of(want, want_len, pw);
    return $sformatf("  got  %s\n  want %s\n  diff:\n%s", hex_of(g, n), hex_of(want, want_len),
                     indent(ibr_dpi_diff(model, pg, n, pw, want_len, MaxBytes)));
  endfunction

  function automatic string status_detail(expect_t x, bit [4:0] stat, int field);
    /*verilator no_inline_task*/
    string s = $sformatf("  got  replace %0d saturated %0d congested %0d hash %0d malformed %0d field %0d\n", stat[4],
                         stat[3], stat[2], stat[1], stat[0], field);
    return {s, $sformatf("  want replace %0d saturated %0d congested %0d hash %0d malformed %0d field %0d (l=%0d)\n",
                         x.replaced, x.saturated, x.congested, x.hash_bit, x.malformed, x.hop_field, x.hop_l)};
  endfunction

  function automatic string state_detail(state_t g, state_t want, int bits);
    /*verilator no_inline_task*/
    return $sformatf("  got  state %s\n  want state %s\n", state_hex(g, bits), state_hex(want, bits));
  endfunction

  // fail counts a mismatch and prints the first max_fail in full.
  function void fail(string text);
    mismatches++;
    if (mismatches <= max_fail) $write("%s", text);
  endfunction

  // IBR_FAIL(text) is fail(text), but past the first max_fail mismatches
  // it counts one without building its report: a long packet's hex, its diff
  // and the model's rerun are most of a failing run's time. (A macro: a
  // report's builders are functions Verilator keeps apart, which cannot read
  // the count.) No semicolon after it: it is a begin-end block.
`define IBR_FAIL(text) begin if (mismatches >= max_fail) mismatches++; else fail(text); end

  // ibr_dpi_build imported again as model_build with pkt inout: the C
  // function is the same (pkt an svBitVecVal array it writes whole), but an
  // inout packet_t is passed by reference, where an output gets a packet_t
  // temporary that the clocked process clears on every clock (Verilator 5).
  import "DPI-C" ibr_dpi_build = function int model_build(input chandle model, input shortint unsigned slid,
      input shortint unsigned dlid, input byte unsigned sl, input byte unsigned vl, input byte unsigned opcode,
      input shortint unsigned pkey, input int unsigned dest_qp, input int unsigned psn, input byte unsigned resv6,
      input byte unsigned tclass, input int unsigned flow_label, input byte unsigned hop_limit, input bit [127:0] sgid,
      input bit [127:0] dgid, input packet_t payload, input int payload_len, inout packet_t pkt, output int len,
      input int max_bytes);
  // next_packet draws a random packet, has the model build it, damages it
  // as its kind says, has the model run its stage on the frame, and files
  // what the model expects.
  // next_packet's record and scratch: static, since wide automatic variables
  // are cleared on every call. The bytes of payload past plen are never read.
  expect_t e;
  packet_t payload, pkt;
  state_t state;
  function void next_packet();
    int st, plen, hop_l, hop_field, n, corrupt, pl;
    bit k, hash_bit, replaced, saturated;
    slot_t slot;
    k = below(4) == 0;  // a quarter global
    e = '0;
    e.kind = below(CorruptOneIn) == 0 ? 1 + below(NumKinds - 1) : KindSound;
    case (below(64)) inside
      [0:39]:  plen = below(ShortPayload + 1);
      [40:53]: plen = below(512 + 1);
      default: plen = below(MaxPayload + 1);
    endcase
    if (e.kind == KindOversize) begin
      // PktLen words: LRH, GRH when global, BTH, the payload, the ICRC.
      pl = MaxLegalPktLen + 1 + below(MaxPktLen - MaxLegalPktLen);
      plen = 4 * pl - (k ? 64 : 24);
    end
    // 64 random bits at a time, whatever the beat width.
    for (int i = 0; i < (plen + 7) / 8; i++) payload[64*i+:64] = rnd();
    st = model_build(models[k], 16'(rnd()), 16'(rnd()), 8'(below(16)), 8'(below(16)), 8'(rnd()), 16'(rnd()),
                     32'(below(1 << 24)), 32'(below(1 << 24)), 8'(below(64)), 8'(rnd()), 32'(below(1 << 20)),
                     8'(rnd()), {rnd(), rnd()}, {rnd(), rnd()}, payload, plen, pkt, e.len, MaxBytes);
    if (st != IbrOk) begin
      $display("ERROR build: %s", ibr_dpi_error(models[k]));
      $finish;
    end
    damage(models[k], e.kind, e.len);
    e.index = made;
    e.switch_id = chain_switch;
    e.port = chain_port;
    e.congested = below(2) == 1;
    e.state_in = model_state;
    slot = slot_t'(made % RingSize);
    n = beats_of(e.len);
    for (int i = 0; i < n; i++) in_mem[slot][i] = {<<8{pkt[DataW*i+:DataW]}};
    state = model_state;
    st = ibr_dpi_stage_frame(models[k], pkt, e.len, chain_switch, chain_port, e.congested, state, hop_l, hash_bit,
                             replaced, saturated, hop_field, corrupt, MaxBytes, StateBits);
    if (st != IbrOk) begin
      $display("ERROR stage: %s", ibr_dpi_error(models[k]));
      $finish;
    end else if (!kind_ok(e.kind, corrupt)) begin
      $display("ERROR a %s packet: the model's reasons are %0d", kind_name(e.kind), corrupt);
      $finish;
    end
    // A sender-draw field of 0 is malformed (spec section 4): the model
    // forwards it with no draw and no telemetry change (stomped when
    // corrupt) and leaves its hop field 0; the RTL must flag it.
    e.malformed = sender_l > 0 && hop_field == 0;
    if (e.malformed) malformed++;
    e.corrupt = corrupt;
    made_kind[e.kind]++;
    if (corrupt != 0) stomped++;
    // pkt: the packet out, zero past e.len.
    for (int i = 0; i < n; i++) exp_mem[slot][i] = {<<8{pkt[DataW*i+:DataW]}};
    e.state_out = state;
    model_state = state;
    e.replaced = replaced;
    e.saturated = saturated;
    e.hash_bit = hash_bit;
    e.hop_field = hop_field;
    e.hop_l = hop_l;
    if (made - stat_head >= RingSize) begin
      $display("ERROR more than %0d packets in flight", RingSize);
      $finish;
    end
    ring[slot] = e;
    exp_state_out[slot] = e.state_out;
    exp_len[slot] = e.len;
    exp_field[slot] = e.hop_field;
    exp_stat[slot] = {e.replaced, e.saturated, e.congested, e.hash_bit, e.malformed};
    made++;
    cur_slot = slot;
    cur_beats = n;
  endfunction

  // damage damages pkt, a frame of len bytes, as kind says (a built
  // KindOversize packet is already what it should be). Byte i of the frame
  // is pkt[8i+7:8i]; PktLen is LRH bits 10..0 of bytes 4-5 (pkt[34:32],
  // pkt[47:40]). The model reseals the VCRC where the kind leaves it right.
  // The bit to flip is drawn into a variable first: Verilator evaluates the
  // index of a compound assignment (x[i] ^= ...) twice, drawing twice.
  function automatic void damage(chandle model, int kind, int len);
    int pl = {21'd0, pkt[34:32], pkt[47:40]};
    bit [15:0] bit_i;  // a bit of a packet_t (8*MaxBytes bits)
    case (kind)
      KindVcrc: begin
        bit_i = 16'(8 * (len - 2 + int'(below(2))) + int'(below(8)));
        pkt[bit_i] = !pkt[bit_i];
      end
      KindIcrc: begin
        bit_i = 16'(8 * (len - 6 + int'(below(4))) + int'(below(8)));
        pkt[bit_i] = !pkt[bit_i];
        seal(model, len);
      end
      KindLonger, KindShorter: begin
        if (kind == KindLonger && pl < MaxPktLen) pl += 1 + int'(below(MaxPktLen - pl));
        else pl -= 1 + int'(below(pl));
        {pkt[34:32], pkt[47:40]} = 11'(pl);
        seal(model, len);
      end
      default: ;
    endcase
  endfunction

  // seal writes the VCRC of pkt's bytes into its last two (of len).
  function void seal(chandle model, int len);
    if (ibr_dpi_frame_seal(model, pkt, len, MaxBytes) != IbrOk) begin
      $display("ERROR seal: %s", ibr_dpi_error(model));
      $finish;
    end
  endfunction


  // ---- segmented beats (Segmented; docs/rtl.md, "Segmented beats")
  // The ingress packs the packets as verilog.PackSegments does: each at the
  // first legal segment (its sop beat holding no other sop, its eop beat no
  // other eop) at or after the segment after the previous packet's last, one
  // in four after 0 to 2*Segs-1 idle segments more (from the seed); the first
  // packet of a chain, whose generator is loaded between packets, at a beat
  // of its own. Positions count segments and beats from the stream's start;
  // the beats that would hold no byte are gaps. Idle lanes carry random
  // bytes. The egress is reassembled by its sop, sop segment, eop and empty,
  // every rule checked.
  longint seg_pos;               // the segment after the last placed packet's last
  longint seg_sop_b, seg_eop_b;  // the beats of its sop and its eop (-1: none yet)
  slot_t pl_slot[2];             // the placed packets not wholly taken, oldest first
  longint pl_start[2];           // their first segments
  int pl_n;
  longint seg_min_b;             // the earliest beat to offer next: one past the last taken
  longint seg_off_b;             // the beat offered in in_*_q (-1: none yet)
  bit seg_cong_q;                // the congested bit of the head of the beat offered
  bit seg_two_q;                 // the beat offered holds two packets
  bit [SegW-1:0] in_seg[RingSize];  // each packet's sop segment at the ingress
  int unsigned entered;          // packets whose sop beat the DUT took
  // The egress: a packet open, the beats of the packet leaving as they left,
  // its bytes so far, its sop segment, and a broken rule (0 none, 1 the sop
  // segment not the one it entered at, 2 a rule of the stream) with its note.
  bit out_open;
  beat_t seg_got[MaxSegBeats];
  int got_len, got_rule;
  bit [SegW-1:0] got_seg;
  string got_note;

  // lane_mask has lanes lo..hi (bits DataW-1-8*lane -: 8) set; none when hi < lo.
  function automatic beat_t lane_mask(int lo, int hi);
    beat_t ones = '1;
    if (hi < lo) return '0;
    return (ones >> (8 * lo)) & (hi + 1 >= BeatBytes ? '1 : ~(ones >> (8 * (hi + 1))));
  endfunction

  // seg_shift is beat j of a packet placed at segment s, from its beats j-1
  // (prev) and j as they are kept, from lane 0: byte k moves to lane 8s+k.
  function automatic beat_t seg_shift(beat_t prev, beat_t cur, int s);
    if (s == 0) return cur;
    return (prev << (DataW - 64 * s)) | (cur >> (64 * s));
  endfunction

  // in_at and exp_at are beat j of the packet in slot sl as it enters and as
  // the model expects it out, from lane 0 (zero outside its beats).
  function automatic beat_t in_at(slot_t sl, int j);
    return j >= 0 && j < beats_of(exp_len[sl]) ? in_mem[sl][j] : '0;
  endfunction
  function automatic beat_t exp_at(slot_t sl, int j);
    return j >= 0 && j < beats_of(exp_len[sl]) ? exp_mem[sl][j] : '0;
  endfunction

  // seg_place places a packet of len bytes (slot sl) in the stream and
  // returns its first segment: at a beat of its own when own (a chain's
  // first), else after the idle segments drawn.
  function automatic longint seg_place(slot_t sl, int len, bit own);
    longint start = seg_pos, g = (longint'(len) + 7) / 8;
    if (own) start = (start + SegsL - 1) / SegsL * SegsL;
    else if (below(4) == 0) start += longint'(below(2 * Segs));
    if (packlog) $display("SEGPLACE %0d %0d", len, start - seg_pos);
    while (start / SegsL == seg_sop_b || (start + g - 1) / SegsL == seg_eop_b) start = (start / SegsL + 1) * SegsL;
    if (start / SegsL <= seg_off_b) begin
      $display("ERROR segmented packing: packet %0d placed in beat %0d, already offered", made - 1, start / SegsL);
      $finish;
    end
    seg_sop_b = start / SegsL;
    seg_eop_b = (start + g - 1) / SegsL;
    seg_pos = start + g;
    in_seg[sl] = SegW'(start % SegsL);
    return start;
  endfunction

  // seg_offer sets the DUT's inputs to the next beat of the stream: the
  // bytes of the placed packets it holds (the tail of the oldest, the head of
  // the next), random idle bytes in the other lanes, the flags, sop segment
  // and empty of the rules, and the head's port and congested bit with its
  // sop.
  task automatic seg_offer();
    longint b = pl_start[0] / SegsL > seg_min_b ? pl_start[0] / SegsL : seg_min_b;
    longint f, l;
    beat_t d, m;
    bit sop = 0, eop = 0;
    seg_two_q = 0;
    for (int i = 0; i < DataW / 64; i++) d[64*i+:64] = rnd();
    for (int p = 0; p < pl_n; p++) begin
      // The packet's first and last byte as lanes of beat b.
      f = 8 * pl_start[p] - longint'(BeatBytes) * b;
      l = f + longint'(exp_len[pl_slot[p]]) - 1;
      if (f < longint'(BeatBytes) && l >= 0) begin
        m = lane_mask(f < 0 ? 0 : int'(f), l >= longint'(BeatBytes) ? BeatBytes - 1 : int'(l));
        d = (d & ~m) | (m & seg_shift(in_at(pl_slot[p], int'(b - pl_start[p] / SegsL) - 1),
                                      in_at(pl_slot[p], int'(b - pl_start[p] / SegsL)), int'(pl_start[p] % SegsL)));
        if (f >= 0) begin
          sop = 1;
          seg_two_q = p == 1;
          in_sop_seg_q <= SegW'(f / 8);
          cfg_we_q <= 1'b1;
          cfg_switch_q <= chain_switch;
          cfg_port_q <= chain_port;
          seg_cong_q <= exp_stat[pl_slot[p]][2];
          cong_q <= exp_stat[pl_slot[p]][2];
        end
        if (l < longint'(BeatBytes)) begin
          eop = 1;
          in_empty_q <= EmptyW'(longint'(BeatBytes) - 1 - l);
        end
      end
    end
    in_valid_q <= 1'b1;
    in_data_q <= d;
    in_sop_q <= sop;
    in_eop_q <= eop;
    seg_off_b = b;
  endtask

  // seg_rule notes a broken rule of the packet leaving (the worse kind kept).
  function void seg_rule(int kind, string note);
    if (kind > got_rule) got_rule = kind;
    got_note = {got_note, "  ", note, "\n"};
  endfunction

  // seg_take takes lanes lo..hi of the egress beat into the packet leaving,
  // against the model's bytes placed at the segment it entered at.
  function automatic void seg_take(int lo, int hi);
    slot_t sl = slot_t'(out_head % RingSize);
    beat_t m = lane_mask(lo, hi);
    if (((out_data ^ seg_shift(exp_at(sl, got_beats - 1), exp_at(sl, got_beats), int'(in_seg[sl]))) & m) != '0)
      got_differs = 1;
    if (got_beats < MaxSegBeats) seg_got[got_beats] = out_data;
    got_beats++;
    if (hi >= lo) got_len += hi - lo + 1;
  endfunction

  // seg_detail is a report's detail of the packet leaving, its len bytes
  // in beats g from its sop segment s (it entered at in_s), with the notes of
  // the rules it broke: its bytes against the model's.
  function automatic string seg_detail(chandle model, input beat_t g[MaxSegBeats], int s, int in_s, string note, int len,
                                       input beat_t want[MaxBeats], int want_len);
    /*verilator no_inline_task*/
    beat_t al[MaxBeats];  // g from lane 0
    for (int i = 0; i < MaxBeats; i++)
      al[i] = s == 0 ? g[i] : (g[i] << (64 * s)) | (i + 1 < MaxSegBeats ? g[i+1] >> (DataW - 64 * s) : '0);
    return {$sformatf("  sop segment: left at %0d, entered at %0d\n", s, in_s), note,
            packet_detail(model, al, len, want, want_len)};
  endfunction

  // seg_finish checks the packet leaving, now whole, and moves on.
  function automatic void seg_finish();
    slot_t sl = slot_t'(out_head % RingSize);
    if (got_rule != 0 || got_differs || got_len != exp_len[sl])
      `IBR_FAIL(report(ring[sl], in_mem[sl], out_head, got_rule == 2 ? "segment-rule" : got_rule == 1 ? "sop-seg" : "packet",
                  seg_detail(models[0], seg_got, int'(got_seg), int'(in_seg[sl]), got_note, got_len, exp_mem[sl], exp_len[sl]),
                  name, repro, state_bits))
    out_head++;
    out_open = 0;
  endfunction

  // seg_egress reassembles an egress beat by the rules: the open packet's
  // bytes to the eop's last lane, then the head's from its sop segment.
  function automatic void seg_egress();
    int last = out_eop ? BeatBytes - 1 - int'(out_empty) : BeatBytes - 1;
    int seg = int'(out_sop_seg);
    bit tail_done = 0;
    // Frames are 4k+2 bytes from a segment boundary: empty is 2 mod 4.
    bit bad_empty = out_eop && int'(out_empty) % 4 != 2;
    if (out_open) begin
      if (out_sop && !out_eop)
        seg_rule(2, $sformatf("a sop (segment %0d) while the packet is open, and no eop ends it", seg));
      if (bad_empty) seg_rule(2, $sformatf("its eop's empty %0d is not 2 mod 4", out_empty));
      seg_take(0, last);
      if (out_eop || out_sop) begin
        seg_finish();
        tail_done = 1;
      end
    end
    if (out_sop) begin
      if (out_head == entered) begin
        `IBR_FAIL(report(blank, in_mem[made%RingSize], out_head, "extra",
                    $sformatf("  a sop beat %h with no packet in flight\n", out_data), name, repro, state_bits))
      end else begin
        got_beats = 0;
        got_len = 0;
        got_seg = out_sop_seg;
        got_differs = 0;
        got_rule = 0;
        got_note = "";
        if (out_sop_seg != in_seg[out_head%RingSize]) seg_rule(1, "left at another segment than it entered at");
        if (tail_done && 8 * seg <= last)
          seg_rule(2, $sformatf("its sop (lane %0d) is not after the ending packet's last byte (lane %0d)", 8 * seg, last));
        if (out_eop && !tail_done) begin
          if (8 * seg > last)
            seg_rule(2, $sformatf("an eop (lane %0d) before the sop (lane %0d) with no packet open", last, 8 * seg));
          if (bad_empty) seg_rule(2, $sformatf("its eop's empty %0d is not 2 mod 4", out_empty));
          seg_take(8 * seg, last);
          seg_finish();
        end else begin
          seg_take(8 * seg, BeatBytes - 1);
          out_open = 1;
        end
      end
    end else if (!tail_done && !out_open) begin
      `IBR_FAIL(report(blank, in_mem[made%RingSize], out_head, "extra",
                  $sformatf("  a beat %h with no sop and no packet open\n", out_data), name, repro, state_bits))
    end
  endfunction

  // chain_start starts a chain (a random port) when none is left, and loads
  // its generator with the state the configuration's seed gives the port.
  task automatic chain_start();
    if (chain_left == 0) begin
      chain_switch = 16'(below(max_switch + 1));
      chain_port = 8'(1 + below(max_port));
      chain_left = chain_len;
      if (ibr_dpi_port_state(models[0], chain_switch, chain_port, model_state, StateBits) != IbrOk) begin
        $display("ERROR port state: %s", ibr_dpi_error(models[0]));
        $finish;
      end
    end
    if (state_bits > 0) begin
      gen_load_q <= 1'b1;
      gen_state_q <= model_state;
    end
    loaded = 1;
  endtask

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      blank = '0;
      sel_q <= sel;
      {cfg_we_q, cong_q, gen_load_q, in_valid_q, in_sop_q, in_eop_q, out_ready_q} <= '0;
      in_sop_seg_q <= '0;
      chain_left = 0;
      {seg_pos, seg_min_b, pl_n} = '0;
      {seg_sop_b, seg_eop_b, seg_off_b} = {3{-64'sd1}};
    end else begin
      cycles++;
      idle++;
      // The egress: beats and statuses the DUT gave at this edge.
      if (out_valid && out_ready_q && SegOn) begin
        idle = 0;
        seg_egress();
      end else if (out_valid && out_ready_q) begin
        idle = 0;
        if (out_head == made) begin
          `IBR_FAIL(report(blank, in_mem[made%RingSize], made, "extra",
                      $sformatf("  an output beat %h with no packet in flight\n", out_data), name, repro, state_bits))
        end else begin
          if (out_sop) begin
            got_beats = 0;
            got_differs = out_sop_seg != '0;  // a packet starting past lane 0 is misread
          end
          // Every beat, the bytes past the packet's end in its last beat
          // included, against the model's (zero past its end).
          if (got_beats < MaxBeats) got_mem[got_beats] = out_data;
          if (out_data != (got_beats < beats_of(exp_len[out_head%RingSize]) ?
                           exp_mem[out_head%RingSize][got_beats] : beat_t'(0)))
            got_differs = 1;
          got_beats++;
          if (out_eop) begin
            if (BeatBytes * got_beats - int'(out_empty) != exp_len[out_head%RingSize] || got_differs)
              `IBR_FAIL(report(ring[out_head%RingSize], in_mem[out_head%RingSize], out_head, "packet",
                          packet_detail(models[0], got_mem, BeatBytes * got_beats - int'(out_empty),
                                        exp_mem[out_head%RingSize], exp_len[out_head%RingSize]), name, repro,
                          state_bits))
            out_head++;
          end
        end
      end
      if (stat_valid) begin
        if (stat_head == (SegOn ? entered : made)) begin
          `IBR_FAIL(report(blank, in_mem[made%RingSize], made, "extra-status", "  a status with no packet in flight\n", name,
                      repro, state_bits))
        end else begin
          got_stat = {stat_replace, stat_saturated, stat_cong, stat_hash, stat_malformed};
          if (got_stat != exp_stat[stat_head%RingSize] || int'(stat_field) != exp_field[stat_head%RingSize])
            `IBR_FAIL(report(ring[stat_head%RingSize], in_mem[stat_head%RingSize], stat_head, "status",
                        status_detail(ring[stat_head%RingSize], got_stat, int'(stat_field)), name, repro, state_bits))
          else if (state_bits > 0 && gen_state != exp_state_out[stat_head%RingSize])
            `IBR_FAIL(report(ring[stat_head%RingSize], in_mem[stat_head%RingSize], stat_head, "state",
                        state_detail(gen_state, exp_state_out[stat_head%RingSize], state_bits), name, repro,
                        state_bits))
          stat_head++;
        end
      end

      // The ingress: a beat accepted at this edge; then the next cycle's inputs.
      if (SegOn) begin
        if (in_valid_q && in_ready) begin
          idle = 0;
          seg_beats++;
          if (packlog)
            $display("SEGBEAT %0d %0d %0d %0d", in_sop_q, in_sop_q ? int'(in_sop_seg_q) : 0, in_eop_q,
                     in_eop_q ? int'(in_empty_q) : 0);
          if (in_sop_q) entered++;
          if (seg_two_q) seg_shared++;
          if (in_eop_q) begin
            pl_slot[0] = pl_slot[1];
            pl_start[0] = pl_start[1];
            pl_n--;
          end
          seg_min_b = seg_off_b + 1;
        end
        held = in_valid_q && !in_ready;
        {cfg_we_q, gen_load_q, in_valid_q} <= '0;
        if (pl_n == 0 && made < packets && stat_head == made && (chain_left == 0 || !loaded)) begin
          chain_start();
        end else begin
          // Two packets placed ahead, so that a beat holding one's eop holds
          // the next's sop where the rules allow; a chain's packets only.
          while (pl_n < 2 && made < packets && loaded && chain_left > 0) begin
            next_packet();
            pl_slot[pl_n] = cur_slot;
            pl_start[pl_n] = seg_place(cur_slot, exp_len[cur_slot], chain_left == chain_len);
            pl_n++;
            chain_left--;
            if (chain_left == 0) loaded = 0;
          end
        end
        cong_q <= below(2) == 1;  // anything off the sop beat
        if (held) begin
          // The beat offered and not taken, offered again as it was.
          in_valid_q <= 1'b1;
          if (in_sop_q) begin
            cfg_we_q <= 1'b1;
            cong_q <= seg_cong_q;
          end
        end else if (pl_n > 0 && below(100) >= gap_pct) begin
          seg_offer();
        end
      end else begin
        if (in_valid_q && in_ready) begin
          idle = 0;
          beat++;
          if (beat == cur_beats) have = 0;
        end
        {cfg_we_q, gen_load_q, in_valid_q} <= '0;
        if (!have && made < packets && stat_head == made && (chain_left == 0 || !loaded)) begin
          chain_start();  // a new chain: a port, its generator loaded between packets
        end else if (!have && made < packets && loaded && chain_left > 0 && below(100) >= gap_pct) begin
          next_packet();
          chain_left--;
          if (chain_left == 0) loaded = 0;
          have = 1;
          beat = 0;
        end
        // cong_i: anything off the sop beat (set again below with a sop beat).
        cong_q <= below(2) == 1;
        if (have && beat > 0 && !(in_valid_q && !in_ready) && below(100) < gap_pct) begin
          // An idle cycle inside the packet (before its first beat: above), never
          // while a beat offered is still waiting to be taken.
        end else if (have) begin
          // Byte 0 of the packet leaves first, in bits DataW-1..DataW-8 (zero
          // past the packet's end); in_empty_i the unused bytes of the eop beat.
          in_valid_q <= 1'b1;
          in_data_q <= in_mem[cur_slot][beat];
          in_sop_q <= beat == 0;
          in_eop_q <= beat == cur_beats - 1;
          in_empty_q <= EmptyW'(BeatBytes * cur_beats - exp_len[(made-1)%RingSize]);
          if (beat == 0) begin
            cfg_we_q <= 1'b1;
            cfg_switch_q <= chain_switch;
            cfg_port_q <= chain_port;
            cong_q <= exp_stat[(made-1)%RingSize][2];
          end
        end
      end
      out_ready_q <= stall_pct == 0 || below(100) >= stall_pct;

      if (made == packets && out_head == made && stat_head == made) begin
        result();
        $finish;
      end
      if (idle > 100000) begin
        `IBR_FAIL(report(ring[out_head%RingSize], in_mem[out_head%RingSize], out_head, "deadlock",
                    $sformatf("  no progress in %0d cycles\n", idle), name, repro, state_bits))
        result();
        $finish;
      end
    end
  end
`undef IBR_FAIL
endmodule
