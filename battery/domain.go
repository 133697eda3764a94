// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"hash/fnv"

	"ibreservoir/hash"
	"ibreservoir/internal/seed"
	"ibreservoir/rng"
)

// A Hash is a one-bit hash under test: the reference Bit, and the
// affine-quadratic forms with one argument fixed (hash.Form) where the hash
// has them, which let the exhaustive tests run on hash.CountOnes and
// hash.CountAgree.
type Hash struct {
	Name   string
	Bit    func(id, d uint32) uint32
	FormD  func(id uint32) (hash.Form, bool) // d -> H(id, d); nil: none
	FormID func(d uint32) (hash.Form, bool)  // id -> H(id, d); nil: none
}

func builtinHashes() map[string]Hash {
	m := map[string]Hash{}
	for _, k := range hash.Kinds() {
		f := hash.New(k)
		m[k.String()] = Hash{Name: k.String(), Bit: f.Bit, FormD: f.FormD, FormID: f.FormID}
	}
	return m
}

func (h Hash) formD(id uint32) (hash.Form, bool) {
	if h.FormD == nil {
		return hash.Form{}, false
	}
	return h.FormD(id)
}

func (h Hash) formID(d uint32) (hash.Form, bool) {
	if h.FormID == nil {
		return hash.Form{}, false
	}
	return h.FormID(d)
}

// overD returns d -> H(id, d), through the Form where there is one.
func (h Hash) overD(id uint32) func(uint32) uint32 {
	if f, ok := h.formD(id); ok {
		return f.Eval
	}
	return func(d uint32) uint32 { return h.Bit(id, d) }
}

// overID returns id -> H(id, d).
func (h Hash) overID(d uint32) func(uint32) uint32 {
	if f, ok := h.formID(d); ok {
		return f.Eval
	}
	return func(id uint32) uint32 { return h.Bit(id, d) }
}

// A sampler draws the battery's sample points from xoshiro128** (rng.Ideal),
// seeded from the run seed and the test's name, so that every sample is
// reproducible from the seed and independent of the order tests run in.
type sampler struct{ g *rng.Ideal }

// Seed tags of the battery's streams (the first tag after the run seed).
const (
	tagBattery uint64 = 0xBA77E4 // then the test key's FNV-1a hash, then the chunk
	tagFlows   uint64 = 0xF1035  // the sampled flows
)

func newSampler(s uint64, tags ...uint64) sampler {
	return sampler{rng.NewIdeal(seed.Derive(s, tags...), 1)}
}

func (s sampler) u32() uint32 { return s.g.Next() }

// below returns a value in [0, n), n <= 2^32, by multiply-shift (Lemire); its
// bias, below n/2^32, does not matter to a sample.
func (s sampler) below(n uint64) uint64 { return uint64(s.g.Next()) * n >> 32 }

