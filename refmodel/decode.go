// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
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

	scheme header.Scheme
	hash   hash.Func
	quad   bool // the hash's Forms over d have A != 0 (the double hash)
	// sq: the Forms over d have B = 0 as well (the double hash, A = id): A*d*d
	// is A times the constant d*d (mod 2^32), so the records (A, 0) run on
	// a plan of the links' squares, the step kernels' contract without d*d.
	// A Form with B != 0 then takes addReference.
	sq   bool
	mask uint32 // the parity kernel's mask: kernel.SignMask, or a CRC's mask of the product's bits
	// formMask and shift: the mask of the hash's Forms over d for id 1, and
	// the shift that brings it to the kernel's mask (Add's common case).
	formMask uint32
	shift    uint
	sip      *kernel.SipKey // SipHash's key: the SipHash kernel takes the batches' records
	noForm   bool           // a hash with neither a Form nor the SipHash kernel: every packet by addReference
	path     *kernel.Path   // the kernels' path; nil for kernel.Default
	plan     *kernel.Plan   // D laid out for the step kernels (a hash without d*d); nil otherwise
	both     []int64        // the charges of a batchBoth flush, for Counts and Congested
	sum1     int64          // batch weights not yet added to every link
	sum2     int64

	// Records waiting for the kernels (refmodel/internal/kernel), by the
	// outputs they charge: batchHops, Counts; batchBoth, Counts and
	// Congested (the same weight: w2 = w1); batchCongs, Congested. Those
	// of a hash without d*d and a weight of at most maxUniWeight wait in
	// uni instead, by output class and signed weight (index sw +
	// maxUniWeight), for the count kernels.
	batch [3]recBatch
	uni   [3][2*maxUniWeight + 1]*uniBatch
}

// The record batches, by the outputs their records charge.
const (
	batchHops  = 0
	batchBoth  = 1
	batchCongs = 2
)

// A recBatch is the records of one kernel call: n words of recs.
type recBatch struct {
	n    int
	recs [batchSize * kernel.RecWords]uint32
}

// batchSize bounds the records the kernels walk per call, so that they stay
// in the first-level cache (16 bytes each: 8 KiB).
const batchSize = 512

// maxKernelWeight is the largest weight the kernels take. A batch's charges,
// 2*w each, then sum to at most batchSize*2*maxKernelWeight < 2^31, within
// the kernels' 32-bit lanes; a hop count is at most 2^16-1. A heavier sample
// takes the reference path.
const maxKernelWeight = 1<<21 - 1

func init() {
	if batchSize*2*maxKernelWeight > kernel.MaxSum {
		panic("refmodel: a batch of the heaviest samples overflows the kernels' lanes")
	}
}

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
	t := &Tally{
		Set: set, D: ds, counts: make([]int64, n), congested: make([]int64, n),
		scheme: m.cfg.Telemetry.Scheme, hash: m.cfg.Hash,
	}
	if f, ok := m.cfg.Hash.FormD(1); ok {
		t.quad, t.mask, t.formMask = f.A != 0, kernelMask(f), f.Mask
		if t.mask == kernel.SignMask && f.Mask != 0 {
			t.shift = uint(bits.LeadingZeros32(f.Mask))
		}
	}
	t.sip = sipKeyOf(m.cfg.Hash)
	_, ok := m.cfg.Hash.FormD(1)
	if !ok && t.sip == nil {
		t.noForm = true // no kernel takes it: a zero Form would decode every bit as 0
	}
	if f, _ := m.cfg.Hash.FormD(1); ok && t.quad && f.B == 0 {
		t.sq = true
	}
	if ok && (!t.quad || t.sq) {
		t.plan = kernel.NewPlan(t.planLinks())
	}
	return t, nil
}

// planLinks is the links the step kernels' plan holds: D, or for sq the
// squares of D (mod 2^32).
func (t *Tally) planLinks() []uint32 {
	if !t.sq {
		return t.D
	}
	ds := make([]uint32, len(t.D))
	for j, d := range t.D {
		ds[j] = d * d
	}
	return ds
}

