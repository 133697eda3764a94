// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/header"
)

// segFieldVectors writes one line a cycle for ibr_seg_fields at width w: a
// segmented stream (dense, then gapped) of random frames with random LNH
// (0..3) and lengths (some too short for their fields), between cycles where
// no beat is taken, and for each taken beat where the tail's and the head's
// BTH byte 4 and PSN lie, from SegFieldAt and the frames alone.
func segFieldVectors(t *testing.T, w int, seed uint64) (string, int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 13))
	nb, s := w/8, w/64
	var out strings.Builder
	beatsIn := 0
	for _, dense := range []bool{true, false} {
		frames := make([][]byte, 300)
		for i := range frames {
			l := 4*r.IntN(40) + 6 // 6..162
			if r.IntN(8) == 0 {
				l = 4*r.IntN(150) + 26
			}
			frames[i] = make([]byte, l)
			for k := range frames[i] {
				frames[i][k] = byte(r.Uint32())
			}
		}
		var idle func(int) int
		if !dense {
			idle = func(int) int { return r.IntN(2*s + 1) }
		}
		beats, err := PackSegments(w, frames, idle, func() byte { return byte(r.Uint32()) })
		if err != nil {
			t.Fatal(err)
		}
		cur, sopBeat, open := -1, 0, false
		// where reports packet f's field at off in beat b: present and lane.
		where := func(f, seg, b, off, last int) (bool, int) {
			lnh := frames[f][1] & 3
			if lnh < 2 {
				return false, 0
			}
			bth, _ := header.BTHOffset(lnh)
			fb, lane := SegFieldAt(w, seg, bth+off)
			return fb == b && bth+off < len(frames[f]) && lane <= last, lane
		}
		b2i := func(b bool) int {
			if b {
				return 1
			}
			return 0
		}
		tailSeg := 0
		for bi, b := range beats {
			for !dense && r.IntN(3) == 0 { // a cycle with no beat taken
				fmt.Fprintf(&out, "0 %x %x %x %x %x 0 0 0 0 0 0 0 0 0\n", r.IntN(2), r.IntN(s), r.IntN(2), r.IntN(nb), make([]byte, nb))
			}
			last := nb - 1
			if b.Eop {
				last = nb - 1 - b.Empty
			}
			var tt, tp, ht, hp bool
			var ttl, tpl, htl, hpl int
			if open {
				tt, ttl = where(cur, tailSeg, bi-sopBeat, 4, last)
				tp, tpl = where(cur, tailSeg, bi-sopBeat, 9, last)
				if b.Eop {
					open = false
				}
			}
			if b.Sop {
				cur, sopBeat, tailSeg = cur+1, bi, b.SopSeg
				hl := nb - 1
				if b.Eop && SegBytes*b.SopSeg <= last {
					hl = last
				} else {
					open = true
				}
				ht, htl = where(cur, b.SopSeg, 0, 4, hl)
				hp, hpl = where(cur, b.SopSeg, 0, 9, hl)
			}
			fmt.Fprintf(&out, "1 %x %x %x %x %x 1 %x %x %x %x %x %x %x %x\n", b2i(b.Sop), b.SopSeg, b2i(b.Eop), b.Empty, b.Data,
				b2i(tt), ttl, b2i(tp), tpl, b2i(ht), htl, b2i(hp), hpl)
			beatsIn++
		}
	}
	return out.String(), beatsIn
}

