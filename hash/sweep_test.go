// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"ibreservoir/internal/cpu"
)

// kernelForms returns random forms that select every kernel variant: for
// pair p, sign s and quad q, a form (and partner) with masks 1<<31 when s and
// some A != 0 when q.
func kernelForms(r *rand.Rand, pair, sign, quad bool) (f, g Form) {
	mk := func(useA bool) Form {
		fm := Form{B: r.Uint32(), C: r.Uint32() & 1}
		if useA {
			fm.A = r.Uint32() | 1
		}
		if sign {
			fm.Mask = 1 << 31
		} else {
			fm.Mask = r.Uint32()
			if fm.Mask == 1<<31 {
				fm.Mask = 3
			}
		}
		return fm
	}
	f = mk(quad)
	// With a pair, let the quadratic term sit in either form.
	g = mk(quad && r.IntN(2) == 0)
	if quad && g.A == 0 && r.IntN(2) == 0 {
		f, g = g, f
		if f.A == 0 && g.A == 0 {
			f.A = 1
		}
	}
	if !pair {
		g = Form{}
	}
	return f, g
}

func refCount(f, g Form, pair bool, lo, hi uint64) uint64 {
	if pair {
		return countAgreeGeneric(f, g, lo, hi)
	}
	return countOnesGeneric(f, lo, hi)
}

func variantName(pair, sign, quad bool) string {
	return fmt.Sprintf("pair=%v/sign=%v/quad=%v", pair, sign, quad)
}