// freshPlan remakes the plan when D changed since it was made.
func (t *Tally) freshPlan() {
	pl := t.plan.Links()
	same := len(pl) == len(t.D)
	for j := 0; same && j < len(pl); j++ {
		d := t.D[j]
		if t.sq {
			d *= d
		}
		same = pl[j] == d
	}
	if !same {
		t.plan = kernel.NewPlan(t.planLinks())
	}
}

// kernelMask is the parity kernel's mask for a hash whose Forms have f's
// mask: the sign bit for a mask of at most one bit (shifted there by
// parityForm), else the mask itself (the CRCs', the same for every id).
func kernelMask(f hash.Form) uint32 {
	if f.Mask&(f.Mask-1) == 0 {
		return kernel.SignMask
	}
	return f.Mask
}

// UseGeneric makes the tally use the plain-Go reference kernels, for
// comparisons.
func (t *Tally) UseGeneric(on bool) {
	t.useKernel(nil)
	if on {
		t.path = kernel.Reference
	}
}

// useKernel makes the tally use the kernels of path p (nil: the path the
// process runs), for the benchmarks and cross-checks of every path.
func (t *Tally) useKernel(p *kernel.Path) { t.Flush(); t.path = p }

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
// Every hash with a Form takes the parity kernel (the multiplicative and
// parity hashes through the sign of the product, the CRCs through the parity
// of their mask); SipHash, which has none, the SipHash kernel.
func (t *Tally) Add(s Sample) { t.add(&s) }

// add is Add with the sample by reference. Add, small enough to inline,
// hands the caller's copy of the sample to it: the sample's forty bytes are
// not copied again through the stack for the call, which costs (through
// store-forwarding stalls) about as much as the kernel's work on 401 links.
func (t *Tally) add(sp *Sample) {
	s := sp
	t.Packets++
	if t.hash.Kind == hash.MXM {
		t.addMXM(s)
		return
	}
	if uint(s.HopCount) > maxKernelWeight || uint(s.CongCount) > maxKernelWeight || t.noForm {
		t.addReference(*s)
		return
	}
	if t.sip != nil {
		t.addSip(*s)
		return
	}
	f, _ := t.hash.FormD(s.ID)
	var b, a uint32
	if f.Mask == t.formMask {
		b, a = f.B<<t.shift, f.A<<t.shift // the common case: the mask of every id
		if !t.quad {
			a = 0
		}
	} else {
		var ok bool
		if b, a, ok = parityForm(f, t.quad, t.mask); !ok {
			t.addReference(*s) // a mask the kernel does not take: not a built-in hash
			return
		}
	}
	if t.sq {
		if b != 0 {
			t.addReference(*s) // not a Form of A alone
			return
		}
		b, a = a, 0 // A*d*d: A times the plan's link d*d
	}
	w := int64(s.HopCount)
	switch t.scheme {
	case header.OneReservoir:
		if w == 0 {
			return // an empty reservoir adds nothing (Alg. 9)
		}
		// c is 1 when the congested count follows the match: the record
		// goes to batchBoth (1) rather than batchHops (0), without a branch.
		c := int64(b2i(s.CongBit == 1))
		sw := signOf(f.C^uint32(s.HopBit)) * w
		t.sum1 += sw
		t.sum2 += sw * c
		if t.plan != nil && w <= maxUniWeight {
			t.addUni(int(c), sw, b)
		} else if q := &t.batch[c]; q.add(b, a, sw, sw*c) {
			t.flushBatch(q)
		}
	case header.TwoReservoir:
		if w > 0 {
			sw := signOf(f.C^uint32(s.HopBit)) * w
			t.sum1 += sw
			if t.plan != nil && w <= maxUniWeight {
				t.addUni(batchHops, sw, b)
			} else if q := &t.batch[batchHops]; q.add(b, a, sw, 0) {
				t.flushBatch(q)
			}
		}
		if cw := int64(s.CongCount); cw > 0 {
			sw := signOf(f.C^uint32(s.CongBit)) * cw
			t.sum2 += sw
			if t.plan != nil && cw <= maxUniWeight {
				t.addUni(batchCongs, sw, b)
			} else if q := &t.batch[batchCongs]; q.add(b, a, sw, 0) {
				t.flushBatch(q)
			}
		}
	}
}

