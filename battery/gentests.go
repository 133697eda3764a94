// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// A GeneratorSpec is a generator under test: a name and a constructor with
// the signature of rng.New.
type GeneratorSpec struct {
	Name string
	New  func(seed uint64, maxL int) (rng.Generator, error)
	// PerPacket says the generator's state travels with the packet (the
	// sender draws of section 5.9): one generator serves every hop of a
	// packet's path, and there is no per-port seeding to put in lockstep.
	PerPacket bool
}

// DefaultGenerators lists every generator kind of package rng (rng.Names).
func DefaultGenerators() []string { return rng.Names() }

func builtinGenerators() map[string]GeneratorSpec {
	m := map[string]GeneratorSpec{}
	for _, n := range rng.Names() {
		n := n
		m[n] = GeneratorSpec{Name: n, PerPacket: n == refmodel.GeneratorSender,
			New: func(s uint64, maxL int) (rng.Generator, error) { return rng.New(n, s, maxL) }}
	}
	return m
}

// maxL is the largest l any configured count width asks for: a b-bit count
// saturates at 2^b-1 and the draw is for count+1.
func (b *Battery) maxL() int {
	m := 0
	for _, w := range b.cfg.CountBits {
		m = max(m, 1<<w)
	}
	return m
}

// Seed tags of the generator tests.
const (
	tagLockstep uint64 = 0x10C5 // every port of a lockstep path takes this seed
)

// p0Of returns the generator's exact P0(l) if it knows it (rng.Exact).
func p0Of(g rng.Generator, l int) (*big.Rat, bool) {
	if e, ok := g.(rng.Exact); ok {
		return e.P0(l), true
	}
	return nil, false
}

// planGenerator adds the tests of one generator.
func (b *Battery) planGenerator(gs GeneratorSpec) error {
	sz := b.cfg.Size
	L := b.maxL()
	// One instance built here, so that a generator that cannot be built fails
	// the plan, before any work (newGen panics on one that fails later).
	if _, err := gs.New(seed.Derive(b.cfg.Seed, tagBattery), L); err != nil {
		return fmt.Errorf("generator %s: %w", gs.Name, err)
	}
	for l := 1; l <= L; l++ {
		subj := Subject{Generator: gs.Name, L: l}
		b.planP0(gs, subj, l)
		{
			// The exact binomial test: zeros in a long stream of draws for l.
			t := &testSpec{name: "binomial", group: "generator", subject: subj, chunks: 1, counts: 2, limit: func(int) uint64 { return uint64(sz.Draws) }}
			t.run = func(c int, a *Acc) {
				g := b.newGen(gs, t, c, L)
				for range sz.Draws {
					if g.Draw(l) {
						a.Counts[0]++
					}
				}
				a.Counts[1] = uint64(sz.Draws)
			}
			t.final = func(a Acc) Result {
				return binomialFamily(a.Counts, 1/float64(l), "zeros", func(int) string {
					return fmt.Sprintf("%d draws for l=%d", sz.Draws, l)
				})
			}
			b.add(t)
		}
		if l >= 2 {
			b.planGap(gs, subj, l)
		}
		if l >= 3 {
			b.planHopIndependence(gs, Subject{Generator: gs.Name, L: l}, l, "")
			if b.cfg.Lockstep && !gs.PerPacket {
				b.planHopIndependence(gs, Subject{Generator: gs.Name + lockstepSuffix, L: l}, l, "lockstep")
			}
		}
	}
	return nil
}

// lockstepSuffix marks the lockstep variant of a generator in subjects and
// combinations.
const lockstepSuffix = "+lockstep"

func (b *Battery) newGen(gs GeneratorSpec, t *testSpec, chunk, maxL int) rng.Generator {
	g, err := gs.New(seed.Derive(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(chunk)), maxL)
	if err != nil {
		panic(fmt.Sprintf("battery: generator %s failed after succeeding at plan time: %v", gs.Name, err))
	}
	return g
}

