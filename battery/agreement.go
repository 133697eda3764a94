package battery

import (
	"math"
	"math/bits"
)

// The agreement of two ids under a multiplicative hash, made exact where it
// can be (docs/battery.md, "Why ids and links agree"). For H(x, y) =
// bit31(c*x*y mod 2^32) with c odd (single: c = 1; mult0: c = 1846571429),
// the number of y in [0, 2^32) with H(a, y) = H(b, y) depends on a and b
// only through their 2-adic valuations and the ratio of their odd parts:
//
//   - Valuations differ (a = 2^s*a', b = 2^t*b', s < t, a', b' odd): exactly
//     2^31. The map y -> y + 2^(31-s) is a bijection of Z/2^32 that adds
//     2^31 to c*a*y (c*a' is odd) and leaves c*b*y alone (2^(t+31-s) is a
//     multiple of 2^32), so it flips H(a, .) and keeps H(b, .): it exchanges
//     the agreeing y with the disagreeing ones.
//   - Equal valuations s: with m = 32-s, H(a, y) is the top bit of
//     x = c*a'*y mod 2^m, which runs over Z/2^m (2^s times each), and
//     H(b, y) the top bit of r*x, r = b'/a' mod 2^m. Writing the top bit as
//     a square wave, whose Fourier series has only odd harmonics with
//     amplitudes 4/(pi k), the correlation E[(-1)^(H(a)+H(b))] is
//     (8/pi^2) * sum over odd k, k' of +-1/(k k') for the pairs with
//     k = +-k'*r (mod 2^m). When r = p/q (mod 2^m) for small odd p, q (the
//     ids' odd parts in the ratio p/q, say), the pairs (j*p, j*q), j odd,
//     give (8/pi^2) * sum_j 1/(j^2 p q) = 1/(p q): the agreement is about
//     (1 + 1/(pq))/2 of 2^32, and (1 - 1/(pq))/2 when r = -p/q. Ids 2 and 6:
//     s = 1, r = 3, (1 + 1/3)/2 = 2/3 (exactly (2^33+4)/3, section 5.4's
//     counterexample).
//
// The same holds for links with the id fixed (H is symmetric in x and y).

// agreementPrediction returns, for ids (or links) a and b under a
// multiplicative hash, whether the count is exact, and the predicted number
// of the 2^32 values of the other argument on which their bits agree: 2^31
// exactly when the valuations differ, else 2^32*(1 + corr)/2 with corr =
// +-1/(k k') from the shortest relation k = +-k'*r (mod 2^m), k, k' odd, k'
// searched up to maxK. k, k' are returned (0, 0 when exact or when no
// relation was found, corr then 0).
func agreementPrediction(a, b uint32, maxK uint64) (count float64, exact bool, k, k2 uint64, corr float64) {
	if a == 0 || b == 0 {
		// H(0, .) = 0: the agreement is the other id's zeros, 2^31 for any
		// nonzero id (Theorem 5.1), all 2^32 for two zeros.
		if a == b {
			return 1 << 32, true, 0, 0, 1
		}
		return 1 << 31, true, 0, 0, 0
	}
	s, t := bits.TrailingZeros32(a), bits.TrailingZeros32(b)
	if s != t {
		return 1 << 31, true, 0, 0, 0
	}
	m := uint(32 - s)
	mask := uint64(1)<<m - 1
	ao, bo := uint64(a>>s), uint64(b>>s)
	r := bo * inverseOdd(ao, m) & mask // b'/a' mod 2^m
	best := math.Inf(1)
	for q := uint64(1); q <= maxK; q += 2 {
		p := r * q & mask // k = +p: H(b) tracks H(a); k = 2^m - p: it tracks the complement
		for _, c := range []struct {
			k    uint64
			sign float64
		}{{p, 1}, {mask + 1 - p, -1}} {
			if c.k == 0 {
				continue
			}
			if w := float64(c.k) * float64(q); w < best {
				best, k, k2, corr = w, c.k, q, c.sign/w
			}
		}
	}
	return float64(uint64(1)<<32) * (1 + corr) / 2, false, k, k2, corr
}

// inverseOdd returns the inverse of the odd a modulo 2^m (Newton's
// iteration: each step doubles the correct low bits).
func inverseOdd(a uint64, m uint) uint64 {
	x := a // correct to 3 bits: a*a = 1 (mod 8) for odd a
	for range 5 {
		x *= 2 - a*x
	}
	return x & (uint64(1)<<m - 1)
}