const segFieldsTB = `module segf_tb;
  localparam int W = %d;
  localparam int EW = $clog2(W / 8);
  logic clk = 0, rst_n = 1, take, sop, eop;
  logic [$clog2(W/64)-1:0] seg;
  logic [EW-1:0] empty, ttl, tpl, htl, hpl, e_ttl, e_tpl, e_htl, e_hpl;
  logic [W-1:0] data;
  logic tt, tp, ht, hp, e_tt, e_tp, e_ht, e_hp, chk;
  integer fd, n, bad;
  ibr_seg_fields #(.DataW(W)) dut (.clk_i(clk), .rst_ni(rst_n), .take_i(take), .data_i(data), .sop_i(sop),
    .sop_seg_i(seg), .eop_i(eop), .empty_i(empty), .tail_tel_o(tt), .tail_tel_lane_o(ttl),
    .tail_psn_o(tp), .tail_psn_lane_o(tpl), .head_tel_o(ht), .head_tel_lane_o(htl),
    .head_psn_o(hp), .head_psn_lane_o(hpl));
  initial begin
    fd = $fopen("%s", "r");
    n = 0;
    bad = 0;
    #1 rst_n = 0;
    #1 rst_n = 1;
    while ($fscanf(fd, "%%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h\n", take, sop, seg, eop, empty, data,
                   chk, e_tt, e_ttl, e_tp, e_tpl, e_ht, e_htl, e_hp, e_hpl) == 15) begin
      #1;
      if (chk) begin
        n = n + 1;
        if (tt !== e_tt || tp !== e_tp || ht !== e_ht || hp !== e_hp ||
            (tt && ttl !== e_ttl) || (tp && tpl !== e_tpl) || (ht && htl !== e_htl) || (hp && hpl !== e_hpl)) begin
          bad = bad + 1;
          if (bad <= 3) $display("beat %%0d: tail tel %%b@%%0d psn %%b@%%0d head tel %%b@%%0d psn %%b@%%0d, want %%b@%%0d %%b@%%0d %%b@%%0d %%b@%%0d",
            n, tt, ttl, tp, tpl, ht, htl, hp, hpl, e_tt, e_ttl, e_tp, e_tpl, e_ht, e_htl, e_hp, e_hpl);
        end
      end
      #1 clk = 1;
      #1 clk = 0;
    end
    $display("RESULT beats=%%0d mismatches=%%0d", n, bad);
    $finish;
  end
endmodule
`

// runSegFields runs ibr_seg_fields (source src) at width w over the vectors
// with Icarus and gives the beats it checked and the mismatches.
func runSegFields(t *testing.T, w int, src string) (beats, bad int, log string) {
	t.Helper()
	dir := t.TempDir()
	vec, n := segFieldVectors(t, w, uint64(w))
	vecPath := filepath.Join(dir, "vec.txt")
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	files := []File{{"ibr_seg_fields.sv", []byte(src)}, {"segf_tb.sv", []byte(fmt.Sprintf(segFieldsTB, w, vecPath))}}
	for _, f := range lib {
		if f.Name == DefsFile || f.Name == PackageFile {
			files = append(files, f)
		}
	}
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vecPath, []byte(vec), 0o644); err != nil {
		t.Fatal(err)
	}
	vvp := filepath.Join(dir, "segf.vvp")
	if out, err := exec.Command("iverilog", "-g2012", "-I", dir, "-o", vvp, filepath.Join(dir, PackageFile),
		filepath.Join(dir, "ibr_seg_fields.sv"), filepath.Join(dir, "segf_tb.sv")).CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err := exec.Command("vvp", "-n", vvp).CombinedOutput()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	i := strings.LastIndex(string(out), "RESULT")
	if i < 0 {
		t.Fatalf("no result\n%s", out)
	}
	if _, err := fmt.Sscanf(string(out[i:]), "RESULT beats=%d mismatches=%d", &beats, &bad); err != nil {
		t.Fatalf("no result: %v\n%s", err, out)
	}
	if beats != n {
		t.Fatalf("w%d: %d beats checked of %d", w, beats, n)
	}
	return beats, bad, string(out)
}

// segFieldPlants are bugs only segmented beats show; each must fail
// TestSegFields.
var segFieldPlants = []segPlant{
	{"the head's telemetry lane off by a segment", "assign head_tel_lane_o = h_tel[EmptyW-1:0];",
		"assign head_tel_lane_o = h_tel[EmptyW-1:0] + EmptyW'(8);"},
	{"the tail's sop segment taken from the current beat", "assign t_tel = at(tail_seg_q,",
		"assign t_tel = at(sop_seg_i,"},
	{"the head's LNH read at lane 1 whatever its segment", "data_i[DataW-7-8*(32'(sop_lane)+1) -: 2]",
		"data_i[DataW-7-8 -: 2]"},
}

// TestSegFields co-simulates ibr_seg_fields (Icarus) at 256 and 512 bits
// over dense and gapped segmented streams of random frames (LNH 0..3, some
// too short for their fields), between cycles that take no beat, against
// SegFieldAt: where each beat holds the tail's and the head's BTH byte 4 and
// PSN. Verilator's lint and Yosys take it, and each of segFieldPlants fails.
func TestSegFields(t *testing.T) {
	checkSegModule(t, "ibr_seg_fields", runSegFields, segFieldPlants)
}
