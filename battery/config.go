// SPDX-License-Identifier: Apache-2.0

// Package battery is the statistical battery of `ibreservoir stats`: it says,
// for every combination of hash, packet-id option, link encoding, generator
// and hop-count width, whether the reservoir-sampling scheme of Taffet's
// thesis (chapters 3 and 5) is sound with it, and why, from exact counts and
// honest p-values.
//
// The battery is a list of tests, each on one subject (a hash with an id
// option and a link encoding, a generator at one l, an estimator at one count
// width). Every test's data are exact integer counts accumulated over work
// items ("chunks"); its statistic, p-value and verdict are computed from the
// summed counts only. That makes sharding exact: a shard runs some chunks and
// writes their counts (a Partial), Merge adds the counts of all shards, and
// Finalize turns any complete Partial, sharded or not, into the same Report,
// byte for byte.
//
// The null hypothesis of every hash test is that H is a uniformly random
// function: then each hash bit is a fair coin independent of every other,
// which is what section 5.4 requires. Where a domain is swept exhaustively the
// counts are exact facts about the hash, and the p-value says how surprising
// those facts would be for a random function on the same domain. The null of
// every generator test is the ideal generator of section 3.3 (each draw zero
// with probability exactly 1/l, independently), and of the estimator tests the
// exact selection distribution of section 5.6 under an ideal generator.
//
// p-values come from gonum's distributions (distuv). The battery controls the
// family-wise error rate at Config.Alpha by Holm's step-down correction over
// every test with a p-value; a test with too little data for its
// approximation (an expected chi-square cell below 5, say) is INVALID rather
// than PASS. Exact checks (the periodicity bounds of section 5.4, a
// generator's exact P0) have no p-value and are not part of the family.
package battery

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"ibreservoir/hash"
)

// Format names the JSON forms; a reader refuses any other.
const (
	PartialFormat = "ibreservoir-stats-partial/2"
	ReportFormat  = "ibreservoir-stats-report/2"
)

// Config is everything that fixes the battery's output. Its JSON form is
// recorded in every partial and report, and Merge refuses partials whose
// configurations differ.
type Config struct {
	Hashes       []string     `json:"hashes"`        // hash.Kind names, or names given by WithHash
	IDs          []string     `json:"ids"`           // hash.IDOption names
	Links        []string     `json:"links"`         // hash.LinkEncoding names
	Generators   []string     `json:"generators"`    // generator names, or names given by WithGenerator
	CountBits    []int        `json:"count_bits"`    // hop-count widths b (section 5.6), 1..8
	Lockstep     bool         `json:"lockstep"`      // also run every generator with all ports seeded alike
	Seed         uint64       `json:"seed"`          // the run seed (docs/spec.md section 6)
	Alpha        float64      `json:"alpha"`         // the family-wise error rate
	MaxBias      float64      `json:"max_bias"`      // the largest |l*P0(l) - 1| a generator may have
	Size         Size         `json:"size"`          // how much data each test takes
	TheoremIDs   []uint32     `json:"theorem_ids"`   // ids swept over all 2^32 links
	TheoremPairs [][2]uint32  `json:"theorem_pairs"` // id pairs swept over all 2^32 links
	Decode       DecodeConfig `json:"decode"`        // the decode family's workloads
}

