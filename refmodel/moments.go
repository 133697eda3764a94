// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Analytic moments of the estimators, for the statistical battery and the
// simulator. Sections 3.3 and 5.3 of the thesis derive them for the full-ID
// and two-reservoir schemes under an ideal generator and a hash that behaves
// like independent fair coins; the one-reservoir scheme's are derived in
// docs/onereservoir-moments.md (section 6.1 leaves them open). Every formula
// here is confirmed by a seeded Monte Carlo test in moments_test.go.

// A PathClass is a group of packets that share a path length, whether and
// where they cross the link d under study, and which of their hops are
// congested.
type PathClass struct {
	Packets   int64  // packets in the class
	Len       int    // path length l (hops)
	At        int    // position of d on the path, 1..Len; 0 when the path does not cross d
	Congested []bool // Congested[j-1]: hop j is congested for these packets; nil for none
}

func (p PathClass) validate() error {
	if p.Packets < 0 || p.Len < 1 || p.At < 0 || p.At > p.Len {
		return fmt.Errorf("path class %+v: want packets >= 0, length >= 1 and 0 <= at <= length", p)
	}
	if p.Congested != nil && len(p.Congested) != p.Len {
		return fmt.Errorf("path class %+v: %d congestion flags for %d hops", p, len(p.Congested), p.Len)
	}
	return nil
}

func (p PathClass) congested(j int) bool { return p.Congested != nil && p.Congested[j-1] }

// Moments are the means and variances of a link's weighted count W and
// weighted congested count C, and their covariance.
type Moments struct {
	MeanW, VarW float64
	MeanC, VarC float64
	CovWC       float64
}

// FullIDMoments is section 3.3: N packets on paths of length l through e give
// W = l*R, R ~ Binomial(N, 1/l): E[W] = N, Var[W] = N(l-1).
func FullIDMoments(n int64, l int) (mean, variance float64) {
	return float64(n), float64(n) * float64(l-1)
}

// FullIDMomentsMulti is section 3.3's sum over flows of lengths l_i:
// E[W] = sum N_i, Var[W] = sum N_i(l_i - 1).
func FullIDMomentsMulti(n []int64, l []int) (mean, variance float64) {
	for i := range n {
		m, v := FullIDMoments(n[i], l[i])
		mean += m
		variance += v
	}
	return mean, variance
}

// ProbMoments is section 5.3: with Q packets that might have crossed d, N of
// which did, on paths of length l: E[W_d] = N, Var[W_d] = Q*l^2 - N.
func ProbMoments(n, q int64, l int) (mean, variance float64) {
	return float64(n), float64(q)*float64(l)*float64(l) - float64(n)
}

// ProbMomentsMulti is section 5.3's sum over path lengths:
// E[W_d] = sum N_l, Var[W_d] = sum Q_l*l^2 - N_l.
func ProbMomentsMulti(n, q []int64, l []int) (mean, variance float64) {
	for i := range n {
		m, v := ProbMoments(n[i], q[i], l[i])
		mean += m
		variance += v
	}
	return mean, variance
}

// TaylorF is section 3.3's estimate of the congested fraction F = C/W for the
// full-ID scheme: M of N packets on one path of length l congested on g hops
// including e,
//
//	E[F]   ~ M/N + M(l-1)/N^2 - M(l-1)(l-2)/N^3
//	Var[F] ~ (M^2/N^2) * ((g-1)/M + (l-1)/N)
func TaylorF(m, n int64, g, l int) (mean, variance float64) {
	M, N, G, L := float64(m), float64(n), float64(g), float64(l)
	mean = M/N + M*(L-1)/(N*N) - M*(L-1)*(L-2)/(N*N*N)
	variance = M * M / (N * N) * ((G-1)/M + (L-1)/N)
	return mean, variance
}

// TaylorFMulti is the multi-path form of section 3.3: flows i of N_i packets on
// paths of length l_i, M_i of them congested on g_i hops including e.
func TaylorFMulti(m, n []int64, g, l []int) (mean, variance float64) {
	var M, N, s1, s2, s3 float64
	for i := range n {
		M += float64(m[i])
		N += float64(n[i])
		s1 += float64(n[i]) * float64(l[i]-1)
		s2 += float64(n[i]) * float64(l[i]-1) * float64(l[i]-2)
		s3 += float64(m[i]) * float64(g[i]-1)
	}
	mean = M/N + M*s1/(N*N*N) - M*s2/(N*N*N*N)
	variance = M * M / (N * N) * (s3/(M*M) + s1/(N*N))
	return mean, variance
}

