// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"math/rand/v2"
	"testing"

	"ibreservoir/header"
)

// segFields are the packet bytes the stage reads or writes, per LNH: the
// LRH (LNH, PktLen, SLID), BTH byte 4 and DestQP, and the PSN.
func segFields(t *testing.T, lnh uint8) map[string][2]int {
	bth, err := header.BTHOffset(lnh)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][2]int{"LRH": {0, 8}, "BTH byte 4 and DestQP": {bth + 4, bth + 8}, "PSN": {bth + 9, bth + 12}}
}

// TestSegmentFields: every field the stage reads or writes lies within one
// 8-byte segment of its packet, so within one beat at every sop segment, and
// the beats docs/rtl.md's "Segmented beats" gives for BTH byte 4 and the PSN.
func TestSegmentFields(t *testing.T) {
	for _, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
		for name, f := range segFields(t, lnh) {
			if f[0]/SegBytes != (f[1]-1)/SegBytes {
				t.Errorf("LNH=%d: %s (bytes %d..%d) crosses a segment", lnh, name, f[0], f[1]-1)
			}
		}
	}
	// The first sop segment that puts the field in a later beat than the sop
	// beat (-1: none), per width and LNH, and the beat it is then in.
	for _, c := range []struct {
		w     int
		lnh   uint8
		field string
		next  int // first segment with the field in beat 1 or later
		beat  []int
	}{
		{512, header.LNHLocal, "BTH byte 4 and DestQP", 7, []int{0, 0, 0, 0, 0, 0, 0, 1}},
		{512, header.LNHLocal, "PSN", 6, []int{0, 0, 0, 0, 0, 0, 1, 1}},
		{512, header.LNHGlobal, "BTH byte 4 and DestQP", 2, []int{0, 0, 1, 1, 1, 1, 1, 1}},
		{512, header.LNHGlobal, "PSN", 1, []int{0, 1, 1, 1, 1, 1, 1, 1}},
		{256, header.LNHLocal, "BTH byte 4 and DestQP", 3, []int{0, 0, 0, 1}},
		{256, header.LNHLocal, "PSN", 2, []int{0, 0, 1, 1}},
		{256, header.LNHGlobal, "BTH byte 4 and DestQP", 0, []int{1, 1, 2, 2}},
		{256, header.LNHGlobal, "PSN", 0, []int{1, 2, 2, 2}},
	} {
		f := segFields(t, c.lnh)[c.field]
		for s, want := range c.beat {
			b0, _ := SegFieldAt(c.w, s, f[0])
			b1, _ := SegFieldAt(c.w, s, f[1]-1)
			if b0 != b1 || b0 != want {
				t.Errorf("w%d LNH=%d %s from segment %d: beats %d..%d, want %d", c.w, c.lnh, c.field, s, b0, b1, want)
			}
		}
	}
}

// TestSegmentsSharedBeats measures, over dense and gapped segmented streams
// of 26..126-byte frames (a quarter LNH=3, 66 bytes and more) and of every length, what a beat
// can hold: at most two telemetry bytes and two PSNs (a beat holds one sop,
// and a packet's fields are in its sop beat or the next), so the output
// applies up to two decisions a beat; and the backlog of one hash (or draw)
// a cycle fed with the PSNs (or telemetry bytes) as their beats arrive, a
// beat a cycle, is at most one id: a 2-entry id queue in front of one hash
// unit keeps up, its wait of one cycle at most covered by one more ring
// entry. It requires beats with two telemetry bytes and with two PSNs to
// occur at 512 bits, and none at 256, where none can: a packet whose byte 4
// (or PSN) lies in the beat after its sop beat started in its last segments,
// so it ends too late in that beat for the next packet, starting after it,
// to have its own there (an LNH=2 frame is 26 bytes at least, an LNH=3 one
// 66).
func TestSegmentsSharedBeats(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, w := range []int{256, 512} {
		s := w / 64
		twoT, twoP := 0, 0
		for _, long := range []bool{false, true} {
			for _, dense := range []bool{true, false} {
				n := 4000
				frames := make([][]byte, n)
				lnh := make([]uint8, n)
				for i := range frames {
					lnh[i] = header.LNHLocal
					l := 4*r.IntN(26) + 26 // 26..126
					if r.IntN(4) == 0 {
						lnh[i], l = header.LNHGlobal, 4*r.IntN(16)+66 // 66..126
					}
					if long && r.IntN(3) == 0 {
						l = 4*r.IntN(1043) + 26
						if lnh[i] == header.LNHGlobal {
							l = max(l, 66) // long enough for its GRH and BTH
						}
					}
					frames[i] = make([]byte, l)
				}
				var idle func(int) int
				if !dense {
					idle = func(int) int { return r.IntN(2*s + 1) }
				}
				beats, err := PackSegments(w, frames, idle, nil)
				if err != nil {
					t.Fatal(err)
				}
				tel := make([]int, len(beats)+2)
				psn := make([]int, len(beats)+2)
				i := -1
				for b, bt := range beats {
					if !bt.Sop {
						continue
					}
					i++
					f := segFields(t, lnh[i])
					tb, _ := SegFieldAt(w, bt.SopSeg, f["BTH byte 4 and DestQP"][0])
					pb, _ := SegFieldAt(w, bt.SopSeg, f["PSN"][0])
					tel[b+tb]++
					psn[b+pb]++
				}
				maxOf := func(c []int) (m, two int) {
					for _, v := range c {
						m = max(m, v)
						if v == 2 {
							two++
						}
					}
					return
				}
				backlog := func(c []int) (m int) {
					q := 0
					for _, v := range c {
						q = max(q+v-1, 0) // one served a cycle
						m = max(m, q)
					}
					return
				}
				mt, tt := maxOf(tel)
				mp, tp := maxOf(psn)
				twoT, twoP = twoT+tt, twoP+tp
				bt, bp := backlog(tel), backlog(psn)
				t.Logf("w%d long=%v dense=%v: %d beats; two telemetry bytes in %d, two PSNs in %d; backlog %d draws, %d hashes",
					w, long, dense, len(beats), tt, tp, bt, bp)
				if mt > 2 || mp > 2 {
					t.Errorf("w%d: a beat with %d telemetry bytes, %d PSNs", w, mt, mp)
				}
				if bt > 1 || bp > 1 {
					t.Errorf("w%d: backlog of %d draws, %d hashes", w, bt, bp)
				}
			}
		}
		if w == 256 && (twoT != 0 || twoP != 0) {
			t.Errorf("w%d: %d beats with two telemetry bytes and %d with two PSNs, where none can have them", w, twoT, twoP)
		}
		if w == 512 && (twoT == 0 || twoP == 0) {
			t.Errorf("w%d: no beat with two telemetry bytes (%d) or two PSNs (%d)", w, twoT, twoP)
		}
	}
}
