// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// planLinks returns n links of one of the shapes a receiver's candidate
// sets take, for the step kernels: runs in arithmetic progression of random
// lengths and steps (among them 0, 1, 512, a step that wraps past 2^32, and
// runs longer than any chunk), random links (every chunk two links), and
// the edge values 0, 1 and 2^32-1 in runs.
func planLinks(r *rand.Rand, n int, shape int) []uint32 {
	ds := make([]uint32, 0, n)
	for len(ds) < n {
		switch shape {
		case 0: // random
			ds = append(ds, r.Uint32())
		default: // runs
			d := r.Uint32()
			step := []uint32{512, 1, 0, 1 << 31, 0xFFFFFE00, r.Uint32(), 32768}[r.IntN(7)]
			if r.IntN(8) == 0 {
				d = []uint32{0, 1, 0xFFFFFFFF}[r.IntN(3)]
			}
			for k := range 1 + r.IntN([]int{3, 9, 30}[r.IntN(3)]) {
				ds = append(ds, d+uint32(k)*step)
			}
		}
	}
	return ds[:n]
}

// TestParityPlanMatchesGeneric runs every fast path's ParityPlan (the step
// kernels; a path without one runs its parity kernel) and the reference
// parity kernel on the same links and records: link counts straddling
// every chunk and group, links in runs (arithmetic progressions of every
// length up to past the widest chunk, steps 0, 1, 512 and wrapping ones)
// and at random, one output and two, the sign mask, the CRC masks and a
// random one, edge records, weights at the lanes' bound, prefilled
// outputs with an element past their end. A mismatch prints both outputs.
func TestParityPlanMatchesGeneric(t *testing.T) {
	forEachPath(t, func(t *testing.T, p *Path) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, nd := range crossSizes {
			for _, shape := range []int{0, 1} {
				ds := planLinks(r, nd, shape)
				pl := NewPlan(ds)
				for _, np := range []int{1, 2, 3, 17, 255} {
					for _, m := range []struct {
						two, edge, bound bool
						mask             uint32
					}{{false, false, false, SignMask}, {true, true, false, SignMask}, {false, true, false, 0xEDB88320},
						{true, false, false, 0x8408}, {false, false, true, SignMask}, {true, false, true, SignMask},
						{true, true, false, r.Uint32()}, {false, false, false, 0xFFFFFFFF}} {
						recs := randSignRecs(r, np, false, m.edge)
						if m.bound {
							recs = boundRecs(r, np, false)
						}
						base1, base2 := make([]int64, nd), make([]int64, nd)
						for i := range base1 {
							base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
						}
						g1, g2 := slices.Clone(base1), slices.Clone(base2)
						f1, f1w := misaligned(base1, nd%4)
						f2, f2w := misaligned(base2, 3-nd%4)
						o2g, o2f := g2, f2
						if !m.two {
							o2g, o2f = nil, nil
						}
						parityGeneric(ds, recs, g1, o2g, false, m.mask)
						p.ParityPlan(pl, recs, f1, o2f, m.mask)
						if f1w[len(f1w)-1] != 0 || f2w[len(f2w)-1] != 0 {
							t.Fatalf("%d links, %d packets, %+v: a write past the outputs' end", nd, np, m)
						}
						for j := range nd {
							if g1[j] != f1[j] || g2[j] != f2[j] {
								t.Fatalf("%d links (shape %d), %d packets, %+v: link %d (d=%#x): reference (%d, %d), %s (%d, %d)",
									nd, shape, np, m, j, ds[j], g1[j], g2[j], p.Name(), f1[j], f2[j])
							}
						}
					}
				}
			}
		}
	})
}

