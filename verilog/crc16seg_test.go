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
	"ibreservoir/internal/testtool"
)

// segCRCVectors writes one line a beat of a segmented stream of random
// frames (dense, and with random idle segments): the inputs of ibr_crc16_seg
// (the open packet's register from header.CRC16 of its bytes so far) and the
// outputs it must give, from header.CRC16 of the frames alone.
func segCRCVectors(t *testing.T, w int, seed uint64) (string, int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 9))
	nb, s := w/8, w/64
	var out strings.Builder
	lines := 0
	for _, dense := range []bool{true, false} {
		frames := make([][]byte, 120)
		for i := range frames {
			l := 4*r.IntN(32) + 26 // 26..150
			if r.IntN(8) == 0 {
				l = 4*r.IntN(150) + 26 // up to 622
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
		reg := func(b []byte) uint16 { return ^header.CRC16(b) } // the register after b from 0xFFFF
		cur, have, open := -1, 0, false                          // the open frame, its bytes so far
		for _, b := range beats {
			crcIn := uint16(r.Uint32()) // nothing open: any register
			if open {
				crcIn = reg(frames[cur][:have])
			}
			last := nb - 1
			if b.Eop {
				last = nb - 1 - b.Empty
			}
			sop := SegBytes * b.SopSeg
			chkEnd, end, got := 0, uint16(0), uint16(0)
			endOf := func(f []byte) {
				chkEnd, end, got = 1, reg(f[:len(f)-2]), uint16(f[len(f)-1])<<8|uint16(f[len(f)-2])
			}
			if open {
				have += last + 1
				if b.Eop {
					endOf(frames[cur])
					open = false
				}
			}
			if b.Sop {
				cur++
				if b.Eop && sop <= last {
					endOf(frames[cur])
				} else {
					have, open = nb-sop, true
				}
			}
			chkCRC, crcOut := 0, uint16(0)
			if open {
				chkCRC, crcOut = 1, reg(frames[cur][:have])
			}
			sopBit, eopBit := 0, 0
			if b.Sop {
				sopBit = 1
			}
			if b.Eop {
				eopBit = 1
			}
			fmt.Fprintf(&out, "%04x %x %x %x %x %x %x %04x %x %04x %04x\n",
				crcIn, b.Data, sopBit, b.SopSeg, eopBit, b.Empty, chkCRC, crcOut, chkEnd, end, got)
			lines++
		}
		if open || cur != len(frames)-1 {
			t.Fatalf("w%d: the vectors ended with frame %d of %d open=%v", w, cur, len(frames), open)
		}
	}
	return out.String(), lines
}

const segCRCTB = `module seg_tb;
  localparam int W = %d;
  logic [15:0] crc, crc_o, end_o, got_o, ec, ee, eg;
  logic [W-1:0] data;
  logic sop, eop;
  logic [$clog2(W/64)-1:0] seg;
  logic [$clog2(W/8)-1:0] empty;
  integer fd, n, bad, chk_c, chk_e;
  ibr_crc16_seg #(.DataW(W)) dut (.crc_i(crc), .data_i(data), .sop_i(sop), .sop_seg_i(seg),
    .eop_i(eop), .empty_i(empty), .crc_o(crc_o), .end_o(end_o), .got_o(got_o));
  initial begin
    fd = $fopen("%s", "r");
    n = 0;
    bad = 0;
    while ($fscanf(fd, "%%h %%h %%h %%h %%h %%h %%h %%h %%h %%h %%h\n", crc, data, sop, seg, eop, empty,
                   chk_c, ec, chk_e, ee, eg) == 11) begin
      #1;
      n = n + 1;
      if ((chk_c != 0 && crc_o !== ec) || (chk_e != 0 && (end_o !== ee || got_o !== eg))) begin
        bad = bad + 1;
        if (bad <= 3) $display("beat %%0d: crc %%h end %%h got %%h, want %%h %%h %%h", n, crc_o, end_o, got_o, ec, ee, eg);
      end
    end
    $display("RESULT beats=%%0d mismatches=%%0d", n, bad);
    $finish;
  end
endmodule
`

// runSegCRC runs ibr_crc16_seg (its source src) at width w over the vectors
// with Icarus and gives the beats it checked and the mismatches.
func runSegCRC(t *testing.T, w int, src string) (beats, bad int, log string) {
	t.Helper()
	dir := t.TempDir()
	vec, lines := segCRCVectors(t, w, uint64(w))
	vecPath := filepath.Join(dir, "vec.txt")
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	files := []File{lib[0], {"ibr_crc16_seg.sv", []byte(src)}, {"seg_tb.sv", []byte(fmt.Sprintf(segCRCTB, w, vecPath))}}
	for _, f := range lib {
		if f.Name == DefsFile {
			files = append(files, f)
		}
	}
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vecPath, []byte(vec), 0o644); err != nil {
		t.Fatal(err)
	}
	vvp := filepath.Join(dir, "seg.vvp")
	if out, err := exec.Command("iverilog", "-g2012", "-I", dir, "-o", vvp, filepath.Join(dir, PackageFile),
		filepath.Join(dir, "ibr_crc16_seg.sv"), filepath.Join(dir, "seg_tb.sv")).CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err := exec.Command("vvp", "-n", vvp).CombinedOutput()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	if _, err := fmt.Sscanf(string(out[strings.LastIndex(string(out), "RESULT"):]), "RESULT beats=%d mismatches=%d", &beats, &bad); err != nil {
		t.Fatalf("no result: %v\n%s", err, out)
	}
	if beats != lines {
		t.Fatalf("w%d: %d beats checked of %d", w, beats, lines)
	}
	return beats, bad, string(out)
}