// TestSweepKernelsMatchReference runs every kernel of every kernel set this
// CPU has against the reference, on random forms, on ranges whose lengths
// straddle every lane count (8, 16, 32, 64 values per iteration) and the
// chunk size, at misaligned starts, including ranges that end at 2^32.
func TestSweepKernelsMatchReference(t *testing.T) {
	sets := availableKernels()
	if len(sets) == 0 {
		t.Skip("no vector kernels on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var lengths []uint64
	for _, s := range []uint64{8, 16, 32, 64} {
		for m := uint64(0); m <= 3; m++ {
			for d := -2; d <= 2; d++ {
				if l := int64(m*s) + int64(d); l >= 0 {
					lengths = append(lengths, uint64(l))
				}
			}
		}
	}
	lengths = append(lengths, 1000, 4097, chunkSize-1, chunkSize, chunkSize+1, chunkSize+63, 2*chunkSize+17)
	for _, ks := range sets {
		for _, pair := range []bool{false, true} {
			for _, sign := range []bool{true, false} {
				for _, quad := range []bool{false, true} {
					name := ks.name + "/" + variantName(pair, sign, quad)
					t.Run(name, func(t *testing.T) {
						for i, n := range lengths {
							f, g := kernelForms(r, pair, sign, quad)
							var lo uint64
							switch i % 3 {
							case 0:
								lo = uint64(r.Uint32())
							case 1:
								lo = uint64(r.IntN(200))
							case 2:
								lo = 1<<32 - n // ending exactly at 2^32
							}
							hi := min(lo+n, 1<<32)
							if n > chunkSize && i%2 == 1 {
								// Long ranges also go through the chunked, parallel sweep.
								got := sweep(ks, f, g, pair, lo, hi, 3)
								if want := refCount(f, g, pair, lo, hi); got != want {
									t.Fatalf("sweep %v %v [%d, %d): %s %d, reference %d", f, g, lo, hi, ks.name, got, want)
								}
								continue
							}
							got := rawCount(ks, new(kstate), f, g, pair, lo, hi)
							want := rawCount(nil, nil, f, g, pair, lo, hi)
							if got != want {
								t.Fatalf("rawCount f=%+v g=%+v [%d, %d) (length %d):\n\t%-8s %d\n\treference %d", f, g, lo, hi, hi-lo, ks.name, got, want)
							}
						}
					})
				}
			}
		}
	}
}

// TestSweepEdgeForms checks forms whose coefficients sit on the edges: zero
// masks, all-ones masks, A or B of 0, 1 and 2^32-1, and C of 1.
func TestSweepEdgeForms(t *testing.T) {
	sets := availableKernels()
	if len(sets) == 0 {
		t.Skip("no vector kernels on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	edges := []uint32{0, 1, 2, 3, 1 << 31, 1<<32 - 1, 0x80000001}
	var forms []Form
	for _, a := range edges {
		for _, b := range edges {
			for _, m := range []uint32{0, 1, 1 << 31, 1<<32 - 1} {
				forms = append(forms, Form{A: a, B: b, Mask: m, C: (a ^ b) & 1})
			}
		}
	}
	const lo, hi = 1<<32 - 777, 1 << 32
	for _, ks := range sets {
		for i, f := range forms {
			g := forms[(i*7+3)%len(forms)]
			if got, want := sweep(ks, f, Form{}, false, lo, hi, 1), countOnesGeneric(f, lo, hi); got != want {
				t.Errorf("%s CountOnes %+v: %d, reference %d", ks.name, f, got, want)
			}
			if got, want := sweep(ks, f, g, true, 0, 777, 1), countAgreeGeneric(f, g, 0, 777); got != want {
				t.Errorf("%s CountAgree %+v %+v: %d, reference %d", ks.name, f, g, got, want)
			}
		}
	}
}

// TestSweepSplitIndependent shows the count does not depend on how many
// goroutines share the range.
func TestSweepSplitIndependent(t *testing.T) {
	f, _ := New(Mult0).FormD(2)
	g, _ := New(Mult0).FormD(6)
	const lo, hi = 12345, 5*chunkSize + 999
	sets := append([]*kernelSet{nil}, availableKernels()...)
	want := countAgreeGeneric(f, g, lo, hi)
	for _, ks := range sets {
		for _, w := range []int{1, 2, 3, 7, 64} {
			if got := sweep(ks, f, g, true, lo, hi, w); got != want {
				name := "generic"
				if ks != nil {
					name = ks.name
				}
				t.Errorf("%s with %d workers: %d, want %d", name, w, got, want)
			}
		}
	}
}

// TestSweepFullRange cross-checks every kernel set against the reference over
// all 2^32 values for one pair of forms, and the kernel sets against each
// other for one random form of every variant.
func TestSweepFullRange(t *testing.T) {
	sets := availableKernels()
	if len(sets) == 0 {
		t.Skip("no vector kernels on this CPU (or IBRESERVOIR_GENERIC=1)")
	}
	if testing.Short() {
		t.Skip("full 2^32 sweeps in -short mode")
	}
	m0 := New(Mult0)
	f2, _ := m0.FormD(2)
	f6, _ := m0.FormD(6)
	// The reference is slow (seconds per 2^32 values), so it checks one
	// pair only, on every core.
	want := sweep(nil, f2, f6, true, 0, 1<<32, runtime.GOMAXPROCS(0))
	for _, ks := range sets {
		if got := sweep(ks, f2, f6, true, 0, 1<<32, 2); got != want {
			t.Errorf("%s full-range CountAgree %+v %+v:\n\t%-8s %d\n\treference %d", ks.name, f2, f6, ks.name, got, want)
		}
	}
	if len(sets) < 2 {
		return
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, pair := range []bool{false, true} {
		for _, sign := range []bool{true, false} {
			for _, quad := range []bool{false, true} {
				f, g := kernelForms(r, pair, sign, quad)
				a := sweep(sets[0], f, g, pair, 0, 1<<32, 2)
				b := sweep(sets[1], f, g, pair, 0, 1<<32, 2)
				if a != b {
					t.Errorf("full range %s f=%+v g=%+v:\n\t%-8s %d\n\t%-8s %d", variantName(pair, sign, quad), f, g, sets[0].name, a, sets[1].name, b)
				}
			}
		}
	}
}

func TestSweepRangePanics(t *testing.T) {
	for _, c := range []struct{ lo, hi uint64 }{{2, 1}, {0, 1<<32 + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("CountOnes(%d, %d) did not panic", c.lo, c.hi)
				}
			}()
			CountOnes(Form{}, c.lo, c.hi)
		}()
	}
}

// TestKstateLayout pins the offsets the generated kernels address
// (internal/asmgen): a change to kstate must regenerate them.
func TestKstateLayout(t *testing.T) {
	var st kstate
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"f", unsafe.Offsetof(st.f), 0},
		{"df", unsafe.Offsetof(st.df), 256},
		{"g", unsafe.Offsetof(st.g), 512},
		{"dg", unsafe.Offsetof(st.dg), 768},
		{"ddf", unsafe.Offsetof(st.ddf), 1024},
		{"ddg", unsafe.Offsetof(st.ddg), 1028},
		{"mf", unsafe.Offsetof(st.mf), 1032},
		{"mg", unsafe.Offsetof(st.mg), 1036},
		{"out", unsafe.Offsetof(st.out), 1088},
	} {
		if c.got != c.want {
			t.Errorf("kstate.%s at offset %d, the kernels read it at %d", c.name, c.got, c.want)
		}
	}
}

// TestDefaultKernel: the default build uses the widest kernel internal/cpu
// reports, with no build tags; the sweeps have no portable form, so under
// "portable" (and "reference") they run the reference.
func TestDefaultKernel(t *testing.T) {
	want := cpu.Kernel()
	if want == cpu.KernelPortable || want == cpu.KernelReference {
		want = "generic"
	}
	if got := SweepKernel(); got != want {
		t.Errorf("sweeps use %s, the CPU offers %s", got, want)
	}
}