// TestPlanChunks: a plan's chunks cover its links in order, each an
// arithmetic progression of at most g links, and a run of 24 links 512
// apart is cut into whole chunks of 8 for g = 8.
func TestPlanChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, nd := range crossSizes {
		ds := planLinks(r, nd, 1+nd%2-nd%2)
		pl := NewPlan(ds)
		for g := 1; g <= maxChunk; g++ {
			next := 0
			for _, c := range pl.layouts[g].chunks {
				if c.first != next || c.n < 1 || c.n > g {
					t.Fatalf("%d links, g=%d: chunk %+v after link %d", nd, g, c, next)
				}
				for k := range c.n {
					if ds[c.first+k] != c.d0+uint32(k)*c.step {
						t.Fatalf("%d links, g=%d: chunk %+v: link %d is %#x", nd, g, c, c.first+k, ds[c.first+k])
					}
				}
				next += c.n
			}
			if next != nd {
				t.Fatalf("%d links, g=%d: the chunks cover %d", nd, g, next)
			}
		}
	}
	var run []uint32
	for k := range 24 {
		run = append(run, 328701+512*uint32(k))
	}
	if cs := NewPlan(run).layouts[8].chunks; len(cs) != 3 || cs[2] != (chunk{d0: 328701 + 16*512, step: 512, first: 16, n: 8}) {
		t.Errorf("24 links 512 apart, g=8: chunks %+v, want three of 8", cs)
	}
}

// fiveHopLinks are links laid out as the five-hop candidate set of section
// 5.3 encodes them (refmodel's fiveHopSet): a run of 8 links 512 apart, 8
// runs of 24, 24 runs of 8, a run of 8 links 32768 apart, one link.
func fiveHopLinks() []uint32 {
	var ds []uint32
	run := func(d, step uint32, n int) {
		for k := range n {
			ds = append(ds, d+uint32(k)*step)
		}
	}
	run(50173, 512, 8)
	for i := range 8 {
		run(328701+32768*uint32(i), 512, 24)
	}
	for i := range 24 {
		run(3277821+32768*uint32(i), 512, 8)
	}
	run(656381, 32768, 8)
	run(68605, 0, 1)
	return ds
}

// BenchmarkParityPlan: ParityPlan (the step kernels) on the five-hop
// links (401) and 256 records, per path, the sign and the CRC-32 mask, one
// output and two; and, for comparison, Parity on the same links.
func BenchmarkParityPlan(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := fiveHopLinks()
	pl := NewPlan(ds)
	recs := randSignRecs(r, 256, false, false)
	out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
	for _, name := range benchPaths {
		for _, m := range []struct {
			name string
			mask uint32
		}{{"sign", SignMask}, {"crc32", 0xEDB88320}} {
			for _, two := range []bool{false, true} {
				for _, plan := range []bool{true, false} {
					b.Run(fmt.Sprintf("kernel=%s/%s/links=%d/outputs=%d/plan=%t", name, m.name, len(ds), 1+b2i(two), plan), func(b *testing.B) {
						p, err := PathFor(name)
						if err != nil {
							b.Skip(err)
						}
						o2 := out2
						if !two {
							o2 = nil
						}
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						c0, _ := threadCPU()
						for b.Loop() {
							if plan {
								p.ParityPlan(pl, recs, out1, o2, m.mask)
							} else {
								p.Parity(ds, recs, out1, o2, false, m.mask)
							}
						}
						b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
						if c1, ok := threadCPU(); ok && c1 > c0 {
							b.ReportMetric(float64(b.N)*256/(c1-c0).Seconds(), "pkts/cpu-s")
						}
					})
				}
			}
		}
	}
}

// TestCountPlanMatchesGeneric runs every fast path's CountPlan (the count
// kernels) and the reference, countGeneric, on the same links and records:
// link counts straddling every chunk and group, links in runs and at
// random, the sign mask, the CRC masks, a random mask and all bits, edge
// records (0, 1, 2^31, all ones), weights of either sign up to the
// kernels' largest, prefilled outputs with an element past their end. A
// mismatch prints both outputs.
func TestCountPlanMatchesGeneric(t *testing.T) {
	// A path without a count kernel (AVX-512's) runs its parity kernel:
	// the portable one's stands in for it here.
	byParity := &Path{name: "portable parity, no count kernel", parity: parityPortable}
	t.Run("by-parity", func(t *testing.T) { testCountPlan(t, byParity) })
	forEachPath(t, testCountPlan)
}

