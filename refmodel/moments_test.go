// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

// The Monte Carlo tests below are seeded and deterministic. Each compares a
// sample mean with its analytic value by a two-sided z-test, and a sample
// variance with its analytic value by a two-sided chi-square interval on
// (R-1)s^2/sigma^2 with R-1 degrees of freedom, both at level alpha = 1e-4
// (|z| < 3.89). With R = 4000 replicates the mean test detects a shift of
// 0.06 standard deviations and the variance test a relative error of about
// 9% (for near-normal sums). That separates the candidates that matter: the
// one-reservoir congested variance l*G - M (1440 here) from the
// two-reservoir's sum g^2 - M (600), Q*l^2 - N (4880) from N(l-1) (480), and a
// covariance of l*G - M from 0 (Var[W-C] 3440 against 6320). It does not
// resolve the -N and -M terms (2% and 4% here), which the closed forms are
// checked against exactly instead.
const alpha = 1e-4

var zCrit = distuv.UnitNormal.Quantile(1 - alpha/2)

type meanVar struct{ n, sum, sumSq float64 }

func (a *meanVar) add(x float64) { a.n++; a.sum += x; a.sumSq += x * x }
func (a *meanVar) mean() float64 { return a.sum / a.n }
func (a *meanVar) variance() float64 {
	m := a.mean()
	return (a.sumSq - a.n*m*m) / (a.n - 1)
}

// checkMean: z-test of the sample mean against mu with the analytic variance.
func checkMean(t *testing.T, what string, a *meanVar, mu, sigma2 float64) {
	t.Helper()
	z := (a.mean() - mu) / math.Sqrt(sigma2/a.n)
	if math.Abs(z) > zCrit {
		t.Errorf("%s: sample mean %.4f over %.0f replicates, analytic %.4f (z = %.2f, |z| must be < %.2f)", what, a.mean(), a.n, mu, z, zCrit)
	}
}

// checkVar: chi-square interval for the sample variance against sigma2.
func checkVar(t *testing.T, what string, a *meanVar, sigma2 float64) {
	t.Helper()
	chi := distuv.ChiSquared{K: a.n - 1}
	lo, hi := chi.Quantile(alpha/2), chi.Quantile(1-alpha/2)
	stat := (a.n - 1) * a.variance() / sigma2
	if stat < lo || stat > hi {
		t.Errorf("%s: sample variance %.2f, analytic %.2f (statistic %.1f outside [%.1f, %.1f])", what, a.variance(), sigma2, stat, lo, hi)
	}
}

// scenario is one link d at hop 3 of 5-hop paths, decoded against the
// packets of four classes (Q = 200): two cross d, two do not, with congestion
// on various hops. Links other than d are drawn at random per packet, so that
// false matches are fair coins under a pseudo-random hash.
var (
	scenD     = Link{Switch: 7, Port: 3}
	scenarios = []PathClass{
		{Packets: 60, Len: 5, At: 3, Congested: []bool{false, false, true, false, true}},
		{Packets: 60, Len: 5, At: 3, Congested: []bool{true, false, false, false, false}},
		{Packets: 40, Len: 5, At: 0, Congested: []bool{false, true, true, true, false}},
		{Packets: 40, Len: 5, At: 0},
	}
)

// runScenario walks the scenario's packets R times and returns per-replicate
// W_d and C_d (and W_d - C_d, whose variance checks the covariance).
func runScenario(t *testing.T, c Config, classes []PathClass, reps int, seed uint64) (w, cg, diff *meanVar) {
	t.Helper()
	w, cg, diff = &meanVar{}, &meanVar{}, &meanVar{}
	walkScenario(t, c, classes, reps, seed, func(wd, cd int64) {
		w.add(float64(wd))
		cg.add(float64(cd))
		diff.add(float64(wd - cd))
	})
	return w, cg, diff
}