// maxUniWeight is the largest weight (hop or congested count) whose
// records wait in batches of their own weight, one per output class and
// signed weight sw (Tally.uni): a path of up to 16 hops. A batch of one
// weight takes the count kernels (kernel.Path.CountPlan), which count the
// matching records per link and multiply once, cheaper than the parity
// kernels' weight per record.
const maxUniWeight = 16

// A uniBatch is the B of records of one output class and one signed weight
// sw (each charging -2*sw where its parity is 1), for one call of the count
// kernels.
type uniBatch struct {
	n  int
	bs [batchSize]uint32
}

// addUni queues B for the count kernels in the batch of output class c and
// signed weight sw (|sw| <= maxUniWeight; the caller has added sw to the
// batch's constant part). A record with B = 0 counts nowhere (its parity is
// 0 on every link: half the parity hash's records) and is dropped.
func (t *Tally) addUni(c int, sw int64, b uint32) {
	if b == 0 {
		return
	}
	q := t.uni[c][sw+maxUniWeight]
	if q == nil {
		q = new(uniBatch)
		t.uni[c][sw+maxUniWeight] = q
	}
	q.bs[q.n] = b
	q.n++
	if q.n == len(q.bs) {
		t.flushUni(c, sw)
	}
}

// flushUni runs the count kernel on the batch of output class c and signed
// weight sw.
func (t *Tally) flushUni(c int, sw int64) {
	q := t.uni[c][sw+maxUniWeight]
	if q == nil || q.n == 0 {
		return
	}
	p := t.path
	if p == nil {
		p = kernel.Default
	}
	t.freshPlan()
	out := t.counts
	switch c {
	case batchBoth:
		out = t.bothScratch()
	case batchCongs:
		out = t.congested
	}
	p.CountPlan(t.plan, q.bs[:q.n], out, int32(-2*sw), t.mask)
	if c == batchBoth {
		t.addBoth(out)
	}
	q.n = 0
}

// bothScratch is the cleared scratch output of a batchBoth flush.
func (t *Tally) bothScratch() []int64 {
	if len(t.both) != len(t.D) {
		t.both = make([]int64, len(t.D))
	}
	clear(t.both)
	return t.both
}

// addBoth adds a batchBoth flush's charges to Counts and Congested.
func (t *Tally) addBoth(out []int64) {
	for j, v := range out {
		t.counts[j] += v
		t.congested[j] += v
	}
}

