// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"ibreservoir/internal/cpu"
)

func randSignRecs(r *rand.Rand, n int, quad, edge bool) []uint32 {
	var recs []uint32
	for range n {
		b, a := r.Uint32(), uint32(0)
		if quad {
			a = r.Uint32()
		}
		w1, w2 := int32(r.IntN(1<<17)-1<<16), int32(r.IntN(1<<17)-1<<16)
		if edge {
			switch r.IntN(6) {
			case 0:
				a, b = 0, 0 // an empty mask, or id 0
			case 1:
				b = 1 << 31
			case 2:
				w1, w2 = -1<<16, 1<<16 // the largest weights of a 16-bit count
			case 3:
				w2 = 0
			}
		}
		rec := Rec(b, a, w1, w2)
		recs = append(recs, rec[:]...)
	}
	return recs
}

// fastPaths are the paths cross-checked against the reference.
var fastPaths = []string{cpu.KernelAVX512, cpu.KernelAVX2, cpu.KernelPortable}

// forEachPath runs f on every fast path, as a subtest named after it; a path
// this CPU cannot run is skipped, visibly.
func forEachPath(t *testing.T, f func(t *testing.T, p *Path)) {
	for _, name := range fastPaths {
		t.Run(name, func(t *testing.T) {
			p, err := PathFor(name)
			if err != nil {
				t.Skip(err)
			}
			f(t, p)
		})
	}
}

// crossSizes are link counts straddling every block and group of the
// kernels: the portable path's blocks of 2 and 4, AVX2's 8-lane blocks and
// groups of 24 and 32 (and SipHash's 4 and 8), AVX-512's 16-lane blocks and
// groups of 64 (SipHash's 8 and 16).
var crossSizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 39, 40, 41, 47, 48, 49,
	55, 56, 57, 63, 64, 65, 71, 72, 73, 80, 95, 96, 97, 111, 112, 113, 127, 128, 129, 192, 401, 1000}

// boundRecs returns n records (n >= 1) whose |w1| and |w2| each sum to
// MaxSum exactly, of one sign per output (the extreme a lane can reach).
func boundRecs(r *rand.Rand, n int, quad bool) []uint32 {
	var recs []uint32
	s1, s2 := int32(1-2*r.IntN(2)), int32(1-2*r.IntN(2))
	for i := range n {
		w := int32(MaxSum / n)
		if i == n-1 {
			w = int32(MaxSum - (n-1)*(MaxSum/n))
		}
		a := uint32(0)
		if quad {
			a = r.Uint32()
		}
		rec := Rec(r.Uint32(), a, s1*w, s2*w)
		recs = append(recs, rec[:]...)
	}
	return recs
}

// misaligned returns a copy of v starting off elements into a fresh array,
// and the array (one element past v's end, to catch a write past it).
func misaligned[T any](v []T, off int) (view, whole []T) {
	whole = make([]T, off+len(v)+1)
	copy(whole[off:], v)
	return whole[off : off+len(v)], whole
}

// TestParityFastMatchesGeneric runs every fast parity kernel and the
// reference on the same inputs: link counts straddling every block and
// group (crossSizes), ds and outputs starting at every offset mod 4 elements,
// one output and two, with and without d*d (A != 0), the sign mask (bit 31:
// the sign path), the CRC hashes' masks, a random mask, one low bit, all
// bits and none (the parity path), weights whose magnitudes sum to the
// 32-bit lanes' bound, and random prefilled outputs with an element past
// their end. A mismatch prints both outputs.
func TestParityFastMatchesGeneric(t *testing.T) {
	forEachPath(t, func(t *testing.T, p *Path) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, nd := range crossSizes {
			for _, np := range []int{0, 1, 2, 3, 17, 255} {
				for _, shape := range []struct {
					quad, two, edge, bound bool
					mask                   uint32
				}{{false, true, false, false, SignMask}, {false, false, true, false, SignMask}, {true, true, true, false, SignMask},
					{true, false, false, false, SignMask}, {false, true, true, false, 0xEDB88320}, {false, false, false, false, r.Uint32()},
					{true, true, true, false, 1}, {false, true, false, false, 0}, {false, true, true, false, 0x8408},
					{false, false, false, false, 0xFFFFFFFF}, {true, false, true, false, 0x82F63B78},
					{false, false, false, true, SignMask}, {false, true, false, true, SignMask}, {true, true, false, true, 0xEDB88320}} {
					ds := make([]uint32, nd)
					for i := range ds {
						ds[i] = r.Uint32()
						if shape.edge && i%5 == 0 {
							ds[i] = []uint32{0, 1, 509, 0xFFFFFFFF, 1 << 31}[i/5%5]
						}
					}
					recs := randSignRecs(r, np, shape.quad, shape.edge)
					if shape.bound && np > 0 {
						recs = boundRecs(r, np, shape.quad)
					}
					base1 := make([]int64, nd)
					base2 := make([]int64, nd)
					for i := range base1 {
						base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
					}
					off := (nd + np) % 4
					dsv, _ := misaligned(ds, off)
					recv, _ := misaligned(recs, off)
					g1, g1w := misaligned(base1, off)
					g2, g2w := misaligned(base2, off)
					f1, f1w := misaligned(base1, 3-off)
					f2, f2w := misaligned(base2, 3-off)
					o2g, o2f := g2, f2
					if !shape.two {
						o2g, o2f = nil, nil
					}
					parityGeneric(ds, recs, g1, o2g, shape.quad, shape.mask)
					p.parity(dsv, recv, f1, o2f, shape.quad, shape.mask)
					if f1w[len(f1w)-1] != 0 || f2w[len(f2w)-1] != 0 || g1w[len(g1w)-1] != 0 || g2w[len(g2w)-1] != 0 {
						t.Fatalf("%d links, %d packets, %+v: a write past the outputs' end", nd, np, shape)
					}
					if !slices.Equal(g1, f1) || !slices.Equal(g2, f2) {
						for j := range nd {
							if g1[j] != f1[j] || g2[j] != f2[j] {
								t.Fatalf("%d links, %d packets, %+v, offset %d: link %d (d=%#x): reference (%d, %d), %s (%d, %d)",
									nd, np, shape, off, j, ds[j], g1[j], g2[j], p.Name(), f1[j], f2[j])
							}
						}
					}
				}
			}
		}
	})
}

