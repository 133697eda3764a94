// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"fmt"
	"math"
	"math/bits"
)

// # The step kernels: a running sum for the multiply
//
// Without d*d (quad false), every (packet, link) of the parity contract
// needs the product B*d. A receiver's candidate links are numbered in runs:
// a switch's ports, or the same port of consecutive switches, have
// encodings in arithmetic progression (the five-hop set of section 5.3 is
// runs of 8 and 24 links 512 apart). Along a progression d_k = d_0 + k*s,
//
//	B*d_k = B*d_0 + k*(B*s)        (mod 2^32)
//
// so per packet two multiplies, T = B*d_0 and U = B*s, and one add per link
// (T += U) give every product of the run: the multiply per link becomes an
// add. A Plan cuts the links, in their order, into chunks of at most g
// links in arithmetic progression (any two links are one; a run longer
// than g is cut into several), for the chunk lengths g the paths use. The
// step kernels evaluate a chunk's links by the running sum, and add each
// chunk's sums to the outputs of its links, which are consecutive in ds.
//
// The parity contract is unchanged: ParityPlan(plan, ...) charges exactly
// what Parity(plan's ds, ...) with quad false charges (the tests hold every
// path's ParityPlan to parityGeneric).

// maxChunk bounds a Plan's chunk length: the AVX2 kernel's widest group
// (stepMaxBlocks).
const maxChunk = stepMaxBlocks

// A chunk is links first .. first+n-1 of a Plan: d = d0 + k*step for the
// k-th (mod 2^32).
type chunk struct {
	d0, step uint32
	first, n int
}

// A layout is a Plan's links cut into chunks of at most g links, and the
// chunks packed eight to a group for the AVX2 step kernel: per group, the
// eight lanes' d0 then the eight lanes' steps (16 words); a lane past the
// last chunk has d0 = step = 0 (a zero product charges nothing).
type layout struct {
	g      int
	chunks []chunk
	groups []uint32
}

// A Plan is a set of links laid out for the step kernels (ParityPlan). It
// holds a copy of the links; its scratch space makes it unsafe for
// concurrent use.
type Plan struct {
	ds      []uint32
	layouts [maxChunk + 1]layout // by chunk length g, 1..maxChunk
	sums    []int32              // the kernels' 32-bit sums, per call
	recs    []uint32             // countByParity's records
}

// NewPlan lays out the links ds (copied) for the step kernels.
func NewPlan(ds []uint32) *Plan {
	p := &Plan{ds: append([]uint32(nil), ds...)}
	most := 0
	for g := 1; g <= maxChunk; g++ {
		l := &p.layouts[g]
		l.g = g
		l.chunks = chunks(p.ds, g)
		ng := (len(l.chunks) + 7) / 8
		l.groups = make([]uint32, 16*ng)
		for c, ch := range l.chunks {
			l.groups[16*(c/8)+c%8] = ch.d0
			l.groups[16*(c/8)+8+c%8] = ch.step
		}
		most = max(most, 2*8*g*ng)
	}
	p.sums = make([]int32, most)
	return p
}

// Links is the plan's links (its copy: not to be modified).
func (p *Plan) Links() []uint32 { return p.ds }

// chunks cuts ds, in order, into runs of at most g links in arithmetic
// progression, greedily: a chunk takes the next link and as many of the
// following as keep its first step.
func chunks(ds []uint32, g int) []chunk {
	var cs []chunk
	for i := 0; i < len(ds); {
		c := chunk{d0: ds[i], first: i, n: 1}
		if g > 1 && i+1 < len(ds) {
			c.step = ds[i+1] - ds[i]
			c.n = 2
			for c.n < g && i+c.n < len(ds) && ds[i+c.n]-ds[i+c.n-1] == c.step {
				c.n++
			}
		}
		cs = append(cs, c)
		i += c.n
	}
	return cs
}

// stepCost estimates the AVX2 step kernel's work per record on a layout:
// per group, the broadcasts and two multiplies (about six instructions),
// and per block three (the add of the step, the select, the sum), or five
// with two outputs; with a parity mask, seven more per block for the fold.
func stepCost(l *layout, two, sign bool) int {
	perBlock := 3
	if two {
		perBlock = 5
	}
	if !sign {
		perBlock += 7
	}
	return len(l.groups) / 16 * (6 + perBlock*l.g)
}

// bestLayout is the layout of chunk length at most most whose groups cost
// the AVX2 step kernel least.
func (p *Plan) bestLayout(most int, two, sign bool) *layout {
	best := &p.layouts[1]
	for g := 2; g <= min(most, maxChunk); g++ {
		if l := &p.layouts[g]; stepCost(l, two, sign) < stepCost(best, two, sign) {
			best = l
		}
	}
	return best
}

