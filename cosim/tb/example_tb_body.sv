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
  logic [63:0] pkt_in [MaxWords];
  int     n_read = 0, out_idx = 0, stat_idx = 0, maxfail = 10, stall = 4, gap = 4, fd = 0;
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

  // Beat b of the packet in pkt_in (nw words): its words, zero past them.
  function automatic logic [DataW-1:0] beat_in(input int b, input int nw);
    logic [DataW-1:0] v;
    v = '0;
    for (int j = 0; j < BeatWords; j++)
      if (b * BeatWords + j < nw) v[DataW-1-64*j -: 64] = pkt_in[b * BeatWords + j];
    beat_in = v;
  endfunction

  // Driver: reset, then each vector's packet, a beat per accepted cycle;
  // inputs change on the falling edge, away from the sampling edge.
  initial begin
    string fname;
    int ok, len, nw, nb, seed, c, slot;
    logic [63:0] h, x;
    logic [7:0] flags;
    logic [MaxStateBits-1:0] st_in, st_out;
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
    while (ok == 1) begin
      flags = h[63:56];
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
        next_word(ok, pkt_in[w]);
        if (ok != 1) $fatal(1, "ibr_example_tb: vector %0d is cut short (packet in)", n_read);
      end
      // Wait for room in the window, then record the expectations.
      while (n_read - (out_idx < stat_idx ? out_idx : stat_idx) >= Window) @(negedge clk_i);
      slot = n_read % Window;
      for (int w = 0; w < nw; w++) begin
        next_word(ok, w_out[slot * MaxWords + w]);
        if (ok != 1) $fatal(1, "ibr_example_tb: vector %0d is cut short (packet out)", n_read);
      end
      w_flags[slot] = flags;
      w_field[slot] = h[15:8];
      w_len[slot]   = len;
      w_state[slot] = st_out;
      if (flags[FlagLoadBit] && StateW > 1) begin
        // Load the generator only when no earlier packet's draw is outstanding.
        while (stat_idx != n_read) @(negedge clk_i);
        gen_load_i = 1'b1;
        gen_state_i = st_in[StateW-1:0];
        @(negedge clk_i) gen_load_i = 1'b0;
      end
      n_read++;
      nb = (len + BeatBytes - 1) / BeatBytes;
      for (int b = 0; b < nb; b++) begin
        // An ingress gap before any beat, the first and the last included.
        while (gap != 0 && xorshift32(grnd) % 32'(gap) == 0) begin
          grnd = xorshift32(grnd);
          in_valid_i = 1'b0;
          cong_i = grnd[7];
          @(negedge clk_i);
        end
        grnd = xorshift32(grnd);
        in_valid_i = 1'b1;
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
    if (out_valid_o && out_ready_i) begin : check_beat
      int slot, len, nw, nb, n, rest;
      logic [DataW-1:0] want, mask;
      logic diff;
      progress_at <= cycles;
      slot = out_idx % Window;
      len = w_len[slot];
      nw = (len + 7) / 8;
      nb = (len + BeatBytes - 1) / BeatBytes;
      if (got_beats < MaxBeats) got_mem[got_beats] <= out_data_o;
      if (out_idx >= n_read) begin
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

  // Checker: each packet's status and the generator state after its draw;
  // a raw packet has no status, and is passed over.
  always @(posedge clk_i) begin
    if (stat_valid_o) begin : check_stat
      logic [7:0] flags, field, gotf, wantf;
      logic [MaxStateBits-1:0] state, want_state;
      int idx;
      idx = stat_idx;
      while (idx < n_read && w_flags[idx % Window][FlagRawBit]) idx++;
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
      if (idx >= n_read) begin
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
    end else if (stat_idx < n_read && w_flags[stat_idx % Window][FlagRawBit]) begin
      stat_idx <= stat_idx + 1;  // a raw packet: no status to wait for
    end
  end

  // The end: every packet and status seen, or no progress for 10000 cycles.
  always @(negedge clk_i) begin
    if ((all_read && out_idx == n_read && stat_idx == n_read) || cycles - progress_at > 10000) begin : finish
      int bad;
      bad = pkt_bad + stat_bad;
      if (!(all_read && out_idx == n_read && stat_idx == n_read)) begin
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
      $display("RESULT vectors=%0d mismatches=%0d cycles=%0d seconds=0", out_idx, bad, cycles);
      if (bad != 0) $fatal(1, "ibr_example_tb: FAIL, %0d mismatches", bad);
      $display("ibr_example_tb: PASS, %0d vectors", out_idx);
      $finish;
    end
  end
