// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// Section 5.3's example: one node sends S packets to another 5 hops away on
// the tapered fat tree, and adaptive routing chooses among 1, 8, 24, 8 and 1
// switches at hops 1 to 5: 8 + 192 + 192 + 8 + 1 = 401 candidate links and
// 8*24*8 = 1536 paths. Under uniform routing each of the 192 links between
// hops 2 and 3 (and between 3 and 4) carries S/192 packets, so E[W_d] =
// S/192 >= 5*sqrt(S)*Phi^-1(0.99) needs S >= (192*5*2.326)^2 = 4.99e6: the
// thesis's "S >= 5*10^6".

const (
	leafSrc, leafDst = 1, 2
	destPort         = 5
)

func fiveHopLayers(cores int) [][]uint16 {
	ls := [][]uint16{{leafSrc}, nil, nil, nil, {leafDst}}
	for i := range 8 {
		ls[1] = append(ls[1], uint16(10+i))
		ls[3] = append(ls[3], uint16(20+i))
	}
	for i := range cores {
		ls[2] = append(ls[2], uint16(100+i))
	}
	return ls
}

// fiveHopPort numbers the ports: a leaf's uplinks follow its 32 node ports
// (the tapered tree's 32 + 16); an aggregation switch reaches core k by port
// 1+k; a core reaches destination aggregation switch a by port 1+a; an
// aggregation switch reaches the destination leaf by port 1.
func fiveHopPort(layer int, from, to uint16) uint8 {
	switch layer {
	case 0:
		return uint8(33 + to - 10)
	case 1:
		return uint8(1 + to - 100)
	case 2:
		return uint8(1 + to - 20)
	}
	return 1
}

func fiveHopSet() CandidateSet {
	return Layered(fiveHopLayers(24), fiveHopPort, destPort)
}

func TestFiveHopCandidateSet(t *testing.T) {
	s := fiveHopSet()
	must(t, s.Validate())
	if len(s.Links) != 401 {
		t.Fatalf("%d candidate links, want 401", len(s.Links))
	}
	for h, want := range map[int]int{1: 8, 2: 192, 3: 192, 4: 8, 5: 1} {
		if got := len(s.AtHop(h)); got != want {
			t.Errorf("hop %d: %d links, want %d", h, got, want)
		}
	}
}

// TestFiveHopBound derives the thesis's packet counts: S >= 5e6 for the
// probabilistic schemes, and about 1000 (8*24*5 = 960) for the full-ID scheme
// "to expect to see a count of at least 1 on all 400 links".
func TestFiveHopBound(t *testing.T) {
	s, err := RequiredPackets(8*24, 5, DefaultP)
	if err != nil {
		t.Fatal(err)
	}
	if s <= 4.9e6 || s > 5e6 {
		t.Errorf("required packets %d, want the thesis's 5e6 (rounded up)", s)
	}
	// Without the probabilistic approach (the full-ID scheme, 4-bit count),
	// "around 1000 packets" give an expected count of 1 on every link: a
	// middle link carries S/192 packets and each holds its hop-2 sample with
	// the probability Saturation gives (1/5), so the least S is 192*5 = 960.
	sel, err := Saturation(5, 4, nil)
	must(t, err)
	p2 := new(big.Rat).Mul(sel.P[1], big.NewRat(1, 192)) // one packet's count on a hop-2/3 link
	least := new(big.Rat).Inv(p2)
	if !least.IsInt() || least.Num().Int64() != 960 {
		t.Errorf("full-ID: %s packets for an expected count of 1 per middle link, want 960", least.RatString())
	}
}

type fiveHopRun struct {
	traffic []float64 // expected packets per candidate link
	est     []LinkEstimate
	links   CandidateSet
}