// segCRCPlants are bugs only beats shared by two packets show; each must
// fail TestCRC16Seg's comparison with header.CRC16.
var segCRCPlants = []segPlant{
	{"the head's CRC from a segment late", "assign from_sop[k]    = 32'(k) >= 2 * 32'(sop_seg_i);",
		"assign from_sop[k]    = 32'(k) >= 2 * 32'(sop_seg_i) + 2;"},
	{"the tail's VCRC over the head's bytes", "(^(t[NS*i +: NS] & before_vcrc & (one ? from_sop : {NS{1'b1}})));",
		"(^(t[NS*i +: NS] & (one ? before_vcrc & from_sop : before_vcrc | (sop_i ? from_sop : '0))));"},
	{"a packet's register started at lane 0 whatever its sop segment", "assign hsel = hinit[16*sop_seg_i +: 16];",
		"assign hsel = hinit[15:0];"},
}

// TestCRC16Seg co-simulates ibr_crc16_seg (Icarus) at 256 and 512 bits over
// dense and gapped segmented streams of random frames against header.CRC16:
// the open packet's register after every beat, and the eop packet's register
// before its VCRC and its VCRC bytes; Verilator's lint and Yosys take it;
// and each of segCRCPlants must fail it.
func TestCRC16Seg(t *testing.T) {
	checkSegModule(t, "ibr_crc16_seg", runSegCRC, segCRCPlants)
}

// A segPlant is a bug planted in a segmented-beat library module: the text
// from is replaced, once, by to.
type segPlant struct{ name, from, to string }

// checkSegModule holds a segmented-beat library module (rtl/<module>.sv) to
// its co-simulation run at 256 and 512 bits with no mismatch, to
// lintAndRead, and requires each plant, run at 512 bits, to give a mismatch.
func checkSegModule(t *testing.T, module string, run func(t *testing.T, w int, src string) (beats, bad int, log string), plants []segPlant) {
	testtool.Need(t, "iverilog")
	src, err := rtlFS.ReadFile("rtl/" + module + ".sv")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{256, 512} {
		beats, bad, log := run(t, w, string(src))
		t.Logf("w%d: %d beats, %d mismatches", w, beats, bad)
		if bad != 0 {
			t.Errorf("w%d: %d mismatches\n%s", w, bad, log)
		}
	}
	lintAndRead(t, module)
	for _, p := range plants {
		if !strings.Contains(string(src), p.from) {
			t.Fatalf("plant %q: %q not in %s.sv", p.name, p.from, module)
		}
		_, bad, _ := run(t, 512, strings.Replace(string(src), p.from, p.to, 1))
		t.Logf("planted %s: %d mismatches", p.name, bad)
		if bad == 0 {
			t.Errorf("planted %s: not caught", p.name)
		}
	}
}

// lintAndRead holds module (a library module of DataW 256 or 512) to
// Verilator's lint (-Wall; the package's parameters it does not read aside)
// and to Yosys's reader, which the synthesis flow uses, at both widths.
func lintAndRead(t *testing.T, module string) {
	t.Helper()
	if testtool.Have(t, "verilator") || testtool.Have(t, "yosys") {
		dir := t.TempDir()
		lib, err := Library()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Write(dir, lib); err != nil {
			t.Fatal(err)
		}
		pkg, mod := filepath.Join(dir, PackageFile), filepath.Join(dir, module+".sv")
		for _, w := range []string{"256", "512"} {
			if testtool.Have(t, "verilator") {
				out, err := exec.Command("verilator", "--lint-only", "-Wall", "-Wno-UNUSEDPARAM", "--top-module", module,
					"-GDataW="+w, "-I"+dir, filepath.Join(dir, WaiverFile), pkg, mod).CombinedOutput()
				if err != nil || len(out) > 0 {
					t.Errorf("%s: verilator --lint-only -Wall at %s bits: %v\n%s", module, w, err, out)
				}
			}
			if testtool.Have(t, "yosys") {
				script := fmt.Sprintf("read_verilog -sv -I%s %s %s; chparam -set DataW %s %s; hierarchy -check -top %s; proc", dir, pkg, mod, w, module, module)
				if out, err := exec.Command("yosys", "-q", "-p", script).CombinedOutput(); err != nil {
					t.Errorf("%s: yosys at %s bits: %v\n%s", module, w, err, out)
				}
			}
		}
	}
}
