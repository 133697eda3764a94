// SPDX-License-Identifier: Apache-2.0

// Package seed derives independent, reproducible 64-bit seeds for the
// components of a run (a port's generator, a NIC's sender draws, a traffic
// source) from one run seed and the component's identity (docs/spec.md §6).
package seed

// Gamma is SplitMix64's increment, 2^64 divided by the golden ratio, odd.
const Gamma = 0x9E3779B97F4A7C15

// Derive returns a seed for the component named by tags under run seed s:
//
//	x = Mix(s); for each tag t in order: x = Mix(x ^ Mix(t + Gamma))
//
// Equal inputs give equal seeds on every machine; changing any tag or the run
// seed gives an unrelated seed.
func Derive(s uint64, tags ...uint64) uint64 {
	x := Mix(s)
	for _, t := range tags {
		x = Mix(x ^ Mix(t+Gamma))
	}
	return x
}

// Mix is SplitMix64's output for state z: the state advanced by Gamma, then
// the finaliser z ^= z>>30; z *= 0xBF58476D1CE4E5B9; z ^= z>>27;
// z *= 0x94D049BB133111EB; z ^= z>>31. It is a bijection of uint64 with full
// avalanche, and Mix(z) is the first output of a SplitMix64 generator seeded
// with z.
func Mix(z uint64) uint64 {
	z += Gamma
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
