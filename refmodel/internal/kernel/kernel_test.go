package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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

// TestParityFastMatchesGeneric runs the AVX-512 parity kernel and its
// reference on the same inputs: link counts straddling every multiple of the
// 16-lane block and the 64-link group, one output and two, with and without
// d*d, the sign mask (bit 31: the sign path), the CRC hashes' masks, a random
// mask, one low bit and none (the parity path), random prefilled outputs one
// element longer than ds.
func TestParityFastMatchesGeneric(t *testing.T) {
	if !FastPath() {
		t.Skip("no AVX-512 kernel on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	r := rand.New(rand.NewPCG(13, 14))
	sizes := []int{1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 80, 96, 111, 112, 127, 128, 129, 192, 401, 1000}
	for _, nd := range sizes {
		for _, np := range []int{0, 1, 2, 3, 17, 255} {
			for _, shape := range []struct {
				quad, two, edge bool
				mask            uint32
			}{{false, true, false, SignMask}, {false, false, true, SignMask}, {true, true, true, SignMask}, {true, false, false, SignMask},
				{false, true, true, 0xEDB88320}, {false, false, false, r.Uint32()}, {true, true, true, 1}, {false, true, false, 0}, {false, true, true, 0x8408}} {
				ds := make([]uint32, nd)
				for i := range ds {
					ds[i] = r.Uint32()
					if shape.edge && i%5 == 0 {
						ds[i] = []uint32{0, 1, 509, 0xFFFFFFFF, 1 << 31}[i/5%5]
					}
				}
				recs := randSignRecs(r, np, shape.quad, shape.edge)
				base1 := make([]int64, nd+1)
				base2 := make([]int64, nd+1)
				for i := range base1 {
					base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
				}
				g1, g2 := slices.Clone(base1), slices.Clone(base2)
				f1, f2 := slices.Clone(base1), slices.Clone(base2)
				o2g, o2f := g2[:nd], f2[:nd]
				if !shape.two {
					o2g, o2f = nil, nil
				}
				parityGeneric(ds, recs, g1[:nd], o2g, shape.quad, shape.mask)
				parityAVX512(ds, recs, f1[:nd], o2f, shape.quad, shape.mask)
				if !slices.Equal(g1, f1) || !slices.Equal(g2, f2) {
					for j := range nd + 1 {
						if g1[j] != f1[j] || g2[j] != f2[j] {
							t.Fatalf("%d links, %d packets, %+v: link %d (d=%#x): generic (%d, %d), avx512 (%d, %d)",
								nd, np, shape, j, append(ds, 0)[j], g1[j], g2[j], f1[j], f2[j])
						}
					}
				}
			}
		}
	}
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

// TestSipFastMatchesGeneric runs the AVX-512 SipHash kernel and its
// reference on the same inputs: link counts straddling the 8-lane blocks and
// the 16-link group, both halves of the message, one output and two, random
// keys and the key of the SipHash paper.
func TestSipFastMatchesGeneric(t *testing.T) {
	if !FastPath() {
		t.Skip("no AVX-512 kernel on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	r := rand.New(rand.NewPCG(15, 16))
	sizes := []int{1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 100, 401}
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
						rec := Rec(r.Uint32(), r.Uint32()&1, int32(r.IntN(1<<17)-1<<16), int32(r.IntN(1<<17)-1<<16))
						recs = append(recs, rec[:]...)
					}
					base1, base2 := make([]int64, nd+1), make([]int64, nd+1)
					for i := range base1 {
						base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
					}
					g1, g2 := slices.Clone(base1), slices.Clone(base2)
					f1, f2 := slices.Clone(base1), slices.Clone(base2)
					o2g, o2f := g2[:nd], f2[:nd]
					if !two {
						o2g, o2f = nil, nil
					}
					sipGeneric(key, ds, recs, g1[:nd], o2g, swap)
					sipAVX512(&key.init, ds, recs, f1[:nd], o2f, swap)
					if !slices.Equal(g1, f1) || !slices.Equal(g2, f2) {
						for j := range nd + 1 {
							if g1[j] != f1[j] || g2[j] != f2[j] {
								t.Fatalf("%d links, %d packets, swap %t, two %t: link %d (d=%#x): generic (%d, %d), avx512 (%d, %d)",
									nd, np, swap, two, j, append(ds, 0)[j], g1[j], g2[j], f1[j], f2[j])
							}
						}
					}
				}
			}
		}
	}
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

func BenchmarkParity(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]uint32, 401)
	for i := range ds {
		ds[i] = r.Uint32()
	}
	recs := randSignRecs(r, 256, false, false)
	out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
	for _, k := range []struct {
		name string
		f    func([]uint32, []uint32, []int64, []int64, bool, uint32)
		ok   bool
	}{{"generic", parityGeneric, true}, {"avx512", parityAVX512, FastPath()}} {
		for _, m := range []struct {
			name string
			mask uint32
		}{{"sign", SignMask}, {"crc32", 0xEDB88320}} {
			for _, two := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/%s/links=401/outputs=%d", k.name, m.name, 1+b2i(two)), func(b *testing.B) {
					if !k.ok {
						b.Skip("no fast path")
					}
					o2 := out2
					if !two {
						o2 = nil
					}
					for b.Loop() {
						k.f(ds, recs, out1, o2, false, m.mask)
					}
					b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
				})
			}
		}
	}
}

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
	for _, k := range []struct {
		name string
		f    func()
		ok   bool
	}{{"generic", func() { sipGeneric(key, ds, recs, out1, nil, false) }, true},
		{"avx512", func() { sipAVX512(&key.init, ds, recs, out1, nil, false) }, FastPath()}} {
		b.Run(k.name+"/links=401", func(b *testing.B) {
			if !k.ok {
				b.Skip("no fast path")
			}
			for b.Loop() {
				k.f()
			}
			b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
