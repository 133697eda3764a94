// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/hash"
)

// The decode family's power. A zero-traffic link whose count is pushed
// towards the threshold by the same deviation m in every window (a rotation
// alignment, a correlated pair) is reported at the rate
//
//	f = Phibar((z_thr - t*sqrt(rho)) / sqrt(1 - rho)),   z_thr = (L/l)*Phi^-1(p),
//
// where rho = sum_j q_j^2 is the share of a window's variance that the ids
// decide (an ideal hash: E[S_i^2] = sum_j q_j^2) and t = m/sqrt(Q*rho) is the
// deviation in units of its ideal spread; the test's per-window statistic
// is then t^2, and over K windows its sum is a noncentral chi2(K, K*t^2).
// (A deviation that changes sign from window to window reaches the same f
// only with a larger sum of squares: the constant one is the hardest to
// see.) The test rejects when the largest sum over the links exceeds the
// chi2(K) quantile at Sidak's per-link level for the family's Holm level,
// alpha/N for N decode tests at worst. decodePower turns that into the
// number of windows a window size needs to find a link at twice the ideal
// hash's worst-link rate with probability decodePowerGoal, and into the
// rate it finds with the windows it has.

// decodePowerGoal is the probability with which a window size must find a
// zero-traffic link at twice the ideal hash's worst-link rate.
const decodePowerGoal = 0.9

// idealWorstFP is the ideal hash's worst zero-traffic link's false-positive
// rate at windows of 2^k packets as measured with one stream of 2^22 packets
// per workload (1024 windows at 2^12 down to one at 2^22; section 5.3's 401
// links, 96 to 200 of them without traffic): the baseline a sound hash is
// held to, and half the rate the decode family must detect. 2^14 and 2^18
// are the geometric means of their neighbours.
func idealWorstFP(k int) float64 {
	table := map[int]float64{12: 0.0106, 14: 0.0115, 16: 0.0125, 18: 0.0166, 20: 0.022, 22: 0.040}
	if f, ok := table[k]; ok {
		return f
	}
	if k < 12 {
		return table[12]
	}
	return table[22]
}

// A powerModel is what a workload's power depends on.
type powerModel struct {
	rho   float64 // sum_j q_j^2
	zThr  float64 // the threshold over sqrt(Q): (L/l)*Phi^-1(p)
	level float64 // the per-link level: Sidak's share of alpha/N
}

func newPowerModel(w *workload, p, alpha float64, tests int) powerModel {
	var rho float64
	for _, u := range w.units {
		q := float64(u) / float64(w.denom)
		rho += q * q
	}
	fam := alpha / float64(max(1, tests))
	return powerModel{
		rho:   rho,
		zThr:  float64(w.diam) / float64(w.pathLen) * distuv.UnitNormal.Quantile(p),
		level: -math.Expm1(math.Log1p(-fam) / float64(len(w.set.Links))),
	}
}

// t2 is the per-window statistic of a link reported at rate f in every
// window (0 when f is at most the rate of a link without deviation).
func (pm powerModel) t2(f float64) float64 {
	t := (pm.zThr - math.Sqrt(1-pm.rho)*distuv.UnitNormal.Quantile(1-f)) / math.Sqrt(pm.rho)
	if t <= 0 {
		return 0
	}
	return t * t
}

// rate is the false-positive rate of a link with per-window statistic t2.
func (pm powerModel) rate(t2 float64) float64 {
	return distuv.UnitNormal.Survival((pm.zThr - math.Sqrt(t2*pm.rho)) / math.Sqrt(1-pm.rho))
}

// power is the probability that K windows find a link at rate f.
func (pm powerModel) power(K int, f float64) float64 {
	crit := distuv.ChiSquared{K: float64(K)}.Quantile(1 - pm.level)
	return noncentralChi2Survival(crit, K, float64(K)*pm.t2(f))
}

// windowsNeeded is the least number of windows that find a link at rate f
// with probability decodePowerGoal (at most limit; limit+1 when even that
// does not).
func (pm powerModel) windowsNeeded(f float64, limit int) int {
	for K := 1; K <= limit; K++ {
		if pm.power(K, f) >= decodePowerGoal {
			return K
		}
	}
	return limit + 1
}

