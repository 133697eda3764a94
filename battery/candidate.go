// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"ibreservoir/hash"
)

// candidateMoments is the decode family's moments (decodeMoments) for a hash
// given only as a bit function, in plain Go: for each packet, S_i =
// sum_j q_j (-1)^H(id_i, d_j) over the traffic links (in units of 1/D), and
// every link's sum of (-1)^H(id_i, d_j) * D*S_i, per base window. It is the
// computation newDecodeMoments runs through the model's kernels (Tally and
// WeightedBits), written out for a hash that has no Form and no kernel
// (TestCandidateMomentsMatchModel holds the two equal on Hmult0).
func candidateMoments(c candidate, opt hash.IDOption, enc hash.LinkEncoding, w *workload, baseBits, runBits, runs int, run uint64) (*decodeMoments, error) {
	ds, err := w.set.Encode(enc)
	if err != nil {
		return nil, err
	}
	nl := len(ds)
	base := 1 << baseBits
	nb := 1 << (runBits - baseBits)
	mu := make([]int64, runs*nb*nl)
	ss := make([]int64, runs*nb)
	ids := make([]uint32, base)
	sign := make([]int64, nl)
	ks := make([]uint32, nl)
	for j, d := range ds {
		ks[j] = c.pre(d)
	}
	fs := decodeFlows(w, run) // the streams as decodeHashRun cuts them
	for r := range runs {
		for b := range nb {
			bw := r*nb + b
			fs.ids(opt, bw*base, ids)
			row := mu[bw*nl : (bw+1)*nl]
			for _, id := range ids {
				c.signs(id, ks, sign)
				var s int64
				for j, sg := range sign {
					s += w.units[j] * sg
				}
				ss[bw] += s * s
				for j := range row {
					row[j] += sign[j] * s
				}
			}
		}
	}
	return &decodeMoments{w: w, ds: ds, mu: mu, ss: ss, nb: nb, base: baseBits}, nil
}

// A candidate is a hash under search, per packet: pre maps a link to the
// per-port constant the switch would hold, signs sets sign[j] =
// (-1)^H(id, d_j) from those constants (one call per packet, so that a
// candidate's loop over the links is compiled whole).
type candidate struct {
	name  string
	pre   func(d uint32) uint32
	signs func(id uint32, ks []uint32, sign []int64)
}

// funcCandidate is a built-in hash as a candidate (the constant is d).
func funcCandidate(h hash.Func) candidate {
	return candidate{name: h.String(), pre: func(d uint32) uint32 { return d }, signs: func(id uint32, ks []uint32, sign []int64) {
		for j, d := range ks {
			sign[j] = 1 - 2*int64(h.Bit(id, d))
		}
	}}
}

// mxmCandidate is hash.MXM with K = 1846571429*d held per port.
var mxmCandidate = candidate{name: "mxm", pre: func(d uint32) uint32 { return hash.Mult0Const * d }, signs: func(id uint32, ks []uint32, sign []int64) {
	for j, k := range ks {
		sign[j] = 1 - 2*int64(hash.MXMFromK(k, id))
	}
}}
