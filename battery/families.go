// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math"
)

// A test usually holds several sub-tests (one per sampled link, id, pair or
// sequence). Its p-value is that of its most extreme sub-test, corrected for
// their number by Sidak's formula (exact for independent sub-tests, which they
// are under the random-function null), and its detail names that sub-test.

// binomialFamily finishes a test whose counts are (k_i, n_i) pairs, each
// Binomial(n_i, p) under the null. what names k (e.g. "ones").
func binomialFamily(c []uint64, p float64, what string, label func(i int) string) Result {
	k := len(c) / 2
	worst, pmin, zmax := -1, 2.0, 0.0
	var tk, tn uint64
	for i := range k {
		ki, ni := c[2*i], c[2*i+1]
		if ni == 0 {
			return Result{Verdict: Invalid, Statistic: "max |z|", Value: Float(math.NaN()),
				Detail: fmt.Sprintf("%s: no data", label(i))}
		}
		tk += ki
		tn += ni
		pi := binomialTwoSided(ki, ni, p)
		z := math.Abs(float64(ki)-float64(ni)*p) / math.Sqrt(float64(ni)*p*(1-p))
		if pi < pmin || (pi == pmin && z > zmax) {
			worst, pmin, zmax = i, pi, z
		}
	}
	wk, wn := c[2*worst], c[2*worst+1]
	return Result{
		Statistic: "max |z|", Value: Float(zmax), P: Float(sidak(pmin, k)),
		Counts: []Count{{"worst_" + what, wk}, {"worst_n", wn}, {what, tk}, {"n", tn}, {"subtests", uint64(k)}},
		Detail: fmt.Sprintf("worst of %d: %s: %d of %d %s (%.6f, expected %.6f)", k, label(worst), wk, wn, what,
			float64(wk)/float64(wn), p),
	}
}

// chiFamily finishes a test whose counts are m cells per sub-test, each
// multinomial with probabilities prob under the null. A sub-test with an
// expected cell count below 5 makes the test INVALID.
func chiFamily(c []uint64, prob []float64, label func(i int) string) Result {
	m := len(prob)
	k := len(c) / m
	df := -1
	for _, p := range prob {
		if p > 0 {
			df++
		}
	}
	worst, pmin, xw := -1, 2.0, 0.0
	var n uint64
	for i := range k {
		obs := c[i*m : (i+1)*m]
		x, minE := chiSquare(obs, prob)
		if minE < 5 {
			return Result{Verdict: Invalid, Statistic: fmt.Sprintf("chi2(%d)", df), Value: Float(math.NaN()),
				Detail: fmt.Sprintf("%s: smallest expected count %.2f is below 5; give it more data", label(i), minE)}
		}
		for _, o := range obs {
			n += o
		}
		pi := chiSquareP(x, df)
		if pi < pmin || (pi == pmin && x > xw) {
			worst, pmin, xw = i, pi, x
		}
	}
	if worst < 0 {
		// No sub-test has a p-value: the null puts every count in one cell
		// (df 0), so there is nothing to compare.
		return Result{Verdict: Invalid, Statistic: fmt.Sprintf("chi2(%d)", df), Value: Float(math.NaN()),
			Detail: fmt.Sprintf("%s: the null puts every count in one cell (probabilities %v), so it has no chi-square to test", label(0), prob)}
	}
	counts := []Count{{"n", n}, {"subtests", uint64(k)}}
	for j, o := range c[worst*m : (worst+1)*m] {
		counts = append(counts, Count{fmt.Sprintf("worst_cell%d", j), o})
	}
	return Result{
		Statistic: fmt.Sprintf("max chi2(%d)", df), Value: Float(xw), P: Float(sidak(pmin, k)), Counts: counts,
		Detail: fmt.Sprintf("worst of %d: %s: chi2 %.2f, cells %v", k, label(worst), xw, c[worst*m:(worst+1)*m]),
	}
}

// pairFamily finishes a test of 2x2 independence whose counts are (n, ones1,
// ones2, agree) per pair of bits. A pair in which one bit never varies cannot
// be tested; it is named in the detail, and the test is INVALID only if no
// pair could be tested.
func pairFamily(c []uint64, label func(i int) string) Result {
	k := len(c) / 4
	worst, pmin, xw := -1, 2.0, 0.0
	var skipped []string
	tested := 0
	var wt [4]uint64
	for i := range k {
		n, o1, o2, ag := c[4*i], c[4*i+1], c[4*i+2], c[4*i+3]
		// agree = n11 + n00 and n = n11 + n10 + n01 + n00, so
		// o1 + o2 = 2*n11 + n10 + n01 = 2*n11 + (n - agree).
		n11 := (o1 + o2 + ag - n) / 2
		n10, n01 := o1-n11, o2-n11
		n00 := n - n11 - n10 - n01
		x, p, minE := independence2x2(n11, n10, n01, n00)
		if math.IsNaN(p) {
			skipped = append(skipped, label(i))
			continue
		}
		if minE < 5 {
			return Result{Verdict: Invalid, Statistic: "max chi2(1)", Value: Float(math.NaN()),
				Detail: fmt.Sprintf("%s: smallest expected count %.2f is below 5; give it more data", label(i), minE)}
		}
		tested++
		if p < pmin || (p == pmin && x > xw) {
			worst, pmin, xw = i, p, x
			wt = [4]uint64{n11, n10, n01, n00}
		}
	}
	if tested == 0 {
		return Result{Verdict: Invalid, Statistic: "max chi2(1)", Value: Float(math.NaN()),
			Detail: fmt.Sprintf("no pair could be tested: one bit is constant in each of %d pairs (%s)", len(skipped), skipped[0])}
	}
	d := fmt.Sprintf("worst of %d: %s: chi2 %.2f, table 11/10/01/00 = %d/%d/%d/%d", tested, label(worst), xw, wt[0], wt[1], wt[2], wt[3])
	if len(skipped) > 0 {
		d += fmt.Sprintf("; %d pairs untestable (a constant bit), e.g. %s", len(skipped), skipped[0])
	}
	return Result{
		Statistic: "max chi2(1)", Value: Float(xw), P: Float(sidak(pmin, tested)), Detail: d,
		Counts: []Count{{"worst_n11", wt[0]}, {"worst_n10", wt[1]}, {"worst_n01", wt[2]}, {"worst_n00", wt[3]},
			{"subtests", uint64(tested)}, {"untestable", uint64(len(skipped))}},
	}
}