// walkScenario walks the classes' packets R times through the model and
// hands each replicate's W_d and C_d to each.
func walkScenario(t *testing.T, c Config, classes []PathClass, reps int, seed uint64, each func(w, cg int64)) {
	t.Helper()
	m := mustModel(t, c)
	r := rand.New(rand.NewPCG(seed, 99))
	g := rng.NewIdeal(seed, c.MaxL())
	set := CandidateSet{PathLen: 1, Links: []Link{scenD}, Hops: []int{1}}
	hops := make([]Hop, 8)
	for range reps {
		tl, err := m.NewTally(set)
		must(t, err)
		for _, cl := range classes {
			for range cl.Packets {
				hs := hops[:cl.Len]
				for j := range hs {
					l := Link{uint16(100 + r.IntN(900)), uint8(1 + r.IntN(48))}
					if j+1 == cl.At {
						l = scenD
					}
					hs[j] = Hop{Link: l, Congested: cl.congested(j + 1), Gen: g}
				}
				s, err := m.Walk(r.Uint32(), hs, nil)
				must(t, err)
				tl.Add(s)
			}
		}
		tw, tc := tl.Count(0)
		each(tw, tc)
	}
}

func sipConfig(scheme header.Scheme, countBits int) Config {
	c := DefaultConfig()
	c.Telemetry.Scheme = scheme
	c.Telemetry.CountBits = countBits
	c.Telemetry.Placement = header.PlaceFooter
	c.Hash = hash.New(hash.SipHash) // a pseudo-random function: the analysis's hash assumption
	return c
}

// TestOneReservoirMoments confirms the derivation of
// docs/onereservoir-moments.md: means, variances and the covariance of W_d and
// C_d, without saturation (b = 8) and with it (b = 2 on 5 hops, the 9/16 case).
func TestOneReservoirMoments(t *testing.T) {
	for _, b := range []int{8, 2} {
		c := sipConfig(header.OneReservoir, b)
		mo, err := OneReservoirMoments(scenarios, func(l int) (Selection, error) { return c.SelectionFor(l, nil) })
		must(t, err)
		if b == 8 {
			// The closed forms: N = 120, Q = 200, l = 5, M = 60, G = 60*2 + 60*1 + 40*3 = 300.
			want := Moments{MeanW: 120, VarW: 200*25 - 120, MeanC: 60, VarC: 5*300 - 60, CovWC: 5*300 - 60}
			if mo != want {
				t.Fatalf("b=8 moments %+v, want the closed forms %+v", mo, want)
			}
		}
		w, cg, diff := runScenario(t, c, scenarios, 4000, uint64(b))
		checkMean(t, "E[W_d]", w, mo.MeanW, mo.VarW)
		checkVar(t, "Var[W_d]", w, mo.VarW)
		checkMean(t, "E[C_d]", cg, mo.MeanC, mo.VarC)
		checkVar(t, "Var[C_d]", cg, mo.VarC)
		vd := mo.VarW + mo.VarC - 2*mo.CovWC
		checkMean(t, "E[W_d - C_d]", diff, mo.MeanW-mo.MeanC, vd)
		checkVar(t, "Var[W_d - C_d] (covariance)", diff, vd)
	}
}

// TestTwoReservoirMoments confirms section 5.3's E[W_d] = N, Var[W_d] =
// Q l^2 - N, and the congested count's moments.
func TestTwoReservoirMoments(t *testing.T) {
	c := sipConfig(header.TwoReservoir, 8)
	w, cg, _ := runScenario(t, c, scenarios, 4000, 21)
	mean, v := ProbMoments(120, 200, 5)
	checkMean(t, "E[W_d]", w, mean, v)
	checkVar(t, "Var[W_d]", w, v)
	cm, cv, err := TwoReservoirCongestedMoments(scenarios)
	must(t, err)
	if cm != 60 || cv != 60*4+60*1+40*9-60 {
		t.Fatalf("congested moments %v, %v", cm, cv)
	}
	checkMean(t, "E[C_d]", cg, cm, cv)
	checkVar(t, "Var[C_d]", cg, cv)
	mm, mv := ProbMomentsMulti([]int64{120, 0}, []int64{200, 50}, []int{5, 3})
	if mm != 120 || mv != 200*25-120+50*9 {
		t.Errorf("multi-length sums %v, %v", mm, mv)
	}
}

