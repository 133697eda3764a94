// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"ibreservoir/hash"
)

// The periodicity analysis of Hmult0 in section 5.4. Hmult0(id, d) is 1 when
// the point theta*d (mod 1), theta = (1846571429*id mod 2^32)/2^32, lies in
// the upper half of the circle: a rotation by theta per link. With
// r = 1/min(theta, 1-theta) (r ~ 6.4 for the thesis's id 44 974 351), the
// bits come in periods of 6 or 7; the thesis tightens "3/7 <= P <= 4/7" to
// 6/13..7/13 and 122/245..123/245 by looking at longer and longer patterns.
//
// Exactly: if p/q is a good rational approximation of theta (a convergent, or
// some intermediate fractions, of its continued fraction), the q points
// theta*d, ..., theta*(d+q-1) lie one near each multiple of 1/q, so any q
// consecutive links hold floor(q/2) or ceil(q/2) ones. The analysis lists the
// convergents and the intermediate fractions (semiconvergents) with odd q,
// checks each bound on every window of q consecutive d in the swept range,
// and checks the exhaustive count over all d (exactly half, Theorem 5.1)
// against them. The thesis's own three bounds are checked the same way. For
// the thesis's id the windows of 45, 77, 109, 141, 173 and 205 links (the
// semiconvergents (5+2k)/(13+32k) between 2/13 and 37/237) are exact bounds
// too, before 237: windows of 45 hold 22 or 23 ones.

// FigureID is the id of Figure 5.1 and of the periodicity analysis.
const FigureID = 44974351

// thesisBounds are the denominators of the bounds section 5.4 states.
var thesisBounds = []int{7, 13, 245}

// windowBits is log2 of the range of d whose windows are checked.
const windowBits = 24

// A fraction is one (semi)convergent p/q of theta.
type fraction struct {
	p, q    uint64
	partial bool // an intermediate fraction (semiconvergent)
}

// rotation returns theta's numerator over 2^32, oriented so that
// theta <= 1/2 (the thesis's "+-"), and r = 2^32/numerator.
func rotation(id uint32) (num uint64, r float64) {
	x := uint64(hash.Mult0Const * id)
	if x > 1<<31 {
		x = 1<<32 - x
	}
	if x == 0 {
		return 0, math.Inf(1)
	}
	return x, float64(uint64(1)<<32) / float64(x)
}

// continuedFraction returns the partial quotients of num/2^32 and its
// convergents and semiconvergents with q <= maxQ.
func continuedFraction(num uint64, maxQ uint64) (terms []uint64, fr []fraction) {
	a, b := num, uint64(1)<<32
	var p0, q0, p1, q1 uint64 = 0, 1, 1, 0
	for b != 0 {
		t := a / b
		terms = append(terms, t)
		for j := uint64(1); j <= t; j++ {
			p, q := j*p1+p0, j*q1+q0
			if q > maxQ {
				break
			}
			if q > 1 {
				fr = append(fr, fraction{p, q, j < t})
			}
		}
		p0, q0, p1, q1 = p1, q1, t*p1+p0, t*q1+q0
		a, b = b, a%b
	}
	// num/2^32 = [0; a1, a2, ...]: the first term is 0 (theta < 1), so the
	// roles of a and b above give the expansion of num/2^32 directly.
	return terms, fr
}

// boundQs are the denominators the analysis checks, ascending: the odd
// denominators of the convergents and semiconvergents up to 2^12, and the
// thesis's (7 is the intermediate fraction 1/7; 245 is neither).
func boundQs(id uint32) []int {
	num, _ := rotation(id)
	_, fr := continuedFraction(num, 1<<12)
	var qs []int
	seen := map[int]bool{}
	for _, f := range fr {
		if f.q%2 == 1 && !seen[int(f.q)] {
			seen[int(f.q)] = true
			qs = append(qs, int(f.q))
		}
	}
	for _, q := range thesisBounds {
		if !seen[q] {
			seen[q] = true
			qs = append(qs, q)
		}
	}
	slices.Sort(qs)
	return qs
}

