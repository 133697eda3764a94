// SPDX-License-Identifier: Apache-2.0

package fabric

// An event is one thing that happens at a switch port or a NIC at a given
// time. Events at equal times run in the order they were scheduled (seq), so a
// run is the same on every machine.
type event struct {
	t    int64 // picoseconds
	seq  uint64
	kind evKind
	a    int32 // switch ID or node
	b    int32 // port (1-based)
	n    int32 // credit bytes
	p    *packet
}

type evKind uint8

const (
	evNICTry    evKind = iota // a NIC may inject its next packet
	evNICArrive               // a packet's tail reaches the receiving NIC
	evNICCredit               // credits come back to a NIC from its leaf's input buffer
	evArrive                  // a packet's header reaches a switch input port
	evXbar                    // the head of an input FIFO may move to its output queue
	evTx                      // an output port may start transmitting
	evCredit                  // credits come back to a switch output port
	evCounter                 // the port counters are read
)

// eventHeap is a binary min-heap on (t, seq).
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	s := *h
	e := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = event{}
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return e
}
