// Package seed derives independent, reproducible 64-bit seeds for the
// components of a run (a port's generator, a NIC's sender draws, a traffic
// source) from one run seed and the component's identity (docs/spec.md §6).
package seed

// Derive returns a seed for the component named by tags under run seed s. Equal
// inputs give equal seeds on every machine; changing any tag or the run seed
// gives an unrelated seed.
func Derive(s uint64, tags ...uint64) uint64 {
	x := Mix(s)
	for _, t := range tags {
		x = Mix(x ^ Mix(t+0x9E3779B97F4A7C15))
	}
	return x
}

// Mix is the SplitMix64 finaliser: a bijection of uint64 with full avalanche.
func Mix(z uint64) uint64 {
	z += 0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
