// SPDX-License-Identifier: Apache-2.0

package lfsr

import "math/bits"

// The primitivity test. A polynomial p of degree n over GF(2) with p(0) = 1 is
// primitive exactly when x has multiplicative order 2^n - 1 modulo p:
//
//	x^(2^n-1) = 1 mod p, and x^((2^n-1)/q) != 1 mod p for every prime q | 2^n-1.
//
// The first condition says the order divides 2^n - 1, the second that it
// divides no proper divisor. An element of order 2^n - 1 in the 2^n-element
// ring GF(2)[x]/p makes every non-zero element a power of x, hence a unit, so
// the ring is a field and p is irreducible as well. The register then steps
// through all 2^n - 1 non-zero states before repeating (each Galois step is
// multiplication by x).

// IsPrimitive reports whether p (bit i the coefficient of x^i) is a primitive
// polynomial of degree 1..32 over GF(2).
func IsPrimitive(p uint64) bool {
	if p>>33 != 0 || p < 2 || p&1 == 0 {
		return false
	}
	n := bits.Len64(p) - 1
	order := uint64(1)<<n - 1
	if powX(order, p, n) != 1 {
		return false
	}
	for _, q := range primeFactors(order) {
		if powX(order/q, p, n) == 1 {
			return false
		}
	}
	return true
}

// mulMod returns a*b mod p for a, b of degree below n = deg p <= 32.
func mulMod(a, b, p uint64, n int) uint64 {
	var r uint64
	for b != 0 {
		if b&1 != 0 {
			r ^= a
		}
		b >>= 1
		a <<= 1
		if a>>n&1 != 0 {
			a ^= p
		}
	}
	return r
}

// powX returns x^e mod p.
func powX(e, p uint64, n int) uint64 {
	r, b := uint64(1), uint64(2)
	if n == 1 {
		b = 2 ^ p // x mod (x + 1) = 1
	}
	for ; e != 0; e >>= 1 {
		if e&1 != 0 {
			r = mulMod(r, b, p, n)
		}
		b = mulMod(b, b, p, n)
	}
	return r
}

// primeFactors returns the distinct prime factors of m by trial division
// (m < 2^32, so divisors up to 2^16 suffice).
func primeFactors(m uint64) []uint64 {
	var fs []uint64
	for q := uint64(2); q*q <= m; q++ {
		if m%q == 0 {
			fs = append(fs, q)
			for m%q == 0 {
				m /= q
			}
		}
	}
	if m > 1 {
		fs = append(fs, m)
	}
	return fs
}