// runFiveHop sends s packets from leafSrc's node (PSN 0..s-1) over paths
// chosen uniformly among those through the first `cores` core switches, with
// an ideal generator per port, and decodes them against all 401 candidates.
func runFiveHop(t *testing.T, c Config, s int, cores int, p float64) fiveHopRun {
	t.Helper()
	m := mustModel(t, c)
	set := fiveHopSet()
	tl, err := m.NewTally(set)
	must(t, err)
	index := map[Link]int{}
	for i, l := range set.Links {
		index[l] = i
	}
	gens := make([]rng.Generator, len(set.Links))
	for i, l := range set.Links {
		if gens[i], err = c.NewPortGenerator(l.Switch, l.Port); err != nil {
			t.Fatal(err)
		}
	}
	layers := fiveHopLayers(24)
	r := rand.New(rand.NewPCG(uint64(s), uint64(cores)))
	hops := make([]Hop, 5)
	for psn := range s {
		up := layers[1][r.IntN(8)]
		core := layers[2][r.IntN(cores)]
		down := layers[3][r.IntN(8)]
		path := []Link{
			{leafSrc, fiveHopPort(0, leafSrc, up)},
			{up, fiveHopPort(1, up, core)},
			{core, fiveHopPort(2, core, down)},
			{down, fiveHopPort(3, down, leafDst)},
			{leafDst, destPort},
		}
		for j, l := range path {
			hops[j] = Hop{Link: l, Gen: gens[index[l]]}
		}
		sm, err := m.Walk(c.ID.ID(1, 0, uint32(psn)), hops, nil)
		if err != nil {
			t.Fatal(err)
		}
		tl.Add(sm)
	}
	run := fiveHopRun{est: tl.Estimates(5, p), links: set, traffic: make([]float64, len(set.Links))}
	for i, l := range set.Links {
		switch set.Hops[i] {
		case 1:
			run.traffic[i] = float64(s) / 8
		case 2:
			if l.Port <= uint8(cores) {
				run.traffic[i] = float64(s) / float64(8*cores)
			}
		case 3:
			if l.Switch < uint16(100+cores) {
				run.traffic[i] = float64(s) / float64(8*cores)
			}
		case 4:
			run.traffic[i] = float64(s) / 8
		case 5:
			run.traffic[i] = float64(s)
		}
	}
	return run
}

// checkLayers: per hop position, the mean of W_d over the links with equal
// expected traffic N is z-tested against N, with each link's variance
// Q*l^2 - N (section 5.3) and the links treated as independent, at level 1e-4.
func checkLayers(t *testing.T, name string, run fiveHopRun, q int64) {
	t.Helper()
	type key struct {
		hop int
		n   float64
	}
	groups := map[key]*meanVar{}
	for i, e := range run.est {
		k := key{e.Hop, run.traffic[i]}
		if groups[k] == nil {
			groups[k] = &meanVar{}
		}
		groups[k].add(float64(e.W))
	}
	for k, a := range groups {
		checkMean(t, name+": mean W_d at hop "+string(rune('0'+k.hop)), a, k.n, float64(q)*25-k.n)
	}
}

