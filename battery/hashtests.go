// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math"
	"math/bits"

	"ibreservoir/hash"
)

// The hash tests of section 5.4. Its requirement: for distinct ids id_1..id_Q,
// a link d and d' uniform over the other links, the number of i with
// H(id_i, d') = H(id_i, d) is Binomial(Q, 1/2). That needs each bit balanced
// (bias tests) and the bits of distinct ids independent (pair tests, and, for
// the joint independence the thesis notes Theorem 5.2 falls short of, the
// sequence and linearity tests). The tests below probe it on the domain the
// switch really sees: ids from one option over real flows, links from one
// encoding.

func (b *Battery) sampler(t *testSpec, chunk int) sampler {
	return newSampler(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(chunk))
}

// planSampler draws the sample points a test fixes when it is planned.
func (b *Battery) planSampler(t *testSpec) sampler {
	return newSampler(b.cfg.Seed, tagBattery, keyTag(t.key()), math.MaxUint64)
}

func (b *Battery) add(t *testSpec) *testSpec {
	b.tests = append(b.tests, t)
	return t
}

// sampledID is a sampled packet: a flow and a PSN.
type sampledID struct {
	f   flow
	psn uint32
}

func (dm domain) idName(s sampledID) string {
	return fmt.Sprintf("PSN %d of %s (id %d)", s.psn, s.f, dm.id(s.f, s.psn))
}

// sampleIDs returns n packets: first PSNs 1..4 of the first flow (small PSNs
// give small ids, on which section 5.4 says single and double skew), then
// uniform PSNs of uniform flows.
func (dm domain) sampleIDs(sm sampler, n int) []sampledID {
	var out []sampledID
	for i := range n {
		if i < 4 {
			out = append(out, sampledID{dm.flows[0], uint32(1 + i)})
			continue
		}
		out = append(out, sampledID{dm.flows[sm.below(uint64(len(dm.flows)))], uint32(sm.below(psnValues))})
	}
	return out
}

// sampleLinks returns n link numbers: the first four links of switch 0 (the
// smallest d of the encoding: section 5.4's dependence shows on small
// arguments), then uniform links.
func (dm domain) sampleLinks(sm sampler, n int) []uint64 {
	var out []uint64
	for i := range n {
		if i < 4 {
			out = append(out, uint64(i))
			continue
		}
		out = append(out, sm.below(dm.nLinks()))
	}
	return out
}