// RatioMoments is the second-order (delta-method) estimate of the mean and
// variance of C/W from the moments of C and W, covariance included:
//
//	E[C/W]   ~ mu_C/mu_W - Cov/mu_W^2 + mu_C*Var[W]/mu_W^3
//	Var[C/W] ~ (mu_C/mu_W)^2 * (Var[C]/mu_C^2 + Var[W]/mu_W^2 - 2 Cov/(mu_C mu_W))
func RatioMoments(m Moments) (mean, variance float64) {
	r := m.MeanC / m.MeanW
	mean = r - m.CovWC/(m.MeanW*m.MeanW) + m.MeanC*m.VarW/(m.MeanW*m.MeanW*m.MeanW)
	variance = r * r * (m.VarC/(m.MeanC*m.MeanC) + m.VarW/(m.MeanW*m.MeanW) - 2*m.CovWC/(m.MeanC*m.MeanW))
	return mean, variance
}

// OneReservoirMoments gives the moments of a link's counts W_d and congested
// counts C_d under the one-reservoir scheme (Alg. 8-9), derived in
// docs/onereservoir-moments.md. Every packet in classes is one the receiver
// decodes against d (the Q packets that might have crossed it). sel gives the
// selection of an l-hop path (the hop distribution P and weight w; use
// Config.SelectionFor); with the ideal generator and no saturation, P(j) = 1/l
// and w = l. Per packet, with pi_j = P(j), c_j its congestion flags and a the
// position of d (pi_a = c_a = 0 when it does not cross d):
//
//	E[Y] = w pi_a                 Y: its contribution to W_d
//	E[X] = w pi_a c_a             X: its contribution to C_d
//	E[Y^2] = w^2
//	E[X^2] = E[XY] = w^2 sum_j pi_j c_j
//
// and W_d, C_d are sums over independent packets. Without saturation:
//
//	E[W_d] = N      Var[W_d] = Q l^2 - N           (section 5.3's, unchanged)
//	E[C_d] = M      Var[C_d] = l G - M             G = sum over the Q packets of their congested hops
//	                Cov(W_d, C_d) = l G - M
//
// where M counts the packets congested at d.
func OneReservoirMoments(classes []PathClass, sel func(l int) (Selection, error)) (Moments, error) {
	var m Moments
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return m, err
		}
		s, err := sel(c.Len)
		if err != nil {
			return m, err
		}
		if s.Len != c.Len {
			return m, fmt.Errorf("selection for %d hops has %d", c.Len, s.Len)
		}
		pi := s.Floats()
		w := float64(s.Weight)
		var piA, cA, sumPiC float64
		if c.At > 0 {
			piA = pi[c.At-1]
			if c.congested(c.At) {
				cA = 1
			}
		}
		for j := 1; j <= c.Len; j++ {
			if c.congested(j) {
				sumPiC += pi[j-1]
			}
		}
		n := float64(c.Packets)
		ey, ex := w*piA, w*piA*cA
		m.MeanW += n * ey
		m.MeanC += n * ex
		m.VarW += n * (w*w - ey*ey)
		m.VarC += n * (w*w*sumPiC - ex*ex)
		m.CovWC += n * (w*w*sumPiC - ex*ey)
	}
	return m, nil
}

// TwoReservoirCongestedMoments is the two-reservoir scheme's congested count
// (Alg. 6-7, ideal generator, no saturation): each packet congested on g > 0
// hops samples one of them uniformly and weighs it by g, so
//
//	E[C_d] = M,  Var[C_d] = sum over packets with g > 0 of g^2, minus M.
//
// Packets with no congested hop leave the congested count alone (Alg. 7 line 7).
func TwoReservoirCongestedMoments(classes []PathClass) (mean, variance float64, err error) {
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return 0, 0, err
		}
		g := 0
		for j := 1; j <= c.Len; j++ {
			if c.congested(j) {
				g++
			}
		}
		n := float64(c.Packets)
		if c.At > 0 && c.congested(c.At) {
			mean += n
			variance -= n
		}
		variance += n * float64(g*g)
	}
	return mean, variance, nil
}

// IdealSelection is the selection without saturation: P(j) = 1/l, w = l.
func IdealSelection(l int) (Selection, error) { return Saturation(l, 16, nil) }