// TestFiveHopDecode runs the example at the thesis's S = 5e6 through the
// one-reservoir scheme (b = 3, Hmult0 over the PSN, the thesis's link
// encoding).
//
// Uniform routing over all 1536 paths: every candidate link carries traffic,
// and at S = 5e6 every one has E[W_d] = N_d >= the threshold (exactly, checked
// from N_d), with the per-layer means of W_d confirming E[W_d] = N_d.
//
// Routing over 12 of the 24 core switches (the others unused): 192 of the 401
// candidates carry no traffic. The thesis's p = 0.99 hides each such link with
// probability about 0.99, so about 2 of them pass; the test bounds their number
// by the 1e-4 upper quantile of Binomial(192, 0.01). With the family-wise
// level FamilyP(0.99, 192) (each link hidden with probability 1 - 0.01/192) no
// zero-traffic link may pass, and every link with traffic (N_d = 5e6/96 at hops
// 2 and 3) still has E[W_d] above that threshold at S = 5e6.
func TestFiveHopDecode(t *testing.T) {
	if testing.Short() {
		t.Skip("5e6 packets")
	}
	const s = 5_000_000
	c := DefaultConfig()
	c.Telemetry.Scheme, c.Telemetry.CountBits = header.OneReservoir, 3

	all := runFiveHop(t, c, s, 24, DefaultP)
	th := all.est[0].Threshold
	passed := 0
	for i, e := range all.est {
		if all.traffic[i] < th {
			t.Errorf("link %s carries %.0f packets, below the threshold %.0f at S = %d", e.Link, all.traffic[i], th, s)
		}
		if e.Passed {
			passed++
		}
	}
	checkLayers(t, "all cores", all, s)
	t.Logf("uniform routing: threshold %.0f, %d of 401 links pass (the 192+192 middle links sit at the threshold in expectation)", th, passed)

	half := runFiveHop(t, c, s, 12, DefaultP)
	checkLayers(t, "12 cores", half, s)
	zero, falsePos := 0, 0
	pfw := FamilyP(DefaultP, 192)
	thFW := Threshold(5, s, pfw)
	for i, e := range half.est {
		if half.traffic[i] == 0 {
			zero++
			if e.Passed {
				falsePos++
			}
			if float64(e.W) >= thFW {
				t.Errorf("zero-traffic link %s: W_d = %d passes the family-wise threshold %.0f", e.Link, e.W, thFW)
			}
		} else if half.traffic[i] < thFW {
			t.Errorf("link %s carries %.0f packets, below the family-wise threshold %.0f", e.Link, half.traffic[i], thFW)
		}
	}
	if zero != 192 {
		t.Fatalf("%d zero-traffic links, want 192", zero)
	}
	bin := distuv.Binomial{N: 192, P: 1 - DefaultP}
	bound := 0.0 // least c with P(X > c) < alpha
	for 1-bin.CDF(bound) >= alpha {
		bound++
	}
	if float64(falsePos) > bound {
		t.Errorf("%d of 192 zero-traffic links pass the p = 0.99 threshold; more than %.0f has probability below 1e-4", falsePos, bound)
	}
	t.Logf("12 cores: %d of 192 zero-traffic links pass at p = 0.99 (threshold %.0f); none at p = %.6f (threshold %.0f)", falsePos, th, pfw, thFW)
}

// TestRequiredPackets: the inverse of the threshold condition.
func TestRequiredPackets(t *testing.T) {
	for _, k := range []int{1, 96, 192, 1 << 20} {
		s, err := RequiredPackets(k, 5, 0.99)
		if err != nil {
			t.Fatal(err)
		}
		at := func(s int64) bool { return float64(s)/float64(k) >= Threshold(5, s, 0.99) }
		if !at(s) || at(s-1) {
			t.Errorf("k=%d: %d is not the least S with S/k >= threshold", k, s)
		}
	}
	if s, err := RequiredPackets(192, 5, 0.5); s != 1 || err != nil {
		t.Errorf("p = 0.5: %d, %v", s, err)
	}
	// Inputs that used to spin (NaN) or overflow int64 and loop: each an
	// error, at once.
	for _, c := range []struct {
		k, L int
		p    float64
	}{
		{192, 5, math.NaN()}, {192, 5, math.Inf(1)}, {192, 5, 0}, {192, 5, 1}, {0, 5, 0.99}, {192, 0, 0.99}, {-1, 5, 0.99},
		{1_000_000_000, 5, 0.99}, {math.MaxInt, math.MaxInt, 0.99}, {1 << 40, 1, 0.999999},
	} {
		if s, err := RequiredPackets(c.k, c.L, c.p); err == nil {
			t.Errorf("k=%d L=%d p=%g: %d, no error", c.k, c.L, c.p, s)
		}
	}
}
