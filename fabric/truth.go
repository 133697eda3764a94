// SPDX-License-Identifier: Apache-2.0

package fabric

// maxPathLen bounds the path lengths tracked per link (2*levels-1; trees here
// have at most 8 levels).
const maxPathLen = 15

// linkTruth is the simulator's ground truth for one link (a switch output
// port): what crossed it, and how many of those found the port congested.
type linkTruth struct {
	packets   int64
	congested int64
	bytes     int64
	first     int64 // time of the first packet, ps
	last      int64
	// What is estimated: the packets of the perspective's application
	// (Params.Perspective), or all packets.
	seen     int64
	seenCong int64
	byLen    [maxPathLen + 1]int64 // seen packets by their path length
}

func (lt *linkTruth) add(p *packet, congested bool, now int64, perspective int) {
	if lt.packets == 0 {
		lt.first = now
	}
	lt.last = now
	lt.packets++
	if congested {
		lt.congested++
	}
	if perspective < 0 || int(p.app) == perspective {
		lt.seen++
		lt.byLen[p.pathLen]++
		if congested {
			lt.seenCong++
		}
	}
}

// sample is what a receiving HCA saw of one packet, beside Sim.reads.
type sample struct {
	src, dst int32
	at       int64
	pathLen  int8
	size     int32
	app      uint8
}

// counterRead is one read of every port's PortXmitWait.
type counterRead struct {
	at   int64
	wait []int64 // cumulative, by link index
}

// readCounters reads every switch port's PortXmitWait, counting a stall in
// progress up to now, as perfquery reads a live counter.
func (s *Sim) readCounters() {
	r := counterRead{at: s.now, wait: make([]int64, len(s.links))}
	for i := range s.sw {
		for j := range s.sw[i].out {
			o := &s.sw[i].out[j]
			if o.link < 0 {
				continue
			}
			w := o.xmitWait
			if o.waitSince >= 0 {
				w += s.now - o.waitSince
			}
			r.wait[o.link] = w
		}
	}
	s.counters = append(s.counters, r)
}