// TestFullIDMoments confirms section 3.3's E[W] = N, Var[W] = N(l-1), and the
// Taylor estimates of E[F] and Var[F] for F = C/W. N = 2000 packets keep the
// Taylor remainder (of order 1/N^3 in the mean) far below the test's
// resolution.
func TestFullIDMoments(t *testing.T) {
	c := DefaultConfig()
	c.Telemetry.Scheme, c.Telemetry.CountBits, c.Telemetry.Placement = header.FullID, 8, header.PlaceFooter
	c.MaxSwitch = 1023
	m := mustModel(t, c)
	const n, mc, l, g, reps = 2000, 600, 5, 2, 3000
	e := Link{50, 5}
	gen := rng.NewIdeal(3, c.MaxL())
	w, cw, f := &meanVar{}, &meanVar{}, &meanVar{}
	hops := make([]Hop, l)
	for range reps {
		counts := NewFullIDCounts()
		for i := range n {
			for j := range hops {
				// e is hop 2; packets 0..mc-1 are congested at hops 2 and 4.
				hops[j] = Hop{Link: Link{uint16(10*j + 1), 1}, Gen: gen, Congested: i < mc && (j == 1 || j == 3)}
			}
			hops[1].Link = e
			s, err := m.Walk(uint32(i), hops, nil)
			must(t, err)
			counts.Add(s)
		}
		w.add(float64(counts.Counts[e]))
		cw.add(float64(counts.Congested[e]))
		f.add(float64(counts.Congested[e]) / float64(counts.Counts[e]))
	}
	mean, v := FullIDMoments(n, l)
	checkMean(t, "E[W]", w, mean, v)
	checkVar(t, "Var[W]", w, v)
	cmean, cv := FullIDMoments(mc, g)
	checkMean(t, "E[C]", cw, cmean, cv)
	checkVar(t, "Var[C]", cw, cv)
	fm, fv := TaylorF(mc, n, g, l)
	checkMean(t, "E[F] (Taylor)", f, fm, fv)
	checkVar(t, "Var[F] (Taylor)", f, fv)
	mm, mv := TaylorFMulti([]int64{mc}, []int64{n}, []int{g}, []int{l})
	if math.Abs(mm-fm) > 1e-12 || math.Abs(mv-fv) > 1e-15 {
		t.Errorf("TaylorFMulti with one flow (%v, %v) differs from TaylorF (%v, %v)", mm, mv, fm, fv)
	}
}

// TestSaturationExample is section 5.6's example: b = 2 on a 5-hop path keeps
// the hops with probability 3/16, 3/16, 3/16, 3/16, 1/4 and the expected
// weighted counts are 9/16, 9/16, 9/16, 9/16, 12/16.
func TestSaturationExample(t *testing.T) {
	s, err := Saturation(5, 2, nil)
	must(t, err)
	wantP := []string{"3/16", "3/16", "3/16", "3/16", "1/4"}
	wantE := []string{"9/16", "9/16", "9/16", "9/16", "3/4"}
	for j := range 5 {
		if s.P[j].RatString() != wantP[j] || s.Expected[j].RatString() != wantE[j] {
			t.Errorf("hop %d: P = %s, expected weighted count %s; want %s, %s", j+1, s.P[j].RatString(), s.Expected[j].RatString(), wantP[j], wantE[j])
		}
	}
	if s.None.Sign() != 0 || s.Weight != 3 {
		t.Errorf("empty with probability %s, weight %d", s.None.RatString(), s.Weight)
	}
	// Without saturation every hop is 1/l and unbiased.
	u, _ := Saturation(7, 3, nil)
	for j := range 7 {
		if u.Expected[j].Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("b=3, l=7, hop %d: expected weighted count %s, want 1", j+1, u.Expected[j].RatString())
		}
	}
}

// biased answers "zero" with probability 1/(l+1): a stand-in for a hardware
// generator whose P0 differs from 1/l, to show the selection follows any P0.
type biased struct{ *rng.Ideal }

func (b biased) Draw(l int) bool { return b.Ideal.Draw(l + 1) }

