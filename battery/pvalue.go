// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The p-values of the battery. Every distribution function comes from gonum's
// stat/distuv; nothing here evaluates a tail probability by its own series.

// binomialTwoSided is the exact two-sided binomial test of k successes in n
// trials against success probability p, by doubling the smaller tail:
// min(1, 2*min(P[X <= k], P[X >= k])). The upper tail is taken as the lower
// tail of the complement, P[n-X <= n-k] with n-X ~ Binomial(n, 1-p), so that
// small p-values keep their precision (distuv's Survival is 1-CDF).
func binomialTwoSided(k, n uint64, p float64) float64 {
	if n == 0 {
		return math.NaN()
	}
	lower := binomialLE(k, n, p)
	upper := binomialLE(n-k, n, 1-p)
	return math.Max(0, math.Min(1, 2*math.Min(lower, upper)))
}

// exactBinomialMax is the largest n for which binomialLE uses the exact
// binomial distribution. gonum's Binomial.CDF goes through the regularized
// incomplete beta function, which loses its accuracy for larger n (at
// n = 2^24 it is off by 0.006 at the median, at 2^32 it is negative), so
// beyond it the normal approximation with a continuity correction takes over:
// the battery's larger counts are exhaustive sweeps at p = 1/2, for which its
// error is O(1/n), below 1e-6 here.
const exactBinomialMax = 1 << 21

// binomialLE is P[X <= k] for X ~ Binomial(n, p).
func binomialLE(k, n uint64, p float64) float64 {
	switch {
	case k >= n:
		return 1
	case p <= 0:
		return 1
	case p >= 1:
		return 0
	}
	if n <= exactBinomialMax {
		return distuv.Binomial{N: float64(n), P: p}.CDF(float64(k))
	}
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return distuv.UnitNormal.CDF((float64(k) + 0.5 - float64(n)*p) / sd)
}

// chiSquareP is the upper tail of the chi-square distribution with df degrees
// of freedom at x.
func chiSquareP(x float64, df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return distuv.ChiSquared{K: float64(df)}.Survival(x)
}

// chiSquare is Pearson's statistic of observed counts against expected
// probabilities (which sum to 1), with the smallest expected count. A cell
// with an expected count of 0 and an observed count above 0 makes the
// statistic +Inf: the data are impossible under the hypothesis.
func chiSquare(obs []uint64, prob []float64) (x, minExpected float64) {
	var n uint64
	for _, o := range obs {
		n += o
	}
	minExpected = math.Inf(1)
	for i, o := range obs {
		e := float64(n) * prob[i]
		if e == 0 {
			if o > 0 {
				x = math.Inf(1)
			}
			continue
		}
		minExpected = math.Min(minExpected, e)
		d := float64(o) - e
		x += d * d / e
	}
	return x, minExpected
}

// independence2x2 is Pearson's chi-square test of independence on a 2x2 table
// (df = 1), the expected counts from the observed margins. It returns the
// statistic, the p-value and the smallest expected count.
func independence2x2(n11, n10, n01, n00 uint64) (x, p, minExpected float64) {
	n := float64(n11 + n10 + n01 + n00)
	r1, r0 := float64(n11+n10), float64(n01+n00)
	c1, c0 := float64(n11+n01), float64(n10+n00)
	if n == 0 || r1 == 0 || r0 == 0 || c1 == 0 || c0 == 0 {
		// A constant margin: one of the two bits never varies. Independence
		// is then untestable, which the caller reports as INVALID.
		return math.NaN(), math.NaN(), 0
	}
	obs := [4]float64{float64(n11), float64(n10), float64(n01), float64(n00)}
	exp := [4]float64{r1 * c1 / n, r1 * c0 / n, r0 * c1 / n, r0 * c0 / n}
	minExpected = math.Inf(1)
	for i := range obs {
		d := obs[i] - exp[i]
		x += d * d / exp[i]
		minExpected = math.Min(minExpected, exp[i])
	}
	return x, chiSquareP(x, 1), minExpected
}

// sidak combines the p-values of k sub-tests, of which the smallest is pmin,
// into the p-value of "the most extreme of k": 1-(1-pmin)^k, exact when the
// sub-tests are independent (as they are for a random function on distinct
// arguments) and conservative under positive dependence.
func sidak(pmin float64, k int) float64 {
	if k <= 1 || math.IsNaN(pmin) {
		return pmin
	}
	return -math.Expm1(float64(k) * math.Log1p(-pmin))
}

// holm adjusts p-values for a family-wise error rate by Holm's step-down
// method: sorted ascending, p_(j) is multiplied by m-j+1 and the running
// maximum taken, capped at 1. NaN entries (tests with no p-value) are left
// out of the family and stay NaN. Ties are broken by index, so the result
// does not depend on sort stability.
func holm(p []float64) []float64 {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		if p[idx[a]] != p[idx[b]] {
			return p[idx[a]] < p[idx[b]]
		}
		return idx[a] < idx[b]
	})
	adj := make([]float64, len(p))
	for i := range adj {
		adj[i] = math.NaN()
	}
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		v := math.Min(1, float64(m-j)*p[i])
		run = math.Max(run, v)
		adj[i] = run
	}
	return adj
}
