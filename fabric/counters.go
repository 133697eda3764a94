// SPDX-License-Identifier: Apache-2.0

package fabric

// counterStats returns, per link, the largest forced idle time fraction over
// the counter intervals (Alali et al.'s FITF: PortXmitWait increase over the
// interval), and how many (port, interval) observations on ports that carried
// traffic show a stall.
func (s *Sim) counterStats() (maxFITF []float64, stalled, obs int, series []CounterRead) {
	maxFITF = make([]float64, len(s.links))
	prevAt := int64(0)
	prev := make([]int64, len(s.links))
	for _, c := range s.counters {
		dt := c.at - prevAt
		if dt <= 0 {
			continue
		}
		rd := CounterRead{AtPS: c.at}
		ports := 0
		for li := range s.links {
			if s.truth[li].packets == 0 {
				continue
			}
			obs++
			ports++
			dw := c.wait[li] - prev[li]
			if dw > 0 {
				stalled++
				rd.StalledPorts++
			}
			f := float64(dw) / float64(dt)
			rd.MeanFITF += f
			maxFITF[li] = max(maxFITF[li], f)
		}
		if ports > 0 {
			rd.MeanFITF /= float64(ports)
		}
		series = append(series, rd)
		prevAt = c.at
		copy(prev, c.wait)
	}
	return maxFITF, stalled, obs, series
}