// TestParityGenericContract checks the parity reference against the hashes
// written out: a record for Hmult0's id 5 (B = 1846571429*5, the sign mask)
// charges w1 and w2 exactly where bit31(1846571429*5*d) is 1; a record for
// the parity hash of an odd id with its one-bit mask shifted to bit 31
// (B = 1<<31) exactly at the odd d; and the same record with mask 1 and
// B = 1 (the parity path) likewise.
func TestParityGenericContract(t *testing.T) {
	ds := []uint32{509, 33277, 1<<15 + 2<<9 + 509, 6, 7}
	c := uint32(1846571429)
	for _, tc := range []struct {
		b, mask uint32
		bit     func(d uint32) uint32
	}{{c * 5, SignMask, func(d uint32) uint32 { return c * 5 * d >> 31 }}, {1 << 31, SignMask, func(d uint32) uint32 { return d & 1 }},
		{1, 1, func(d uint32) uint32 { return d & 1 }}} {
		rec := Rec(tc.b, 0, -6, 4)
		out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
		ParityGeneric(ds, rec[:], out1, out2, false, tc.mask)
		for j, d := range ds {
			want1, want2 := int64(0), int64(0)
			if tc.bit(d) == 1 {
				want1, want2 = -6, 4
			}
			if out1[j] != want1 || out2[j] != want2 {
				t.Errorf("B'=%#x d=%d: outputs (%d, %d), want (%d, %d)", tc.b, d, out1[j], out2[j], want1, want2)
			}
		}
	}
}

// Parity refuses a call whose weights could overflow its 32-bit lanes, and a
// record with A != 0 when quad is false.
func TestParityRefusesOverflow(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []uint32
		quad bool
	}{
		{"overflow", []uint32{1, 0, math.MaxInt32, 0, 1, 0, 1, 0}, false},
		{"A' without quad", []uint32{1, 7, 1, 0}, false},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			Parity(make([]uint32, 4), tc.recs, make([]int64, 4), make([]int64, 4), tc.quad, SignMask)
		}()
	}
}