// TestSelectionMonteCarlo checks the exact selection distributions by
// simulation through the model (full-ID scheme, so the sampled hop is read
// back): the 9/16 example, a generator with P0(l) = 1/(l+1), and spent sender
// draws (L = 3 on 5 hops). Per hop, the weighted count's sample mean is
// z-tested against Expected (each packet adds w with probability P(j)), and
// the hop frequencies pass a chi-square goodness-of-fit test, at alpha = 1e-4.
func TestSelectionMonteCarlo(t *testing.T) {
	const reps, l = 200000, 5
	for _, tc := range []struct {
		name   string
		bits   int
		sender int
		gen    func() rng.Generator
		p0     func(int) *big.Rat
	}{
		{"b=2 ideal", 2, 0, func() rng.Generator { return rng.NewIdeal(5, 8) }, nil},
		{"b=3 P0=1/(l+1)", 3, 0, func() rng.Generator { return biased{rng.NewIdeal(6, 16)} }, func(l int) *big.Rat { return big.NewRat(1, int64(l+1)) }},
		{"sender L=3", 0, 3, nil, nil},
	} {
		c := DefaultConfig()
		c.Telemetry.Scheme, c.Telemetry.Placement = header.FullID, header.PlaceFooter
		c.Telemetry.CountBits = tc.bits
		if tc.sender > 0 {
			c.Telemetry.SenderL, c.Generator = tc.sender, GeneratorSender
		}
		m := mustModel(t, c)
		sel, err := c.SelectionFor(l, tc.p0)
		must(t, err)
		var g rng.Generator
		if tc.gen != nil {
			g = tc.gen()
		}
		nic := rng.NewIdeal(77, 8)
		hops := make([]Hop, l)
		for j := range hops {
			hops[j] = Hop{Link: Link{uint16(j + 1), 1}, Gen: g}
		}
		counts := make([]float64, l+1) // [0]: empty
		for i := range reps {
			var n rng.Generator
			if tc.sender > 0 {
				n = nic
			}
			s, err := m.Walk(uint32(i), hops, n)
			must(t, err)
			if int64(s.HopCount) != sel.Weight {
				t.Fatalf("%s: weight %d, want %d", tc.name, s.HopCount, sel.Weight)
			}
			counts[s.HopLink.Switch]++
		}
		w := float64(sel.Weight)
		chi2 := 0.0
		df := -1
		for j, p := range sel.Floats() {
			ex, _ := sel.Expected[j].Float64()
			a := &meanVar{n: reps, sum: w * counts[j+1], sumSq: w * w * counts[j+1]}
			checkMean(t, tc.name+": weighted count of hop "+string(rune('1'+j)), a, ex, w*w*p-ex*ex)
			if p > 0 {
				chi2 += (counts[j+1] - reps*p) * (counts[j+1] - reps*p) / (reps * p)
				df++
			} else if counts[j+1] != 0 {
				t.Errorf("%s: hop %d selected %v times, probability 0", tc.name, j+1, counts[j+1])
			}
		}
		if lim := (distuv.ChiSquared{K: float64(df)}).Quantile(1 - alpha); chi2 > lim {
			t.Errorf("%s: chi-square %.2f over %d degrees of freedom exceeds %.2f", tc.name, chi2, df, lim)
		}
	}
}

// TestSelectionWithHardwareP0: Config.P0 hands the registry generator's
// closed-form P0 to the exact selection, which then differs from the ideal
// one and still sums to one.
func TestSelectionWithHardwareP0(t *testing.T) {
	c := DefaultConfig()
	c.Generator = "lfsr-lut/b8"
	p0, err := c.P0()
	must(t, err)
	if p0 == nil {
		t.Fatal("no P0 for lfsr-lut/b8")
	}
	s, err := c.SelectionFor(7, p0)
	must(t, err)
	ideal, _ := c.SelectionFor(7, nil)
	sum := new(big.Rat).Set(s.None)
	differs := false
	for j := range s.P {
		sum.Add(sum, s.P[j])
		differs = differs || s.P[j].Cmp(ideal.P[j]) != 0
	}
	if sum.Cmp(big.NewRat(1, 1)) != 0 || !differs {
		t.Errorf("selection under lfsr-lut/b8: total %s, differs from ideal %t", sum.RatString(), differs)
	}
	if f, _ := DefaultConfig().P0(); f != nil {
		t.Error("the ideal generator should use 1/l (nil)")
	}
}