// planP0 adds the exact check of P0(l): the generator's closed form
// (rng.Exact), cross-checked by enumerating a whole period of draws for l
// where the state space is small enough, against 1/l within MaxBias.
func (b *Battery) planP0(gs GeneratorSpec, subj Subject, l int) {
	sz := b.cfg.Size
	L := b.maxL()
	// counts: exact (1 if rng.Exact), its numerator and denominator (when they
	// fit 64 bits), enumerated (1 if a period was found), zeros, period.
	t := &testSpec{name: "p0-exact", group: "generator", subject: subj, check: true, chunks: 1, counts: 6}
	t.limit = func(int) uint64 { return 0 }
	t.vet = func(_ int, a Acc) error {
		c := a.Counts
		switch {
		case c[0] > 1 || c[3] > 1:
			return fmt.Errorf("flags %d and %d are not 0 or 1", c[0], c[3])
		case c[0] == 1 && (c[2] == 0 || c[1] > c[2]):
			return fmt.Errorf("P0 = %d/%d is not a probability", c[1], c[2])
		case c[4] > c[5] || c[5] > uint64(sz.EnumLimit):
			return fmt.Errorf("%d zeros in a period of %d draws (enumerated up to %d)", c[4], c[5], sz.EnumLimit)
		}
		return nil
	}
	t.run = func(c int, a *Acc) {
		g := b.newGen(gs, t, c, L)
		if r, ok := p0Of(g, l); ok && r.Num().IsUint64() && r.Denom().IsUint64() {
			a.Counts[0], a.Counts[1], a.Counts[2] = 1, r.Num().Uint64(), r.Denom().Uint64()
		}
		if g.StateBits() > 32 && a.Counts[0] == 1 {
			return // a closed form, and too many states to walk
		}
		start := g.State()
		for n := 1; n <= sz.EnumLimit; n++ {
			if g.Draw(l) {
				a.Counts[4]++
			}
			if slices.Equal(g.State(), start) {
				a.Counts[3], a.Counts[5] = 1, uint64(n)
				return
			}
		}
		a.Counts[4] = 0
	}
	t.final = func(a Acc) Result {
		var p *big.Rat
		var how []string
		if a.Counts[0] == 1 && a.Counts[2] > 0 {
			p = new(big.Rat).SetFrac(new(big.Int).SetUint64(a.Counts[1]), new(big.Int).SetUint64(a.Counts[2]))
			how = append(how, "closed form "+p.RatString())
		}
		if a.Counts[3] == 1 && a.Counts[5] > 0 {
			e := new(big.Rat).SetFrac(new(big.Int).SetUint64(a.Counts[4]), new(big.Int).SetUint64(a.Counts[5]))
			how = append(how, fmt.Sprintf("enumerated %d zeros in a period of %d draws = %s", a.Counts[4], a.Counts[5], e.RatString()))
			if p != nil && p.Cmp(e) != 0 {
				return Result{Verdict: Fail, Statistic: "l*P0 - 1", Value: Float(math.NaN()), Counts: counts6(a),
					Detail: fmt.Sprintf("l=%d: the closed form %s disagrees with the enumeration %s", l, p.RatString(), e.RatString())}
			}
			p = e
		}
		if p == nil {
			return Result{Verdict: Invalid, Statistic: "l*P0 - 1", Value: Float(math.NaN()), Counts: counts6(a),
				Detail: fmt.Sprintf("l=%d: no exact P0: the generator has no closed form (rng.Exact) and no period within %d draws", l, sz.EnumLimit)}
		}
		bias := new(big.Rat).Sub(new(big.Rat).Mul(p, big.NewRat(int64(l), 1)), big.NewRat(1, 1))
		bf, _ := bias.Float64()
		v := Pass
		if math.Abs(bf) > b.cfg.MaxBias {
			v = Fail
		}
		return Result{Verdict: v, Statistic: "l*P0 - 1", Value: Float(bf), Counts: counts6(a),
			Detail: fmt.Sprintf("l=%d: P0 = %s (%s); relative bias l*P0-1 = %.3g, allowed %.3g", l, p.RatString(), joinComma(how), bf, b.cfg.MaxBias)}
	}
	b.add(t)
}

func counts6(a Acc) []Count {
	return []Count{{"closed_form", a.Counts[0]}, {"p0_num", a.Counts[1]}, {"p0_den", a.Counts[2]},
		{"enumerated", a.Counts[3]}, {"period_zeros", a.Counts[4]}, {"period", a.Counts[5]}}
}

