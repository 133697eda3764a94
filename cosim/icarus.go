package cosim

import (
	"bytes"
	"context"
	"fmt"

	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// IcarusTB returns the SystemVerilog testbench module ibr_icarus_tb for
// configuration c: it reads n vectors of the hex format with $readmemh
// (+hex=FILE), drives the configuration's wrapper and checks every output
// byte, status bit and generator state, printing the same lines as the
// Verilator testbench. It is the second simulator's independent harness: it
// reads the $readmemh form, where the Verilator one reads the binary form.
func IcarusTB(c verilog.Config, n int) []byte {
	sw := c.StateBits()
	fw := c.FieldBits()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n//\n// ibr_icarus_tb: the Icarus Verilog testbench of package cosim for %s.\n", verilog.Header, c.Module())
	fmt.Fprintf(&b, "// Vector line layout: vectors/format.go (HexBits = %d).\n", vectors.HexBits)
	b.WriteString("`default_nettype none\n\nmodule ibr_icarus_tb;\n")
	fmt.Fprintf(&b, "  localparam int N = %d;\n  localparam int StateW = %d;\n  localparam int FieldW = %d;\n", n, sw, fw)
	b.WriteString(icarusBody)
	fmt.Fprintf(&b, "  %s u_dut (\n", c.Module())
	b.WriteString(`    .clk_i(clk), .rst_ni(rst_n), .cfg_we_i(cfg_we), .cfg_switch_i(cfg_switch), .cfg_port_i(cfg_port),
    .cong_i(cong), .gen_load_i(gen_load), .gen_state_i(gen_state_in[StateW-1:0]), .gen_state_o(gen_state_out),
    .in_valid_i(in_valid), .in_ready_o(in_ready), .in_data_i(in_data), .in_sop_i(in_sop), .in_eop_i(in_eop),
    .in_empty_i(in_empty), .out_valid_o(out_valid), .out_ready_i(out_ready), .out_data_o(out_data),
    .out_sop_o(out_sop), .out_eop_o(out_eop), .out_empty_o(out_empty), .stat_valid_o(stat_valid),
    .stat_replace_o(stat_replace), .stat_saturated_o(stat_saturated), .stat_cong_o(stat_cong),
    .stat_hash_o(stat_hash), .stat_field_o(stat_field), .stat_malformed_o(stat_malformed)
  );
endmodule

` + "`default_nettype wire\n")
	return b.Bytes()
}

const icarusBody = `  localparam int W = 2096;
  logic [W-1:0] mem [N];

  logic clk = 1'b0, rst_n = 1'b0;
  logic cfg_we = 1'b0, cong = 1'b0, gen_load = 1'b0;
  logic [15:0] cfg_switch = '0;
  logic [7:0] cfg_port = '0;
  logic [255:0] gen_state_in = '0;
  logic [StateW-1:0] gen_state_out;
  logic in_valid = 1'b0, in_sop = 1'b0, in_eop = 1'b0, in_ready;
  logic [63:0] in_data = '0;
  logic [2:0] in_empty = '0;
  logic out_valid, out_sop, out_eop, out_ready = 1'b1;
  logic [63:0] out_data;
  logic [2:0] out_empty;
  logic stat_valid, stat_replace, stat_saturated, stat_cong, stat_hash, stat_malformed;
  logic [FieldW-1:0] stat_field;

  int out_idx = 0, stat_idx = 0, mismatches = 0, maxfail = 10;
  longint cycles = 0;
  int cov [256][2][2][2];
  logic [8*96-1:0] got;
  int got_len = 0;

  always #5 clk = ~clk;
  always @(posedge clk) cycles <= cycles + 1;

  function automatic logic [7:0] vbyte(input logic [W-1:0] v, input int base, input int j);
    vbyte = v[base - 8*j -: 8];
  endfunction

  task automatic report(input int index, input string what, input string g, input string x);
    if (mismatches < maxfail) $display("MISMATCH index=%0d what=%s got=%s want=%s", index, what, g, x);
    mismatches++;
  endtask

  function automatic string hexbytes(input logic [8*96-1:0] p, input int n);
    string s;
    s = "";
    for (int j = 0; j < n; j++) s = {s, $sformatf("%02x", p[8*96-1-8*j -: 8])};
    return s;
  endfunction

  // Driver: the input packets, one word per accepted cycle.
  initial begin
    string fname;
    logic [W-1:0] v;
    int len, nw;
    if (!$value$plusargs("hex=%s", fname)) begin
      $display("tb: no +hex=FILE");
      $finish(1);
    end
    if ($value$plusargs("maxfail=%d", maxfail)) begin
    end
    for (int i = 0; i < 256; i++) for (int a = 0; a < 2; a++) for (int c = 0; c < 2; c++) for (int s = 0; s < 2; s++)
      cov[i][a][c][s] = 0;
    $readmemh(fname, mem);
    repeat (2) @(posedge clk);
    @(negedge clk) rst_n = 1'b1;
    for (int i = 0; i < N; i++) begin
      v = mem[i];
      len = int'(v[2063:2056]);
      nw = (len + 7) / 8;
      if (v[2095] && StateW > 1) begin
        // Load the generator only when no earlier packet's draw is outstanding.
        while (stat_idx != i) @(negedge clk);
        gen_load = 1'b1;
        gen_state_in = v[2047:1792];
        @(negedge clk) gen_load = 1'b0;
      end
      for (int w = 0; w < nw; w++) begin
        logic [63:0] d;
        for (int j = 0; j < 8; j++) d[63-8*j -: 8] = (8*w + j < len) ? vbyte(v, 1535, 8*w + j) : 8'h00;
        in_valid = 1'b1;
        in_data = d;
        in_sop = w == 0;
        in_eop = w == nw - 1;
        in_empty = (8*nw - len) & 7;
        cfg_we = w == 0;
        if (w == 0) begin
          cfg_switch = v[2087:2072];
          cfg_port = v[2071:2064];
          cong = v[2094];
        end
        @(posedge clk);
        while (!in_ready) @(posedge clk);
        @(negedge clk);
        in_valid = 1'b0;
        cfg_we = 1'b0;
      end
    end
  end

  // Monitor: output packets and per-packet status, in order.
  always @(posedge clk) begin
    if (rst_n && out_valid && out_ready) begin
      got[8*96-1 - 8*got_len -: 64] <= out_data;
      if (out_eop) begin : check_packet
        logic [W-1:0] v;
        logic [8*96-1:0] full;
        int n, len;
        v = mem[out_idx];
        full = got;
        full[8*96-1 - 8*got_len -: 64] = out_data;
        n = got_len + 8 - int'(out_empty);
        len = int'(v[2063:2056]);
        if (n != len || full[8*96-1 -: 8*96] >> (8*(96-len)) != v[767:0] >> (8*(96-len))) begin
          report(out_idx, "packet", hexbytes(full, n), hexbytes(v[767:0], len));
        end
        out_idx <= out_idx + 1;
        got_len <= 0;
      end else begin
        got_len <= got_len + 8;
      end
    end
    if (rst_n && stat_valid) begin : check_stat
      logic [W-1:0] v;
      logic [7:0] gotf, wantf, field8;
      logic [255:0] state256;
      v = mem[stat_idx];
      field8 = '0;
      field8[FieldW-1:0] = stat_field;
      state256 = '0;
      state256[StateW-1:0] = gen_state_out;
      gotf = {1'b0, stat_cong, stat_replace, stat_saturated, stat_hash, 3'b000};
      wantf = v[2095:2088] & 8'h78;
      if (gotf != wantf || field8 != v[2055:2048] || stat_malformed) begin
        report(stat_idx, "stat", $sformatf("%02x,%02x,%0d", gotf, field8, stat_malformed),
               $sformatf("%02x,%02x,0", wantf, v[2055:2048]));
      end
      if (StateW > 1 && state256 != v[1791:1536]) begin
        report(stat_idx, "state", $sformatf("%064x", state256), $sformatf("%064x", v[1791:1536]));
      end
      cov[int'(stat_field)][stat_replace][stat_cong][stat_saturated] <= cov[int'(stat_field)][stat_replace][stat_cong][stat_saturated] + 1;
      stat_idx <= stat_idx + 1;
    end
  end

  // End: every packet and status seen, or a deadlock.
  always @(negedge clk) begin
    if (out_idx == N && stat_idx == N) begin
      for (int i = 0; i < 256; i++) for (int a = 0; a < 2; a++) for (int c = 0; c < 2; c++) for (int s = 0; s < 2; s++)
        if (cov[i][a][c][s] != 0) $display("COV field=%0d replace=%0d cong=%0d sat=%0d n=%0d", i, a, c, s, cov[i][a][c][s]);
      $display("RESULT vectors=%0d mismatches=%0d cycles=%0d seconds=0", out_idx, mismatches, cycles);
      $finish;
    end
    if (cycles > 64 * longint'(N) + 1000) begin
      report(out_idx, "deadlock", "stuck", "progress");
      $display("RESULT vectors=%0d mismatches=%0d cycles=%0d seconds=0", out_idx, mismatches, cycles);
      $finish;
    end
  end

`

// RunIcarus compiles configuration c with Icarus Verilog and runs it on a hex
// vector file of n vectors, working in dir.
func RunIcarus(ctx context.Context, dir string, c verilog.Config, hexFile string, n int) (*Result, error) {
	files, err := verilog.Files(c)
	if err != nil {
		return nil, err
	}
	return runIcarusFiles(ctx, dir, c, files, hexFile, n)
}

// runIcarusFiles is RunIcarus on the given RTL sources (verilog.Files,
// possibly edited by a test).
func runIcarusFiles(ctx context.Context, dir string, c verilog.Config, files []verilog.File, hexFile string, n int) (*Result, error) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		return nil, fmt.Errorf("cosim: iverilog is not installed (run scripts/setup.sh): %w", err)
	}
	files = append(files, verilog.File{Name: "ibr_icarus_tb.sv", Data: IcarusTB(c, n)})
	src := filepath.Join(dir, "src")
	if _, err := verilog.Write(src, files); err != nil {
		return nil, err
	}
	args := []string{"-g2012", "-o", filepath.Join(dir, "tb.vvp"), "-s", "ibr_icarus_tb"}
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".sv") {
			args = append(args, filepath.Join(src, f.Name))
		}
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "iverilog", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cosim: iverilog of %s failed: %w\n%s", c.Module(), err, tail(icarusNoise(out.String()), 40))
	}
	t0 := time.Now()
	out.Reset()
	cmd = exec.CommandContext(ctx, "vvp", "-n", filepath.Join(dir, "tb.vvp"), "+hex="+hexFile)
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	r, err := parseOutput("icarus", out.Bytes())
	if err != nil {
		if runErr != nil {
			err = fmt.Errorf("%w (exit: %v)", err, runErr)
		}
		return r, err
	}
	r.Wall = time.Since(t0)
	r.SimTime = r.Wall
	r.Output = icarusNoise(r.Output)
	return r, nil
}

// icarusNoise drops Icarus Verilog 11's notes that it widens the
// sensitivity of always_comb blocks with constant part-selects, and its
// remark that $error cannot be synthesized: neither is about the design.
func icarusNoise(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "constant selects in always_* processes") || strings.Contains(l, "cannot be synthesized") ||
			strings.Contains(l, "$readmemh: Standard inconsistency") || l == "" {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
