// SPDX-License-Identifier: Apache-2.0

  // ---- The body of ibr_example_tb (cosim/tb/example_tb_body.sv; package cosim
  // ---- puts the configuration's parameters above it and the stage below).
  //
  // Options (plusargs):
  //   +hex=FILE    the stage.hex vectors of this configuration (required; hex
  //                format version 3, 64-bit words: older files are refused)
  //   +stall=N     out_ready_i low one cycle in N at random (default 4; 0: never),
  //                so any beat, sop and eop included, may be stalled
  //   +gap=N       in_valid_i low one cycle in N before a beat at random (default
  //                4; 0: never): ingress gaps at every beat position of a packet
  //   +seed=N      seed of the stall, gap and cong_i patterns (default 1)
  //   +maxfail=N   mismatches printed in full (default 10)
  // Each packet enters as beats of DataW bits under the stage's beat rules
  // (docs/rtl.md, "Beat width"): one packet per beat, the sop beat from lane 0
  // (byte k of a beat in bits DataW-1-8k -: 8), in_empty_i the unused bytes of
  // the eop beat; the file's 64-bit words are packed DataW/64 to a beat.
  // cong_i carries the vector's congested bit only while the sop beat is
  // offered and random values on every other cycle: the stage must sample it
  // with the sop beat and at no other time. Packets follow one another with no
  // idle cycle unless a gap is drawn.
  // With Segmented (the stage's; 256- and 512-bit beats) the packets share
  // beats under the rules of docs/rtl.md, "Segmented beats", packed as
  // verilog.PackSegments packs them: each at the first legal segment after
  // the previous one's last (its sop beat holding no other sop, its eop beat
  // no other eop), one in four after 0 to 2S-1 idle segments more (S
  // segments a beat; from the seed), a packet that loads the generator at a
  // beat of its own; the idle lanes carry random bytes. A segment is 8 bytes,
  // one of the file's words. The egress is reassembled by its sop, sop
  // segment, eop and empty, every rule checked, and each packet must leave at
  // the sop segment it entered at (a sop-seg mismatch). A SEGMENTED line
  // counts the ingress beats and those holding two packets.
  // The first vector may load no state: it draws from the generator's reset
  // state, as the stage does after rst_ni. A raw packet (no BTH) is compared
  // byte for byte and reports no status.
  // Output: MISMATCH lines, COV lines (hop field x replace x congested x
  // saturated), a RESULT line, then PASS, or $fatal on any mismatch (and any
  // assertion inside the stage ends the run with $fatal first: no PASS).
  localparam int Window = 16;  // vectors in flight between the driver and the checkers
  localparam int MaxWords = (MaxPacket + 7) / 8;  // 64-bit words of the file
  localparam int BeatBytes = DataW / 8;
  localparam int BeatWords = DataW / 64;  // the file's words in a beat
  localparam int MaxBeats = (MaxPacket + BeatBytes - 1) / BeatBytes;
  localparam int EmptyW = $clog2(BeatBytes);  // in_empty_i and out_empty_o

  // Vector i's expectations in slot i % Window.
  logic [7:0]  w_flags [Window];
  logic [7:0]  w_field [Window];
  int          w_len [Window];
  logic [MaxStateBits-1:0] w_state [Window];
  logic [63:0] w_out [Window * MaxWords];  // slot s's packet out from word s * MaxWords
  logic [63:0] pkt_in [2 * MaxWords];  // the packets being driven: one, or (Segmented) two from word k * MaxWords
  // Vectors read (their expectations recorded), entered (their sop beat
  // taken), and the next packet and status the checkers await.
  int     n_read = 0, n_in = 0, out_idx = 0, stat_idx = 0, maxfail = 10, stall = 4, gap = 4, fd = 0;
  int     pkt_bad = 0, stat_bad = 0;  // mismatches found by each checker
  logic   all_read = 1'b0;
  longint cycles = 0, progress_at = 0, data_cycles = 0;
  int unsigned rnd = 1, grnd = 7;  // xorshift32 states of the stall and gap patterns
  int     cov [256][2][2][2];
  int     got_beats = 0;

  initial begin
    clk_i = 1'b0;
    forever #5 clk_i = ~clk_i;
  end
  always @(posedge clk_i) begin
    cycles <= cycles + 1;
    if (out_valid_o && out_ready_i) data_cycles <= data_cycles + 1;
  end

  // The next 64-bit word of the hex file fd, skipping // comment lines.
  task automatic next_word(output int ok, output logic [63:0] v);
    int c;
    c = $fgetc(fd);
    while (c == "/" || c == "\n" || c == "\r" || c == " ") begin
      if (c == "/") begin
        while (c != "\n" && c != -1) c = $fgetc(fd);
      end
      c = $fgetc(fd);
    end
    ok = 0;
    v = '0;
    if (c != -1) begin
      c = $ungetc(c, fd);
      ok = $fscanf(fd, "%h", v);
    end
  endtask

  // A mismatch, printed in full while fewer than maxfail were.
  function automatic void report(input int index, input string what, input string g, input string x);
    if (pkt_bad + stat_bad < maxfail) $display("MISMATCH index=%0d what=%s got=%s want=%s", index, what, g, x);
  endfunction

  function automatic int unsigned xorshift32(input int unsigned x);
    int unsigned y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    xorshift32 = y ^ (y << 5);
  endfunction

  // ingress_gap holds in_valid_i low for the idle cycles the gap pattern
  // draws (cong_i random in them), then raises it for the beat that follows.
  task ingress_gap;
    while (gap != 0 && xorshift32(grnd) % 32'(gap) == 0) begin
      grnd = xorshift32(grnd);
      in_valid_i = 1'b0;
      cong_i = grnd[7];
      @(negedge clk_i);
    end
    grnd = xorshift32(grnd);
    in_valid_i = 1'b1;
  endtask

  // load_generator loads state st into the generator between packets, once
  // the statuses of the n packets before it have all come out (no earlier
  // draw outstanding).
  task load_generator(input int n, input logic [StateW-1:0] st);
    while (stat_idx != n) @(negedge clk_i);
    gen_load_i = 1'b1;
    gen_state_i = st;
    @(negedge clk_i) gen_load_i = 1'b0;
  endtask

  // Beat b of the packet in pkt_in (nw words): its words, zero past them.
  function automatic logic [DataW-1:0] beat_in(input int b, input int nw);
    logic [DataW-1:0] v;
    v = '0;
    for (int j = 0; j < BeatWords; j++)
      if (b * BeatWords + j < nw) v[DataW-1-64*j -: 64] = pkt_in[b * BeatWords + j];
    beat_in = v;
  endfunction

  // take_vector reads the rest of the vector whose first word is h (its
  // states, its packet in, to pkt_in from word base), waits for room in the
  // window, and records its expectations (its packet out, flags, field,
  // state after) in slot n_read % Window; st_in is its state to load.
  task take_vector(input logic [63:0] h, input int base, output logic [MaxStateBits-1:0] st_in);
    int ok, len, nw, slot;
    logic [63:0] x;
    logic [MaxStateBits-1:0] st_out;
    len = int'(h[31:16]);
    if (len < 1 || len > MaxPacket) $fatal(1, "ibr_example_tb: vector %0d: packet of %0d bytes, want 1..%0d", n_read, len, MaxPacket);
    nw = (len + 7) / 8;
    for (int i = 0; i < 2 * MaxStateBits / 64; i++) begin
      next_word(ok, x);
      if (ok != 1) $fatal(1, "ibr_example_tb: vector %0d is cut short (state words)", n_read);
      if (i < MaxStateBits / 64) st_in[MaxStateBits-1-64*i -: 64] = x;
      else st_out[MaxStateBits-1-64*(i-MaxStateBits/64) -: 64] = x;
    end
    for (int w = 0; w < nw; w++) begin
      next_word(ok, pkt_in[base + w]);
      if (ok != 1) $fatal(1, "ibr_example_tb: vector %0d is cut short (packet in)", n_read);
    end
    // Wait for room in the window, then record the expectations.
    while (n_read - (out_idx < stat_idx ? out_idx : stat_idx) >= Window) @(negedge clk_i);
    slot = n_read % Window;
    for (int w = 0; w < nw; w++) begin
      next_word(ok, w_out[slot * MaxWords + w]);
      if (ok != 1) $fatal(1, "ibr_example_tb: vector %0d is cut short (packet out)", n_read);
    end
    w_flags[slot] = h[63:56];
    w_field[slot] = h[15:8];
    w_len[slot]   = len;
    w_state[slot] = st_out;
  endtask

  // ---- Segmented: the packing (positions count segments, the file's words,
  // and beats from the stream's start).
  localparam longint SegsL = longint'(BeatWords);  // segments a beat, for stream positions
  int unsigned srnd = 3;             // xorshift32 state of the idle segments and idle bytes
  longint sg_pos = 0;                // the segment after the last placed packet's last
  longint sg_sop_b = -1, sg_eop_b = -1;  // the beats of its sop and eop
  longint sg_off_b = -1;             // the last beat offered
  longint sg_start [2];              // the placed packets' first segments (pkt_in from word k * MaxWords)
  int     sg_len [2], sg_slot [2];   // their lengths and window slots
  logic [63:0] sg_h [2];             // their first words
  logic [MaxStateBits-1:0] sg_st [2];  // their states to load
  int     sg_seg [Window];           // each vector's sop segment at the ingress
  longint sg_beats = 0, sg_shared = 0;  // ingress beats taken; those holding two packets

  function automatic logic [63:0] rnd64();
    srnd = xorshift32(srnd);
    rnd64[63:32] = srnd;
    srnd = xorshift32(srnd);
    rnd64[31:0] = srnd;
  endfunction

  // loads says whether a vector's packet loads the generator before it.
  function automatic logic loads(input logic [63:0] h);
    loads = h[56+FlagLoadBit] && StateW > 1;
  endfunction

  // sg_place reads the vector whose first word is h into place k and places
  // its packet: at the first legal segment at or after the one after the
  // previous packet's last and after the beat last offered, after the idle
  // segments drawn, or at a beat of its own when it loads the generator.
  task sg_place(input logic [63:0] h, input int k);
    longint start, g;
    take_vector(h, k * MaxWords, sg_st[k]);
    sg_h[k] = h;
    sg_len[k] = int'(h[31:16]);
    sg_slot[k] = n_read % Window;
    g = (longint'(sg_len[k]) + 7) / 8;
    start = sg_pos;
    if (start < (sg_off_b + 1) * SegsL) start = (sg_off_b + 1) * SegsL;
    if (loads(h)) begin
      start = (start + SegsL - 1) / SegsL * SegsL;
    end else begin
      srnd = xorshift32(srnd);
      if (srnd % 4 == 0) begin
        srnd = xorshift32(srnd);
        start = start + longint'({32'd0, srnd % 32'(2 * BeatWords)});
      end
    end
    while (start / SegsL == sg_sop_b || (start + g - 1) / SegsL == sg_eop_b)
      start = (start / SegsL + 1) * SegsL;
    sg_start[k] = start;
    sg_sop_b = start / SegsL;
    sg_eop_b = (start + g - 1) / SegsL;
    sg_pos = start + g;
    sg_seg[sg_slot[k]] = int'(start % SegsL);
    n_read++;
  endtask

  // drive_segmented drives the vectors from the one whose first word is h
  // (ok: one was read) as a segmented stream: the oldest placed packet in
  // place a, the next (read ahead while the window has room, so that a beat
  // ending one packet may start the next) in place 1-a.
  task drive_segmented(input logic [63:0] h, input int ok);
    int a, n, hd, k;
    longint b, f, l, q;
    logic [63:0] v;
    logic sop, eop, two;
    a = 0;
    n = 0;
    while (ok == 1 || n > 0) begin
      if (n == 0) begin
        sg_place(h, a);
        n = 1;
        next_word(ok, h);
      end
      if (n == 1 && ok == 1 && n_read - (out_idx < stat_idx ? out_idx : stat_idx) < Window) begin
        sg_place(h, 1 - a);
        n = 2;
        next_word(ok, h);
      end
      b = sg_start[a] / SegsL > sg_off_b + 1 ? sg_start[a] / SegsL : sg_off_b + 1;
      // The beat: the placed packets' words, random idle words around them.
      sop = 1'b0;
      eop = 1'b0;
      two = 1'b0;
      hd = a;
      for (int j = 0; j < BeatWords; j++) begin
        q = b * SegsL + longint'(j);
        v = rnd64();
        for (int p = 0; p < n; p++) begin
          k = p == 0 ? a : 1 - a;
          if (q >= sg_start[k] && q < sg_start[k] + (longint'(sg_len[k]) + 7) / 8) v = pkt_in[k * MaxWords + int'(q - sg_start[k])];
        end
        in_data_i[DataW-1-64*j -: 64] = v;
      end
      for (int p = 0; p < n; p++) begin
        k = p == 0 ? a : 1 - a;
        f = 8 * sg_start[k] - longint'(BeatBytes) * b;  // its first and last byte, as lanes of beat b
        l = f + longint'(sg_len[k]) - 1;
        if (f >= 0 && f < longint'(BeatBytes)) begin
          sop = 1'b1;
          two = p == 1;
          hd = k;
          in_sop_seg_i = SegW'(f / 8);
        end
        if (l >= 0 && l < longint'(BeatBytes)) begin
          eop = 1'b1;
          in_empty_i = EmptyW'(longint'(BeatBytes) - 1 - l);
        end
      end
      if (sop && loads(sg_h[hd])) begin
        load_generator(n_in, sg_st[hd][StateW-1:0]);
      end
      ingress_gap();  // before any beat
      in_sop_i   = sop;
      in_eop_i   = eop;
      cfg_we_i   = sop;
      if (sop) begin
        cfg_switch_i = sg_h[hd][55:40];
        cfg_port_i   = sg_h[hd][39:32];
      end
      cong_i = sop ? sg_h[hd][56+FlagCongestedBit] : grnd[9];
      @(posedge clk_i);
      while (!in_ready_o) @(posedge clk_i);
      sg_off_b = b;
      sg_beats++;
      if (two) sg_shared++;
      if (sop) n_in++;
      if (eop) begin
        a = 1 - a;
        n--;
      end
      @(negedge clk_i);
      in_valid_i = 1'b0;
      cfg_we_i   = 1'b0;
      cong_i     = grnd[11];
    end
  endtask

  // Driver: reset, then each vector's packet, a beat per accepted cycle;
  // inputs change on the falling edge, away from the sampling edge.
  initial begin
    string fname;
    int ok, len, nw, nb, seed, c;
    logic [63:0] h;
    logic [7:0] flags;
    logic [MaxStateBits-1:0] st_in;
    {rst_ni, cfg_we_i, cong_i, gen_load_i, in_valid_i, in_sop_i, in_eop_i} = '0;
    {cfg_switch_i, cfg_port_i, gen_state_i, in_data_i, in_empty_i, in_sop_seg_i} = '0;
    for (int i = 0; i < 256; i++) for (int a = 0; a < 2; a++) for (int c = 0; c < 2; c++)
      for (int s = 0; s < 2; s++) cov[i][a][c][s] = 0;
    if (!$value$plusargs("hex=%s", fname)) $fatal(1, "ibr_example_tb: no +hex=FILE (a stage.hex of `ibreservoir vectors`)");
    if ($value$plusargs("maxfail=%d", maxfail)) $display("ibr_example_tb: +maxfail=%0d", maxfail);
    if ($value$plusargs("stall=%d", stall)) $display("ibr_example_tb: +stall=%0d", stall);
    if ($value$plusargs("gap=%d", gap)) $display("ibr_example_tb: +gap=%0d", gap);
    if ($value$plusargs("seed=%d", seed)) begin
      rnd = 32'(seed) | 32'h8000_0000;
      grnd = 32'(seed) * 32'd2654435761 | 32'h1;
      srnd = 32'(seed) * 32'd2246822519 | 32'h1;
    end
    if (stall < 0) $fatal(1, "ibr_example_tb: +stall=%0d: want 0 (never) or N >= 1", stall);
    if (gap < 0) $fatal(1, "ibr_example_tb: +gap=%0d: want 0 (never) or N >= 1", gap);
    fd = $fopen(fname, "r");
    if (fd == 0) $fatal(1, "ibr_example_tb: cannot open +hex=%s", fname);
    // The first line names the format and its version.
    for (int i = 0; i < HexMagicLen; i++) begin
      c = $fgetc(fd);
      if (c != int'(HexMagic[8*(HexMagicLen-1-i) +: 8]))
        $fatal(1, "ibr_example_tb: %s is not a hex vector file of version %0d (its first line must start with \"%s\"): regenerate it with this ibreservoir's `ibreservoir vectors`",
               fname, HexVersion, HexMagic);
    end
    while (c != "\n" && c != -1) c = $fgetc(fd);  // the rest of the first line
    repeat (2) @(negedge clk_i);
    rst_ni = 1'b1;
    next_word(ok, h);
    if (Segmented) drive_segmented(h, ok);
    while (!Segmented && ok == 1) begin
      flags = h[63:56];
      len = int'(h[31:16]);
      nw = (len + 7) / 8;
      take_vector(h, 0, st_in);
      if (flags[FlagLoadBit] && StateW > 1) begin
        load_generator(n_read, st_in[StateW-1:0]);
      end
      n_read++;
      n_in = n_read;
      nb = (len + BeatBytes - 1) / BeatBytes;
      for (int b = 0; b < nb; b++) begin
        ingress_gap();  // before any beat, the first and the last included
        in_data_i  = beat_in(b, nw);
        in_sop_i   = b == 0;
        in_eop_i   = b == nb - 1;
        in_empty_i = EmptyW'(BeatBytes * nb - len);
        cfg_we_i   = b == 0;
        if (b == 0) begin
          cfg_switch_i = h[55:40];
          cfg_port_i   = h[39:32];
        end
        // The congested bit with the sop beat, anything on every other cycle.
        cong_i = b == 0 ? flags[FlagCongestedBit] : grnd[9];
        @(posedge clk_i);
        while (!in_ready_o) @(posedge clk_i);
        @(negedge clk_i);
        in_valid_i = 1'b0;
        cfg_we_i   = 1'b0;
        cong_i     = grnd[11];
      end
      next_word(ok, h);
    end
    $fclose(fd);
    all_read = 1'b1;
  end

  // Backpressure: out_ready_i low one cycle in `stall`, from a xorshift32.
  initial out_ready_i = 1'b1;
  always @(negedge clk_i) begin
    rnd <= xorshift32(rnd);
    out_ready_i <= stall == 0 || xorshift32(rnd) % 32'(stall) != 0;
  end

  // Checker: every output packet, in order: its beats (the bytes past its end
  // in the last beat are not compared), its length by eop and empty, its sop
  // flag. A packet that differs is reported whole, as hex, at its eop.
  logic [DataW-1:0] got_mem [MaxBeats];  // the beats of the packet leaving
  logic             got_diff = 1'b0;     // a beat of it differed so far

  // The first n bytes of the beats got_mem[0..k-1] and last, as hex.
  function automatic string got_hex(input int k, input logic [DataW-1:0] last, input int n);
    string h;
    logic [DataW-1:0] w;
    h = "";
    for (int i = 0; i <= k && BeatBytes * i < n; i++) begin
      w = i < k ? got_mem[i] : last;
      for (int b = 0; b < BeatBytes && BeatBytes * i + b < n; b++) h = {h, $sformatf("%02x", w[DataW-1-8*b -: 8])};
    end
    got_hex = h;
  endfunction

  // Beat b of vector slot's expected packet out (nw words): its words, zero past them.
  function automatic logic [DataW-1:0] beat_want(input int slot, input int b, input int nw);
    logic [DataW-1:0] v;
    v = '0;
    for (int j = 0; j < BeatWords; j++)
      if (b * BeatWords + j < nw) v[DataW-1-64*j -: 64] = w_out[slot * MaxWords + b * BeatWords + j];
    beat_want = v;
  endfunction

  // Vector slot's expected packet out (n bytes), as hex.
  function automatic string want_hex(input int slot, input int n);
    string h;
    logic [63:0] w;
    h = "";
    for (int i = 0; 8 * i < n; i++) begin
      w = w_out[slot * MaxWords + i];
      for (int b = 0; b < 8 && 8 * i + b < n; b++) h = {h, $sformatf("%02x", w[63-8*b -: 8])};
    end
    want_hex = h;
  endfunction

  always @(posedge clk_i) begin
    if (!Segmented && out_valid_o && out_ready_i) begin : check_beat
      int slot, len, nw, nb, n, rest;
      logic [DataW-1:0] want, mask;
      logic diff;
      progress_at <= cycles;
      slot = out_idx % Window;
      len = w_len[slot];
      nw = (len + 7) / 8;
      nb = (len + BeatBytes - 1) / BeatBytes;
      if (got_beats < MaxBeats) got_mem[got_beats] <= out_data_o;
      if (out_idx >= n_in) begin
        if (out_sop_o) report(out_idx, "extra", $sformatf("%h", out_data_o), "nothing");
        if (out_sop_o) pkt_bad <= pkt_bad + 1;
      end else if (out_sop_o != (got_beats == 0)) begin
        report(out_idx, "sop", $sformatf("%0d", out_sop_o), $sformatf("%0d", got_beats == 0));
        pkt_bad <= pkt_bad + 1;
      end else begin
        want = beat_want(slot, got_beats, nw);
        // The packet's bytes in this beat: all, or the first rest of the last.
        rest = len - BeatBytes * got_beats;
        mask = '1;
        if (rest < BeatBytes) mask = ~({DataW{1'b1}} >> (8 * rest));
        diff = got_diff || got_beats >= nb || ((out_data_o ^ want) & mask) != '0;
        got_diff <= diff;
        if (out_eop_o) begin
          n = BeatBytes * got_beats + BeatBytes - int'(out_empty_o);
          if (diff || n != len) begin
            report(out_idx, "packet", got_hex(got_beats, out_data_o, n), want_hex(slot, len));
            pkt_bad <= pkt_bad + 1;
          end
        end
      end
      if (out_eop_o) begin
        out_idx <= out_idx + 1;
        got_beats <= 0;
        got_diff <= 1'b0;
      end else begin
        got_beats <= got_beats + 1;
      end
    end
  end

  // Checker (Segmented): every egress beat reassembled by the rules, the
  // open packet's bytes to the eop's last lane, then the head's from its sop
  // segment; each packet against its vector at its eop, its sop segment
  // against the one it entered at. A broken rule is reported as a sop-seg
  // mismatch of the packet (got and want name the rule).
  logic       sg_open = 1'b0;         // a packet open at the egress
  int         sg_got = 0;             // its bytes so far
  logic       sg_diff = 1'b0;         // a byte of it differed so far
  string      sg_what, sg_g, sg_w;    // the first rule it broke ("" none)
  logic [7:0] sg_bytes [MaxPacket];   // its bytes, for the report

  task sg_rule(input string g, input string w);
    if (sg_what == "") begin
      sg_what = "sop-seg";
      sg_g = g;
      sg_w = w;
    end
  endtask

  task sg_take(input int lo, input int hi);
    int slot;
    logic [7:0] gb;
    slot = out_idx % Window;
    for (int lane = lo; lane <= hi; lane++) begin
      gb = out_data_o[DataW-1-8*lane -: 8];
      if (sg_got < MaxPacket) sg_bytes[sg_got] = gb;
      if (sg_got >= w_len[slot] || gb != w_out[slot * MaxWords + sg_got / 8][63-8*(sg_got%8) -: 8]) sg_diff = 1'b1;
      sg_got++;
    end
  endtask

  task sg_finish;
    int slot;
    string g;
    slot = out_idx % Window;
    if (sg_what != "") begin
      report(out_idx, sg_what, sg_g, sg_w);
      pkt_bad++;
    end else if (sg_diff || sg_got != w_len[slot]) begin
      g = "";
      for (int i = 0; i < sg_got && i < MaxPacket; i++) g = {g, $sformatf("%02x", sg_bytes[i])};
      report(out_idx, "packet", g, want_hex(slot, w_len[slot]));
      pkt_bad++;
    end
    out_idx++;
    sg_open = 1'b0;
  endtask

  always @(posedge clk_i) begin
    if (Segmented && out_valid_o && out_ready_i) begin : check_seg
      int last, seg;
      logic tail_done;
      progress_at <= cycles;
      last = out_eop_o ? BeatBytes - 1 - int'(out_empty_o) : BeatBytes - 1;
      seg = int'(out_sop_seg_o);
      tail_done = 1'b0;
      if (sg_open) begin
        if (out_sop_o && !out_eop_o) sg_rule("sop-while-open", "eop-first");
        // Frames are 4k+2 bytes from a segment boundary: empty is 2 mod 4.
        if (out_eop_o && int'(out_empty_o) % 4 != 2) sg_rule($sformatf("empty-%0d", out_empty_o), "2-mod-4");
        sg_take(0, last);
        if (out_eop_o || out_sop_o) begin
          sg_finish();
          tail_done = 1'b1;
        end
      end
      if (out_sop_o) begin
        if (out_idx >= n_in) begin
          report(out_idx, "extra", $sformatf("%h", out_data_o), "nothing");
          pkt_bad++;
        end else begin
          sg_got = 0;
          sg_diff = 1'b0;
          sg_what = "";
          if (seg != sg_seg[out_idx % Window]) sg_rule($sformatf("%0d", seg), $sformatf("%0d", sg_seg[out_idx % Window]));
          if (tail_done && 8 * seg <= last) sg_rule($sformatf("sop-lane-%0d", 8 * seg), $sformatf("after-lane-%0d", last));
          if (out_eop_o && !tail_done) begin
            if (8 * seg > last) sg_rule("eop-before-sop", "a-whole-packet");
            if (int'(out_empty_o) % 4 != 2) sg_rule($sformatf("empty-%0d", out_empty_o), "2-mod-4");
            sg_take(8 * seg, last);
            sg_finish();
          end else begin
            sg_take(8 * seg, BeatBytes - 1);
            sg_open = 1'b1;
          end
        end
      end else if (!tail_done && !sg_open) begin
        report(out_idx, "extra", $sformatf("%h", out_data_o), "nothing");
        pkt_bad++;
      end
    end
  end

  // Checker: each packet's status and the generator state after its draw;
  // a raw packet has no status, and is passed over.
  always @(posedge clk_i) begin
    if (stat_valid_o) begin : check_stat
      logic [7:0] flags, field, gotf, wantf;
      logic [MaxStateBits-1:0] state, want_state;
      int idx;
      idx = stat_idx;
      while (idx < n_in && w_flags[idx % Window][FlagRawBit]) idx++;
      flags = w_flags[idx % Window];
      want_state = w_state[idx % Window];
      field = '0;
      field[FieldW-1:0] = stat_field_o;
      state = '0;
      state[StateW-1:0] = gen_state_o;
      gotf = '0;
      gotf[FlagReplaceBit]   = stat_replace_o;
      gotf[FlagSaturatedBit] = stat_saturated_o;
      gotf[FlagHashBit]      = stat_hash_o;
      gotf[FlagCongestedBit] = stat_cong_o;
      wantf = '0;
      wantf[FlagReplaceBit]   = flags[FlagReplaceBit];
      wantf[FlagSaturatedBit] = flags[FlagSaturatedBit];
      wantf[FlagHashBit]      = flags[FlagHashBit];
      wantf[FlagCongestedBit] = flags[FlagCongestedBit];
      if (idx >= n_in) begin
        report(idx, "extra-stat", "status", "nothing");
        stat_bad <= stat_bad + 1;
      end else if (gotf != wantf || field != w_field[idx % Window] ||
                   stat_malformed_o != (w_field[idx % Window] == 0)) begin
        // FLAGS,FIELD,MALFORMED with the flag bits of the hex format. A
        // field of 0 after the stage is a malformed sender-draw packet's
        // (a count field is at least 1 after the stage).
        report(idx, "stat", $sformatf("%02x,%02x,%0d", gotf, field, stat_malformed_o),
               $sformatf("%02x,%02x,%0d", wantf, w_field[idx % Window], w_field[idx % Window] == 0));
        stat_bad <= stat_bad + 1;
      end else if (StateW > 1 && state != want_state) begin
        report(idx, "state", $sformatf("%h", state), $sformatf("%h", want_state));
        stat_bad <= stat_bad + 1;
      end
      cov[field][stat_replace_o][stat_cong_o][stat_saturated_o] <=
        cov[field][stat_replace_o][stat_cong_o][stat_saturated_o] + 1;
      stat_idx <= idx + 1;
    end else if (stat_idx < n_in && w_flags[stat_idx % Window][FlagRawBit]) begin
      stat_idx <= stat_idx + 1;  // a raw packet: no status to wait for
    end
  end

  // The end: every packet and status seen, or no progress for 10000 cycles.
  always @(negedge clk_i) begin
    if ((all_read && out_idx == n_in && stat_idx == n_in) || cycles - progress_at > 10000) begin : finish
      int bad;
      bad = pkt_bad + stat_bad;
      if (!(all_read && out_idx == n_in && stat_idx == n_in)) begin
        report(out_idx, "deadlock", "stuck", "progress");
        bad++;
      end
      if (n_read == 0) begin
        report(0, "empty", "no vectors", "at least one");
        bad++;
      end
      for (int i = 0; i < 256; i++) for (int a = 0; a < 2; a++) for (int c = 0; c < 2; c++)
        for (int s = 0; s < 2; s++)
          if (cov[i][a][c][s] != 0)
            $display("COV field=%0d replace=%0d cong=%0d sat=%0d n=%0d", i, a, c, s, cov[i][a][c][s]);
      $display("TRAFFIC data_cycles=%0d (egress beats)", data_cycles);
      if (Segmented) $display("SEGMENTED beats=%0d shared=%0d", sg_beats, sg_shared);
      $display("RESULT vectors=%0d mismatches=%0d cycles=%0d seconds=0", out_idx, bad, cycles);
      if (bad != 0) $fatal(1, "ibr_example_tb: FAIL, %0d mismatches", bad);
      $display("ibr_example_tb: PASS, %0d vectors", out_idx);
      $finish;
    end
  end