// planHashDomain adds the tests of hash h on one (id option, link encoding).
func (b *Battery) planHashDomain(h Hash, dm domain) {
	sz := b.cfg.Size
	subj := Subject{Hash: h.Name, ID: dm.opt.String(), Link: dm.enc.String()}
	nt := func(name string, chunks, counts int, limit func(int) uint64) *testSpec {
		return &testSpec{name: name, group: "hash", subject: subj, chunks: chunks, counts: counts, limit: limit}
	}
	samples := func(int) uint64 { return uint64(sz.Samples) }

	// Bias over ids: for each sampled link d, the fraction of a flow's ids
	// with H(id, d) = 1, exhaustively over its 2^24 PSNs where H has a Form.
	{
		t := nt("bias-over-ids", sz.Links, 2*sz.Links, nil)
		links := dm.sampleLinks(b.planSampler(t), sz.Links)
		t.limit = func(c int) uint64 { return dm.psnOrSamples(h, dm.d(links[c]), sz.Samples) }
		t.run = func(c int, a *Acc) {
			d := dm.d(links[c])
			f := dm.flows[c%len(dm.flows)]
			if p, ok := h.formID(d); ok {
				a.Counts[2*c], a.Counts[2*c+1] = dm.onesOverPSN(p, f), psnValues
				return
			}
			sm := b.sampler(t, c)
			for range sz.Samples {
				a.Counts[2*c] += uint64(h.Bit(dm.id(f, uint32(sm.below(psnValues))), d))
			}
			a.Counts[2*c+1] = uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "ones", func(i int) string {
				return fmt.Sprintf("link %s over the PSNs of %s", dm.linkName(links[i]), dm.flows[i%len(dm.flows)])
			})
		}
		b.add(t)
	}

	// Bias over links: for each sampled packet id, the fraction of sampled
	// links with H(id, d) = 1.
	{
		t := nt("bias-over-links", sz.IDs, 2*sz.IDs, samples)
		ids := dm.sampleIDs(b.planSampler(t), sz.IDs)
		t.run = func(c int, a *Acc) {
			f := h.overD(dm.id(ids[c].f, ids[c].psn))
			sm := b.sampler(t, c)
			for range sz.Samples {
				a.Counts[2*c] += uint64(f(dm.d(sm.below(dm.nLinks()))))
			}
			a.Counts[2*c+1] = uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "ones", func(i int) string { return dm.idName(ids[i]) + " over sampled links" })
		}
		b.add(t)
	}

	// Agreement across ids of one flow: H(id(p), d) = H(id(p+delta), d) over
	// sampled links, for PSN steps that structured hashes repeat on.
	deltas := []uint32{1, 2, 3, 4, 6, 8, 16, 256}
	{
		t := nt("agree-ids", sz.Pairs, 2*sz.Pairs, samples)
		type pair struct {
			f     flow
			p, dp uint32
		}
		sm := b.planSampler(t)
		pairs := make([]pair, sz.Pairs)
		for i := range pairs {
			pairs[i] = pair{dm.flows[i%len(dm.flows)], uint32(1 + sm.below(psnValues-257)), deltas[i%len(deltas)]}
		}
		t.run = func(c int, a *Acc) {
			pr := pairs[c]
			f1, f2 := h.overD(dm.id(pr.f, pr.p)), h.overD(dm.id(pr.f, pr.p+pr.dp))
			s := b.sampler(t, c)
			for range sz.Samples {
				d := dm.d(s.below(dm.nLinks()))
				a.Counts[2*c] += uint64(1 ^ f1(d) ^ f2(d))
			}
			a.Counts[2*c+1] = uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "agree", func(i int) string {
				pr := pairs[i]
				return fmt.Sprintf("PSNs %d and %d of %s (ids %d, %d) over sampled links", pr.p, pr.p+pr.dp, pr.f,
					dm.id(pr.f, pr.p), dm.id(pr.f, pr.p+pr.dp))
			})
		}
		b.add(t)
	}

	// Agreement across flows: packets of two flows with the same PSN. With
	// the psn option their ids are equal, and so are all their hash bits.
	{
		t := nt("agree-flows", sz.Pairs, 2*sz.Pairs, samples)
		type pair struct {
			f, g flow
			p    uint32
		}
		sm := b.planSampler(t)
		pairs := make([]pair, sz.Pairs)
		for i := range pairs {
			j := i % len(dm.flows)
			pairs[i] = pair{dm.flows[j], dm.flows[(j+1)%len(dm.flows)], uint32(sm.below(psnValues))}
		}
		t.run = func(c int, a *Acc) {
			pr := pairs[c]
			f1, f2 := h.overD(dm.id(pr.f, pr.p)), h.overD(dm.id(pr.g, pr.p))
			s := b.sampler(t, c)
			for range sz.Samples {
				d := dm.d(s.below(dm.nLinks()))
				a.Counts[2*c] += uint64(1 ^ f1(d) ^ f2(d))
			}
			a.Counts[2*c+1] = uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "agree", func(i int) string {
				pr := pairs[i]
				return fmt.Sprintf("PSN %d of %s and of %s (ids %d, %d) over sampled links", pr.p, pr.f, pr.g,
					dm.id(pr.f, pr.p), dm.id(pr.g, pr.p))
			})
		}
		b.add(t)
	}

	// Independence across links: the 2x2 table of (H(id, d1), H(id, d2)) over
	// a flow's ids, exhaustively over its PSNs where H has a Form.
	{
		t := nt("link-pairs", sz.Pairs, 4*sz.Pairs, nil)
		sm := b.planSampler(t)
		type pair struct{ i, j uint64 }
		pairs := make([]pair, sz.Pairs)
		np := uint64(dm.enc.MaxPort())
		for k := range pairs {
			switch {
			case k == 0:
				pairs[k] = pair{1, 5} // switch 0 ports 2 and 6: d = 2 and 6 in the packed encoding
			case k%3 == 1: // adjacent ports of one switch
				i := sm.below(dm.nLinks())
				if i%np == np-1 {
					i--
				}
				pairs[k] = pair{i, i + 1}
			case k%3 == 2: // the same port of adjacent switches
				i := sm.below(dm.nLinks() - np)
				pairs[k] = pair{i, i + np}
			default:
				pairs[k] = pair{sm.below(dm.nLinks()), sm.below(dm.nLinks())}
				if pairs[k].i == pairs[k].j {
					pairs[k].j = (pairs[k].j + 1) % dm.nLinks()
				}
			}
		}
		t.limit = func(c int) uint64 { return dm.psnOrSamples(h, dm.d(pairs[c].i), sz.Samples) }
		t.run = func(c int, a *Acc) {
			d1, d2 := dm.d(pairs[c].i), dm.d(pairs[c].j)
			f := dm.flows[c%len(dm.flows)]
			o := a.Counts[4*c : 4*c+4]
			p1, ok1 := h.formID(d1)
			p2, ok2 := h.formID(d2)
			if ok1 && ok2 {
				o[0], o[1], o[2], o[3] = psnValues, dm.onesOverPSN(p1, f), dm.onesOverPSN(p2, f), dm.agreeOverPSN(p1, p2, f)
				return
			}
			s := b.sampler(t, c)
			for range sz.Samples {
				id := dm.id(f, uint32(s.below(psnValues)))
				x, y := h.Bit(id, d1), h.Bit(id, d2)
				o[1] += uint64(x)
				o[2] += uint64(y)
				o[3] += uint64(1 ^ x ^ y)
			}
			o[0] = uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			return pairFamily(a.Counts, func(i int) string {
				return fmt.Sprintf("links %s and %s over the PSNs of %s", dm.linkName(pairs[i].i), dm.linkName(pairs[i].j), dm.flows[i%len(dm.flows)])
			})
		}
		b.add(t)
	}

	// Sequence tests over consecutive PSNs of a flow at a fixed link, and over
	// consecutive links (encoding order) for a fixed packet.
	b.planSequences(h, dm, subj)

	// Linearity over GF(2) in each argument, the other fixed (BLR).
	{
		t := nt("blr-d", sz.BLRFuncs, 2*sz.BLRFuncs, func(int) uint64 { return uint64(sz.BLRTrials) })
		ids := dm.sampleIDs(b.planSampler(t), sz.BLRFuncs+4)[4:]
		t.run = func(c int, a *Acc) {
			blrRun(h.overD(dm.id(ids[c].f, ids[c].psn)), b.sampler(t, c), sz.BLRTrials, a.Counts[2*c:])
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "linear", func(i int) string {
				return "d -> H(id, d) for " + dm.idName(ids[i])
			})
		}
		b.add(t)
	}
	{
		t := nt("blr-id", sz.BLRFuncs, 2*sz.BLRFuncs, func(int) uint64 { return uint64(sz.BLRTrials) })
		links := dm.sampleLinks(b.planSampler(t), sz.BLRFuncs+4)[4:]
		t.run = func(c int, a *Acc) {
			blrRun(h.overID(dm.d(links[c])), b.sampler(t, c), sz.BLRTrials, a.Counts[2*c:])
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "linear", func(i int) string {
				return "id -> H(id, d) for link " + dm.linkName(links[i])
			})
		}
		b.add(t)
	}
}

