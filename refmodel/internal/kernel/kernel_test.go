package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randRecs(r *rand.Rand, n int, edge bool) []uint64 {
	var recs []uint64
	for range n {
		a, b, m, x := r.Uint32(), r.Uint32(), r.Uint32(), r.Uint32()&1
		w1, w2 := int64(r.IntN(1<<16)), int64(r.IntN(1<<16))
		if edge {
			switch r.IntN(8) {
			case 0:
				a, b = 0, 0 // id 0: every product 0
			case 1:
				m = 1 << 31 // the multiplicative hashes
			case 2:
				m = 0xFFFFFFFF
			case 3:
				a = 0 // the linear hashes
			case 4:
				w1, w2 = math.MaxInt32, 0 // saturated weights
			case 5:
				w1, w2 = 1<<16-1, 1<<16-1 // b = 16 at saturation
			case 6:
				x = 1
			}
		}
		rec := Rec(a, b, m, x, w1, w2)
		recs = append(recs, rec[:]...)
	}
	return recs
}

// TestFastMatchesGeneric runs the AVX-512 kernel and the reference on the
// same inputs, with link counts straddling every multiple of the 16-lane
// block and 8-lane halves, and random prefilled outputs.
func TestFastMatchesGeneric(t *testing.T) {
	if !FastPath() {
		t.Skip("no AVX-512 kernel on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	r := rand.New(rand.NewPCG(11, 12))
	sizes := []int{1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 401, 1000}
	for _, nd := range sizes {
		for _, np := range []int{0, 1, 2, 3, 17, 64, 257} {
			for _, edge := range []bool{false, true} {
				ds := make([]uint32, nd)
				for i := range ds {
					ds[i] = r.Uint32()
					if edge && i%5 == 0 {
						ds[i] = []uint32{0, 1, 509, 0xFFFFFFFF, 1 << 31}[i/5%5]
					}
				}
				recs := randRecs(r, np, edge)
				// Outputs one element longer than ds, to see that the kernel stays inside.
				base1 := make([]int64, nd+1)
				base2 := make([]int64, nd+1)
				for i := range base1 {
					base1[i], base2[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1<<40)-1<<39
				}
				g1, g2 := slices.Clone(base1), slices.Clone(base2)
				f1, f2 := slices.Clone(base1), slices.Clone(base2)
				mismatchGeneric(ds, recs, g1[:nd], g2[:nd])
				mismatchAVX512(ds, recs, f1[:nd], f2[:nd])
				if !slices.Equal(g1, f1) || !slices.Equal(g2, f2) {
					for j := range nd + 1 {
						if g1[j] != f1[j] || g2[j] != f2[j] {
							t.Fatalf("%d links, %d packets, edge=%t: link %d (d=%#x): generic (%d, %d), avx512 (%d, %d)",
								nd, np, edge, j, append(ds, 0)[j], g1[j], g2[j], f1[j], f2[j])
						}
					}
				}
			}
		}
	}
}

// TestGenericContract checks the reference against the contract written out
// with one record at a time.
func TestGenericContract(t *testing.T) {
	ds := []uint32{509, 33277, 1<<15 + 2<<9 + 509}
	// A record for Hmult0 with id 5: A=0, B=1846571429*5, Mask=1<<31, C=0;
	// bit 1, weights 3 and 3.
	c := uint32(1846571429)
	rec := Rec(0, c*5, 1<<31, 1, 3, 3)
	out1, out2 := make([]int64, 3), make([]int64, 3)
	MismatchGeneric(ds, rec[:], out1, out2)
	for j, d := range ds {
		h := c * 5 * d >> 31
		want := int64(0)
		if h != 1 {
			want = -6
		}
		if out1[j] != want || out2[j] != want {
			t.Errorf("d=%d: H=%d, outputs (%d, %d), want %d", d, h, out1[j], out2[j], want)
		}
	}
}

func TestMismatchPanicsOnShortOutput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an output shorter than ds")
		}
	}()
	Mismatch(make([]uint32, 4), nil, make([]int64, 3), make([]int64, 4))
}

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
		rec := SignRec(b, a, w1, w2)
		recs = append(recs, rec[:]...)
	}
	return recs
}

