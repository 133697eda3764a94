// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func randFrames(r *rand.Rand, n int) [][]byte {
	frames := make([][]byte, n)
	for i := range frames {
		var l int
		switch r.IntN(6) {
		case 0:
			l = 26
		case 1:
			l = 4*r.IntN(1049) + 6 // up to 4198
		default:
			l = 4*r.IntN(32) + 26 // 26..150
		}
		frames[i] = make([]byte, l)
		for k := range frames[i] {
			frames[i][k] = byte(r.Uint32())
		}
	}
	return frames
}

// TestSegmentsRoundTrip packs random frames, dense and with random idle
// segments and random idle bytes, and requires the rules to hold on every
// beat and the frames to come back whole.
func TestSegmentsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{256, 512} {
		s := w / 64
		for _, dense := range []bool{true, false} {
			frames := randFrames(r, 3000)
			var idle func(int) int
			if !dense {
				idle = func(int) int { return r.IntN(2*s + 1) }
			}
			beats, err := PackSegments(w, frames, idle, func() byte { return byte(r.Uint32()) })
			if err != nil {
				t.Fatal(err)
			}
			shared := 0
			for _, b := range beats {
				if b.Sop && b.Eop && SegBytes*b.SopSeg > len(b.Data)-1-b.Empty {
					shared++
				}
			}
			if shared == 0 {
				t.Errorf("w%d dense=%v: no beat shared by two packets", w, dense)
			}
			got, err := UnpackSegments(w, beats)
			if err != nil {
				t.Fatalf("w%d dense=%v: %v", w, dense, err)
			}
			if len(got) != len(frames) {
				t.Fatalf("w%d dense=%v: %d frames back, want %d", w, dense, len(got), len(frames))
			}
			for i := range frames {
				if !bytes.Equal(got[i], frames[i]) {
					t.Fatalf("w%d dense=%v: frame %d differs", w, dense, i)
				}
			}
		}
	}
}

// TestSegmentsOnePerBeat: a one-packet-per-beat stream (each frame from lane
// 0 of its own beats, as the stage takes without segments) is a legal
// segmented stream.
func TestSegmentsOnePerBeat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, w := range []int{256, 512} {
		nb := w / 8
		frames := randFrames(r, 500)
		var beats []SegBeat
		for _, f := range frames {
			n := (len(f) + nb - 1) / nb
			for b := 0; b < n; b++ {
				d := make([]byte, nb)
				copy(d, f[b*nb:])
				beats = append(beats, SegBeat{Data: d, Sop: b == 0, Eop: b == n-1, Empty: n*nb - len(f)})
			}
		}
		got, err := UnpackSegments(w, beats)
		if err != nil {
			t.Fatal(err)
		}
		for i := range frames {
			if !bytes.Equal(got[i], frames[i]) {
				t.Fatalf("w%d: frame %d differs", w, i)
			}
		}
	}
}

// TestSegmentsRules: each broken rule is refused, naming the beat.
func TestSegmentsRules(t *testing.T) {
	d := func() []byte { return make([]byte, 64) }
	for _, c := range []struct {
		name  string
		beats []SegBeat
		want  string
	}{
		{"sop in an open packet", []SegBeat{{Data: d(), Sop: true}, {Data: d(), Sop: true, SopSeg: 2}}, "beat 1: sop while a packet is open"},
		{"sop in the tail's last segment", []SegBeat{{Data: d(), Sop: true}, {Data: d(), Sop: true, SopSeg: 2, Eop: true, Empty: 46}}, "not after the ending packet's last byte"},
		{"no sop between packets", []SegBeat{{Data: d(), Sop: true, Eop: true, Empty: 2}, {Data: d(), Eop: true, Empty: 2}}, "beat 1: no sop and no packet open"},
		{"eop before sop, nothing open", []SegBeat{{Data: d(), Sop: true, SopSeg: 4, Eop: true, Empty: 58}}, "beat 0: eop at lane 5 before the sop at lane 32"},
		{"empty not 2 mod 4", []SegBeat{{Data: d(), Sop: true, Eop: true, Empty: 4}}, "empty 4"},
		{"sop segment out of range", []SegBeat{{Data: d(), Sop: true, SopSeg: 8, Eop: true, Empty: 2}}, "sop segment 8"},
		{"short beat", []SegBeat{{Data: make([]byte, 32), Sop: true, Eop: true, Empty: 2}}, "beat 0 has 32 bytes"},
		{"ends open", []SegBeat{{Data: d(), Sop: true}}, "ends inside a packet"},
	} {
		_, err := UnpackSegments(512, c.beats)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := PackSegments(128, nil, nil, nil); err == nil {
		t.Error("PackSegments took 128 bits")
	}
	if _, err := PackSegments(512, [][]byte{make([]byte, 28)}, nil, nil); err == nil {
		t.Error("PackSegments took a 28-byte frame")
	}
}

// segRate is the bytes a beat of n-byte frames packed densely at width w.
func segRate(t *testing.T, w, n int) float64 {
	frames := make([][]byte, max(50, 60000/n)) // over 1,000 beats
	for i := range frames {
		frames[i] = make([]byte, n)
	}
	beats, err := PackSegments(w, frames, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return float64(len(frames)*n) / float64(len(beats))
}

// TestSegmentsDenseRate: densely packed, every frame of 66 bytes and more
// longer than a beat takes ceil(n/8) segments (a 66..126-byte frame at least 0.9 of a 512-bit
// beat's bytes a beat), and a frame that fits a beat one beat (a beat holds one sop). It logs the
// table docs/rtl.md's "Segmented beats" gives.
func TestSegmentsDenseRate(t *testing.T) {
	for _, w := range []int{256, 512} {
		nb := w / 8
		for n := 26; n <= 4194; n += 4 {
			got := segRate(t, w, n)
			want := float64(n) / float64(nb) // one beat a packet: one sop a beat
			if n > nb {
				want = float64(n) / float64(SegBytes*((n+SegBytes-1)/SegBytes))
			}
			if diff := got/float64(nb) - want; diff > 0.002 || diff < -0.002 {
				t.Errorf("w%d, %d B: %.4f of a beat, want %.4f", w, n, got/float64(nb), want)
			}
			if w == 512 && n >= 66 && n <= 126 && got < 0.9*64 {
				t.Errorf("w512, %d B: %.2f bytes a beat, want at least %.1f", n, got, 0.9*64)
			}
		}
		var row strings.Builder
		fmt.Fprintf(&row, "| %d |", w)
		for _, n := range []int{26, 62, 66, 74, 126, 130, 258, 1026, 4098, 4194} {
			f := segRate(t, w, n) / float64(nb)
			fmt.Fprintf(&row, " %.3f (%.0f) |", f, f*float64(w)*0.923)
		}
		t.Log(row.String())
	}
}