// Size fixes the amount of data of every test. The defaults (DefaultSize)
// make the default battery take a few minutes on two cores; QuickSize is for
// unit tests.
type Size struct {
	Links       int `json:"links"`        // sampled links per bias-over-ids test
	IDs         int `json:"ids"`          // sampled ids per bias-over-links test
	Flows       int `json:"flows"`        // sampled (SLID, DestQP) flows
	Samples     int `json:"samples"`      // sampled values of the other argument where a sweep is not exhaustive
	Pairs       int `json:"pairs"`        // id pairs, link pairs
	SeqBits     int `json:"seq_bits"`     // bits per sequence of the runs and serial tests
	Sequences   int `json:"sequences"`    // sequences per runs, serial and linear-complexity test
	LCBlocks    int `json:"lc_blocks"`    // 500-bit blocks per linear-complexity sequence
	BLRTrials   int `json:"blr_trials"`   // random pairs per function of the BLR test
	BLRFuncs    int `json:"blr_funcs"`    // fixed arguments per BLR test
	SweepBits   int `json:"sweep_bits"`   // log2 of the theorem sweeps' domain: 32 for all of it
	WorstRange  int `json:"worst_range"`  // the worst-pair search takes every pair in 1..WorstRange
	WorstBits   int `json:"worst_bits"`   // ... agreeing over the first 2^WorstBits values of the other argument
	Draws       int `json:"draws"`        // draws per (generator, l) for the binomial and gap tests
	EnumLimit   int `json:"enum_limit"`   // longest period enumerated for the exact P0
	HopPackets  int `json:"hop_packets"`  // packets per hop-independence test
	Packets     int `json:"packets"`      // packets per path length of the reservoir test
	ExtraHops   int `json:"extra_hops"`   // path lengths tested past saturation (2^b-1)
	ChunkValues int `json:"chunk_values"` // values per chunk of the exhaustive sweeps

	// The decode family: windows of 2^DecodeMinBits, 2^(DecodeMinBits+
	// DecodeStepBits), ... up to 2^DecodeMaxBits consecutive packets, from
	// one stream of 2^DecodeMaxBits packets per workload (2^DecodeSlowBits
	// for a hash without a Form, SipHash, which the kernels cannot run);
	// DecodePackets packets through the stages per generator test.
	DecodeMinBits  int `json:"decode_min_bits"`
	DecodeStepBits int `json:"decode_step_bits"`
	DecodeMaxBits  int `json:"decode_max_bits"`
	DecodeSlowBits int `json:"decode_slow_bits"`
	DecodePackets  int `json:"decode_packets"`
	// DecodeRuns bounds the streams (consecutive parts of one stream of the
	// test's flows, so that no window repeats another's packet ids) of a
	// hash test on the first workload (the first topology under the first
	// numbering with one flow): as many as its longest windows need to find a
	// zero-traffic link at twice the ideal hash's worst-link rate with 90%
	// probability (power.go); the other workloads run one stream.
	DecodeRuns int `json:"decode_runs"`
}

// DefaultSize is the default battery's data.
func DefaultSize() Size {
	return Size{
		Links: 24, IDs: 24, Flows: 8, Samples: 1 << 16, Pairs: 24,
		SeqBits: 1 << 15, Sequences: 8, LCBlocks: 64, BLRTrials: 1 << 15, BLRFuncs: 4,
		SweepBits: 32, WorstRange: 32, WorstBits: 20,
		Draws: 1 << 20, EnumLimit: 1 << 24, HopPackets: 1 << 18, Packets: 1 << 15, ExtraHops: 2,
		ChunkValues:   1 << 30,
		DecodeMinBits: 12, DecodeStepBits: 2, DecodeMaxBits: 22, DecodeSlowBits: 18, DecodePackets: 1 << 16, DecodeRuns: 4,
	}
}

// QuickSize is a small battery for tests: the same tests on less data.
func QuickSize() Size {
	return Size{
		Links: 6, IDs: 6, Flows: 3, Samples: 1 << 12, Pairs: 6,
		SeqBits: 1 << 12, Sequences: 2, LCBlocks: 256, BLRTrials: 1 << 11, BLRFuncs: 2,
		SweepBits: 22, WorstRange: 8, WorstBits: 14,
		Draws: 1 << 15, EnumLimit: 1 << 16, HopPackets: 1 << 13, Packets: 1 << 11, ExtraHops: 1,
		ChunkValues:   1 << 20,
		DecodeMinBits: 10, DecodeStepBits: 2, DecodeMaxBits: 14, DecodeSlowBits: 12, DecodePackets: 1 << 12, DecodeRuns: 2,
	}
}

