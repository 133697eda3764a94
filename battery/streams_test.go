// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"slices"
	"testing"

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