// detectable is the least false-positive rate that K windows find with
// probability decodePowerGoal.
func (pm powerModel) detectable(K int) float64 {
	lo, hi := 1-distuv.UnitNormal.CDF(pm.zThr/math.Sqrt(1-pm.rho)), 1.0
	for range 24 { // to 2^-24 of the range, far below the rates quoted
		mid := (lo + hi) / 2
		if pm.power(K, mid) >= decodePowerGoal {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

type detectKey struct {
	pm powerModel
	K  int
}

// noncentralChi2Survival is P(X > x) for X ~ chi2(k, lambda): the Poisson
// mixture of central chi2(k + 2j), j ~ Poisson(lambda/2), summed from the
// mode out until the weights vanish.
func noncentralChi2Survival(x float64, k int, lambda float64) float64 {
	if lambda == 0 {
		return distuv.ChiSquared{K: float64(k)}.Survival(x)
	}
	h := lambda / 2
	mode := int(h)
	term := func(j int) float64 {
		lw := -h + float64(j)*math.Log(h) - lgamma(float64(j)+1)
		return math.Exp(lw) * distuv.ChiSquared{K: float64(k + 2*j)}.Survival(x)
	}
	weight := func(j int) float64 { return math.Exp(-h + float64(j)*math.Log(h) - lgamma(float64(j)+1)) }
	s := 0.0
	for j := mode; ; j++ {
		s += term(j)
		if weight(j) < 1e-14 && j > mode+10 {
			break
		}
	}
	for j := mode - 1; j >= 0; j-- {
		s += term(j)
		if weight(j) < 1e-14 {
			break
		}
	}
	return min(1, s)
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// A DecodePower is one window size's power on the workloads: its windows
// per workload and the false-positive rate of a zero-traffic link that they
// find with probability decodePowerGoal, beside the rate they must find
// (twice the ideal hash's worst link).
type DecodePower struct {
	Window     int     `json:"window"`      // log2 of the window size
	Windows    int     `json:"windows"`     // per long workload (several streams)
	WindowsMin int     `json:"windows_min"` // per other workload (one stream)
	Target     float64 `json:"target"`      // 2 x the ideal hash's worst-link rate
	Detectable float64 `json:"detectable"`  // found with decodePowerGoal on every long workload
	WorstCase  float64 `json:"worst_case"`  // the same on every other workload
}

func (p DecodePower) String() string {
	s := fmt.Sprintf("%s: %s, a zero-traffic link at %.3g%% found with %.0f%% probability (target %.3g%%: twice the ideal hash's worst link)",
		windowName(p.Window), plural(p.Windows, "window"), 100*p.Detectable, 100*decodePowerGoal, 100*p.Target)
	if p.WindowsMin != p.Windows {
		s += fmt.Sprintf("; on the workloads run as one stream, %s, %.3g%%", plural(p.WindowsMin, "window"), 100*p.WorstCase)
	}
	return s
}

// estimateDecodeTests is the number of decode tests the plan will hold,
// for Holm's strictest level (alpha over all of them): every built-in
// hash on every id option, link encoding and workload at each of its window
// sizes, and every generator at every width on two routings (twice with
// lockstep).
func (b *Battery) estimateDecodeTests(loads int) int {
	sz := b.cfg.Size
	n := 0
	for _, name := range b.cfg.Hashes {
		k, err := hash.ParseKind(name)
		if err != nil {
			continue
		}
		maxBits := sz.DecodeMaxBits
		if !hasForm(hash.New(k)) {
			maxBits = min(maxBits, sz.DecodeSlowBits)
		}
		n += len(sz.decodeWindows(maxBits)) * len(b.cfg.IDs) * len(b.cfg.Links) * loads
	}
	per := 2
	if b.cfg.Lockstep {
		per = 4
	}
	return n + len(b.cfg.Generators)*len(b.cfg.CountBits)*per
}

// decodeRuns is the number of streams of 2^runBits packets a hash test runs
// on workload w: one, or on a long workload as many as the window size that
// needs the most asks for (its windows needed for twice the ideal hash's
// worst-link rate, over the windows one stream gives), at most
// Size.DecodeRuns and at most as many as its flows carry without repeating
// a PSN (workload.maxStreams).
func (b *Battery) decodeRuns(w *workload, ks []int, runBits int) int {
	if !w.long {
		return 1
	}
	key := runsKey{w, runBits}
	if r, ok := b.runsCache[key]; ok {
		return r
	}
	if b.runsCache == nil {
		b.runsCache = map[runsKey]int{}
	}
	r := b.decodeRunsOf(w, ks, runBits)
	b.runsCache[key] = r
	return r
}

type runsKey struct {
	w       *workload
	runBits int
}

func (b *Battery) decodeRunsOf(w *workload, ks []int, runBits int) int {
	limit := b.cfg.Size.DecodeRuns
	pm := newPowerModel(w, b.cfg.Decode.P, b.cfg.Alpha, b.decodeTests)
	runs := 1
	for _, k := range ks {
		per := 1 << (runBits - k)
		need := pm.windowsNeeded(2*idealWorstFP(k), limit*per)
		runs = max(runs, (need+per-1)/per)
	}
	return min(runs, limit, w.maxStreams(runBits))
}

// powerTable is each window size's power over the workloads, for the
// structured hashes' stream length (2^DecodeMaxBits): the windows on a
// long workload and on the others, and the rate each finds with
// decodePowerGoal (at the workload whose power is least).
func (b *Battery) powerTable(loads []*workload) []DecodePower {
	sz := b.cfg.Size
	ks := sz.decodeWindows(sz.DecodeMaxBits)
	if len(ks) == 0 || len(loads) == 0 {
		return nil
	}
	runBits := ks[len(ks)-1]
	var out []DecodePower
	for _, k := range ks {
		per := 1 << (runBits - k)
		p := DecodePower{Window: k, Target: 2 * idealWorstFP(k)}
		seen := map[detectKey]float64{}
		for _, w := range loads {
			pm := newPowerModel(w, b.cfg.Decode.P, b.cfg.Alpha, b.decodeTests)
			K := b.decodeRuns(w, ks, runBits) * per
			key := detectKey{pm, K}
			f, ok := seen[key]
			if !ok {
				f = pm.detectable(K)
				seen[key] = f
			}
			switch {
			case w.long && f > p.Detectable:
				p.Windows, p.Detectable = K, f
			case !w.long && f > p.WorstCase:
				p.WindowsMin, p.WorstCase = K, f
			}
		}
		switch {
		case p.Windows == 0:
			p.Windows, p.Detectable = p.WindowsMin, p.WorstCase
		case p.WindowsMin == 0:
			p.WindowsMin, p.WorstCase = p.Windows, p.Detectable
		}
		out = append(out, p)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