// The congested fraction C_d/W_d beyond the delta method. RatioMoments
// expands C/W around the means, which holds while W_d stays far from 0: its
// coefficient of variation sd/mean well below 1. With Var[W_d] = Q l^2 - N
// that needs N >> l sqrt(Q), far more packets than the congested counts
// alone; below it W_d is often near or below 0 and the expansion's mean and
// variance say little (at Q = 200, N = 120, l = 5 the delta method gives a
// variance of 0.085 where the fraction's, given W_d > 0, is near 0.6).
//
// Each packet's contribution to (W_d, C_d) is w times one of five steps:
// (+1, +1), (-1, -1), (+1, 0), (-1, 0) or (0, 0) (the hop bit matches or not,
// the held hop is congested or not, or the reservoir is empty), with
// probabilities fixed by its class (docs/onereservoir-moments.md), and
// packets are independent. So (W_d, C_d)/w is a sum of independent steps whose
// joint distribution RatioDistribution computes exactly by convolution, and
// the fraction's law given W_d > 0 follows.

// A RatioLaw is the distribution of the congested fraction F = C_d/W_d.
type RatioLaw struct {
	Method       string  // "exact" or "simulated"
	Replicates   int     // simulated draws (0 when exact)
	PNonPositive float64 // P(W_d <= 0): the receiver reports F = 0 (CongestedFraction)
	Mean, Var    float64 // E[F | W_d > 0], Var[F | W_d > 0]
	M4           float64 // the fourth central moment of F given W_d > 0 (the sampling error of a variance)
	POutside     float64 // P(F < 0 or F > 1 | W_d > 0): a fraction no congested fraction can be
	CV           float64 // the coefficient of variation of W_d, sd/mean (+Inf for a mean <= 0)
}

// finish sets the law's moments from the sums of F^k (k = 1..4) and of the
// outside mass over the probability (or count) pos of W_d > 0.
func (law *RatioLaw) finish(pos float64, s [4]float64, out float64) {
	if pos <= 0 {
		return
	}
	m1, m2, m3, m4 := s[0]/pos, s[1]/pos, s[2]/pos, s[3]/pos
	law.Mean = m1
	law.Var = m2 - m1*m1
	law.M4 = m4 - 4*m1*m3 + 6*m1*m1*m2 - 3*m1*m1*m1*m1
	law.POutside = out / pos
}

// ratioSteps returns a class's five step probabilities.
func ratioSteps(c PathClass, s Selection) [5]float64 {
	pi := s.Floats()
	none, _ := s.None.Float64()
	var st [5]float64 // (+1,+1), (-1,-1), (+1,0), (-1,0), (0,0)
	for j := 1; j <= c.Len; j++ {
		p := pi[j-1]
		cong := c.congested(j)
		switch {
		case j == c.At && cong:
			st[0] += p
		case j == c.At:
			st[2] += p
		case cong:
			st[0] += p / 2
			st[1] += p / 2
		default:
			st[2] += p / 2
			st[3] += p / 2
		}
	}
	st[4] = none
	return st
}

// DefaultRatioWork bounds the exact computation's work (array updates); a
// larger problem is simulated.
const DefaultRatioWork = 2e8

// OneReservoirRatio returns the law of the congested fraction of the
// one-reservoir scheme for the packet classes (every class one path length,
// so one receiver weight w): exact when the convolution costs at most
// maxWork, otherwise by replicates seeded draws of the per-class step counts
// (multinomial, through gonum's binomial), which samples the same model.
func OneReservoirRatio(classes []PathClass, sel func(l int) (Selection, error), maxWork float64, replicates int, seed uint64) (RatioLaw, error) {
	var steps [][5]float64
	var counts []int64
	var w int64
	var congested, total int64
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return RatioLaw{}, err
		}
		s, err := sel(c.Len)
		if err != nil {
			return RatioLaw{}, err
		}
		if w != 0 && s.Weight != w {
			return RatioLaw{}, fmt.Errorf("the classes' receiver weights differ (%d and %d): the ratio's law needs one path length", w, s.Weight)
		}
		w = s.Weight
		st := ratioSteps(c, s)
		steps = append(steps, st)
		counts = append(counts, c.Packets)
		total += c.Packets
		if st[0]+st[1] > 0 {
			congested += c.Packets
		}
	}
	m, err := OneReservoirMoments(classes, sel)
	if err != nil {
		return RatioLaw{}, err
	}
	law := RatioLaw{CV: math.Inf(1)}
	if m.MeanW > 0 {
		law.CV = math.Sqrt(m.VarW) / m.MeanW
	}
	n2 := float64(2*congested + 1)
	if work := float64(congested)*n2*n2 + float64(total)*float64(2*total+1) + n2*n2*float64(2*(total-congested)+1); work <= maxWork {
		exactRatio(steps, counts, &law)
		law.Method = "exact"
		return law, nil
	}
	if replicates < 2 {
		return RatioLaw{}, fmt.Errorf("the exact law would take %.3g updates and no simulation was asked for", float64(congested)*n2*n2)
	}
	simulateRatio(steps, counts, replicates, seed, &law)
	law.Method, law.Replicates = "simulated", replicates
	return law, nil
}

