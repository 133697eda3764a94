// SPDX-License-Identifier: Apache-2.0

package fabric

import "slices"

// groupSamples returns the received packets grouped by (source leaf,
// destination), groups in key order, packets in arrival order.
func (s *Sim) groupSamples() [][]int {
	key := func(i int) uint64 {
		return uint64(s.t.NodeLeaf[s.samples[i].src])<<32 | uint64(s.samples[i].dst)
	}
	at := map[uint64]int{}
	var keys []uint64
	var groups [][]int
	for i := range s.samples {
		if s.p.Perspective >= 0 && int(s.samples[i].app) != s.p.Perspective {
			continue
		}
		k := key(i)
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	out := make([][]int, len(groups))
	for i, o := range order {
		out[i] = groups[o]
	}
	return out
}