// blrRun runs n BLR trials of f with random 32-bit x, y; c[0] counts the
// trials that held, c[1] the trials.
func blrRun(f func(uint32) uint32, s sampler, n int, c []uint64) {
	f0 := f(0)
	for range n {
		if blrTrial(f, f0, s.u32(), s.u32()) {
			c[0]++
		}
	}
	c[1] += uint64(n)
}

// planSequences adds the runs, serial and linear-complexity tests over
// consecutive PSNs and over consecutive links.
func (b *Battery) planSequences(h Hash, dm domain, subj Subject) {
	sz := b.cfg.Size
	type seqSrc struct {
		what  string
		label func(i int) string
		bits  func(i, n int) []uint8 // sequence i, n bits
	}
	mk := func(suffix string, t *testSpec) seqSrc {
		sm := b.planSampler(t)
		if suffix == "ids" {
			type seq struct {
				link  uint64
				f     flow
				start uint32
			}
			seqs := make([]seq, sz.Sequences)
			for i := range seqs {
				seqs[i] = seq{sm.below(dm.nLinks()), dm.flows[i%len(dm.flows)], uint32(sm.below(psnValues / 2))}
			}
			return seqSrc{
				label: func(i int) string {
					return fmt.Sprintf("PSNs from %d of %s at link %s", seqs[i].start, seqs[i].f, dm.linkName(seqs[i].link))
				},
				bits: func(i, n int) []uint8 {
					s := seqs[i]
					f := h.overID(dm.d(s.link))
					out := make([]uint8, n)
					for k := range out {
						out[k] = uint8(f(dm.id(s.f, (s.start+uint32(k))%psnValues)))
					}
					return out
				},
			}
		}
		type seq struct {
			id    sampledID
			start uint64
		}
		seqs := make([]seq, sz.Sequences)
		for i := range seqs {
			seqs[i] = seq{sampledID{dm.flows[i%len(dm.flows)], uint32(sm.below(psnValues))}, sm.below(dm.nLinks() / 2)}
		}
		return seqSrc{
			label: func(i int) string {
				return fmt.Sprintf("links from %s for %s", dm.linkName(seqs[i].start), dm.idName(seqs[i].id))
			},
			bits: func(i, n int) []uint8 {
				s := seqs[i]
				f := h.overD(dm.id(s.id.f, s.id.psn))
				out := make([]uint8, n)
				for k := range out {
					out[k] = uint8(f(dm.d((s.start + uint64(k)) % dm.nLinks())))
				}
				return out
			},
		}
	}
	seqBits := func(int) uint64 { return uint64(sz.SeqBits) }
	for _, suffix := range []string{"ids", "links"} {
		{
			t := &testSpec{name: "runs-" + suffix, group: "hash", subject: subj, chunks: sz.Sequences, counts: 2 * sz.Sequences, limit: seqBits}
			src := mk(suffix, t)
			t.run = func(c int, a *Acc) {
				a.Counts[2*c] = runsCount(src.bits(c, sz.SeqBits))
				a.Counts[2*c+1] = uint64(sz.SeqBits - 1)
			}
			t.final = func(a Acc) Result { return binomialFamily(a.Counts, 0.5, "changes", src.label) }
			b.add(t)
		}
		{
			t := &testSpec{name: "serial-" + suffix, group: "hash", subject: subj, chunks: sz.Sequences, counts: 8 * sz.Sequences, limit: seqBits}
			src := mk(suffix, t)
			t.run = func(c int, a *Acc) { serialCounts(src.bits(c, sz.SeqBits), a.Counts[8*c:8*c+8]) }
			uniform := []float64{1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8}
			t.final = func(a Acc) Result { return chiFamily(a.Counts, uniform, src.label) }
			b.add(t)
		}
		{
			// Pooled over sequences: 7 class counts, one chi-square.
			t := &testSpec{name: "lc-" + suffix, group: "hash", subject: subj, chunks: sz.Sequences, counts: len(lcProbs),
				limit: func(int) uint64 { return uint64(sz.LCBlocks) }}
			src := mk(suffix, t)
			t.run = func(c int, a *Acc) {
				s := src.bits(c, sz.LCBlocks*lcBlock)
				for k := 0; k+lcBlock <= len(s); k += lcBlock {
					a.Counts[lcClass(linearComplexity(s[k:k+lcBlock]))]++
				}
			}
			t.final = func(a Acc) Result {
				r := chiFamily(a.Counts, lcProbs, func(int) string {
					return fmt.Sprintf("%d sequences of %d blocks of %d bits", sz.Sequences, sz.LCBlocks, lcBlock)
				})
				if r.Verdict != Invalid {
					r.Statistic = "chi2(6)"
					r.Detail = fmt.Sprintf("linear-complexity classes (NIST SP 800-22 2.10) of %d blocks of %d bits: %v (expected proportions %v)",
						sz.Sequences*sz.LCBlocks, lcBlock, a.Counts, lcProbs)
				}
				return r
			}
			b.add(t)
		}
	}
}