// parityForm returns the parity contract's B and A of a Form for the kernel
// mask: for the sign mask, a Form whose mask has at most one bit, shifted to
// bit 31 (bit k of a product is bit 31 of the product shifted left by 31-k);
// for a wider mask, the Form as it is when its mask is that one. ok is false
// otherwise.
func parityForm(f hash.Form, quad bool, mask uint32) (b, a uint32, ok bool) {
	switch {
	case mask == kernel.SignMask && f.Mask == 0:
		return 0, 0, true // parity over nothing: the constant C
	case mask == kernel.SignMask && f.Mask&(f.Mask-1) == 0:
		sh := uint(bits.LeadingZeros32(f.Mask))
		b, a = f.B<<sh, f.A<<sh
	case f.Mask == mask:
		b, a = f.B, f.A
	default:
		return 0, 0, false
	}
	if !quad {
		a = 0
	}
	return b, a, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// signOf is (-1)^x for a bit x.
func signOf(x uint32) int64 { return 1 - 2*int64(x&1) }

// add queues one record (b, a, -2*s1, -2*s2) of the parity (or SipHash)
// contract, charging where the parity is 1 (the SipHash bit mismatches); the
// caller has added s1 (s2) to the batch's constant part. It reports whether
// the batch is full: the caller then flushes it (Tally.flushBatch), so that
// add stays small enough to inline.
func (q *recBatch) add(b, a uint32, s1, s2 int64) (full bool) {
	r := (*[kernel.RecWords]uint32)(q.recs[q.n:])
	r[0], r[1], r[2], r[3] = b, a, uint32(-2*s1), uint32(-2*s2)
	q.n += kernel.RecWords
	return q.n == len(q.recs)
}

// addSip is Add for SipHash: a record (id, bit, -2w, -2cw) charges the
// links whose bit mismatches, and the batch's constant part gains w (cw).
func (t *Tally) addSip(s Sample) {
	w := int64(s.HopCount)
	switch t.scheme {
	case header.OneReservoir:
		if w == 0 {
			return
		}
		c := int64(b2i(s.CongBit == 1))
		t.sum1 += w
		t.sum2 += w * c
		if q := &t.batch[c]; q.add(s.ID, uint32(s.HopBit), w, w*c) {
			t.flushBatch(q)
		}
	case header.TwoReservoir:
		if w > 0 {
			t.sum1 += w
			if q := &t.batch[batchHops]; q.add(s.ID, uint32(s.HopBit), w, 0) {
				t.flushBatch(q)
			}
		}
		if cw := int64(s.CongCount); cw > 0 {
			t.sum2 += cw
			if q := &t.batch[batchCongs]; q.add(s.ID, uint32(s.CongBit), cw, 0) {
				t.flushBatch(q)
			}
		}
	}
}

// sipKeyOf returns SipHash's kernel key, nil for every other hash.
func sipKeyOf(h hash.Func) *kernel.SipKey {
	if h.Kind != hash.SipHash {
		return nil
	}
	k := h.Key()
	key := kernel.NewSipKey(binary.LittleEndian.Uint64(k[:8]), binary.LittleEndian.Uint64(k[8:]))
	return &key
}

func (t *Tally) flushBatch(q *recBatch) {
	if q.n == 0 {
		return
	}
	recs := q.recs[:q.n]
	out := t.counts
	switch q {
	case &t.batch[batchBoth]:
		// Its records charge Counts and Congested the same weight (w2 =
		// w1): the kernels' one-output form (the cheaper) into both, once.
		out = t.bothScratch()
	case &t.batch[batchCongs]:
		out = t.congested
	}
	p := t.path
	if p == nil {
		p = kernel.Default
	}
	switch {
	case t.sip != nil:
		p.Sip(*t.sip, t.D, recs, out, nil, false)
	case t.plan != nil:
		t.freshPlan()
		p.ParityPlan(t.plan, mergeRecs(recs), out, nil, t.mask)
	default:
		p.Parity(t.D, mergeRecs(recs), out, nil, t.quad, t.mask)
	}
	if q == &t.batch[batchBoth] {
		t.addBoth(out)
	}
	q.n = 0
}

// mergeRecs merges, in place, each run of parity-contract records alike in
// B and A into one carrying the run's summed weights (the same charges on
// the same links: one record's work for the kernel instead of a run's; the
// parity hashes' records are all alike), and drops the records with B = A =
// 0, whose parity is 0 on every link. The sums stay within the kernels'
// lanes: each is at most the sum of the weights merged.
func mergeRecs(recs []uint32) []uint32 {
	const w = kernel.RecWords
	n := 0
	for i := 0; i+w <= len(recs); i += w {
		r := recs[i : i+w : i+w]
		switch {
		case r[0] == 0 && r[1] == 0:
		case n > 0 && recs[n-w] == r[0] && recs[n-w+1] == r[1]:
			recs[n-2] += r[2]
			recs[n-1] += r[3]
		default:
			copy(recs[n:n+w], r)
			n += w
		}
	}
	return recs[:n]
}

// Flush completes the batched packets. Every reader of the counts calls it;
// a caller need not.
func (t *Tally) Flush() {
	for i := range t.batch {
		t.flushBatch(&t.batch[i])
	}
	for c := range t.uni {
		for k := range t.uni[c] {
			t.flushUni(c, int64(k-maxUniWeight))
		}
	}
	if t.sum1 != 0 || t.sum2 != 0 {
		for j := range t.counts {
			t.counts[j] += t.sum1
			t.congested[j] += t.sum2
		}
		t.sum1, t.sum2 = 0, 0
	}
}

// addMXM is Add for mxm, which has no Form and no kernel: each link's bit
// in full, as hash.Func.Bit computes it (the id times Mult0Const*d, then
// the xorshift and multiply; the product taken as (Mult0Const*id)*d), in a
// loop without a branch on the bit. As the kernels' records do, a link whose
// bit is 1 is charged -2*s (s the signed weight, +w for a hop bit of 0),
// and the batch's constant part gains s. addReference is its oracle.
func (t *Tally) addMXM(s *Sample) {
	var s1, s2 int64
	switch t.scheme {
	case header.OneReservoir:
		if s.HopCount == 0 {
			return // an empty reservoir adds nothing (Alg. 9)
		}
		s1 = signOf(uint32(s.HopBit)) * int64(s.HopCount)
		if s.CongBit == 1 {
			s2 = s1
		}
	case header.TwoReservoir:
		if s.HopCount > 0 {
			s1 = signOf(uint32(s.HopBit)) * int64(s.HopCount)
		}
		if s.CongCount > 0 {
			s2 = signOf(uint32(s.CongBit)) * int64(s.CongCount)
		}
	}
	t.sum1 += s1
	t.sum2 += s2
	k := hash.Mult0Const * s.ID
	c1, c2 := -2*s1, -2*s2
	counts, congested := t.counts, t.congested[:len(t.counts)]
	for j, d := range t.D[:len(counts)] {
		m := -int64(hash.MXMFromK(k, d)) // 0, or -1 where the bit is 1
		counts[j] += c1 & m
		congested[j] += c2 & m
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
//
// W estimates the number of packets that crossed the link: the weighted
// count W_d of section 3.3, whose expectation is that number (0 for a link
// no packet crossed) when the thesis's assumptions hold (a sound hash, an
// independent generator per port, an unsaturated count: RecommendedConfig),
// and whose standard deviation is about l*sqrt(Q) (Threshold). It is an estimate, not a count: it can exceed Q or
// be negative. Fraction estimates the share of those packets that left
// through a congested port (section 3.2's congested fraction, C/W): a ratio
// of two estimates, it can leave [0, 1] (in the package's Tally example the
// link every packet crossed congested reads 0.94, others -0.03); clamp it to [0, 1]
// for display if you must, but average the unclamped values.
type LinkEstimate struct {
	Link      Link
	Hop       int     // position on the candidate set's paths
	W         int64   // estimated packets that crossed the link (weighted count W_d)
	C         int64   // estimated congested packets among them (weighted congested count)
	Q         int64   // packets that might have crossed the link
	Threshold float64 // L*sqrt(Q)*Phi^-1(p)
	Passed    bool    // W >= Threshold; otherwise reported as zero
	Fraction  float64 // estimated congested fraction C/W, 0 unless Passed; may leave [0, 1]
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

// weightedBitsReference is WeightedBits one (id, link) at a time with
// hash.Func.Bit: the path for a hash with neither a Form nor the SipHash
// kernel (mxm), and the oracle the kernels are tested against.
func weightedBitsReference(h hash.Func, ds []uint32, weights []int64, ids []uint32, out []int64) {
	for i, id := range ids {
		var s int64
		for j, d := range ds {
			s += weights[j] * int64(h.Bit(id, d))
		}
		out[i] = s
	}
}

// weightedBitsMXM is WeightedBits for mxm: each bit in full, as
// hash.Func.Bit computes it (the product taken as (Mult0Const*id)*d), summed
// without a branch on the bit. weightedBitsReference is its oracle.
func weightedBitsMXM(ds []uint32, weights []int64, ids []uint32, out []int64) {
	weights = weights[:len(ds)]
	for i, id := range ids {
		k := hash.Mult0Const * id
		var s int64
		for j, d := range ds {
			s += weights[j] & -int64(hash.MXMFromK(k, d))
		}
		out[i] = s
	}
}

// WeightedBits sets out[i] to the sum over j of weights[j]*H(ids[i], ds[j]):
// with weights proportional to the probability that a packet's reservoir
// holds link j (the routing's share of the link times the selection of its
// hop, section 5.6), out[i] is proportional to the probability that the
// packet reaches the receiver with hop bit 1. It is the expectation of the
// receiver's input over the switches' draws, for decode studies that need it
// exactly rather than by Monte Carlo; Tally.Add then decodes a sample of that
// weight as Alg. 9 decodes any other.
//
// It runs the decode kernels with the roles of packets and links exchanged:
// with d fixed, id -> H(id, d) has a hash.Form too (Func.FormID), and the
// SipHash kernel takes the message's halves either way. Weights are at most
// 2^21 in magnitude.
func (m *Model) WeightedBits(ds []uint32, weights []int64, ids []uint32, out []int64) error {
	if len(weights) != len(ds) || len(out) < len(ids) {
		return fmt.Errorf("weighted bits: %d links with %d weights, %d ids into %d outputs", len(ds), len(weights), len(ids), len(out))
	}
	for j, w := range weights {
		if w < -maxKernelWeight || w > maxKernelWeight {
			return fmt.Errorf("weighted bits: link %d (d=%d) has weight %d, beyond +-%d", j, ds[j], w, maxKernelWeight)
		}
	}
	out = out[:len(ids)]
	clear(out)
	h := m.cfg.Hash
	if key := sipKeyOf(h); key != nil {
		// The SipHash kernel with the ids in the lanes: records (d, 0, w).
		for start := 0; start < len(ds); start += batchSize {
			var recs []uint32
			for j := start; j < min(len(ds), start+batchSize); j++ {
				r := kernel.Rec(ds[j], 0, int32(weights[j]), 0)
				recs = append(recs, r[:]...)
			}
			kernel.Sip(*key, ids, recs, out, nil, true)
		}
		return nil
	}
	// A call's records charge at most kernel.MaxSum in total: they go in
	// calls of batchSize (each |w| < 2^21).
	f1, ok := h.FormID(1)
	if !ok && h.Kind == hash.MXM {
		weightedBitsMXM(ds, weights, ids, out) // no kernel takes it
		return nil
	}
	if !ok {
		weightedBitsReference(h, ds, weights, ids, out)
		return nil
	}
	mask := kernelMask(f1)
	var recs []uint32
	var base int64
	for j, d := range ds {
		f, _ := h.FormID(d)
		w := weights[j]
		b, _, ok := parityForm(f, false, mask)
		if !ok || f.A != 0 {
			return fmt.Errorf("weighted bits: %s over the id at d=%d has no form the kernel takes", h, d)
		}
		// H = P ^ C: w*H = w*C + w*(1-2C)*P.
		c := int64(f.C & 1)
		base += w * c
		r := kernel.Rec(b, 0, int32(w*(1-2*c)), 0)
		recs = append(recs, r[:]...)
	}
	for len(recs) > 0 {
		n := min(len(recs), batchSize*kernel.RecWords)
		kernel.Parity(ids, mergeRecs(recs[:n]), out, nil, false, mask)
		recs = recs[n:]
	}
	for i := range out {
		out[i] += base
	}
	return nil
}