func keyTag(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// A flow is a (SLID, DestQP) pair: the fields besides the PSN that the
// packet-id options mix in.
type flow struct {
	slid uint16
	qp   uint32
}

func (f flow) String() string { return fmt.Sprintf("SLID %d DestQP %d", f.slid, f.qp) }

// sampleFlows returns n distinct flows: unicast SLIDs 1..0xBFFF (IBA Vol. 1
// section 4.1.3) and DestQPs 2..2^24-1 (QP0 and QP1 are the management QPs).
func sampleFlows(s uint64, n int) []flow {
	sm := newSampler(s, tagFlows)
	seen := map[flow]bool{}
	var fs []flow
	for len(fs) < n {
		f := flow{uint16(1 + sm.below(0xBFFF)), uint32(2 + sm.below(1<<24-2))}
		if !seen[f] && !seenSLID(fs, f.slid) {
			seen[f] = true
			fs = append(fs, f)
		}
	}
	return fs
}

func seenSLID(fs []flow, s uint16) bool {
	for _, f := range fs {
		if f.slid == s {
			return true
		}
	}
	return false
}

// A domain is where a hash is used: ids from one option over flows, links
// from one encoding over its whole range of switches and ports 1..MaxPort.
type domain struct {
	opt   hash.IDOption
	enc   hash.LinkEncoding
	flows []flow
}

func (dm domain) id(f flow, psn uint32) uint32 { return dm.opt.ID(f.slid, f.qp, psn) }

// nLinks is the number of links the encoding keeps apart.
func (dm domain) nLinks() uint64 {
	return uint64(dm.enc.MaxSwitch()+1) * uint64(dm.enc.MaxPort())
}

// link returns the switch and port of link number i (ports fastest, from 1).
func (dm domain) link(i uint64) (uint16, uint8) {
	p := uint64(dm.enc.MaxPort())
	return uint16(i / p), uint8(1 + i%p)
}

// d returns the encoding of link number i.
func (dm domain) d(i uint64) uint32 {
	sw, port := dm.link(i)
	d, err := dm.enc.Encode(sw, port)
	if err != nil {
		panic(err) // link numbers stay inside the encoding's range
	}
	return d
}

func (dm domain) linkName(i uint64) string {
	sw, port := dm.link(i)
	return fmt.Sprintf("switch %d port %d (d=%d)", sw, port, dm.d(i))
}

// The PSN is 24 bits; every id option maps the 2^24 PSNs of one flow onto a
// set of ids that the sweeps can cover exactly:
//
//	psn         id = PSN: the range [0, 2^24)
//	psn-slid    id = PSN ^ SLID<<16: bits 16..23 of PSN are XORed with the low
//	            byte of SLID, a bijection of [0, 2^8); bits 24..31 are SLID's
//	            high byte. So the ids are the aligned block [SLID>>8<<24, +2^24).
//	psn-destqp  id = PSN ^ DestQP<<8: likewise the block [DestQP>>16<<24, +2^24).
//	psn-odd     id = 2*PSN+1: the odd ids of [0, 2^25), counted as all ids of
//	            [0, 2^25) less the even ones, and id = 2x has the Form
//	            {4A, 2B, Mask, C} in x.
const psnValues = 1 << 24

type psnSweep struct {
	lo, hi uint64
	double bool // sweep x over the Form of id = 2x
	sign   int64
}

func (dm domain) sweeps(f flow) []psnSweep {
	if dm.opt == hash.IDPSNOdd {
		return []psnSweep{{0, 2 * psnValues, false, 1}, {0, psnValues, true, -1}}
	}
	base := uint64(dm.id(f, 0) &^ (psnValues - 1))
	return []psnSweep{{base, base + psnValues, false, 1}}
}

func doubled(p hash.Form) hash.Form { return hash.Form{A: 4 * p.A, B: 2 * p.B, Mask: p.Mask, C: p.C} }

// onesOverPSN is the exact number of the flow's 2^24 PSNs whose id has
// p(id) = 1.
func (dm domain) onesOverPSN(p hash.Form, f flow) uint64 {
	var n int64
	for _, s := range dm.sweeps(f) {
		q := p
		if s.double {
			q = doubled(p)
		}
		n += s.sign * int64(hash.CountOnes(q, s.lo, s.hi))
	}
	return uint64(n)
}

// agreeOverPSN is the exact number of the flow's PSNs whose id has p(id) = q(id).
func (dm domain) agreeOverPSN(p, q hash.Form, f flow) uint64 {
	var n int64
	for _, s := range dm.sweeps(f) {
		a, b := p, q
		if s.double {
			a, b = doubled(p), doubled(q)
		}
		n += s.sign * int64(hash.CountAgree(a, b, s.lo, s.hi))
	}
	return uint64(n)
}

// psnOrSamples is what a test over a flow's PSNs at link d counts: all 2^24
// PSNs where H has a Form over the id, else the sampled ones.
func (dm domain) psnOrSamples(h Hash, d uint32, samples int) uint64 {
	if _, ok := h.formID(d); ok {
		return psnValues
	}
	return uint64(samples)
}