// The congested fraction's exact law (OneReservoirRatio) against the model
// itself: model moments' default case (a link at hop 1 of 5-hop paths, Q =
// 200, N = 120, M = 60 congested on 2 hops) walked 4000 times with SipHash.
// P(W_d <= 0) and P(F outside [0, 1] | W_d > 0) are z-tested as
// proportions, E[F | W_d > 0] as a mean (with the exact law's variance), and
// Var[F | W_d > 0] with the sample variance's own standard error,
// sqrt((mu4 - sigma^4)/n) from the exact fourth moment (F is heavy-tailed
// near W_d = 0, so a normal-theory interval would be wrong). The
// delta method's variance (RatioMoments) is far from it here, which is why
// model moments prints the exact law beside it. The simulated law (the
// fallback for large Q) agrees with the exact one.
func TestOneReservoirRatio(t *testing.T) {
	flags := []bool{true, true, false, false, false}
	classes := []PathClass{
		{Packets: 60, Len: 5, At: 1, Congested: flags},
		{Packets: 60, Len: 5, At: 1},
		{Packets: 80, Len: 5},
	}
	law, err := OneReservoirRatio(classes, IdealSelection, DefaultRatioWork, 0, 1)
	must(t, err)
	if law.Method != "exact" {
		t.Fatalf("method %s, want exact", law.Method)
	}
	const reps = 4000
	f := &meanVar{}
	nonPos, outside := 0, 0
	walkScenario(t, sipConfig(header.OneReservoir, 8), classes, reps, 31, func(w, cg int64) {
		if w <= 0 {
			nonPos++
			return
		}
		fr := float64(cg) / float64(w)
		f.add(fr)
		if fr < 0 || fr > 1 {
			outside++
		}
	})
	p := float64(nonPos) / reps
	if z := (p - law.PNonPositive) / math.Sqrt(law.PNonPositive*(1-law.PNonPositive)/reps); math.Abs(z) > zCrit {
		t.Errorf("P(W <= 0): walked %.4f, exact %.4f (z = %.2f)", p, law.PNonPositive, z)
	}
	checkMean(t, "E[C/W | W > 0]", f, law.Mean, law.Var)
	if z := (f.variance() - law.Var) / math.Sqrt((law.M4-law.Var*law.Var)/f.n); math.Abs(z) > zCrit {
		t.Errorf("Var[C/W | W > 0]: walked %.4f, exact %.4f (z = %.2f)", f.variance(), law.Var, z)
	}
	po := float64(outside) / f.n
	if z := (po - law.POutside) / math.Sqrt(law.POutside*(1-law.POutside)/f.n); math.Abs(z) > zCrit {
		t.Errorf("P(F outside [0, 1] | W > 0): walked %.4f, exact %.4f (z = %.2f)", po, law.POutside, z)
	}
	one, err := OneReservoirMoments(classes, IdealSelection)
	must(t, err)
	_, dv := RatioMoments(one)
	if dv > law.Var/3 {
		t.Errorf("delta-method variance %.3f is not far from the exact %.3f: the example no longer shows the point", dv, law.Var)
	}
	sim, err := OneReservoirRatio(classes, IdealSelection, 0, 200000, 5)
	must(t, err)
	if sim.Method != "simulated" || math.Abs(sim.Mean-law.Mean) > 4*math.Sqrt(law.Var/2e5) ||
		math.Abs(sim.PNonPositive-law.PNonPositive) > 4*math.Sqrt(law.PNonPositive/2e5) || math.Abs(sim.Var/law.Var-1) > 0.05 {
		t.Errorf("simulated %+v, exact %+v", sim, law)
	}
	t.Logf("exact: P(W<=0) %.4f, E[F|W>0] %.4f, Var %.4f, outside %.4f, CV[W] %.3f; walked: P %.4f, mean %.4f, var %.4f, outside %.4f; delta-method variance %.4f",
		law.PNonPositive, law.Mean, law.Var, law.POutside, law.CV, p, f.mean(), f.variance(), po, dv)
}
