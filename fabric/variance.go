// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// variance returns the analytic variance of link li's weighted count under
// scheme i: section 3.3's sum N_l(l-1) for full-ID, section 5.3's sum
// Q_l l^2 - N_l for the one-bit schemes.
func (s *Sim) variance(i, li int, d *decoded) float64 {
	lt := &s.truth[li]
	var ns, qs []int64
	var ls []int
	for l := 1; l <= maxPathLen; l++ {
		if lt.byLen[l] == 0 && d.qByLen[li][l] == 0 {
			continue
		}
		ns, qs, ls = append(ns, lt.byLen[l]), append(qs, d.qByLen[li][l]), append(ls, l)
	}
	if s.models[i].Config().Telemetry.Scheme == header.FullID {
		_, v := refmodel.FullIDMomentsMulti(ns, ls)
		return v
	}
	_, v := refmodel.ProbMomentsMulti(ns, qs, ls)
	return v
}
