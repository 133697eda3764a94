// SPDX-License-Identifier: Apache-2.0

package dpi

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/capi/include"
	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/verilog"
)

//go:embed example/check_bench.cpp
var checkBenchSource []byte

var reCheck = regexp.MustCompile(`CHECK packets=(\d+) mismatches=(\d+) seconds=([0-9.]+) cpu=([0-9.]+)`)

// BenchmarkScoreboardCheck measures the scoreboard's per-packet check on one
// core: the model's cut-through switch stage through the DPI adapter
// (ibr_dpi_stage_frame; one frame in eight with a bad VCRC), with the
// arguments a simulator passes, and the comparison with the DUT's packet
// (example/check_bench.cpp), b.N packets of the default configuration.
// packets/s is the check loop's rate; packets/cpu-s divides by the CPU time
// the process spent in it (every thread's), the rate a core gives it when
// other work shares the machine. Building the packets is not timed.
func BenchmarkScoreboardCheck(b *testing.B) {
	testtool.Need(b, "verilator", "go", "g++")
	sb := defaultBench(b)
	cfgs := sb.Configs
	dir := b.TempDir()
	src := filepath.Join(dir, "check_bench.cpp")
	for name, data := range map[string][]byte{src: checkBenchSource, filepath.Join(dir, include.HeaderName): include.Header} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "check_bench")
	root := strings.TrimSpace(verilatorRoot())
	out, err := exec.Command("g++", "-O3", "-march=native", "-std=c++17", "-I"+dir, "-I"+filepath.Join(sb.Dir, "obj"),
		"-I"+filepath.Join(root, "include", "vltstd"), "-o", bin, src, filepath.Join(sb.Dir, "src", "ibr_dpi.cc"),
		library(b), "-lpthread").CombinedOutput()
	if err != nil {
		b.Fatalf("g++: %v\n%s", err, out)
	}
	b.ResetTimer()
	out, err = exec.Command(bin, cfgs[0].ModelConfig(header.LNHLocal, 1).Settings(), cfgs[0].ModelConfig(header.LNHGlobal, 1).Settings(),
		fmt.Sprint(b.N)).CombinedOutput()
	b.StopTimer()
	m := reCheck.FindSubmatch(out)
	if err != nil || m == nil || string(m[2]) != "0" {
		b.Fatalf("check_bench: %v\n%s", err, out)
	}
	secs, _ := strconv.ParseFloat(string(m[3]), 64)
	cpu, _ := strconv.ParseFloat(string(m[4]), 64)
	b.ReportMetric(float64(b.N)/secs, "packets/s")
	b.ReportMetric(float64(b.N)/cpu, "packets/cpu-s")
}

// defaultBench is a scoreboard build of the default configuration alone: in
// a build of several, the configurations not running still evaluate their
// combinational logic as the shared inputs change.
func defaultBench(b *testing.B) *Bench {
	sb, err := Build(context.Background(), workDir("default"), []verilog.Config{verilog.DefaultConfig()}, library(b))
	if err != nil {
		b.Fatal(err)
	}
	return sb
}

func verilatorRoot() string {
	out, err := exec.Command("verilator", "--getenv", "VERILATOR_ROOT").Output()
	if err != nil {
		return "/usr/share/verilator"
	}
	return string(out)
}

// BenchmarkTestbench runs the whole Verilator testbench (random packets,
// the RTL, the DPI scoreboard) on b.N packets of the default configuration,
// with the command's default stalls and gaps, at 64-bit beats (w64) and at
// 512 (w512: the same mix of packets cut into 512-bit beats, one packet a
// beat; w512seg: packed into segmented beats), and reports the packets checked
// per second of simulation, per CPU-second of it (every thread of the
// process: the rate a core gives it when other work shares the machine), the
// clock cycles per packet and the packets per cycle.
func BenchmarkTestbench(b *testing.B) {
	testtool.Need(b, "verilator", "go")
	for _, v := range []struct {
		w   int
		seg bool
	}{{64, false}, {512, false}, {512, true}} {
		name := fmt.Sprintf("w%d", v.w)
		if v.seg {
			name += "seg"
		}
		b.Run(name, func(b *testing.B) {
			var sb *Bench
			if v.w == verilog.DefaultWidth {
				sb = defaultBench(b)
			} else {
				c := verilog.DefaultConfig()
				c.Width, c.Segmented = v.w, v.seg
				var err error
				if sb, err = Build(context.Background(), workDir("default-"+name), []verilog.Config{c}, library(b)); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			r, err := sb.Run(context.Background(), 0, RunOptions{Packets: b.N, Seed: 1, Chain: 64, Stall: 10, Gap: 5, MaxFail: 5})
			b.StopTimer()
			if err != nil || r.Mismatches != 0 {
				b.Fatalf("%v %+v", err, r)
			}
			b.ReportMetric(r.Rate(), "packets/s")
			b.ReportMetric(r.CPURate(), "packets/cpu-s")
			b.ReportMetric(float64(r.Cycles)/float64(r.Packets), "cycles/packet")
			b.ReportMetric(r.PacketsPerCycle(), "packets/cycle")
		})
	}
}