// planGap adds the gap test: the numbers of non-zero draws between
// consecutive zeros must be geometric with parameter P0 (the generator's
// exact P0, so that a biased rate fails the binomial test, not this one). A
// circulating shift register has the right rate but constant gaps. The P0 is
// that of the very generator the test draws from (its one chunk's, built here
// as the run builds it): a free-running shift register's P0 depends on its
// state, so another instance's would be the wrong null.
func (b *Battery) planGap(gs GeneratorSpec, subj Subject, l int) {
	sz := b.cfg.Size
	L := b.maxL()
	t := &testSpec{name: "gap", group: "generator", subject: subj, chunks: 1, limit: func(int) uint64 { return uint64(sz.Draws) }}
	p := 1 / float64(l)
	if r, ok := p0Of(b.newGen(gs, t, 0, L), l); ok {
		p, _ = r.Float64()
	}
	// Bins 0..J-1 and a tail >= J, J the largest with an expected tail count
	// of at least 5 (at most 64 bins).
	gaps := float64(sz.Draws) * p
	J := 1
	for J < 63 && gaps*math.Min(p*math.Pow(1-p, float64(J)), math.Pow(1-p, float64(J+1))) >= 5 {
		J++
	}
	probs := make([]float64, J+1)
	for j := range J {
		probs[j] = math.Pow(1-p, float64(j)) * p
	}
	probs[J] = math.Pow(1-p, float64(J))
	t.counts = J + 1
	t.run = func(c int, a *Acc) {
		g := b.newGen(gs, t, c, L)
		gap, started := 0, false
		for range sz.Draws {
			if g.Draw(l) {
				if started {
					a.Counts[min(gap, J)]++
				}
				started, gap = true, 0
				continue
			}
			gap++
		}
	}
	t.final = func(a Acc) Result {
		r := chiFamily(a.Counts, probs, func(int) string { return fmt.Sprintf("gaps between zeros of %d draws for l=%d", sz.Draws, l) })
		if r.Verdict != Invalid {
			r.Statistic = fmt.Sprintf("chi2(%d)", J)
			r.Detail = fmt.Sprintf("l=%d, P0=%.6g: gap counts 0..%d and tail: %v", l, p, J-1, a.Counts)
		}
		return r
	}
	b.add(t)
}

// planHopIndependence adds the test of independence between the draws of
// hops l-1 and l of one packet. Hop j of a path draws for l = j (its count is
// j-1); each hop is a different switch's port generator, seeded as
// docs/spec.md section 6 says (refmodel's Config.PortSeed), or, in the
// lockstep scenario, all with one seed, the case section 5.9's free-running
// registers risk. A per-packet generator (the sender draws) serves every hop
// of the packet itself.
func (b *Battery) planHopIndependence(gs GeneratorSpec, subj Subject, l int, scenario string) {
	sz := b.cfg.Size
	L := b.maxL()
	t := &testSpec{name: "hop-independence", group: "generator", subject: subj, scenario: scenario, chunks: 1, counts: 4,
		limit: func(int) uint64 { return uint64(sz.HopPackets) }}
	t.run = func(c int, a *Acc) {
		run := seed.Derive(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(c))
		gens := make([]rng.Generator, l+1)
		for j := 1; j <= l; j++ {
			s := refmodel.Config{Seed: run}.PortSeed(uint16(j), 1)
			if scenario == "lockstep" {
				s = seed.Derive(run, tagLockstep)
			}
			if gs.PerPacket && j > 1 {
				gens[j] = gens[1]
				continue
			}
			g, err := gs.New(s, L)
			if err != nil {
				panic(fmt.Sprintf("battery: generator %s: %v", gs.Name, err))
			}
			gens[j] = g
		}
		for range sz.HopPackets {
			var prev, cur bool
			for j := 1; j <= l; j++ {
				z := gens[j].Draw(j)
				if j == l-1 {
					prev = z
				}
				cur = z
			}
			a.Counts[0]++
			if prev {
				a.Counts[1]++
			}
			if cur {
				a.Counts[2]++
			}
			if prev == cur {
				a.Counts[3]++
			}
		}
	}
	t.final = func(a Acc) Result {
		return pairFamily(a.Counts, func(int) string {
			return fmt.Sprintf("the draws of hops %d and %d over %d packets", l-1, l, sz.HopPackets)
		})
	}
	b.add(t)
}
