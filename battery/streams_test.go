// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/hash"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
)

// tinyWorkload is a workload of l hops with, at each, one link carrying all
// the traffic and one carrying none, and one flow: what the windows' ids
// are does not depend on the fabric, and 2l links decode 2^24 packets in
// about a second.
func tinyWorkload(l int) *workload {
	w := &workload{name: "tiny", pathLen: l, diam: l, denom: int64(l), src: []int{0}, maxSw: 2 * l, maxPort: 2, long: true}
	w.set.PathLen = l
	for h := 1; h <= l; h++ {
		for u := range 2 {
			w.set.Links = append(w.set.Links, refmodel.Link{Switch: uint16(2*h + u), Port: uint8(1 + u)})
			w.set.Hops = append(w.set.Hops, h)
			w.units = append(w.units, int64(1-u))
		}
	}
	return w
}

// TestDecodeStreamsRepeatNoID: a hash test's streams are consecutive parts
// of one stream of its flows, so that no flow's packet id repeats in any of
// its windows: four streams of 2^22 packets of one flow cover the 24-bit PSN
// space exactly once, and sixteen flows' streams each flow's share of it,
// under every id option. (Streams with starting PSNs of their own, as
// decodeHashRun once drew them, overlap at almost every seed.) The ids are
// those candidateMoments, which newDecodeMoments matches, decodes.
func TestDecodeStreamsRepeatNoID(t *testing.T) {
	if testing.Short() {
		t.Skip("records 2^24 packet ids per run")
	}
	const runBits, baseBits = 22, 18
	for _, flows := range []int{1, 16} {
		w := tinyWorkload(3)
		w.src = nil
		for f := range flows {
			w.src = append(w.src, f)
		}
		runs := min(DefaultSize().DecodeRuns, w.maxStreams(runBits))
		if runs != 4 {
			t.Fatalf("%d flows: %d streams of 2^%d packets, want 4", flows, runs, runBits)
		}
		for _, opt := range hash.IDOptions() {
			for s := uint64(1); s <= 1; s++ {
				// A flow's packets are every flows-th of the stream's: key
				// each id by its flow.
				keys := make([]uint64, 0, runs<<runBits)
				rec := candidate{name: "recorder", pre: func(d uint32) uint32 { return d }, signs: func(id uint32, _ []uint32, sign []int64) {
					keys = append(keys, uint64(len(keys)%flows)<<32|uint64(id))
					for j := range sign {
						sign[j] = 1
					}
				}}
				if _, err := candidateMoments(rec, opt, hash.LinkWide, w, baseBits, runBits, runs, seed.Derive(s, 0xF10)); err != nil {
					t.Fatal(err)
				}
				if len(keys) != runs<<runBits {
					t.Fatalf("%d packet ids decoded, want %d", len(keys), runs<<runBits)
				}
				slices.Sort(keys)
				if n := len(keys) - len(slices.Compact(keys)); n > 0 {
					t.Errorf("%d flows, %s, seed %d: %d packet ids repeat within a flow", flows, opt, s, n)
				}
			}
		}
	}
}

// idealCandidate is a keyed random function as a candidate: H(id, d) is the
// top bit of SplitMix64's output for Mix(key ^ id) ^ Mix(key + d + 1), a
// stand-in for the ideal hash at one Mix per packet and link.
func idealCandidate(key uint64) candidate {
	return candidate{name: "ideal", pre: func(d uint32) uint32 { return d }, signs: func(id uint32, ks []uint32, sign []int64) {
		x := seed.Mix(key ^ uint64(id))
		for j, d := range ks {
			sign[j] = 1 - 2*int64(seed.Mix(x^seed.Mix(key+uint64(d)+1))>>63)
		}
	}}
}

// TestDecodeIdealHashWindowsIndependent: under a random function the
// statistic's windows are independent, as its chi2(K) needs. On the long
// workload's shape (four streams of 2^22 packets of one flow, psn-slid, one
// window per stream), z_w(d) = (E[W_d | ids] - N_d)/(w sqrt(sum_i S'_i^2))
// of a link without traffic has no correlation between two windows over the
// links: with n links, n times the squared correlation summed over the six
// pairs of windows is about chi2(6) per seed. Windows that share ids (streams
// whose PSN ranges overlap by a fraction f) correlate by about f. The sum
// over the links of z^2 is chi2(4) per link, whose mean the test holds too.
func TestDecodeIdealHashWindowsIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 2^24 packets over 64 links per seed")
	}
	const l, zeros, runBits, seeds = 3, 61, 22, 2
	w := tinyWorkload(l)
	for j := range zeros {
		w.set.Links = append(w.set.Links, refmodel.Link{Switch: uint16(100 + j), Port: 1})
		w.set.Hops = append(w.set.Hops, 1+j%l)
		w.units = append(w.units, 0)
	}
	nl := len(w.set.Links)
	runs := w.maxStreams(runBits)
	var x2, sumX float64
	var nx int
	for s := uint64(1); s <= seeds; s++ {
		mv, err := candidateMoments(idealCandidate(seed.Derive(s, 0x1DEA1)), hash.IDPSNSLID, hash.LinkWide, w, runBits, runBits, runs, seed.Derive(s, 0xF10))
		if err != nil {
			t.Fatal(err)
		}
		// z[win][j] for the links without traffic (their S'_i is S_i).
		z := make([][]float64, runs)
		for win := range runs {
			for j := range nl {
				if w.units[j] == 0 {
					z[win] = append(z[win], float64(mv.mu[win*nl+j])/math.Sqrt(float64(mv.ss[win])))
				}
			}
		}
		n := float64(len(z[0]))
		for a := range runs {
			for b := a + 1; b < runs; b++ {
				var ab, aa, bb float64
				for j := range z[a] {
					ab += z[a][j] * z[b][j]
					aa += z[a][j] * z[a][j]
					bb += z[b][j] * z[b][j]
				}
				r := ab / math.Sqrt(aa*bb)
				x2 += n * r * r
				t.Logf("seed %d: windows %d and %d: correlation %.3f over %d links", s, a, b, r, len(z[a]))
			}
		}
		x, _, K := decodeChi2(w, mv.mu, mv.ss, nl, 0, 1<<runBits)
		if K != runs {
			t.Fatalf("%d windows, want %d", K, runs)
		}
		for j := range nl {
			sumX += x[j]
			nx++
		}
	}
	df := seeds * runs * (runs - 1) / 2
	p := distuv.ChiSquared{K: float64(df)}.Survival(x2)
	t.Logf("correlations: %.1f against chi2(%d), p %.3g; mean statistic %.3f against %d", x2, df, p, sumX/float64(nx), runs)
	// Fixed seeds: the same verdict on every machine.
	if p < 1e-3 {
		t.Errorf("the windows of an ideal hash correlate: %.1f against chi2(%d), p %.3g", x2, df, p)
	}
	// The mean of nx chi2(K) has standard deviation sqrt(2K/nx): 0.25 here.
	if m := sumX / float64(nx); math.Abs(m-float64(runs)) > 4*math.Sqrt(2*float64(runs)/float64(nx)) {
		t.Errorf("an ideal hash's mean statistic over %d windows is %.3f", runs, m)
	}
}