// TestSipFastMatchesGeneric runs every fast SipHash kernel and the
// reference on the same inputs: link counts straddling the blocks and
// groups, both halves of the message (swap), one output and two, random
// keys and the key of the SipHash paper, misaligned ds and outputs, weights
// at the lanes' bound. A mismatch prints both outputs.
func TestSipFastMatchesGeneric(t *testing.T) {
	forEachPath(t, func(t *testing.T, p *Path) {
		r := rand.New(rand.NewPCG(15, 16))
		sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 31, 32, 33, 100, 401}
		for _, nd := range sizes {
			for _, np := range []int{0, 1, 3, 17, 130} {
				for _, swap := range []bool{false, true} {
					for _, two := range []bool{false, true} {
						key := NewSipKey(r.Uint64(), r.Uint64())
						if nd%2 == 0 {
							key = NewSipKey(0x0706050403020100, 0x0f0e0d0c0b0a0908)
						}
						ds := make([]uint32, nd)
						for i := range ds {
							ds[i] = r.Uint32()
							if i%5 == 0 {
								ds[i] = []uint32{0, 1, 509, 0xFFFFFFFF, 1 << 31}[i/5%5]
							}
						}
						var recs []uint32
						for range np {
							rec := Rec(r.Uint32(), r.Uint32()&3, int32(r.IntN(1<<17)-1<<16), int32(r.IntN(1<<17)-1<<16))
							recs = append(recs, rec[:]...)
						}
						if np == 3 && two {
							recs = boundRecs(r, np, true) // x random: only its bit 0 counts
						}
						base1, base2 := make([]int64, nd), make([]int64, nd)
						for i := range base1 {
							base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
						}
						off := (nd + np) % 4
						dsv, _ := misaligned(ds, off)
						g1, g2 := slices.Clone(base1), slices.Clone(base2)
						f1, f1w := misaligned(base1, 3-off)
						f2, f2w := misaligned(base2, 3-off)
						o2g, o2f := g2, f2
						if !two {
							o2g, o2f = nil, nil
						}
						sipGeneric(key, ds, recs, g1, o2g, swap)
						p.sip(&key, dsv, recs, f1, o2f, swap)
						if f1w[len(f1w)-1] != 0 || f2w[len(f2w)-1] != 0 {
							t.Fatalf("%d links, %d packets, swap %t, two %t: a write past the outputs' end", nd, np, swap, two)
						}
						if !slices.Equal(g1, f1) || !slices.Equal(g2, f2) {
							for j := range nd {
								if g1[j] != f1[j] || g2[j] != f2[j] {
									t.Fatalf("%d links, %d packets, swap %t, two %t: link %d (d=%#x): reference (%d, %d), %s (%d, %d)",
										nd, np, swap, two, j, ds[j], g1[j], g2[j], p.Name(), f1[j], f2[j])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestSipGenericContract checks the SipHash reference against the SipHash
// paper's test vector: under the key 00 01 .. 0f, the 8-byte message
// 00 01 .. 07 hashes to 0x93f5f5799a932462 (the vector for length 8), so a
// record with id 0x03020100 against d = 0x07060504 has bit 0 = 0.
func TestSipGenericContract(t *testing.T) {
	key := NewSipKey(0x0706050403020100, 0x0f0e0d0c0b0a0908)
	for _, x := range []uint32{0, 1} {
		rec := Rec(0x03020100, x, 5, 7)
		out1, out2 := make([]int64, 1), make([]int64, 1)
		SipGeneric(key, []uint32{0x07060504}, rec[:], out1, out2, false)
		// bit 0 of 0x93f5f5799a932462 is 0: a record charges when x = 1.
		want := int64(0)
		if x == 1 {
			want = 5
		}
		if out1[0] != want || (x == 1) != (out2[0] == 7) {
			t.Errorf("x=%d: outputs (%d, %d), want (%d, 7 if charged)", x, out1[0], out2[0], want)
		}
		exch := Rec(0x07060504, x, 5, 7)
		o1 := make([]int64, 1)
		SipGeneric(key, []uint32{0x03020100}, exch[:], o1, nil, true)
		if o1[0] != want {
			t.Errorf("x=%d exchanged: output %d, want %d", x, o1[0], want)
		}
	}
}

// benchPaths are the paths the benchmarks compare, reference last.
var benchPaths = append(slices.Clone(fastPaths), cpu.KernelReference)

// BenchmarkParity: the parity kernels on 401 links and 256 records, per
// path (skipped where the CPU lacks it), the sign and the CRC-32 mask, one
// output and two.
func BenchmarkParity(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]uint32, 401)
	for i := range ds {
		ds[i] = r.Uint32()
	}
	recs := randSignRecs(r, 256, false, false)
	out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
	for _, name := range benchPaths {
		for _, m := range []struct {
			name string
			mask uint32
		}{{"sign", SignMask}, {"crc32", 0xEDB88320}} {
			for _, two := range []bool{false, true} {
				b.Run(fmt.Sprintf("kernel=%s/%s/links=401/outputs=%d", name, m.name, 1+b2i(two)), func(b *testing.B) {
					p, err := PathFor(name)
					if err != nil {
						b.Skip(err)
					}
					o2 := out2
					if !two {
						o2 = nil
					}
					for b.Loop() {
						p.Parity(ds, recs, out1, o2, false, m.mask)
					}
					b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
				})
			}
		}
	}
}

// BenchmarkSip: the SipHash kernels on 401 links and 256 records, per path.
func BenchmarkSip(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]uint32, 401)
	for i := range ds {
		ds[i] = r.Uint32()
	}
	var recs []uint32
	for range 256 {
		rec := Rec(r.Uint32(), r.Uint32()&1, -10, 0)
		recs = append(recs, rec[:]...)
	}
	out1 := make([]int64, len(ds))
	key := NewSipKey(1, 2)
	for _, name := range benchPaths {
		b.Run("kernel="+name+"/links=401", func(b *testing.B) {
			p, err := PathFor(name)
			if err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				p.Sip(key, ds, recs, out1, nil, false)
			}
			b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
		})
	}
}

// TestSip24Vector holds the portable path's SipHash-2-4 to the SipHash
// paper's vector for an 8-byte message: under the key 00 01 .. 0f, the
// message 00 01 .. 07 hashes to 0x93f5f5799a932462.
func TestSip24Vector(t *testing.T) {
	key := NewSipKey(0x0706050403020100, 0x0f0e0d0c0b0a0908)
	if h := sip24(&key.init, 0x0706050403020100); h != 0x93f5f5799a932462 {
		t.Errorf("sip24 = %#x, want 0x93f5f5799a932462", h)
	}
}
