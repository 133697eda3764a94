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
func candidateMoments(bit func(id, d uint32) uint32, opt hash.IDOption, enc hash.LinkEncoding, w *workload, baseBits, runBits, runs int, run uint64) (*decodeMoments, error) {
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
	for r := range runs {
		sm := newSampler(run, tagFlows)
		if r > 0 {
			sm = newSampler(run, tagFlows, uint64(r))
		}
		fs := newFlowSet(w.src, sm)
		for b := range nb {
			bw := r*nb + b
			fs.ids(opt, b*base, ids)
			row := mu[bw*nl : (bw+1)*nl]
			for _, id := range ids {
				var s int64
				for j, d := range ds {
					sg := 1 - 2*int64(bit(id, d)&1)
					sign[j] = sg
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