func (b *Battery) planPeriodicity(h Hash) {
	sz := b.cfg.Size
	id := uint32(FigureID)
	qs := boundQs(id)
	span := uint64(1) << sz.SweepBits
	per := int((span + uint64(sz.ChunkValues) - 1) / uint64(sz.ChunkValues))
	wspan := uint64(1) << min(windowBits, sz.SweepBits)
	// counts: min and max ones per q-window, then ones and n over all d.
	t := &testSpec{name: "periodicity", group: "hash", subject: Subject{Hash: h.Name}, check: true,
		chunks: 1 + per, counts: 2*len(qs) + 2}
	// Chunk 0 finds each window's fewest and most ones (at most q); the
	// others count ones over ChunkValues values.
	t.limit = func(c int) uint64 {
		if c == 0 {
			return 1 << 12
		}
		return uint64(sz.ChunkValues)
	}
	t.run = func(c int, a *Acc) {
		if c > 0 {
			p, _ := h.formD(id)
			lo, hi := uint64(c-1)*uint64(sz.ChunkValues), min(span, uint64(c)*uint64(sz.ChunkValues))
			a.Counts[2*len(qs)] += hash.CountOnes(p, lo, hi)
			a.Counts[2*len(qs)+1] += hi - lo
			return
		}
		f := h.overD(id)
		bits := make([]uint8, wspan)
		for d := range bits {
			bits[d] = uint8(f(uint32(d)))
		}
		for i, q := range qs {
			s := uint64(0)
			for _, v := range bits[:q] {
				s += uint64(v)
			}
			mn, mx := s, s
			for d := q; d < len(bits); d++ {
				s += uint64(bits[d]) - uint64(bits[d-q])
				mn, mx = min(mn, s), max(mx, s)
			}
			a.Counts[2*i], a.Counts[2*i+1] = mn, mx
		}
	}
	t.final = func(a Acc) Result {
		num, r := rotation(id)
		terms, fr := continuedFraction(num, 1<<12)
		ones, n := a.Counts[2*len(qs)], a.Counts[2*len(qs)+1]
		isFr := map[int]fraction{}
		for _, f := range fr {
			if _, ok := isFr[int(f.q)]; !ok {
				isFr[int(f.q)] = f
			}
		}
		var lines []string
		ok := true
		counts := []Count{{"ones", ones}, {"n", n}}
		for i, q := range qs {
			lo, hi := uint64(q/2), uint64((q+1)/2)
			mn, mx := a.Counts[2*i], a.Counts[2*i+1]
			holds := mn >= lo && mx <= hi
			// The exhaustive fraction against the bound: lo/q <= ones/n <= hi/q.
			inside := ones*uint64(q) >= lo*n && ones*uint64(q) <= hi*n
			f, derived := isFr[q]
			src := "not a (semi)convergent of theta"
			if derived {
				kind := "convergent"
				if f.partial {
					kind = "semiconvergent"
				}
				src = fmt.Sprintf("%s %d/%d", kind, f.p, f.q)
			}
			thesis := ""
			for _, tq := range thesisBounds {
				if tq == q {
					thesis = " [thesis]"
				}
			}
			verdict := "holds"
			if !holds {
				verdict = "does NOT hold as a window bound"
			}
			lines = append(lines, fmt.Sprintf("%d/%d..%d/%d%s from %s: windows of %d hold %d..%d ones: %s; all-d fraction inside: %v",
				lo, q, hi, q, thesis, src, q, mn, mx, verdict, inside))
			counts = append(counts, Count{fmt.Sprintf("q%d_min", q), mn}, Count{fmt.Sprintf("q%d_max", q), mx})
			// A convergent's bound must hold; an intermediate fraction's may
			// not, and the thesis's are reported, not required.
			if derived && !f.partial && (!holds || !inside) {
				ok = false
			}
		}
		// Theorem 5.1 speaks of all 2^32 links; a smaller sweep is reported.
		theorem := 2*ones == n
		if !theorem && sz.SweepBits == 32 {
			ok = false
		}
		v := Pass
		if !ok {
			v = Fail
		}
		var ts []string
		for _, x := range terms {
			ts = append(ts, fmt.Sprint(x))
		}
		return Result{
			Statistic: "r", Value: Float(r), Verdict: v, Counts: counts,
			Detail: fmt.Sprintf("id %d: 1846571429*id mod 2^32 = %d, r = %.4f, continued fraction of theta = [%s]; "+
				"over all 2^%d d: %d ones of %d (Theorem 5.1: exactly half: %v); windows over d in [0, 2^%d): %s",
				id, uint64(hash.Mult0Const*id), r, strings.Join(ts, "; "), sz.SweepBits, ones, n, theorem,
				min(windowBits, sz.SweepBits), strings.Join(lines, "; ")),
		}
	}
	b.add(t)
}
