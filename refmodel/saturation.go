// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"math/big"
)

// Section 5.6: with a b-bit saturating hop count, a path longer than 2^b-1
// keeps drawing with l = 2^b at every hop past the saturation, and the
// receiver weighs the packet by the saturated count. For b = 2 on a 5-hop path
// the hops are kept with probabilities 3/16, 3/16, 3/16, 3/16, 1/4 and weighed
// by 3, so the expected weighted counts are 9/16, 9/16, 9/16, 9/16, 12/16 of
// the truth.
//
// In general, if hop j overwrites the reservoir with probability q_j
// (independently of the other hops), the reservoir ends up holding hop j with
// probability
//
//	P(j) = q_j * prod_{k > j} (1 - q_k)
//
// and is empty with probability prod_k (1 - q_k). The q_j come from the
// generator: P0(count+1) for a switch generator with the count before hop j
// (rng.Exact gives P0 for the hardware generators; exactly 1/l for the ideal
// one), or 1/j for j <= L and 0 beyond for the sender draws of section 5.9,
// which are spent after L hops. Everything here is exact rational arithmetic.

// A Selection is the exact distribution of the hop a reservoir holds at the
// receiver, for one path length.
type Selection struct {
	Len    int        // path length l
	Weight int64      // the receiver's weight: the count it reads
	P      []*big.Rat // P[j-1]: the reservoir holds hop j
	None   *big.Rat   // the reservoir is empty
	// Expected[j-1] = Weight*P[j-1]: the expected weighted count one packet
	// adds to hop j's link. 1 for every hop means unbiased.
	Expected []*big.Rat
}

// Select returns the selection for per-hop overwrite probabilities q (q[j-1]
// for hop j) and receiver weight w.
func Select(q []*big.Rat, w int64) (Selection, error) {
	s := Selection{Len: len(q), Weight: w, P: make([]*big.Rat, len(q)), Expected: make([]*big.Rat, len(q))}
	one := big.NewRat(1, 1)
	keep := big.NewRat(1, 1) // prod over later hops of (1 - q_k)
	for j := len(q) - 1; j >= 0; j-- {
		if q[j].Sign() < 0 || q[j].Cmp(one) > 0 {
			return s, fmt.Errorf("hop %d: overwrite probability %s outside [0, 1]", j+1, q[j].RatString())
		}
		s.P[j] = new(big.Rat).Mul(q[j], keep)
		s.Expected[j] = new(big.Rat).Mul(s.P[j], big.NewRat(w, 1))
		keep.Mul(keep, new(big.Rat).Sub(one, q[j]))
	}
	s.None = keep
	return s, nil
}

// SwitchOverwrite returns q_j for a switch generator with a b-bit saturating
// count over l hops: hop j draws with l_j = min(j-1, 2^b-1) + 1 and overwrites
// with probability p0(l_j). A nil p0 is the ideal generator, 1/l.
func SwitchOverwrite(l, countBits int, p0 func(l int) *big.Rat) []*big.Rat {
	if p0 == nil {
		p0 = func(l int) *big.Rat { return big.NewRat(1, int64(l)) }
	}
	countMax := 1<<countBits - 1
	q := make([]*big.Rat, l)
	for j := 1; j <= l; j++ {
		q[j-1] = p0(min(j-1, countMax) + 1)
	}
	return q
}

// SenderOverwrite returns q_j for the sender draws with L draws: 1/j while
// draws remain, 0 once they are spent.
func SenderOverwrite(l, L int) []*big.Rat {
	q := make([]*big.Rat, l)
	for j := 1; j <= l; j++ {
		q[j-1] = new(big.Rat)
		if j <= L {
			q[j-1].SetFrac64(1, int64(j))
		}
	}
	return q
}

// Saturation is the selection of section 5.6 for a switch generator with
// overwrite probability p0 (nil: ideal) and a b-bit count on an l-hop path.
func Saturation(l, countBits int, p0 func(l int) *big.Rat) (Selection, error) {
	if l < 1 || countBits < 1 || countBits > 16 {
		return Selection{}, fmt.Errorf("saturation: path length %d and count width %d: want l >= 1 and 1 <= b <= 16", l, countBits)
	}
	return Select(SwitchOverwrite(l, countBits, p0), int64(min(l, 1<<countBits-1)))
}

// SenderSaturation is the selection for the sender draws of section 5.9 with L
// draws on an l-hop path: the receiver reads min(l, L) trailing zeros.
func SenderSaturation(l, L int) (Selection, error) {
	if l < 1 || L < 1 {
		return Selection{}, fmt.Errorf("sender draws: path length %d and L=%d: want both >= 1", l, L)
	}
	return Select(SenderOverwrite(l, L), int64(min(l, L)))
}

// SelectionFor returns the selection a model's configuration gives an l-hop
// path, with p0 the switch generator's overwrite probability (nil: ideal;
// ignored with sender draws).
func (c Config) SelectionFor(l int, p0 func(l int) *big.Rat) (Selection, error) {
	if c.SenderMode() {
		return SenderSaturation(l, c.Telemetry.SenderL)
	}
	return Saturation(l, c.Telemetry.CountBits, p0)
}

// Floats returns the selection probabilities as float64, hop 1 first.
func (s Selection) Floats() []float64 {
	f := make([]float64, len(s.P))
	for i, p := range s.P {
		f[i], _ = p.Float64()
	}
	return f
}