// ParityPlan applies the parity contract with quad false to the plan's
// links: what Parity(plan.Links(), recs, out1, out2, false, mask) does, by
// the path's step kernel (the paths without one run their parity kernel on
// the plan's links). out1 (out2, when given) is at least as long as the
// plan's links.
func (p *Path) ParityPlan(pl *Plan, recs []uint32, out1, out2 []int64, mask uint32) {
	checkRecs(pl.ds, recs, out1, out2, false)
	if len(pl.ds) == 0 || len(recs) == 0 {
		return
	}
	if p.step == nil {
		p.parity(pl.ds, recs, out1, out2, false, mask)
		return
	}
	p.step(pl, recs, out1, out2, mask)
}

// addSums adds a layout's per-lane sums, as the AVX2 step kernel stores
// them (per group, g blocks of eight lanes for out1, then g for out2), to
// the outputs of the chunks' links.
func addSums(l *layout, sums []int32, out1, out2 []int64) {
	two := len(out2) != 0
	stride := 8 * l.g
	if two {
		stride *= 2
	}
	for c, ch := range l.chunks {
		s := sums[stride*(c/8)+c%8:]
		o1 := out1[ch.first : ch.first+ch.n]
		for k := range o1 {
			o1[k] += int64(s[8*k])
		}
		if two {
			s2 := s[8*l.g:]
			o2 := out2[ch.first : ch.first+ch.n]
			for k := range o2 {
				o2[k] += int64(s2[8*k])
			}
		}
	}
}

// stepBlocks is the AVX2 step kernel's widest group per class (the most
// blocks whose registers fit in sixteen): asm/avx2.go computes the same,
// and the kernel refuses a wider one (parityStepAVX2 returns false).
func stepBlocks(two, sign bool) int {
	switch {
	case !two && sign:
		return 11
	case !two:
		return 10
	case sign:
		return 5
	}
	return 4
}

// stepMaxBlocks is the widest of stepBlocks.
const stepMaxBlocks = 11

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// # The count contract (CountPlan)
//
// When every record of a call has the same weight w (the decode's records
// of one hop count and sign: Alg. 9 charges every packet of a path length
// the same), the sums need no weight per record: each link counts the
// records whose parity is 1, and gains w times the count once per call.
// For every j < len(ds) and every b in bs,
//
//	if parity((b*ds[j]) & mask) == 1 {
//		out[j] += w
//	}
//
// The kernels count in 32-bit lanes (len(bs) < 2^31) and add w*count to
// out once per call: per (packet, link) one instruction fewer than the
// parity contract's select of a weight.

// CountPlan applies the count contract to the plan's links (a path without
// a count kernel runs countGeneric). out is at least as long as the plan's
// links.
func (p *Path) CountPlan(pl *Plan, bs []uint32, out []int64, w int32, mask uint32) {
	if len(out) < len(pl.ds) {
		panic(fmt.Sprintf("kernel: %d links but an output of %d", len(pl.ds), len(out)))
	}
	if len(bs) > math.MaxInt32 {
		panic(fmt.Sprintf("kernel: %d records, beyond the 32-bit counts", len(bs)))
	}
	if len(pl.ds) == 0 || len(bs) == 0 || w == 0 {
		return
	}
	switch {
	case p.count != nil:
		p.count(pl, bs, out, w, mask)
	case p == Reference:
		countGeneric(pl.ds, bs, out, w, mask)
	default:
		countByParity(p, pl, bs, out, w, mask)
	}
}

// countByParity runs the count contract through the path's parity kernel,
// for a path without a count kernel (AVX-512): records (b, 0, w, 0), in
// calls whose weights sum within MaxSum, from the plan's scratch.
func countByParity(p *Path, pl *Plan, bs []uint32, out []int64, w int32, mask uint32) {
	per := len(bs)
	if aw := abs32(uint32(w)); aw > 0 {
		per = max(1, int(MaxSum/aw))
	}
	for len(bs) > 0 {
		n := min(len(bs), per, batchRecs)
		if cap(pl.recs) < RecWords*n {
			pl.recs = make([]uint32, RecWords*n)
		}
		recs := pl.recs[:RecWords*n]
		for i, b := range bs[:n] {
			r := Rec(b, 0, w, 0)
			copy(recs[RecWords*i:], r[:])
		}
		p.parity(pl.ds, recs, out, nil, false, mask)
		bs = bs[n:]
	}
}

// batchRecs bounds countByParity's records per call.
const batchRecs = 1024

// countGeneric is the plain-Go reference of the count contract.
func countGeneric(ds []uint32, bs []uint32, out []int64, w int32, mask uint32) {
	for _, b := range bs {
		for j, d := range ds {
			if bits.OnesCount32((b*d)&mask)&1 == 1 {
				out[j] += int64(w)
			}
		}
	}
}

// addCounts adds w times a layout's per-lane counts, as the AVX2 count
// kernel stores them (per group, g blocks of eight lanes of minus the
// count), to the outputs of the chunks' links.
func addCounts(l *layout, sums []int32, out []int64, w int32) {
	for c, ch := range l.chunks {
		s := sums[8*l.g*(c/8)+c%8:]
		o := out[ch.first : ch.first+ch.n]
		for k := range o {
			o[k] -= int64(s[8*k]) * int64(w)
		}
	}
}
