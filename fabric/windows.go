// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"ibreservoir/refmodel"
	"ibreservoir/topo"
)

// windows decodes the packets of each of Params.Windows equal windows of
// arrival time, from the first arrival to the last.
func (s *Sim) windows(groups [][]int, idx map[topo.Link]int) ([]Window, error) {
	if s.p.Windows == 0 || len(s.samples) == 0 {
		return nil, nil
	}
	lo, hi := s.samples[0].at, s.samples[len(s.samples)-1].at+1
	nw := int64(s.p.Windows)
	out := make([]Window, nw)
	per := make([][][]int, nw)
	for k := range out {
		out[k].StartPS = lo + (hi-lo)*int64(k)/nw
		out[k].EndPS = lo + (hi-lo)*int64(k+1)/nw
	}
	for _, g := range groups {
		split := make([][]int, nw)
		for _, si := range g {
			k := (s.samples[si].at - lo) * nw / (hi - lo)
			split[k] = append(split[k], si)
		}
		for k, sg := range split {
			if len(sg) > 0 {
				per[k] = append(per[k], sg)
				out[k].Packets += len(sg)
			}
		}
	}
	for k := range out {
		dec, err := s.decode(per[k], idx)
		if err != nil {
			return nil, err
		}
		for _, d := range dec.schemes {
			var ls []WindowLink
			for li, l := range s.links {
				if d.reported[li] {
					ls = append(ls, WindowLink{Switch: l.Switch, Port: l.Port, W: d.w[li], C: d.c[li], Fraction: refmodel.CongestedFraction(d.w[li], d.c[li])})
				}
			}
			out[k].Schemes = append(out[k].Schemes, ls)
		}
	}
	return out, nil
}