// DefaultTheoremIDs are the ids of the exhaustive sweeps over all links: the
// small ids of section 5.4 (for which Bond and McKinley's hashes skew), the id
// of Figure 5.1, a large odd and a large even id.
var DefaultTheoremIDs = []uint32{1, 2, 3, 6, 44974351, 0x9E3779B9, 0x80000000}

// DefaultTheoremPairs are the id pairs swept over all links: section 5.4's
// counterexample to Theorem 5.2 (ids 2 and 6), its neighbours, consecutive
// ids, and Figure 5.1's id with its successor.
var DefaultTheoremPairs = [][2]uint32{{2, 6}, {1, 3}, {3, 5}, {1, 2}, {44974351, 44974352}, {44974351, 44974353}}

// DefaultConfig is the default battery: every hash, id option and link
// encoding, every generator, hop-count widths 2, 3 and 4 (section 5.6: b >= 3
// for fat trees and dragonflies, b = 4 for tori), lockstep seeding included,
// a family-wise error rate of 0.01.
func DefaultConfig() Config {
	c := Config{
		Generators:   DefaultGenerators(),
		CountBits:    []int{2, 3, 4},
		Lockstep:     true,
		Seed:         1,
		Alpha:        0.01,
		MaxBias:      1e-3,
		Size:         DefaultSize(),
		TheoremIDs:   slices.Clone(DefaultTheoremIDs),
		TheoremPairs: slices.Clone(DefaultTheoremPairs),
		Decode:       DefaultDecodeConfig(),
	}
	for _, k := range hash.Kinds() {
		c.Hashes = append(c.Hashes, k.String())
	}
	for _, o := range hash.IDOptions() {
		c.IDs = append(c.IDs, o.String())
	}
	for _, e := range hash.LinkEncodings() {
		c.Links = append(c.Links, e.String())
	}
	return c
}

// MaxCountBits is the widest hop count the battery tests: the thesis's
// 64-bit full-ID layout has b = 8.
const MaxCountBits = 8

