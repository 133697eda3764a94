// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/cpu"
	"ibreservoir/refmodel/internal/kernel"
	"ibreservoir/rng"
)

// TestWalkMatchesStage: Walk makes the draws Send, Stage and Receive make on
// real bytes, and yields the sample the receiver reads.
func TestWalkMatchesStage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range testConfigs() {
		m := mustModel(t, c)
		for trial := range 200 {
			psn := r.Uint32() & 0xFFFFFF
			slid := uint16(r.Uint32())
			pkt := testPacket(c.LNH, slid, 77, 0x10, psn, 16, footerOf(m))
			nicA, nicB := c.NewSenderGenerator(slid), c.NewSenderGenerator(slid)
			must(t, m.Send(pkt, nicA))
			var hops []Hop
			var gens []rng.Generator
			for range 1 + r.IntN(10) {
				sw := uint16(r.IntN(c.MaxSwitch + 1))
				port := uint8(1 + r.IntN(c.MaxPort))
				g, _ := c.NewPortGenerator(sw, port)
				var gw rng.Generator
				if g != nil {
					gw = g.Clone()
				}
				hops = append(hops, Hop{Link{sw, port}, r.IntN(2) == 0, gw})
				gens = append(gens, g)
			}
			for i, h := range hops {
				if _, err := m.Stage(pkt, h.Link.Switch, h.Link.Port, h.Congested, gens[i]); err != nil {
					t.Fatal(err)
				}
			}
			want, err := m.Receive(pkt)
			must(t, err)
			want.SLID, want.DLID = 0, 0
			got, err := m.Walk(m.PacketID(pkt), hops, nicB)
			must(t, err)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s trial %d: Walk differs from the byte-level model (-stage +walk):\n%s", c, trial, diff)
			}
			for i := range hops {
				if gens[i] != nil && !cmp.Equal(gens[i].State(), hops[i].Gen.State()) {
					t.Fatalf("%s trial %d hop %d: generator states differ", c, trial, i)
				}
			}
		}
	}
}

func randomSet(r *rand.Rand, n, pathLen int) CandidateSet {
	s := CandidateSet{PathLen: pathLen}
	seen := map[Link]bool{}
	for len(s.Links) < n {
		l := Link{uint16(r.IntN(1024)), uint8(1 + r.IntN(48))}
		if seen[l] {
			continue
		}
		seen[l] = true
		s.Links = append(s.Links, l)
		s.Hops = append(s.Hops, 1+len(s.Hops)%pathLen)
	}
	return s
}

// TestTallyMatchesReference holds the batched decode (through every kernel
// path the CPU has: AVX-512, AVX2, portable, reference) equal to Alg. 7 and
// 9 written out link by link, for every hash with a Form, on candidate sets
// straddling the kernels' vector widths, ids of 0, and weights at
// saturation.
func TestTallyMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, scheme := range []header.Scheme{header.OneReservoir, header.TwoReservoir} {
		for _, k := range hash.Kinds() {
			c := DefaultConfig()
			c.Telemetry.Scheme = scheme
			c.Telemetry.CountBits = 16
			c.Telemetry.Placement = header.PlaceFooter
			c.Hash = hash.New(k)
			m := mustModel(t, c)
			// Random links, and the five-hop set (its links in runs 512
			// apart: the step kernels' chunks of every length).
			for _, n := range []int{1, 3, 8, 15, 16, 17, 24, 25, 33, 401, 0} {
				set := fiveHopSet()
				if n > 0 {
					set = randomSet(r, n, min(n, 5))
				}
				n = len(set.Links)
				// Every path the CPU has, the reference kernels among them.
				var paths []*Tally
				for _, name := range cpu.Available() {
					p, err := kernel.PathFor(name)
					must(t, err)
					tl, err := m.NewTally(set)
					must(t, err)
					tl.useKernel(p)
					paths = append(paths, tl)
				}
				ref, _ := m.NewTally(set)
				for i := range 700 {
					s := Sample{ID: r.Uint32(), HopBit: uint8(r.IntN(2)), CongBit: uint8(r.IntN(2)), HopCount: r.IntN(6), CongCount: r.IntN(4)}
					switch i % 7 {
					case 0:
						s.ID = 0
					case 1:
						s.HopCount, s.CongCount = 1<<16-1, 1<<16-1
					case 2:
						s.HopCount = 0
					}
					for _, tl := range paths {
						tl.Add(s)
					}
					ref.Packets++
					ref.addReference(s)
				}
				rw, rc := ref.Counts()
				for _, tl := range paths {
					// Counts completes the batched packets itself.
					if xw, xc := tl.Counts(); !slices.Equal(xw, rw) || !slices.Equal(xc, rc) {
						t.Fatalf("%s %s %d links: kernel %s differs from the reference\ncounts %v\nref    %v\ncong   %v\nref    %v",
							scheme, k, n, tl.path.Name(), xw[:min(n, 8)], rw[:min(n, 8)], xc[:min(n, 8)], rc[:min(n, 8)])
					}
				}
			}
		}
	}
}

func TestThresholdValues(t *testing.T) {
	if q := NormalQuantile(0.99); math.Abs(q-2.3263478740) > 1e-8 {
		t.Errorf("Phi^-1(0.99) = %.10f", q)
	}
	// Section 5.3: l = 5, Q = S = 5e6.
	if th := Threshold(5, 5_000_000, 0.99); math.Abs(th-26009.4) > 0.1 {
		t.Errorf("threshold %.1f", th)
	}
	if p := FamilyP(0.99, 100); math.Abs(p-0.9999) > 1e-12 {
		t.Errorf("FamilyP = %v", p)
	}
	if CongestedFraction(0, 5) != 0 || CongestedFraction(10, 5) != 0.5 || CongestedFraction(-3, 1) != 0 {
		t.Error("congested fraction")
	}
}