func testCountPlan(t *testing.T, p *Path) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, nd := range crossSizes {
		for _, shape := range []int{0, 1} {
			ds := planLinks(r, nd, shape)
			pl := NewPlan(ds)
			for _, np := range []int{1, 2, 3, 17, 512} {
				for _, mask := range []uint32{SignMask, 0xEDB88320, 0x8408, r.Uint32(), 0xFFFFFFFF} {
					bs := make([]uint32, np)
					for i := range bs {
						bs[i] = r.Uint32()
						if i%7 == 3 {
							bs[i] = []uint32{0, 1, 1 << 31, 0xFFFFFFFF}[i%4]
						}
					}
					w := int32(r.IntN(1<<22) - 1<<21)
					if np == 2 {
						w = -1 << 21
					}
					base := make([]int64, nd)
					for i := range base {
						base[i] = r.Int64N(1<<40) - 1<<39
					}
					g := slices.Clone(base)
					f, fw := misaligned(base, (nd+np)%4)
					countGeneric(ds, bs, g, w, mask)
					p.CountPlan(pl, bs, f, w, mask)
					if fw[len(fw)-1] != 0 {
						t.Fatalf("%d links, %d packets, mask %#x: a write past the output's end", nd, np, mask)
					}
					for j := range nd {
						if g[j] != f[j] {
							t.Fatalf("%d links (shape %d), %d packets, mask %#x, w %d: link %d (d=%#x): reference %d, %s %d",
								nd, shape, np, mask, w, j, ds[j], g[j], p.Name(), f[j])
						}
					}
				}
			}
		}
	}
}

// TestCountGenericContract holds the count reference to the parity
// reference: records of one weight w count as the parity contract's
// records (B, 0, w, 0).
func TestCountGenericContract(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	ds := planLinks(r, 100, 1)
	for _, mask := range []uint32{SignMask, 0xEDB88320} {
		bs := make([]uint32, 50)
		var recs []uint32
		for i := range bs {
			bs[i] = r.Uint32()
			rec := Rec(bs[i], 0, -7, 0)
			recs = append(recs, rec[:]...)
		}
		a, b := make([]int64, len(ds)), make([]int64, len(ds))
		countGeneric(ds, bs, a, -7, mask)
		parityGeneric(ds, recs, b, nil, false, mask)
		if !slices.Equal(a, b) {
			t.Errorf("mask %#x: count %v, parity %v", mask, a[:8], b[:8])
		}
	}
}

// BenchmarkCountPlan: CountPlan (the count kernels) on the five-hop links
// and 256 records, per path, the sign and the CRC-32 mask.
func BenchmarkCountPlan(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := fiveHopLinks()
	pl := NewPlan(ds)
	bs := make([]uint32, 256)
	for i := range bs {
		bs[i] = r.Uint32()
	}
	out := make([]int64, len(ds))
	for _, name := range benchPaths {
		for _, m := range []struct {
			name string
			mask uint32
		}{{"sign", SignMask}, {"crc32", 0xEDB88320}} {
			b.Run(fmt.Sprintf("kernel=%s/%s/links=%d", name, m.name, len(ds)), func(b *testing.B) {
				p, err := PathFor(name)
				if err != nil {
					b.Skip(err)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0, _ := threadCPU()
				for b.Loop() {
					p.CountPlan(pl, bs, out, -10, m.mask)
				}
				b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
				if c1, ok := threadCPU(); ok && c1 > c0 {
					b.ReportMetric(float64(b.N)*256/(c1-c0).Seconds(), "pkts/cpu-s")
				}
			})
		}
	}
}
