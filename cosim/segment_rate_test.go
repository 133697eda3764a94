// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"fmt"
	"testing"

	"ibreservoir/verilog"
)

// TestSegmentedInterfaceRate packs the model's packets of each of rateMixes
// (rateSet, the default configuration) into segmented beats at 256 and 512
// bits, densely (verilog.PackSegments: each sop at the first legal segment
// after the previous packet), and logs per size class the beats and packets a
// beat against one packet a beat: the rate the segmented interface allows a
// stage moving a beat a cycle (docs/rtl.md, "Segmented beats"). At 512 bits
// every 66..126-byte class must reach 0.9 x 64 bytes a beat. The model's
// output packets, which the stage must emit in the beat structure it was
// given, pack into the same beats, and UnpackSegments gives them back.
func TestSegmentedInterfaceRate(t *testing.T) {
	for _, w := range []int{512, 256} {
		nb := w / 8
		c := widthConfigs(w)[0]
		for k, mix := range rateMixes {
			set := rateSet(t, c, mix, uint64(31+k))
			in := make([][]byte, len(set.Vectors))
			out := make([][]byte, len(set.Vectors))
			one, total := 0, 0
			for i, v := range set.Vectors {
				in[i], out[i] = v.In, v.Out
				one += (len(v.In) + nb - 1) / nb
				total += len(v.In)
			}
			bi, err := verilog.PackSegments(w, in, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			bo, err := verilog.PackSegments(w, out, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(bi) != len(bo) {
				t.Fatalf("w%d %s: %d beats in, %d out", w, mix.name, len(bi), len(bo))
			}
			for b := range bi {
				x, y := bi[b], bo[b]
				if x.Sop != y.Sop || x.Eop != y.Eop || (x.Sop && x.SopSeg != y.SopSeg) || (x.Eop && x.Empty != y.Empty) {
					t.Fatalf("w%d %s: beat %d's structure differs in and out", w, mix.name, b)
				}
			}
			back, err := verilog.UnpackSegments(w, bo)
			if err != nil {
				t.Fatal(err)
			}
			for i := range out {
				if !bytes.Equal(back[i], out[i]) {
					t.Fatalf("w%d %s: packet %d differs after packing", w, mix.name, i)
				}
			}
			perBeat := float64(total) / float64(len(bi))
			t.Log(fmt.Sprintf("w%d %-13s %5d packets: segmented %6d beats, %.3f packets/beat, %.1f bytes/beat (%.3f, %3.0f Gb/s at 923 MHz); one a beat %6d beats, %.3f packets/beat (%.3f)",
				w, mix.name, len(in), len(bi), float64(len(in))/float64(len(bi)), perBeat, perBeat/float64(nb), perBeat*8*0.923,
				one, float64(len(in))/float64(one), float64(total)/float64(one*nb)))
			if w == 512 && mix.name == "66..126 B" && perBeat < 0.9*64 {
				t.Errorf("w512 %s: %.1f bytes a beat, want at least %.1f", mix.name, perBeat, 0.9*64)
			}
		}
	}
}
