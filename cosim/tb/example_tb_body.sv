  // ---- The body of ibr_example_tb (cosim/tb/example_tb_body.sv; package cosim
  // ---- puts the configuration's parameters above it and the stage below).
  //
  // Options (plusargs):
  //   +hex=FILE    the stage.hex vectors of this configuration (required)
  //   +stall=N     out_ready_i low one cycle in N at random (default 4; 0: never)
  //   +seed=N      seed of the stall pattern (default 1; any N gives a valid run)
  //   +maxfail=N   mismatches printed in full (default 10)
  // Output: MISMATCH lines, COV lines (hop field x replace x congested x
  // saturated), a RESULT line, then PASS, or $fatal on any mismatch.
  localparam int Window = 16;  // vectors in flight between the driver and the checkers

  logic [HexBits-1:0] win [Window];  // vector i in win[i % Window]
  int     n_read = 0, out_idx = 0, stat_idx = 0, maxfail = 10, stall = 4, fd = 0;
  int     pkt_bad = 0, stat_bad = 0;  // mismatches found by each checker
  logic   all_read = 1'b0;
  longint cycles = 0, progress_at = 0;
  int unsigned rnd = 1;  // xorshift32 state of the stall pattern
  int     cov [256][2][2][2];
  logic [8*MaxPacket-1:0] got;
  int     got_len = 0;

  initial begin
    clk_i = 1'b0;
    forever #5 clk_i = ~clk_i;
  end
  always @(posedge clk_i) cycles <= cycles + 1;

  // The next vector of the $readmemh file fd, skipping // comment lines.
  task automatic next_vector(output int ok, output logic [HexBits-1:0] v);
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

  function automatic string hexbytes(input logic [8*MaxPacket-1:0] p, input int n);
    string s;
    s = "";
    for (int j = 0; j < n; j++) s = {s, $sformatf("%02x", p[8*MaxPacket-1-8*j -: 8])};
    hexbytes = s;
  endfunction

  // Driver: reset, then each vector's packet, a word per accepted cycle;
  // inputs change on the falling edge, away from the sampling edge.
  initial begin
    string fname;
    int ok, len, nw, seed;
    logic [HexBits-1:0] v;
    logic [7:0] flags;
    {rst_ni, cfg_we_i, cong_i, gen_load_i, in_valid_i, in_sop_i, in_eop_i} = '0;
    {cfg_switch_i, cfg_port_i, gen_state_i, in_data_i, in_empty_i} = '0;
    for (int i = 0; i < 256; i++) for (int a = 0; a < 2; a++) for (int c = 0; c < 2; c++)
      for (int s = 0; s < 2; s++) cov[i][a][c][s] = 0;
    if (!$value$plusargs("hex=%s", fname)) $fatal(1, "ibr_example_tb: no +hex=FILE (a stage.hex of `ibreservoir vectors`)");
    if ($value$plusargs("maxfail=%d", maxfail)) $display("ibr_example_tb: +maxfail=%0d", maxfail);
    if ($value$plusargs("stall=%d", stall)) $display("ibr_example_tb: +stall=%0d", stall);
    if ($value$plusargs("seed=%d", seed)) rnd = 32'(seed) | 32'h8000_0000;
    if (stall < 0) $fatal(1, "ibr_example_tb: +stall=%0d: want 0 (never) or N >= 1", stall);
    fd = $fopen(fname, "r");
    if (fd == 0) $fatal(1, "ibr_example_tb: cannot open +hex=%s", fname);
    repeat (2) @(negedge clk_i);
    rst_ni = 1'b1;
    next_vector(ok, v);
    while (ok == 1) begin
      // Wait for room in the window.
      while (n_read - (out_idx < stat_idx ? out_idx : stat_idx) >= Window) @(negedge clk_i);
      win[n_read % Window] = v;
      flags = v[FlagsMsb -: 8];
      len = int'(v[LenMsb -: 8]);
      nw = (len + 7) / 8;
      if (flags[FlagLoadBit] && StateW > 1) begin
        // Load the generator only when no earlier packet's draw is outstanding.
        while (stat_idx != n_read) @(negedge clk_i);
        gen_load_i = 1'b1;
        gen_state_i = v[StateInMsb - MaxStateBits + 1 +: StateW];
        @(negedge clk_i) gen_load_i = 1'b0;
      end
      n_read++;
      for (int w = 0; w < nw; w++) begin
        logic [63:0] d;
        for (int j = 0; j < 8; j++)
          d[63-8*j -: 8] = (8*w + j < len) ? v[PktInMsb - 8*(8*w + j) -: 8] : 8'h00;
        in_valid_i = 1'b1;
        in_data_i  = d;
        in_sop_i   = w == 0;
        in_eop_i   = w == nw - 1;
        in_empty_i = 3'((8*nw - len) & 7);
        cfg_we_i   = w == 0;
        if (w == 0) begin
          cfg_switch_i = v[SwitchMsb -: 16];
          cfg_port_i   = v[PortMsb -: 8];
          cong_i       = flags[FlagCongestedBit];
        end
        @(posedge clk_i);
        while (!in_ready_o) @(posedge clk_i);
        @(negedge clk_i);
        in_valid_i = 1'b0;
        cfg_we_i   = 1'b0;
      end
      next_vector(ok, v);
    end
    $fclose(fd);
    all_read = 1'b1;
  end

  // Backpressure: out_ready_i low one cycle in `stall`, from a xorshift32.
  function automatic int unsigned xorshift32(input int unsigned x);
    int unsigned y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    xorshift32 = y ^ (y << 5);
  endfunction
  initial out_ready_i = 1'b1;
  always @(negedge clk_i) begin
    rnd <= xorshift32(rnd);
    out_ready_i <= stall == 0 || xorshift32(rnd) % 32'(stall) != 0;
  end

  // Checker: every output byte of every packet, in order, and the sop flag.
  always @(posedge clk_i) begin
    if (out_valid_o && out_ready_i) begin
      progress_at <= cycles;
      got[8*MaxPacket-1 - 8*got_len -: 64] <= out_data_o;
      if (out_sop_o != (got_len == 0)) begin
        report(out_idx, "sop", $sformatf("%0d", out_sop_o), $sformatf("%0d", got_len == 0));
        pkt_bad <= pkt_bad + 1;
      end else if (out_eop_o) begin : check_packet
        logic [8*MaxPacket-1:0] full, want;
        int n, len;
        full = got;
        full[8*MaxPacket-1 - 8*got_len -: 64] = out_data_o;
        n = got_len + 8 - int'(out_empty_o);
        len = int'(win[out_idx % Window][LenMsb -: 8]);
        want = win[out_idx % Window][PktOutMsb -: 8*MaxPacket];
        if (out_idx >= n_read) begin
          report(out_idx, "extra", hexbytes(full, n), "nothing");
          pkt_bad <= pkt_bad + 1;
        end else if (n != len || (full >> (8*(MaxPacket-len))) != (want >> (8*(MaxPacket-len)))) begin
          report(out_idx, "packet", hexbytes(full, n), hexbytes(want, len));
          pkt_bad <= pkt_bad + 1;
        end
      end
      if (out_eop_o) begin
        out_idx <= out_idx + 1;
        got_len <= 0;
      end else begin
        got_len <= got_len + 8;
      end
    end
  end

  // Checker: each packet's status and the generator state after its draw.
  always @(posedge clk_i) begin
    if (stat_valid_o) begin : check_stat
      logic [7:0] flags, field, gotf, wantf;
      logic [MaxStateBits-1:0] state, want_state;
      flags = win[stat_idx % Window][FlagsMsb -: 8];
      want_state = win[stat_idx % Window][StateOutMsb -: MaxStateBits];
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
      if (stat_idx >= n_read) begin
        report(stat_idx, "extra-stat", "status", "nothing");
        stat_bad <= stat_bad + 1;
      end else if (gotf != wantf || field != win[stat_idx % Window][FieldMsb -: 8] || stat_malformed_o) begin
        // FLAGS,FIELD,MALFORMED with the flag bits of the hex format.
        report(stat_idx, "stat", $sformatf("%02x,%02x,%0d", gotf, field, stat_malformed_o),
               $sformatf("%02x,%02x,0", wantf, win[stat_idx % Window][FieldMsb -: 8]));
        stat_bad <= stat_bad + 1;
      end else if (StateW > 1 && state != want_state) begin
        report(stat_idx, "state", $sformatf("%h", state), $sformatf("%h", want_state));
        stat_bad <= stat_bad + 1;
      end
      cov[field][stat_replace_o][stat_cong_o][stat_saturated_o] <=
        cov[field][stat_replace_o][stat_cong_o][stat_saturated_o] + 1;
      stat_idx <= stat_idx + 1;
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
      $display("RESULT vectors=%0d mismatches=%0d cycles=%0d seconds=0", out_idx, bad, cycles);
      if (bad != 0) $fatal(1, "ibr_example_tb: FAIL, %0d mismatches", bad);
      $display("ibr_example_tb: PASS, %0d vectors", out_idx);
      $finish;
    end
  end
