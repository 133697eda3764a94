package refmodel

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/refmodel/internal/kernel"
)

// FullIDCounts is the receiver of the full-ID scheme (Alg. 4): weighted counts
// and congested counts per (switch, port).
type FullIDCounts struct {
	Counts    map[Link]int64
	Congested map[Link]int64
	Packets   int64
}

// NewFullIDCounts returns empty maps.
func NewFullIDCounts() *FullIDCounts {
	return &FullIDCounts{Counts: map[Link]int64{}, Congested: map[Link]int64{}}
}

// Add is Alg. 4: the sampled link gains the hop count, the sampled congested
// link the congested count; a count of 0 means an empty reservoir and adds
// nothing.
func (c *FullIDCounts) Add(s Sample) {
	c.Packets++
	if s.HopCount > 0 {
		c.Counts[s.HopLink] += int64(s.HopCount)
	}
	if s.CongCount > 0 {
		c.Congested[s.CongLink] += int64(s.CongCount)
	}
}

// Links returns every link with a count or congested count, sorted.
func (c *FullIDCounts) Links() []Link {
	var ls []Link
	for l := range c.Counts {
		ls = append(ls, l)
	}
	for l := range c.Congested {
		if _, ok := c.Counts[l]; !ok {
			ls = append(ls, l)
		}
	}
	slices.SortFunc(ls, cmpLink)
	return ls
}

func cmpLink(a, b Link) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// A Tally is the receiver of a one-bit scheme (Alg. 7 or 9) for the packets
// of one candidate set: W_d and the congested counts per candidate link
// (Counts, Estimates), and Q, the number of packets that might have crossed
// each of them. Add batches its work; every reader of the counts completes
// the batch first, so they are never stale. A Tally is not safe for
// concurrent use.
type Tally struct {
	Set       CandidateSet
	D         []uint32 // the links' encodings
	counts    []int64  // W_d
	congested []int64
	Packets   int64 // Q

	scheme  header.Scheme
	hash    hash.Func
	hasForm bool // the hash has a hash.Form (all but SipHash)
	generic bool
	recs    []uint64
	sum1    int64 // batch weights not yet added to every link
	sum2    int64
	congQ   []Sample // samples waiting for the kernel
}

// batchSize bounds the records the kernel walks per block of links, so that
// they stay in the first-level cache (32 bytes each: 8 KiB).
const batchSize = 256