// exactRatio convolves the steps: a 2-D distribution over (A, B) = (W, C)/w
// for the packets that may be congested, a 1-D one over A for the others,
// then E and Var of B/A given A > 0.
func exactRatio(steps [][5]float64, counts []int64, law *RatioLaw) {
	var mc int64
	for i, st := range steps {
		if st[0]+st[1] > 0 {
			mc += counts[i]
		}
	}
	size := int(2*mc + 1)
	joint := make([]float64, size*size) // index (a+mc)*size + (b+mc)
	joint[int(mc)*size+int(mc)] = 1
	next := make([]float64, len(joint))
	lo := int(mc) // the reachable a and b lie in [mc-k, mc+k] after k packets
	span := 0
	for i, st := range steps {
		if st[0]+st[1] == 0 {
			continue
		}
		for range counts[i] {
			clear(next)
			span++
			for a := lo - span + 1; a <= lo+span-1; a++ {
				for b := lo - span + 1; b <= lo+span-1; b++ {
					p := joint[a*size+b]
					if p == 0 {
						continue
					}
					next[(a+1)*size+b+1] += p * st[0]
					next[(a-1)*size+b-1] += p * st[1]
					next[(a+1)*size+b] += p * st[2]
					next[(a-1)*size+b] += p * st[3]
					next[a*size+b] += p * st[4]
				}
			}
			joint, next = next, joint
		}
	}
	var rest int64
	for i, st := range steps {
		if st[0]+st[1] == 0 {
			rest += counts[i]
		}
	}
	one := make([]float64, 2*rest+1) // A of the others, index a+rest
	one[rest] = 1
	tmp := make([]float64, len(one))
	k := int64(0)
	for i, st := range steps {
		if st[0]+st[1] != 0 {
			continue
		}
		for range counts[i] {
			clear(tmp)
			k++
			for a := rest - k + 1; a <= rest+k-1; a++ {
				p := one[a]
				if p == 0 {
					continue
				}
				tmp[a+1] += p * st[2]
				tmp[a-1] += p * st[3]
				tmp[a] += p * st[4]
			}
			one, tmp = tmp, one
		}
	}
	var pPos, out float64
	var sk [4]float64
	for a := 0; a < size; a++ {
		for b := 0; b < size; b++ {
			p := joint[a*size+b]
			if p == 0 {
				continue
			}
			av, bv := float64(a)-float64(mc), float64(b)-float64(mc)
			for o := range one {
				q := one[o]
				if q == 0 {
					continue
				}
				tot := av + float64(o) - float64(rest)
				if tot <= 0 {
					continue
				}
				f := bv / tot
				pq := p * q
				pPos += pq
				sk[0] += pq * f
				sk[1] += pq * f * f
				sk[2] += pq * f * f * f
				sk[3] += pq * f * f * f * f
				if f < 0 || f > 1 {
					out += pq
				}
			}
		}
	}
	law.PNonPositive = 1 - pPos
	law.finish(pPos, sk, out)
}

// simulateRatio draws each class's step counts (a multinomial, as
// successive binomials) per replicate.
func simulateRatio(steps [][5]float64, counts []int64, replicates int, seed uint64, law *RatioLaw) {
	src := rand.New(rand.NewPCG(seed, 0x5A7105))
	var pos, out float64
	var sk [4]float64
	for range replicates {
		var a, b float64
		for i, st := range steps {
			left := float64(counts[i])
			mass := 1.0
			var n [5]float64
			for j := range 4 {
				if left == 0 || mass <= 0 {
					break
				}
				p := math.Min(1, st[j]/mass)
				if p > 0 {
					n[j] = distuv.Binomial{N: left, P: p, Src: src}.Rand()
				}
				left -= n[j]
				mass -= st[j]
			}
			a += n[0] - n[1] + n[2] - n[3]
			b += n[0] - n[1]
		}
		if a > 0 {
			f := b / a
			pos++
			sk[0] += f
			sk[1] += f * f
			sk[2] += f * f * f
			sk[3] += f * f * f * f
			if f < 0 || f > 1 {
				out++
			}
		}
	}
	law.PNonPositive = 1 - pos/float64(replicates)
	law.finish(pos, sk, out)
}
