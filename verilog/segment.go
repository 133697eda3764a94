// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"fmt"
)

// SegBytes is the segment of a segmented stream: a packet starts at a lane
// that is a multiple of it (docs/rtl.md, "Segmented beats").
const SegBytes = 8

// A SegBeat is one beat of a segmented stream (docs/rtl.md, "Segmented
// beats"): DataW/8 bytes, lane k in Data[k]; Sop when a packet starts in it,
// at lane SegBytes*SopSeg (SopSeg is read only with Sop); Eop when a packet
// ends in it, at lane len(Data)-1-Empty (Empty is read only with Eop). A beat
// with both flags holds two packets' bytes exactly when the sop lies after the
// ending packet's last byte: SegBytes*SopSeg > len(Data)-1-Empty.
type SegBeat struct {
	Data   []byte
	Sop    bool
	SopSeg int
	Eop    bool
	Empty  int
}

// Segmented reports whether width takes segmented beats: 256 and 512 bits.
func Segmented(width int) bool { return width == 256 || width == 512 }

func segWidth(width int) (nb, segs int, err error) {
	if !Segmented(width) {
		return 0, 0, fmt.Errorf("segmented beats: width %d bits, want 256 or 512", width)
	}
	return width / 8, width / 8 / SegBytes, nil
}

// PackSegments packs frames into beats of width bits under the segment rules.
// Frame i starts at the first legal segment at least idle(i) segments after
// the segment holding frame i-1's last byte (idle nil: 0, the dense packing):
// legal when its sop beat holds no other sop and its eop beat no other eop.
// A beat that would hold no byte of any frame is left out (a gap, in_valid_i
// low). Idle bytes are fill() (nil: 0). Each frame must be 4k+2 bytes, at
// least 6.
func PackSegments(width int, frames [][]byte, idle func(i int) int, fill func() byte) ([]SegBeat, error) {
	nb, s, err := segWidth(width)
	if err != nil {
		return nil, err
	}
	type place struct{ start, end int } // first and last segment, stream-wide
	places := make([]place, len(frames))
	sopBeat := map[int]bool{}
	eopBeat := map[int]bool{}
	pos := 0
	for i, f := range frames {
		if len(f) < 6 || len(f)%4 != 2 {
			return nil, fmt.Errorf("segmented beats: frame %d is %d bytes, want 4k+2 (at least 6)", i, len(f))
		}
		start := pos
		if idle != nil {
			n := idle(i)
			if n < 0 {
				return nil, fmt.Errorf("segmented beats: frame %d: %d idle segments", i, n)
			}
			start += n
		}
		g := (len(f) + SegBytes - 1) / SegBytes
		for {
			b := start / s
			if sopBeat[b] || eopBeat[(start+g-1)/s] {
				start = (b + 1) * s
				continue
			}
			break
		}
		places[i] = place{start, start + g - 1}
		sopBeat[start/s] = true
		eopBeat[(start+g-1)/s] = true
		pos = start + g
	}
	nbeats := 0
	if len(frames) > 0 {
		nbeats = places[len(frames)-1].end/s + 1
	}
	beats := make([]SegBeat, nbeats)
	used := make([]bool, nbeats)
	for b := range beats {
		beats[b].Data = make([]byte, nb)
		if fill != nil {
			for k := range beats[b].Data {
				beats[b].Data[k] = fill()
			}
		}
	}
	for i, f := range frames {
		at := places[i].start * SegBytes
		for k, c := range f {
			beats[(at+k)/nb].Data[(at+k)%nb] = c
			used[(at+k)/nb] = true
		}
		first := &beats[at/nb]
		first.Sop, first.SopSeg = true, (at%nb)/SegBytes
		last := &beats[(at+len(f)-1)/nb]
		last.Eop, last.Empty = true, nb-1-(at+len(f)-1)%nb
	}
	out := beats[:0]
	for b := range beats {
		if used[b] {
			out = append(out, beats[b])
		}
	}
	return out, nil
}

// UnpackSegments reassembles the frames of a segmented stream of width bits,
// checking every rule of docs/rtl.md's "Segmented beats": the error names the
// beat and the rule it breaks.
func UnpackSegments(width int, beats []SegBeat) ([][]byte, error) {
	nb, s, err := segWidth(width)
	if err != nil {
		return nil, err
	}
	var frames [][]byte
	var cur []byte
	open := false
	for b, bt := range beats {
		if len(bt.Data) != nb {
			return nil, fmt.Errorf("segmented beats: beat %d has %d bytes, want %d", b, len(bt.Data), nb)
		}
		if bt.Sop && (bt.SopSeg < 0 || bt.SopSeg >= s) {
			return nil, fmt.Errorf("segmented beats: beat %d: sop segment %d, want 0..%d", b, bt.SopSeg, s-1)
		}
		last := nb - 1 // the ending packet's last lane
		if bt.Eop {
			if bt.Empty < 0 || bt.Empty >= nb || bt.Empty%4 != 2 {
				return nil, fmt.Errorf("segmented beats: beat %d: empty %d, want 2 mod 4 below %d (frames are 4k+2 bytes from a segment boundary)", b, bt.Empty, nb)
			}
			last = nb - 1 - bt.Empty
		}
		sop := SegBytes * bt.SopSeg
		switch {
		case open && bt.Sop && !bt.Eop:
			return nil, fmt.Errorf("segmented beats: beat %d: sop while a packet is open and no eop ends it", b)
		case open && bt.Sop && sop <= last:
			return nil, fmt.Errorf("segmented beats: beat %d: sop at lane %d is not after the ending packet's last byte (lane %d)", b, sop, last)
		case !open && !bt.Sop:
			return nil, fmt.Errorf("segmented beats: beat %d: no sop and no packet open", b)
		case !open && bt.Eop && sop > last:
			return nil, fmt.Errorf("segmented beats: beat %d: eop at lane %d before the sop at lane %d with no packet open", b, last, sop)
		}
		if open {
			cur = append(cur, bt.Data[:last+1]...)
			if bt.Eop {
				frames, cur, open = append(frames, cur), nil, false
			}
		}
		if bt.Sop {
			if bt.Eop && sop <= last { // one packet, sop and eop
				frames = append(frames, append([]byte(nil), bt.Data[sop:last+1]...))
			} else {
				cur, open = append([]byte(nil), bt.Data[sop:]...), true
			}
		}
	}
	if open {
		return nil, fmt.Errorf("segmented beats: the stream ends inside a packet (%d bytes so far)", len(cur))
	}
	return frames, nil
}

// SegFieldAt is where packet byte off of a packet starting in segment sopSeg
// of a width-bit segmented beat falls: beat (0 the sop beat, 1 the next, ...)
// and lane.
func SegFieldAt(width, sopSeg, off int) (beat, lane int) {
	at := SegBytes*sopSeg + off
	return at / (width / 8), at % (width / 8)
}
