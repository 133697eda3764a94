// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"math"

	"ibreservoir/refmodel"
)

// summarize is scheme i's accuracy over the run's links (SchemeSummary):
// true and reported links, false positives and negatives, the errors of W
// against the true counts, the standardized errors, and the congested links
// misclassified.
func summarize(m *refmodel.Model, i int, links []LinkResult) SchemeSummary {
	ss := SchemeSummary{Name: SchemeName(m.Config()), Layout: m.Layout().Name, Config: m.Config().String()}
	var se, sabs, sn, zs, zz float64
	for _, l := range links {
		e := l.Estimates[i]
		if l.Packets > 0 {
			ss.TrueLinks++
			if !e.Reported {
				ss.FalseNegatives++
			}
		}
		if e.Reported {
			ss.ReportedLinks++
			if l.Packets == 0 {
				ss.FalsePositives++
			}
			trueC, estC := l.Fraction >= 0.5 && l.Packets > 0, e.Fraction >= 0.5
			if estC && !trueC {
				ss.CongestedFP++
			}
			if trueC && !estC {
				ss.CongestedFN++
			}
		} else if l.Packets > 0 && l.Fraction >= 0.5 {
			ss.CongestedFN++
		}
		if l.Packets > 0 || e.Reported {
			diff := float64(e.W - l.Packets)
			if !e.Reported {
				diff = float64(-l.Packets)
			}
			se += diff * diff
			sabs += math.Abs(diff)
			sn++
		}
		if e.Var > 0 {
			z := float64(e.W-l.Packets) / math.Sqrt(e.Var)
			zs += z
			zz += z * z
			ss.ZLinks++
		}
	}
	var total float64
	for _, l := range links {
		total += float64(l.Packets)
	}
	if sn > 0 {
		ss.RMSError = math.Sqrt(se / sn)
	}
	if total > 0 {
		ss.RelativeError = sabs / total
	}
	if ss.ZLinks > 0 {
		ss.ZMean = zs / float64(ss.ZLinks)
		ss.ZMeanSquare = zz / float64(ss.ZLinks)
	}
	return ss
}