// planHashOnly adds the tests of h that do not depend on the id option or
// the link encoding: the exhaustive sweeps over all 2^32 values of one
// argument (Theorems 5.1 and 5.2), the worst-pair searches, linearity in the
// product, and for Hmult0 the periodicity analysis.
func (b *Battery) planHashOnly(h Hash) {
	sz := b.cfg.Size
	subj := Subject{Hash: h.Name}
	span := uint64(1) << sz.SweepBits
	per := (span + uint64(sz.ChunkValues) - 1) / uint64(sz.ChunkValues)

	dirs := h.directions()
	sweepLimit := func(hasForm bool) func(int) uint64 {
		if hasForm {
			return func(int) uint64 { return uint64(sz.ChunkValues) }
		}
		return func(int) uint64 { return uint64(sz.Samples) }
	}

	// Theorem 5.1 and its mirror: ones over all d for fixed ids, over all ids
	// for fixed d. counts: (ones, n) per argument.
	for _, dir := range dirs {
		args := b.cfg.TheoremIDs
		if len(args) == 0 {
			break
		}
		chunks := len(args)
		if dir.hasForm {
			chunks = len(args) * int(per)
		}
		t := &testSpec{name: "exhaustive-ones-over-" + dir.over, group: "hash", subject: subj, chunks: chunks, counts: 2 * len(args), limit: sweepLimit(dir.hasForm),
			weight: sweepWeight(dir.hasForm, sz)}
		t.run = func(c int, a *Acc) {
			if dir.hasForm {
				i, r := c/int(per), uint64(c%int(per))
				p, _ := dir.form(args[i])
				lo, hi := r*uint64(sz.ChunkValues), min(span, (r+1)*uint64(sz.ChunkValues))
				a.Counts[2*i] += hash.CountOnes(p, lo, hi)
				a.Counts[2*i+1] += hi - lo
				return
			}
			s := b.sampler(t, c)
			for range sz.Samples {
				a.Counts[2*c] += uint64(dir.bit(args[c], s.u32()))
			}
			a.Counts[2*c+1] += uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			r := binomialFamily(a.Counts, 0.5, "ones", func(i int) string {
				return fmt.Sprintf("%s %d over %s", dir.arg, args[i], dir.how(sz))
			})
			r.Detail += "; " + exactList(a.Counts, args, dir.arg)
			return r
		}
		b.add(t)
	}

	// Theorem 5.2 and its counterexample: agreement of pairs over all d (and
	// of link pairs over all ids).
	for _, dir := range dirs {
		pairs := b.cfg.TheoremPairs
		if len(pairs) == 0 {
			break
		}
		chunks := len(pairs)
		if dir.hasForm {
			chunks = len(pairs) * int(per)
		}
		t := &testSpec{name: "exhaustive-agree-over-" + dir.over, group: "hash", subject: subj, chunks: chunks, counts: 2 * len(pairs), limit: sweepLimit(dir.hasForm),
			weight: sweepWeight(dir.hasForm, sz)}
		t.run = func(c int, a *Acc) {
			if dir.hasForm {
				i, r := c/int(per), uint64(c%int(per))
				p, _ := dir.form(pairs[i][0])
				q, _ := dir.form(pairs[i][1])
				lo, hi := r*uint64(sz.ChunkValues), min(span, (r+1)*uint64(sz.ChunkValues))
				a.Counts[2*i] += hash.CountAgree(p, q, lo, hi)
				a.Counts[2*i+1] += hi - lo
				return
			}
			s := b.sampler(t, c)
			for range sz.Samples {
				x := s.u32()
				a.Counts[2*c] += uint64(1 ^ dir.bit(pairs[c][0], x) ^ dir.bit(pairs[c][1], x))
			}
			a.Counts[2*c+1] += uint64(sz.Samples)
		}
		t.final = func(a Acc) Result {
			r := binomialFamily(a.Counts, 0.5, "agree", func(i int) string {
				return fmt.Sprintf("%s %d and %d over %s", dir.args, pairs[i][0], pairs[i][1], dir.how(sz))
			})
			var parts []string
			for i, p := range pairs {
				parts = append(parts, fmt.Sprintf("%d,%d: %d/%d", p[0], p[1], a.Counts[2*i], a.Counts[2*i+1]))
			}
			r.Detail += "; agree " + joinComma(parts)
			return r
		}
		b.add(t)
	}

	// The worst pairs of small arguments: every pair in 1..R, agreeing over
	// the first 2^WorstBits values of the other argument.
	for _, dir := range dirs {
		r := sz.WorstRange
		n := uint64(1) << sz.WorstBits
		chunks := r - 1
		if !dir.hasForm {
			chunks = 1
		}
		t := &testSpec{name: "worst-" + dir.pair + "-pairs", group: "hash", subject: subj, chunks: chunks, counts: 1, topK: 5,
			limit: func(int) uint64 { return n }}
		t.run = func(c int, a *Acc) {
			score := func(x, y uint32, agree uint64) {
				s := 2*agree - n
				if 2*agree < n {
					s = n - 2*agree
				}
				a.Top = append(a.Top, Extreme{A: x, B: y, Count: agree, Score: s})
				a.Counts[0]++
			}
			if dir.hasForm {
				x := uint32(c + 1)
				p, _ := dir.form(x)
				for y := x + 1; y <= uint32(r); y++ {
					q, _ := dir.form(y)
					score(x, y, hash.CountAgree(p, q, 0, n))
				}
				return
			}
			// No Form: evaluate each argument's bits once, then compare.
			rows := make([][]uint64, r+1)
			for x := 1; x <= r; x++ {
				rows[x] = make([]uint64, (n+63)/64)
				for v := uint64(0); v < n; v++ {
					rows[x][v/64] |= uint64(dir.bit(uint32(x), uint32(v))) << (v % 64)
				}
			}
			for x := 1; x <= r; x++ {
				for y := x + 1; y <= r; y++ {
					var dis uint64
					for k := range rows[x] {
						dis += uint64(bits.OnesCount64(rows[x][k] ^ rows[y][k]))
					}
					score(uint32(x), uint32(y), n-dis)
				}
			}
		}
		t.final = func(a Acc) Result {
			if len(a.Top) == 0 || a.Counts[0] == 0 {
				return Result{Verdict: Invalid, Statistic: "max |z|", Value: Float(math.NaN()), Detail: "no pairs were compared"}
			}
			w := a.Top[0]
			p := sidak(binomialTwoSided(w.Count, n, 0.5), int(a.Counts[0]))
			var worst []string
			for _, e := range a.Top {
				worst = append(worst, fmt.Sprintf("%d,%d: %d", e.A, e.B, e.Count))
			}
			return Result{
				Statistic: "max |z|", Value: Float(float64(w.Score) / math.Sqrt(float64(n))), P: Float(p), Top: a.Top,
				Counts: []Count{{"worst_agree", w.Count}, {"n", n}, {"pairs", a.Counts[0]}},
				Detail: fmt.Sprintf("worst of %d %s pairs in 1..%d over %s in [0, 2^%d): %d and %d agree on %d of %d (%.6f); top: %s",
					a.Counts[0], dir.pair, r, dir.over, sz.WorstBits, w.A, w.B, w.Count, n, float64(w.Count)/float64(n), joinComma(worst)),
			}
		}
		b.add(t)
	}

	// Linearity in the product: y -> H(y, 1). For all but Hmult0 and
	// SipHash, H(id, d) is a fixed function of the product y = id*d (or
	// id*d*d), and that function is affine over GF(2): bit 31 of y, bit 0 of
	// y, or the parity of a mask of y's bits (the CRC candidates).
	{
		t := &testSpec{name: "blr-product", group: "hash", subject: subj, chunks: 1, counts: 2, limit: func(int) uint64 { return uint64(sz.BLRTrials) }}
		t.run = func(c int, a *Acc) {
			blrRun(func(y uint32) uint32 { return h.Bit(y, 1) }, b.sampler(t, c), sz.BLRTrials, a.Counts)
		}
		t.final = func(a Acc) Result {
			return binomialFamily(a.Counts, 0.5, "linear", func(int) string { return "y -> H(y, 1)" })
		}
		b.add(t)
	}

	if h.Name == hash.Mult0.String() {
		b.planPeriodicity(h)
	}
}

