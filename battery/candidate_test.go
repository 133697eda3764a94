// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"slices"
	"testing"

	"ibreservoir/hash"
)

// TestCandidateMomentsMatchModel: the plain-Go moments equal the model's
// (kernels, Tally, WeightedBits) exactly, on Hmult0 with every id option and
// the thesis and packed encodings, two streams.
func TestCandidateMomentsMatchModel(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := hash.New(hash.Mult0)
	for _, opt := range hash.IDOptions() {
		for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
			want, err := newDecodeMoments(h, opt, enc, w, 10, 12, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			got, err := candidateMoments(funcCandidate(h), opt, enc, w, 10, 12, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.mu, want.mu) || !slices.Equal(got.ss, want.ss) {
				t.Errorf("%s %s: the plain-Go moments differ from the model's", opt, enc)
			}
			// The specialized MXM loop against hash.MXM through Bit's path.
			ref := candidate{pre: func(d uint32) uint32 { return d }, signs: func(id uint32, ks []uint32, sign []int64) {
				for j, d := range ks {
					sign[j] = 1 - 2*int64(hash.New(hash.MXM).Bit(id, d))
				}
			}}
			a, _ := candidateMoments(mxmCandidate, opt, enc, w, 10, 11, 1, 3)
			b, _ := candidateMoments(ref, opt, enc, w, 10, 11, 1, 3)
			if !slices.Equal(a.mu, b.mu) || !slices.Equal(a.ss, b.ss) {
				t.Errorf("%s %s: the MXM loop differs from hash.MXM", opt, enc)
			}
		}
	}
}

// candidates are the hashes the search judges (docs/hashes-and-generators.md).
var candidates = []candidate{mxmCandidate, funcCandidate(hash.New(hash.Mult0))}
