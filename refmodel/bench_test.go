// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/internal/cpu"
	"ibreservoir/refmodel/internal/kernel"
)

// benchSamples are one-reservoir samples of 5-hop packets with random ids
// (PSNs), bits and congested flags, weight 5.
func benchSamples(n int) []Sample {
	r := rand.New(rand.NewPCG(42, 43))
	ss := make([]Sample, n)
	for i := range ss {
		ss[i] = Sample{ID: r.Uint32() & 0xFFFFFF, HopBit: uint8(r.IntN(2)), CongBit: uint8(r.IntN(4) / 3), HopCount: 5}
	}
	return ss
}

// runCLoop compiles testdata/decode_loop.c with gcc -O3 -march=native and runs
// it on the same candidate links and packets for reps passes. It returns the
// packets per second of wall time and of CPU time, and the counts of one pass.
func runCLoop(ds []uint32, ss []Sample, reps int) (wall, cpu float64, counts [][2]int64, err error) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return 0, 0, nil, err
	}
	dir, err := os.MkdirTemp("", "decodeloop")
	if err != nil {
		return 0, 0, nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "decode_loop")
	if out, err := exec.Command(gcc, "-O3", "-march=native", "-o", bin, filepath.Join("testdata", "decode_loop.c")).CombinedOutput(); err != nil {
		return 0, 0, nil, fmt.Errorf("gcc: %v\n%s", err, out)
	}
	var in bytes.Buffer
	put := func(v uint32) { binary.Write(&in, binary.LittleEndian, v) }
	put(uint32(len(ds)))
	put(uint32(len(ss)))
	put(uint32(reps))
	for _, d := range ds {
		put(d)
	}
	for _, s := range ss {
		put(s.ID)
		put(uint32(s.HopBit))
		put(uint32(s.CongBit))
		put(uint32(s.HopCount))
	}
	inPath := filepath.Join(dir, "in")
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		return 0, 0, nil, err
	}
	out, err := exec.Command(bin, inPath).Output()
	if err != nil {
		return 0, 0, nil, fmt.Errorf("decode_loop: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Scan()
	var ns, sum, cpuNS int64
	if _, err := fmt.Sscanf(sc.Text(), "ns %d %d cpu %d", &ns, &sum, &cpuNS); err != nil {
		return 0, 0, nil, fmt.Errorf("decode_loop output %q: %v", sc.Text(), err)
	}
	for sc.Scan() {
		var c [2]int64
		if _, err := fmt.Sscanf(sc.Text(), "%d %d", &c[0], &c[1]); err != nil {
			return 0, 0, nil, err
		}
		counts = append(counts, c)
	}
	pkts := float64(len(ss)) * float64(reps)
	return pkts / (float64(ns) * 1e-9), pkts / (float64(cpuNS) * 1e-9), counts, nil
}

// benchKernels are the kernel paths the decode benchmarks compare, widest
// first; a path the CPU lacks is skipped.
var benchKernels = []string{cpu.KernelAVX512, cpu.KernelAVX2, cpu.KernelPortable, cpu.KernelReference}

// BenchmarkDecodeOneReservoir is the receiver NIC's decode (Alg. 9) for the
// 401 candidate links of section 5.3's 5-hop example, Hmult0, traffic and
// congested counts (a quarter of the packets congested): packets per second
// on one core, through Tally.Add with each kernel path (kernel=avx512, avx2,
// portable, reference; a path the CPU lacks is skipped), per second of wall
// time (pkts/s) and of the thread's CPU time (pkts/cpu-s), beside the plain
// C loop of testdata/decode_loop.c built with gcc -O3 -march=native and run
// on the same packets right after each Go measurement (c-pkts/s,
// c-pkts/cpu-s), and their ratio in CPU time (go/c; in wall time where CPU
// time is not measured). The C loop's counts must equal the model's. Skips
// the C loop when gcc is missing. Targets: at least 40e6 pkts/s with the
// AVX-512 kernels, 25e6 with AVX2 and 5e6 with the portable path (the decode
// studies of package battery run many 2^22-packet decodes). The C loop reads
// its packets from packed arrays; Tally.Add takes one sample per call.
func BenchmarkDecodeOneReservoir(b *testing.B) {
	c := DefaultConfig()
	m := mustModel(b, c)
	set := fiveHopSet()
	ss := benchSamples(1 << 14)
	for _, name := range benchKernels {
		b.Run("kernel="+name, func(b *testing.B) {
			p, err := kernel.PathFor(name)
			if err != nil {
				b.Skip(err)
			}
			tl, err := m.NewTally(set)
			if err != nil {
				b.Fatal(err)
			}
			goRate := decodeRate(b, tl, ss, p)
			// The C loop runs right after the Go measurement, under the same
			// conditions (a busy machine slows both).
			cWall, cCPU, cCounts, err := runCLoop(tl.D, ss, 400)
			if err != nil {
				b.Logf("C loop skipped: %v", err)
				return
			}
			ref, _ := m.NewTally(set)
			for _, s := range ss {
				ref.Add(s)
			}
			rw, rc := ref.Counts()
			for j := range ref.D {
				if cCounts[j] != [2]int64{rw[j], rc[j]} {
					b.Fatalf("link %s: C loop counts %v, model %d %d", set.Links[j], cCounts[j], rw[j], rc[j])
				}
			}
			b.ReportMetric(cWall, "c-pkts/s")
			b.ReportMetric(cCPU, "c-pkts/cpu-s")
			if _, ok := threadCPU(); !ok {
				cCPU = cWall // goRate is a wall rate too
			}
			b.ReportMetric(goRate/cCPU, "go/c")
		})
	}
}

// BenchmarkDecodeHashes is the same decode with the other kernels, per
// path: the CRCs (the parity kernel with a wide mask) and SipHash (computed
// in full for every packet and link).
func BenchmarkDecodeHashes(b *testing.B) {
	set := fiveHopSet()
	ss := benchSamples(1 << 14)
	for _, k := range []hash.Kind{hash.CRC32, hash.SipHash} {
		for _, name := range benchKernels {
			b.Run("hash="+k.String()+"/kernel="+name, func(b *testing.B) {
				p, err := kernel.PathFor(name)
				if err != nil {
					b.Skip(err)
				}
				c := DefaultConfig()
				c.Hash = hash.New(k)
				tl, err := mustModel(b, c).NewTally(set)
				if err != nil {
					b.Fatal(err)
				}
				decodeRate(b, tl, ss, p)
			})
		}
	}
}

// decodeRate runs the benchmark loop of Tally.Add over ss and reports the
// packets per second of wall time (pkts/s) and, where the thread's CPU time
// is measured, per second of CPU time (pkts/cpu-s: on a shared machine the
// wall rate follows the load, the CPU rate much less). It returns the CPU
// rate, or the wall rate when there is none.
func decodeRate(b *testing.B, tl *Tally, ss []Sample, p *kernel.Path) float64 {
	tl.useKernel(p)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, cpuOK := threadCPU()
	n := 0
	for b.Loop() {
		// As a caller decodes what it received: every sample, in order.
		for i := range ss {
			tl.Add(ss[i])
		}
		n += len(ss)
	}
	tl.Flush()
	c1, _ := threadCPU()
	rate := float64(n) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "pkts/s")
	if !cpuOK || c1 <= c0 {
		return rate
	}
	cpuRate := float64(n) / (c1 - c0).Seconds()
	b.ReportMetric(cpuRate, "pkts/cpu-s")
	return cpuRate
}