// sweepWeight is an exhaustive sweep chunk's work for progress: a vector
// kernel takes about 2^4 values per hash evaluation's time.
func sweepWeight(hasForm bool, sz Size) int {
	if !hasForm {
		return max(1, sz.Samples>>20)
	}
	return max(1, sz.ChunkValues>>24)
}

// A direction is one of the two ways of sweeping H: over d with the id fixed,
// or over ids with d fixed. Every hash-only test that sweeps runs in both.
type direction struct {
	over    string // what is swept: "d" or "ids"
	arg     string // the fixed argument's name: "id" or "d"
	args    string // a pair of fixed arguments: "ids" or "links"
	pair    string // the worst-pair search's name: "id" or "link"
	form    func(uint32) (hash.Form, bool)
	bit     func(a, x uint32) uint32 // H with a fixed and x swept
	hasForm bool
}

// how says how a test of this direction covers the swept argument.
func (dir direction) how(sz Size) string {
	if !dir.hasForm {
		return fmt.Sprintf("%d sampled %s (no Form: not exhaustive)", sz.Samples, dir.over)
	}
	return fmt.Sprintf("all 2^%d %s", sz.SweepBits, dir.over)
}

// directions returns h's two sweep directions: over d, then over ids.
func (h Hash) directions() []direction {
	dirs := []direction{
		{over: "d", arg: "id", args: "ids", pair: "id", form: h.formD, bit: func(a, x uint32) uint32 { return h.Bit(a, x) }},
		{over: "ids", arg: "d", args: "links", pair: "link", form: h.formID, bit: func(a, x uint32) uint32 { return h.Bit(x, a) }},
	}
	for i := range dirs {
		_, dirs[i].hasForm = dirs[i].form(1)
	}
	return dirs
}

func joinComma(s []string) string {
	out := ""
	for i, p := range s {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

func exactList(c []uint64, args []uint32, name string) string {
	var parts []string
	for i, a := range args {
		parts = append(parts, fmt.Sprintf("%d: %d/%d", a, c[2*i], c[2*i+1]))
	}
	return "ones by " + name + " " + joinComma(parts)
}
