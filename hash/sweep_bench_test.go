// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPairSweep measures the pair sweep of section 5.4, the count of d in
// [0, 2^32) with Hmult0(2, d) == Hmult0(6, d), three ways in one run:
//
//	go-1core   CountAgree's kernel on one goroutine
//	go-allcore CountAgree as exported (GOMAXPROCS goroutines)
//	c-gcc      testdata/pairsweep.c, the same count as a plain C loop,
//	           compiled here with gcc -O3 -march=native (skipped without gcc)
//
// Each reports ns/sweep and Gd/s (billions of d per second); the C program
// times itself, so process start-up is not counted against it. All three
// must produce the same count. Run with
//
//	go test -run '^$' -bench PairSweep -benchtime 5x ./hash
func BenchmarkPairSweep(b *testing.B) {
	m0 := New(Mult0)
	f, _ := m0.FormD(2)
	g, _ := m0.FormD(6)
	want := CountAgree(f, g, 0, 1<<32)
	report := func(b *testing.B, ns float64) {
		b.ReportMetric(ns, "ns/sweep")
		b.ReportMetric(float64(1<<32)/ns, "Gd/s")
	}
	goSweep := func(workers int) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := sweep(fastKernels, f, g, true, 0, 1<<32, workers); got != want {
					b.Fatalf("count %d, want %d", got, want)
				}
			}
			report(b, float64(b.Elapsed().Nanoseconds())/float64(b.N))
		}
	}
	b.Run("kernel="+SweepKernel()+"/go-1core", goSweep(1))
	b.Run(fmt.Sprintf("kernel=%s/go-allcore-%d", SweepKernel(), runtime.GOMAXPROCS(0)), goSweep(runtime.GOMAXPROCS(0)))
	b.Run("c-gcc-O3-march=native", func(b *testing.B) {
		bin := buildC(b, "pairsweep.c")
		var total float64
		for b.Loop() {
			out, err := exec.Command(bin, strconv.FormatUint(uint64(f.B), 10), strconv.FormatUint(uint64(g.B), 10), "1").Output()
			if err != nil {
				b.Fatalf("run %s: %v", bin, err)
			}
			fields := strings.Fields(string(out))
			if len(fields) != 2 {
				b.Fatalf("%s printed %q, want COUNT NANOSECONDS", bin, out)
			}
			got, err1 := strconv.ParseUint(fields[0], 10, 64)
			ns, err2 := strconv.ParseFloat(fields[1], 64)
			if err1 != nil || err2 != nil {
				b.Fatalf("%s printed %q, want COUNT NANOSECONDS", bin, out)
			}
			if got != want {
				b.Fatalf("C count %d, Go count %d", got, want)
			}
			total += ns
		}
		report(b, total/float64(b.N))
	})
}

// buildC compiles testdata/src with gcc -O3 -march=native into a temporary
// directory, skipping the benchmark when gcc is missing.
func buildC(b *testing.B, src string) string {
	b.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("gcc not found; the C comparison needs it")
	}
	bin := filepath.Join(b.TempDir(), strings.TrimSuffix(src, ".c"))
	cmd := exec.Command(gcc, "-O3", "-march=native", "-o", bin, filepath.Join("testdata", src))
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("gcc %s: %v\n%s", src, err, out)
	}
	return bin
}

// BenchmarkCountOnes measures a single-form sweep over all 2^32 values, per
// kernel variant, on one goroutine.
func BenchmarkCountOnes(b *testing.B) {
	forms := map[string]Form{}
	f, _ := New(Mult0).FormD(44974351)
	forms["mult0"] = f
	f, _ = New(DoubleMult).FormD(44974351)
	forms["double"] = f
	f, _ = New(CRC32).FormD(44974351)
	forms["crc32"] = f
	for _, name := range []string{"mult0", "double", "crc32"} {
		f := forms[name]
		sets := append([]*kernelSet{nil}, availableKernels()...)
		for _, ks := range sets {
			kname := "generic"
			if ks != nil {
				kname = ks.name
			}
			b.Run(name+"/"+kname, func(b *testing.B) {
				lo, hi := uint64(0), uint64(1<<32)
				if ks == nil {
					hi = 1 << 26 // the reference is slow; scale below
				}
				for b.Loop() {
					sweep(ks, f, Form{}, false, lo, hi, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*float64(uint64(1<<32)/(hi-lo)), "ns/sweep")
			})
		}
	}
}