func TestFullIDCounts(t *testing.T) {
	c := NewFullIDCounts()
	c.Add(Sample{HopCount: 3, HopLink: Link{4, 1}, CongCount: 0, CongLink: Link{9, 9}})
	c.Add(Sample{HopCount: 5, HopLink: Link{4, 1}, CongCount: 2, CongLink: Link{2, 7}})
	want := map[Link]int64{{4, 1}: 8}
	if diff := cmp.Diff(want, c.Counts); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(map[Link]int64{{2, 7}: 2}, c.Congested); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]Link{{2, 7}, {4, 1}}, c.Links()); diff != "" {
		t.Error(diff)
	}
}

func TestCandidateSetValidate(t *testing.T) {
	good := CandidateSet{PathLen: 2, Links: []Link{{1, 1}, {2, 1}}, Hops: []int{1, 2}}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range []CandidateSet{
		{PathLen: 0},
		{PathLen: 2, Links: []Link{{1, 1}, {1, 1}}, Hops: []int{1, 2}},
		{PathLen: 2, Links: []Link{{1, 1}, {2, 1}}, Hops: []int{1, 3}},
		{PathLen: 3, Links: []Link{{1, 1}, {2, 1}}, Hops: []int{1, 2}},
		{PathLen: 2, Links: []Link{{1, 1}}, Hops: []int{1, 2}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

func TestMergeEstimates(t *testing.T) {
	m := mustModel(t, DefaultConfig())
	a, err := m.NewTally(CandidateSet{PathLen: 2, Links: []Link{{1, 1}, {2, 1}}, Hops: []int{1, 2}})
	must(t, err)
	b, err := m.NewTally(CandidateSet{PathLen: 2, Links: []Link{{3, 1}, {2, 1}}, Hops: []int{1, 2}})
	must(t, err)
	for i := range 50 {
		a.Add(Sample{ID: uint32(i), HopBit: 1, HopCount: 2})
		b.Add(Sample{ID: uint32(i + 1000), HopBit: 0, HopCount: 2, CongBit: 1})
	}
	es := MergeEstimates([]*Tally{a, b}, 2, 0.99)
	if len(es) != 3 || es[1].Link != (Link{2, 1}) {
		t.Fatalf("merged links %+v", es)
	}
	aw, ac := a.Count(1)
	bw, bc := b.Count(1)
	if es[1].W != aw+bw || es[1].C != ac+bc || es[1].Q != 100 {
		t.Errorf("shared link: %+v", es[1])
	}
	if es[0].Q != 50 || es[2].Q != 50 {
		t.Errorf("Q of unshared links: %d, %d", es[0].Q, es[2].Q)
	}
}

// TestWeightedBits holds the kernels run with packets and links exchanged
// equal to the sum written out with hash.Func.Bit, for every hash, with
// weights of both signs and the largest magnitude, link counts beyond a sign
// batch, and ids of 0.
func TestWeightedBits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, k := range hash.Kinds() {
		c := DefaultConfig()
		c.Hash = hash.New(k)
		m := mustModel(t, c)
		for _, nl := range []int{1, 17, 401, 1100} {
			ds := make([]uint32, nl)
			ws := make([]int64, nl)
			for j := range ds {
				ds[j] = r.Uint32()
				ws[j] = r.Int64N(2*maxKernelWeight+1) - maxKernelWeight
				if j%7 == 0 {
					ws[j] = maxKernelWeight
				}
			}
			ids := make([]uint32, 1+r.IntN(300))
			for i := range ids {
				ids[i] = r.Uint32()
				if i%11 == 0 {
					ids[i] = 0
				}
			}
			out := make([]int64, len(ids))
			must(t, m.WeightedBits(ds, ws, ids, out))
			for i, id := range ids {
				var want int64
				for j, d := range ds {
					want += ws[j] * int64(c.Hash.Bit(id, d))
				}
				if out[i] != want {
					t.Fatalf("%s, %d links: id %#x: %d, written out %d", k, nl, id, out[i], want)
				}
			}
		}
	}
	m := mustModel(t, DefaultConfig())
	if err := m.WeightedBits([]uint32{1}, []int64{1 << 22}, []uint32{1}, make([]int64, 1)); err == nil {
		t.Error("a weight beyond 2^21 was accepted")
	}
}

// TestTallyPlanFollowsD holds the step kernels' plan (of the links, or of
// their squares for the double hash) to the links a caller changed after
// NewTally: the counts stay those of Alg. 9 written out over the new links.
func TestTallyPlanFollowsD(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, k := range []hash.Kind{hash.SingleMult, hash.DoubleMult, hash.CRC16} {
		c := DefaultConfig()
		c.Hash = hash.New(k)
		m := mustModel(t, c)
		tl, err := m.NewTally(fiveHopSet())
		must(t, err)
		ref, err := m.NewTally(fiveHopSet())
		must(t, err)
		for round := range 3 {
			for range 600 {
				s := Sample{ID: r.Uint32(), HopBit: uint8(r.IntN(2)), CongBit: uint8(r.IntN(2)), HopCount: r.IntN(40)}
				tl.Add(s)
				ref.Packets++
				ref.addReference(s)
			}
			tl.Flush()
			j := r.IntN(len(tl.D))
			tl.D[j] += uint32(round + 1)
			ref.D[j] += uint32(round + 1)
		}
		rw, rc := ref.Counts()
		if xw, xc := tl.Counts(); !slices.Equal(xw, rw) || !slices.Equal(xc, rc) {
			t.Errorf("%s: counts after the links changed differ from Alg. 9 written out", k)
		}
	}
}