// TestSignFastMatchesGeneric runs the AVX-512 sign kernel and its reference
// on the same inputs: link counts straddling every multiple of the 16-lane
// block and the 64-link group, one output and two, with and without d*d,
// random prefilled outputs one element longer than ds.
func TestSignFastMatchesGeneric(t *testing.T) {
	if !FastPath() {
		t.Skip("no AVX-512 kernel on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	r := rand.New(rand.NewPCG(13, 14))
	sizes := []int{1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 80, 96, 111, 112, 127, 128, 129, 192, 401, 1000}
	for _, nd := range sizes {
		for _, np := range []int{0, 1, 2, 3, 17, 255} {
			for _, shape := range []struct{ quad, two, edge bool }{{false, true, false}, {false, false, true}, {true, true, true}, {true, false, false}, {false, true, true}} {
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
				signGeneric(ds, recs, g1[:nd], o2g, shape.quad)
				signAVX512(ds, recs, f1[:nd], o2f, shape.quad)
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

// TestSignGenericContract checks the sign reference against Hmult0 written
// out: a record for id 5 (B' = 1846571429*5) charges w1 and w2 exactly where
// bit31(1846571429*5*d) is 1, and a record whose mask is bit 0 (the parity
// hash of an odd id, B' = 1<<31) exactly at the odd d.
func TestSignGenericContract(t *testing.T) {
	ds := []uint32{509, 33277, 1<<15 + 2<<9 + 509, 6, 7}
	c := uint32(1846571429)
	for _, tc := range []struct {
		b   uint32
		bit func(d uint32) uint32
	}{{c * 5, func(d uint32) uint32 { return c * 5 * d >> 31 }}, {1 << 31, func(d uint32) uint32 { return d & 1 }}} {
		rec := SignRec(tc.b, 0, -6, 4)
		out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
		SignGeneric(ds, rec[:], out1, out2, false)
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

// Sign refuses a call whose weights could overflow its 32-bit lanes, and a
// record with A' != 0 when quad is false.
func TestSignRefusesOverflow(t *testing.T) {
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
			Sign(make([]uint32, 4), tc.recs, make([]int64, 4), make([]int64, 4), tc.quad)
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
						rec := SignRec(r.Uint32(), r.Uint32()&1, int32(r.IntN(1<<17)-1<<16), int32(r.IntN(1<<17)-1<<16))
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
		rec := SignRec(0x03020100, x, 5, 7)
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
		exch := SignRec(0x07060504, x, 5, 7)
		o1 := make([]int64, 1)
		SipGeneric(key, []uint32{0x03020100}, exch[:], o1, nil, true)
		if o1[0] != want {
			t.Errorf("x=%d exchanged: output %d, want %d", x, o1[0], want)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]uint32, 401)
	for i := range ds {
		ds[i] = r.Uint32()
	}
	recs := randSignRecs(r, 256, false, false)
	out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
	for _, k := range []struct {
		name string
		f    func([]uint32, []uint32, []int64, []int64, bool)
		ok   bool
	}{{"generic", signGeneric, true}, {"avx512", signAVX512, FastPath()}} {
		for _, two := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/links=401/outputs=%d", k.name, 1+b2i(two)), func(b *testing.B) {
				if !k.ok {
					b.Skip("no fast path")
				}
				o2 := out2
				if !two {
					o2 = nil
				}
				for b.Loop() {
					k.f(ds, recs, out1, o2, false)
				}
				b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
			})
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
		rec := SignRec(r.Uint32(), r.Uint32()&1, -10, 0)
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

func BenchmarkMismatch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]uint32, 401)
	for i := range ds {
		ds[i] = r.Uint32()
	}
	recs := randRecs(r, 256, false)
	out1, out2 := make([]int64, len(ds)), make([]int64, len(ds))
	for _, k := range []struct {
		name string
		f    func([]uint32, []uint64, []int64, []int64)
		ok   bool
	}{{"generic", mismatchGeneric, true}, {"avx512", mismatchAVX512, FastPath()}} {
		b.Run(fmt.Sprintf("%s/links=401", k.name), func(b *testing.B) {
			if !k.ok {
				b.Skip("no fast path")
			}
			for b.Loop() {
				k.f(ds, recs, out1, out2)
			}
			b.ReportMetric(float64(b.N)*256/b.Elapsed().Seconds(), "pkts/s")
		})
	}
}
