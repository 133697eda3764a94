// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"
	"slices"

	"ibreservoir/hash"
)

// A CandidateSet is the set of links a packet from one source to one
// destination might have crossed: the "foreach d in D where packet might have
// passed through d" of Alg. 7 lines 2 and 8 and Alg. 9 line 2. Section 5.2:
// skipping the links a packet cannot have crossed "dramatically improves our
// ability to discriminate congestion from noise" (section 5.5, Fig. 5.4).
//
// Every feasible path has PathLen hops (minimal routing: in a fat tree all of a
// pair's shortest paths have the same length), and Hops[i] is the position,
// 1..PathLen, at which Links[i] is crossed; each link is crossed at one
// position only. Path length counts switches, as section 3.3's footnote does:
// the link from the sender to the first switch is not a hop, the link from the
// last switch to the receiver is.
type CandidateSet struct {
	PathLen int
	Links   []Link
	Hops    []int
}

// A Topology names the candidate links between two endpoints, given by LID.
// Package topo implements it for its fat trees; a decoder calls it once per
// (source, destination) pair.
type Topology interface {
	Candidates(src, dst uint16) (CandidateSet, error)
}

// Validate checks the set: a positive path length, one hop position per link
// within 1..PathLen, every position used, and no link twice.
func (s CandidateSet) Validate() error {
	if s.PathLen < 1 {
		return fmt.Errorf("candidate set: path length %d, want at least 1", s.PathLen)
	}
	if len(s.Hops) != len(s.Links) {
		return fmt.Errorf("candidate set: %d links but %d hop positions", len(s.Links), len(s.Hops))
	}
	used := make([]bool, s.PathLen+1)
	sorted := slices.Clone(s.Links)
	slices.SortFunc(sorted, cmpLink)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return fmt.Errorf("candidate set: link %s listed twice", sorted[i])
		}
	}
	for i, h := range s.Hops {
		if h < 1 || h > s.PathLen {
			return fmt.Errorf("candidate set: link %s at hop %d, outside 1..%d", s.Links[i], h, s.PathLen)
		}
		used[h] = true
	}
	for h := 1; h <= s.PathLen; h++ {
		if !used[h] {
			return fmt.Errorf("candidate set: no link at hop %d of %d", h, s.PathLen)
		}
	}
	return nil
}

// Encode returns d for every link, in order, refusing a link the encoding
// cannot keep apart from the others.
func (s CandidateSet) Encode(e hash.LinkEncoding) ([]uint32, error) {
	ds := make([]uint32, len(s.Links))
	for i, l := range s.Links {
		d, err := e.Encode(l.Switch, l.Port)
		if err != nil {
			return nil, fmt.Errorf("candidate link %s: %w", l, err)
		}
		ds[i] = d
	}
	return ds, nil
}

// AtHop returns the indices of the links crossed at hop h.
func (s CandidateSet) AtHop(h int) []int {
	var ix []int
	for i, x := range s.Hops {
		if x == h {
			ix = append(ix, i)
		}
	}
	return ix
}

// Layered builds the candidate set of a layered (Clos) network in which every
// switch of one layer connects to every switch of the next: layer i lists the
// switch IDs at hop i+1, and the last layer's switches each reach the
// destination through port destPort. Switch a of layer i reaches switch b of
// layer i+1 through port portOf(i, a, b). Section 5.3's example is the tapered
// fat tree's 1, 8, 24, 8, 1: 8 + 192 + 192 + 8 + 1 = 401 links and
// 8*24*8 = 1536 paths.
func Layered(layers [][]uint16, portOf func(layer int, from, to uint16) uint8, destPort uint8) CandidateSet {
	s := CandidateSet{PathLen: len(layers)}
	for i, layer := range layers {
		for _, a := range layer {
			if i == len(layers)-1 {
				s.Links = append(s.Links, Link{a, destPort})
				s.Hops = append(s.Hops, i+1)
				continue
			}
			for _, b := range layers[i+1] {
				s.Links = append(s.Links, Link{a, portOf(i, a, b)})
				s.Hops = append(s.Hops, i+1)
			}
		}
	}
	return s
}