// validate says everything wrong with c at once.
func (c Config) validate() error {
	var errs []error
	if len(c.Hashes)+len(c.Generators) == 0 {
		errs = append(errs, errors.New("nothing to test: choose at least one hash or one generator"))
	}
	if len(c.Hashes) > 0 && (len(c.IDs) == 0 || len(c.Links) == 0) {
		errs = append(errs, errors.New("hash tests need at least one packet-id option and one link encoding"))
	}
	for _, n := range c.IDs {
		if _, err := hash.ParseIDOption(n); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range c.Links {
		if _, err := hash.ParseLinkEncoding(n); err != nil {
			errs = append(errs, err)
		}
	}
	if len(c.Generators) > 0 && len(c.CountBits) == 0 {
		errs = append(errs, errors.New("generator tests need at least one hop-count width"))
	}
	for _, b := range c.CountBits {
		if b < 1 || b > MaxCountBits {
			errs = append(errs, fmt.Errorf("hop-count width %d: want 1..%d", b, MaxCountBits))
		}
	}
	for _, list := range [][]string{c.Hashes, c.IDs, c.Links, c.Generators} {
		if d := firstDuplicate(list); d != "" {
			errs = append(errs, fmt.Errorf("%q is listed twice", d))
		}
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		errs = append(errs, fmt.Errorf("family-wise error rate %v: want 0 < alpha < 1", c.Alpha))
	}
	if !(c.MaxBias >= 0) {
		errs = append(errs, fmt.Errorf("largest generator bias %v: want >= 0", c.MaxBias))
	}
	s := c.Size
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"links", s.Links, 1}, {"ids", s.IDs, 1}, {"flows", s.Flows, 2}, {"samples", s.Samples, 64},
		{"pairs", s.Pairs, 1}, {"seq_bits", s.SeqBits, 64}, {"sequences", s.Sequences, 1},
		{"lc_blocks", s.LCBlocks, 1}, {"blr_trials", s.BLRTrials, 64}, {"blr_funcs", s.BLRFuncs, 1},
		{"worst_range", s.WorstRange, 2}, {"draws", s.Draws, 64}, {"enum_limit", s.EnumLimit, 1},
		{"hop_packets", s.HopPackets, 64}, {"packets", s.Packets, 64}, {"extra_hops", s.ExtraHops, 0},
		{"chunk_values", s.ChunkValues, 1 << 10},
	} {
		if f.v < f.min {
			errs = append(errs, fmt.Errorf("size.%s = %d: want at least %d", f.name, f.v, f.min))
		}
	}
	if s.SweepBits < 8 || s.SweepBits > 32 {
		errs = append(errs, fmt.Errorf("size.sweep_bits = %d: want 8..32", s.SweepBits))
	}
	if s.WorstBits < 8 || s.WorstBits > 32 {
		errs = append(errs, fmt.Errorf("size.worst_bits = %d: want 8..32", s.WorstBits))
	}
	if c.Decode.Enabled {
		switch {
		case s.DecodeMinBits < 8 || s.DecodeMaxBits > 24 || s.DecodeMinBits > s.DecodeMaxBits:
			errs = append(errs, fmt.Errorf("size.decode_min_bits = %d, decode_max_bits = %d: want 8 <= min <= max <= 24", s.DecodeMinBits, s.DecodeMaxBits))
		case s.DecodeStepBits < 1:
			errs = append(errs, fmt.Errorf("size.decode_step_bits = %d: want at least 1", s.DecodeStepBits))
		case s.DecodeRuns < 1 || s.DecodeRuns > 64:
			errs = append(errs, fmt.Errorf("size.decode_runs = %d: want 1..64", s.DecodeRuns))
		case s.DecodeSlowBits < s.DecodeMinBits || s.DecodeSlowBits > s.DecodeMaxBits:
			errs = append(errs, fmt.Errorf("size.decode_slow_bits = %d: want %d..%d", s.DecodeSlowBits, s.DecodeMinBits, s.DecodeMaxBits))
		case s.DecodePackets < 64:
			errs = append(errs, fmt.Errorf("size.decode_packets = %d: want at least 64", s.DecodePackets))
		}
		errs = append(errs, c.Decode.validate()...)
	}
	return errors.Join(errs...)
}

func firstDuplicate(list []string) string {
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if seen[s] {
			return s
		}
		seen[s] = true
	}
	return ""
}

// canonical is the configuration's JSON, used to compare partials.
func (c Config) canonical() string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // a Config always marshals
	}
	return string(b)
}

// SizeNote is the warning every output of a run with less data than the
// default battery carries, naming the verdicts it cannot be trusted for;
// empty for the default size.
func (c Config) SizeNote() string {
	base := c.Size
	if base.DecodeSlowBits >= DefaultSize().DecodeSlowBits {
		base.DecodeSlowBits = DefaultSize().DecodeSlowBits // more SipHash decode windows: more data, not less
	}
	switch base {
	case DefaultSize():
		return ""
	case QuickSize():
		return fmt.Sprintf("QUICK RUN (--quick): every FAIL stands (the family-wise error rate holds at any size), but a PASS, a sound "+
			"combination or a decode PASS is not evidence. The tests see far less data than the default battery, so mild failures pass "+
			"(lfsr-lut/b16/k16 passes its gap test here and fails it in the default run, and more combinations count as sound); the "+
			"exhaustive sweeps cover 2^%d of the 2^32 values, so Theorems 5.1 and 5.2 and the periodicity bounds are not checked; decode "+
			"windows reach 2^%d packets, not 2^%d. Run the default battery for any decision.",
			c.Size.SweepBits, c.Size.DecodeMaxBits, DefaultSize().DecodeMaxBits)
	}
	return "REDUCED RUN: the battery's data differ from the default (see config.size); a PASS is only as strong as the data behind it, " +
		"and sweeps of fewer than 2^32 values check no theorem. Run the default battery for any decision."
}