// NewTally returns an empty tally for the one-bit schemes' decode over set.
func (m *Model) NewTally(set CandidateSet) (*Tally, error) {
	if m.cfg.Telemetry.Scheme == header.FullID {
		return nil, fmt.Errorf("the full-ID scheme decodes with FullIDCounts (Alg. 4), not a candidate set")
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	ds, err := set.Encode(m.cfg.Link)
	if err != nil {
		return nil, err
	}
	n := len(ds)
	return &Tally{
		Set: set, D: ds, counts: make([]int64, n), congested: make([]int64, n),
		scheme: m.cfg.Telemetry.Scheme, hash: m.cfg.Hash, hasForm: hasForm(m.cfg.Hash),
		recs: make([]uint64, 0, batchSize*kernel.RecWords),
	}, nil
}

// UseGeneric makes the tally use the plain-Go kernel, for comparisons.
func (t *Tally) UseGeneric(on bool) { t.Flush(); t.generic = on }

// Add decodes one packet (Alg. 7 or 9). Packets are batched; every reader of
// the counts (Counts, Count, Estimates, Merge, MergeEstimates) completes them
// first.
//
// Alg. 9 (onereservoir): every candidate link gains w = hop count if
// H(id, d) = hop_bit, else loses it; when cong_bit is 1 the congested count
// follows the same match with the same weight. Alg. 7 (tworeservoir): the
// counts as Alg. 9's; the congested counts follow the congested reservoir's
// own bit and weight.
//
// SipHash has no hash.Form and takes the reference path, link by link.
func (t *Tally) Add(s Sample) {
	t.Packets++
	if !t.hasForm {
		t.addReference(s)
		return
	}
	f, _ := t.hash.FormD(s.ID)
	w := int64(s.HopCount)
	switch t.scheme {
	case header.OneReservoir:
		cw := int64(0)
		if s.CongBit == 1 {
			cw = w
		}
		t.push(kernel.Rec(f.A, f.B, f.Mask, f.C^uint32(s.HopBit), w, cw))
		t.sum1 += w
		t.sum2 += cw
	case header.TwoReservoir:
		// The congested reservoir is charged through a record whose first
		// weight goes to out2: push it with the weights swapped and apply
		// the batch's records to (congested, counts). Two batches keep the
		// two kinds apart.
		t.push(kernel.Rec(f.A, f.B, f.Mask, f.C^uint32(s.HopBit), w, 0))
		t.sum1 += w
		if cw := int64(s.CongCount); cw > 0 {
			t.congQ = append(t.congQ, s)
			t.sum2 += cw
		}
	}
	if len(t.recs) == cap(t.recs) {
		t.flushRecs()
	}
}

func (t *Tally) push(r [kernel.RecWords]uint64) { t.recs = append(t.recs, r[:]...) }

func (t *Tally) mismatch(recs []uint64, out1, out2 []int64) {
	if t.generic {
		kernel.MismatchGeneric(t.D, recs, out1, out2)
	} else {
		kernel.Mismatch(t.D, recs, out1, out2)
	}
}

func (t *Tally) flushRecs() {
	if len(t.recs) > 0 {
		t.mismatch(t.recs, t.counts, t.congested)
		t.recs = t.recs[:0]
	}
	if len(t.congQ) > 0 {
		for _, s := range t.congQ {
			f, _ := t.hash.FormD(s.ID)
			t.push(kernel.Rec(f.A, f.B, f.Mask, f.C^uint32(s.CongBit), int64(s.CongCount), 0))
		}
		t.congQ = t.congQ[:0]
		t.mismatch(t.recs, t.congested, t.counts)
		t.recs = t.recs[:0]
	}
}

// Flush completes the batched packets. Every reader of the counts calls it;
// a caller need not.
func (t *Tally) Flush() {
	t.flushRecs()
	if t.sum1 != 0 || t.sum2 != 0 {
		for j := range t.counts {
			t.counts[j] += t.sum1
			t.congested[j] += t.sum2
		}
		t.sum1, t.sum2 = 0, 0
	}
}

// addReference is Alg. 7 and Alg. 9 as the thesis writes them, one candidate
// link at a time with hash.Func.Bit; the path for SipHash, and the oracle the
// batched kernel is tested against.
func (t *Tally) addReference(s Sample) {
	for j, d := range t.D {
		h := uint8(t.hash.Bit(s.ID, d))
		switch t.scheme {
		case header.OneReservoir: // Alg. 9
			if s.HopCount == 0 {
				continue
			}
			w := int64(s.HopCount)
			if h != s.HopBit {
				w = -w
			}
			t.counts[j] += w
			if s.CongBit == 1 {
				t.congested[j] += w
			}
		case header.TwoReservoir: // Alg. 7
			if s.HopCount > 0 {
				w := int64(s.HopCount)
				if h != s.HopBit {
					w = -w
				}
				t.counts[j] += w
			}
			if s.CongCount > 0 {
				w := int64(s.CongCount)
				if h != s.CongBit {
					w = -w
				}
				t.congested[j] += w
			}
		}
	}
}

// Threshold is the false-positive threshold of section 5.3: a link whose
// weighted count is below L*sqrt(Q)*Phi^-1(p) is reported as zero, where L is
// the longest path (the thesis: "the diameter of the network"), Q the packets
// that might have crossed the link, and Phi^-1 the standard normal quantile.
// For a link no packet crossed, W_d has mean 0 and standard deviation about
// l*sqrt(Q) (Var[W_d] = Q*l^2 - N with N = 0), so p is the probability that
// such a link is (correctly) hidden. p = 0.99 gives Phi^-1 = 2.326.
func Threshold(L int, q int64, p float64) float64 {
	return float64(L) * math.Sqrt(float64(q)) * NormalQuantile(p)
}

// DefaultP is the thesis's confidence for the threshold.
const DefaultP = 0.99

// NormalQuantile is Phi^-1(p), from gonum's distuv.
func NormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// FamilyP returns the per-link confidence that keeps the chance that any of k
// zero-traffic links passes the threshold below 1-p (Bonferroni): 1-(1-p)/k.
// The thesis's p bounds each link separately; with hundreds of candidate
// links, about (1-p)*k zero-traffic links pass at p itself.
func FamilyP(p float64, k int) float64 {
	if k < 1 {
		return p
	}
	return 1 - (1-p)/float64(k)
}

// CongestedFraction is section 3.2's congested fraction: congested counts over
// counts, 0 when the count is not positive. Sampling can make it fall outside
// [0, 1]; it is returned as computed.
func CongestedFraction(counts, congested int64) float64 {
	if counts <= 0 {
		return 0
	}
	return float64(congested) / float64(counts)
}

// A LinkEstimate is one link's decoded result.
type LinkEstimate struct {
	Link      Link
	Hop       int     // position on the candidate set's paths
	W         int64   // weighted count (W_d)
	C         int64   // weighted congested count
	Q         int64   // packets that might have crossed the link
	Threshold float64 // L*sqrt(Q)*Phi^-1(p)
	Passed    bool    // W >= Threshold; otherwise reported as zero
	Fraction  float64 // congested fraction, 0 unless Passed
}

// Estimates applies the threshold of section 5.3 with longest path L and
// confidence p to every candidate link, in the set's order.
func (t *Tally) Estimates(L int, p float64) []LinkEstimate {
	t.Flush()
	th := Threshold(L, t.Packets, p)
	es := make([]LinkEstimate, len(t.D))
	for j := range t.D {
		e := LinkEstimate{Link: t.Set.Links[j], Hop: t.Set.Hops[j], W: t.counts[j], C: t.congested[j], Q: t.Packets}
		e.judge(th)
		es[j] = e
	}
	return es
}

// RequiredPackets is section 5.3's packet count: the least S for which a link
// carrying S/k of S packets (k links sharing the traffic evenly, Q = S) has
// E[W_d] = S/k at or above the threshold L*sqrt(S)*Phi^-1(p), that is
// S >= (k*L*Phi^-1(p))^2. The tapered fat tree's 5-hop example has k = 8*24,
// L = 5: S >= 5*10^6.
//
// It needs k >= 1, L >= 1 and 0 < p < 1, and refuses an S above 2^53, where a
// float64 no longer tells one packet count from the next and Threshold cannot
// decide it; (k*L*Phi^-1(p))^2 is first bounded in exact arithmetic, so no
// input overflows or loops.
func RequiredPackets(k, L int, p float64) (int64, error) {
	if k < 1 || L < 1 || !(p > 0 && p < 1) {
		return 0, fmt.Errorf("required packets: want k >= 1 links, L >= 1 hops and 0 < p < 1, got k=%d, L=%d, p=%g", k, L, p)
	}
	z := NormalQuantile(p)
	if z <= 0 {
		return 1, nil
	}
	// (k*L*z)^2 exactly: k*L has at most 126 bits and z 53, so 512 bits hold
	// the product and its square without rounding.
	kl := new(big.Float).SetPrec(512).SetInt(new(big.Int).Mul(big.NewInt(int64(k)), big.NewInt(int64(L))))
	root := new(big.Float).SetPrec(512).Mul(kl, big.NewFloat(z))
	sq := new(big.Float).SetPrec(512).Mul(root, root)
	if sq.Cmp(new(big.Float).SetInt64(1<<53)) > 0 {
		f, _ := sq.Float64()
		return 0, fmt.Errorf("required packets: about %.3g for k=%d links, L=%d hops and p=%g, more than 2^53, beyond which float64 packet counts are not exact", f, k, L, p)
	}
	// Start at the exact bound and settle on the least S that Threshold (the
	// decoder's float64 arithmetic) passes: a step or two either way.
	si, _ := sq.Int(nil)
	s := max(si.Int64(), 1)
	ok := func(s int64) bool { return float64(s)/float64(k) >= Threshold(L, s, p) }
	for s > 1 && ok(s-1) {
		s--
	}
	for !ok(s) {
		s++
	}
	return s, nil
}

func hasForm(f hash.Func) bool { _, ok := f.FormD(0); return ok }

// MergeEstimates combines tallies whose candidate sets share links (several
// sources sending to one receiver, or receivers pooling their counts): per
// link, W_d, the congested counts and Q add up, and the threshold of section
// 5.3 is applied to the sums with longest path L and confidence p. The result
// is sorted by link; Hop is the link's position in the first tally that has it.
func MergeEstimates(tallies []*Tally, L int, p float64) []LinkEstimate {
	m := NewMerge()
	for _, t := range tallies {
		m.Add(t)
	}
	return m.Estimates(L, p)
}
