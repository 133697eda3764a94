// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat/distuv"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// The decode family. The randomness tests ask whether a hash or a generator
// behaves like the ideal of sections 3.3 and 5.4; the decode tests ask the
// question a specification must answer: decoding flows of n consecutive PSNs
// with this hash, packet id, link encoding and switch numbering, and this
// generator and count width, does the receiver report the links that carried
// nothing at no more than the nominal false-positive rate of section 5.3's
// threshold, and the links that carried traffic without bias?
//
// # The hash tests (decode/hash)
//
// A workload (decodeload.go) gives the candidate links d_j of a packet between
// two pods of a fat tree and, under adaptive routing, q_j, the probability
// that a packet's reservoir holds link j: the routing's share of the link
// times 1/l, the ideal selection of its hop (section 3.3). Given the packets'
// ids, the stages' draws are the only randomness left, and they are
// independent from packet to packet, so the receiver's count of link d,
// W_d = sum_i w * (-1)^(H(id_i, d) ^ hop_bit_i), has the exact conditional
// moments
//
//	E[W_d | ids]   = w * sum_i (-1)^H(id_i, d) * S_i,   S_i = sum_j q_j (-1)^H(id_i, d_j)
//	Var[W_d | ids] = w^2 * (Q - sum_i S_i^2)
//
// (the mean of a packet's term is (-1)^H(id,d) times P(hop bit 0) - P(hop bit
// 1), and its square is w^2). The family computes them exactly: S_i through
// refmodel's WeightedBits (the decode kernel with packets and links
// exchanged), and the sum over packets by decoding, with the model's own
// Tally (Alg. 9), one sample per packet whose hop bit is the sign of S_i and
// whose weight is |S_i| (in units of 1/D, D making every q_j whole). No
// stage is simulated: the stage's selection is exactly the reservoir's
// distribution, and the hash bits are deterministic given the ids; the
// generator tests below run the stages themselves.
//
// For an ideal hash (a uniformly random function) the bit H(id_i, d) is a
// fair coin independent of the other links' bits, so with S'_i the sum
// without link d's own share,
//
//	T_d = (E[W_d | ids]/w - N_d/w)^2 / sum_i S'_i^2   ~   chi2(1)
//
// over a window, and its sum over K disjoint windows ~ chi2(K). The test's
// statistic is the largest sum over the candidate links, its p-value Sidak's
// over their number. A structured hash whose bits for two links agree over
// the window (section 5.4's rotation alignment, ids that repeat) makes some
// T_d large; the detail gives its effect where the decision is made: the
// worst zero-traffic link's E[z^2] and false-positive rate at the threshold
// L*sqrt(Q)*Phi^-1(0.99) against the nominal 1%, the traffic links' bias, and
// the link pairs to blame.
//
// # The generator tests (decode/generator)
//
// The same workload's packets, as real bytes, through the model's sender
// NIC, every switch stage on their path with the port's generator (seeded as
// docs/spec.md section 6 says, or all alike for the lockstep variant) and the
// receiver NIC, decoded by the model's Tally: each link's count is compared
// with its exact conditional mean under the ideal generator and an
// unsaturated count, and Sidak's correction over the links gives the
// p-value. Saturation (section 5.6), a biased P0, or draws that depend on
// each other from hop to hop shift the counts; the detail gives the held
// hops' frequencies.

// DecodeConfig chooses the decode family's workloads.
type DecodeConfig struct {
	Enabled    bool     `json:"enabled"`
	Topologies []string `json:"topologies"` // decodeTopologies names
	Numberings []string `json:"numberings"` // DecodeNumberings
	Flows      []int    `json:"flows"`      // flows per workload (1..16)
	P          float64  `json:"p"`          // the threshold's confidence (section 5.3: 0.99)
}

// DefaultDecodeConfig is every topology and numbering, one flow and sixteen.
func DefaultDecodeConfig() DecodeConfig {
	return DecodeConfig{Enabled: true, Topologies: DecodeTopologies(), Numberings: DecodeNumberings(), Flows: []int{1, 16}, P: refmodel.DefaultP}
}

func (d DecodeConfig) validate() []error {
	if !d.Enabled {
		return nil
	}
	var errs []error
	for _, n := range d.Topologies {
		if !slices.Contains(DecodeTopologies(), n) {
			errs = append(errs, fmt.Errorf("unknown decode topology %q (want one of %s)", n, strings.Join(DecodeTopologies(), ", ")))
		}
	}
	for _, n := range d.Numberings {
		if !slices.Contains(DecodeNumberings(), n) {
			errs = append(errs, fmt.Errorf("unknown switch numbering %q (want one of %s)", n, strings.Join(DecodeNumberings(), ", ")))
		}
	}
	for _, f := range d.Flows {
		if f < 1 || f > 16 {
			errs = append(errs, fmt.Errorf("decode flows %d: want 1..16 (flows come from the nodes of one leaf)", f))
		}
	}
	if len(d.Topologies) == 0 || len(d.Numberings) == 0 || len(d.Flows) == 0 {
		errs = append(errs, errors.New("the decode family needs at least one topology, numbering and flow count (or disable it)"))
	}
	for _, list := range [][]string{d.Topologies, d.Numberings} {
		if dup := firstDuplicate(list); dup != "" {
			errs = append(errs, fmt.Errorf("%q is listed twice", dup))
		}
	}
	if !(d.P > 0.5 && d.P < 1) {
		errs = append(errs, fmt.Errorf("decode threshold confidence %v: want 0.5 < p < 1", d.P))
	}
	return errs
}

// decodeWindows returns log2 of the window sizes up to maxBits.
func (s Size) decodeWindows(maxBits int) []int {
	var ks []int
	for k := s.DecodeMinBits; k <= maxBits; k += s.DecodeStepBits {
		ks = append(ks, k)
	}
	return ks
}

// The decode tests' seed tags.
const (
	tagNumbering uint64 = 0xD0C0DE // the random switch numbering
	tagRouting   uint64 = 0x20D7E  // a generator test's routing choices
)

// planDecode adds the decode family: the hash tests of every built-in hash
// on every id option and link encoding, on every workload; then the
// generator tests of every generator at every count width.
func (b *Battery) planDecode() error {
	dc := b.cfg.Decode
	if !dc.Enabled {
		return nil
	}
	var loads []*workload
	for _, tn := range dc.Topologies {
		tp := decodeTopologies[slices.Index(DecodeTopologies(), tn)]
		for i, num := range dc.Numberings {
			for _, f := range dc.Flows {
				// A numbering changes which link pairs align, and one flow
				// shows that; the number of flows changes which ids
				// collide, and one numbering shows that: several flows run
				// with the first numbering only.
				if f > 1 && i > 0 {
					continue
				}
				w, err := buildWorkload(tp, num, f, b.cfg.Seed)
				if err != nil {
					return err
				}
				loads = append(loads, w)
			}
		}
	}
	// The long windows' power: the first workload (the first topology's,
	// section 5.3's set by default, under the first numbering with one flow)
	// runs as many streams (consecutive parts of one stream of its flows:
	// decodeHashRun) as its largest windows need (power.go), up to
	// Size.DecodeRuns; the others run one, to keep the battery's time.
	if len(loads) > 0 {
		loads[0].long = true
	}
	b.decodeTests = b.estimateDecodeTests(len(loads))
	for _, name := range b.cfg.Hashes {
		k, err := hash.ParseKind(name)
		if err != nil {
			continue // an injected hash has no hash.Func for the model to run
		}
		for _, on := range b.cfg.IDs {
			opt, _ := hash.ParseIDOption(on)
			for _, en := range b.cfg.Links {
				enc, _ := hash.ParseLinkEncoding(en)
				for _, w := range loads {
					b.planDecodeHash(hash.New(k), opt, enc, w)
				}
			}
		}
	}
	b.decodePower = b.powerTable(loads)
	if len(b.cfg.Generators) > 0 {
		tp := decodeTopologies[0]
		w, err := buildWorkload(tp, "topo", 1, b.cfg.Seed)
		if err != nil {
			return err
		}
		for _, name := range b.cfg.Generators {
			gs := b.gens[name]
			for _, cb := range b.cfg.CountBits {
				for _, routing := range []string{"adaptive", "single-path"} {
					b.planDecodeGenerator(gs, cb, w, routing, "")
					if b.cfg.Lockstep && !gs.PerPacket {
						b.planDecodeGenerator(gs, cb, w, routing, "lockstep")
					}
				}
			}
		}
	}
	return nil
}

// decodeModel returns a one-reservoir model of the workload's fabric with
// hash h, id option opt and link encoding enc, for its Tally and
// WeightedBits.
func decodeModel(h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload, cb int, run uint64) (*refmodel.Model, error) {
	return refmodel.New(refmodel.Config{
		Telemetry: header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: cb, SwitchBits: 16, PortBits: 8, Placement: header.PlaceAuto},
		Hash:      h, ID: opt, Link: enc, Generator: "ideal", LNH: header.LNHLocal, Seed: run,
		MaxSwitch: w.maxSw, MaxPort: w.maxPort,
	})
}

// expected decodes the ideal expectation of packets first..first+len(ids)-1:
// it fills ids, sets sigma[i] = D*S_i, adds one sample per packet to tl, and
// returns the sum of sigma^2.
func (w *workload) expected(m *refmodel.Model, fs flowSet, units []int64, tds []uint32, tl *refmodel.Tally, first int, ids []uint32, sigma []int64) (int64, error) {
	fs.ids(m.Config().ID, first, ids)
	if err := m.WeightedBits(tds, units, ids, sigma); err != nil {
		return 0, err
	}
	var ss int64
	for i, id := range ids {
		s := w.denom - 2*sigma[i] // D*(P(bit 0) - P(bit 1))
		sigma[i] = s
		ss += s * s
		bit, wt := uint8(0), s
		if s < 0 {
			bit, wt = 1, -s
		}
		tl.Add(refmodel.Sample{ID: id, HopBit: bit, HopCount: int(wt)})
	}
	return ss, nil
}

// trafficLinks returns the encodings and units of the links with traffic.
func trafficLinks(ds []uint32, units []int64) ([]uint32, []int64) {
	var tds []uint32
	var tw []int64
	for j, u := range units {
		if u != 0 {
			tds = append(tds, ds[j])
			tw = append(tw, u)
		}
	}
	return tds, tw
}

// countsOf reads a tally's counts through Estimates.
func countsOf(tl *refmodel.Tally, L int, p float64, out []int64) {
	for j, e := range tl.Estimates(L, p) {
		out[j] = e.W
	}
}

// A decodeWindow is a hash test's summary of one window size, the part of a
// run that the partial records (decodeWindowWords words).
type decodeWindow struct {
	K, Links, Zero uint64  // windows; links with a statistic; zero-traffic links
	Worst          uint64  // the link with the largest statistic
	X              float64 // its statistic, chi2(K) for an ideal hash
	E2Link         uint64  // the zero-traffic link with the largest mean E[z^2]
	E2, E2FP       float64 // its E[z^2] and false-positive rate
	FPLink         uint64  // the zero-traffic link with the largest false-positive rate
	FP, FPE2       float64 // its false-positive rate and E[z^2]
	MeanE2, MeanFP float64 // over the zero-traffic links
	Bias           float64 // the traffic links' relative bias: sum of E[W_d] - N_d over sum of N_d
	MeanZ          float64 // mean (E[W_d] - N_d)/(w sqrt Q) over every link
	Blame          [decodeBlame]decodePair
}

// A decodePair is a traffic link blamed for the worst link's deviation.
type decodePair struct {
	Link      uint64  // noLink when none
	Share     float64 // its part of the deviation, signed so that it adds to it
	Imbalance float64 // mean |agree - disagree|/n of the pair's bits over a window
}

const (
	// blameBelow is the p-value (before the battery's correction) under
	// which a window size's worst link gets the link pairs to blame.
	blameBelow        = 1e-3
	decodeBlame       = 3
	decodeWindowWords = 15 + 3*decodeBlame
	noLink            = math.MaxUint64
)

func (d decodeWindow) words() []uint64 {
	f := math.Float64bits
	out := []uint64{d.K, d.Links, d.Zero, d.Worst, f(d.X), d.E2Link, f(d.E2), f(d.E2FP), f(d.MeanE2), f(d.MeanFP), f(d.Bias), f(d.MeanZ), d.FPLink, f(d.FP), f(d.FPE2)}
	for _, p := range d.Blame {
		out = append(out, p.Link, f(p.Share), f(p.Imbalance))
	}
	return out
}

func decodeWindowOf(c []uint64) decodeWindow {
	f := math.Float64frombits
	d := decodeWindow{K: c[0], Links: c[1], Zero: c[2], Worst: c[3], X: f(c[4]), E2Link: c[5], E2: f(c[6]), E2FP: f(c[7]),
		MeanE2: f(c[8]), MeanFP: f(c[9]), Bias: f(c[10]), MeanZ: f(c[11]), FPLink: c[12], FP: f(c[13]), FPE2: f(c[14])}
	for i := range d.Blame {
		o := 15 + 3*i
		d.Blame[i] = decodePair{Link: c[o], Share: f(c[o+1]), Imbalance: f(c[o+2])}
	}
	return d
}

// checkDecodeWindow checks a recorded window against what the plan allows:
// every index names a link, every float is finite where it must be.
func checkDecodeWindow(d decodeWindow, k uint64, links int) error {
	n := uint64(links)
	switch {
	case d.K != k:
		return fmt.Errorf("%d windows, the plan has %d", d.K, k)
	case d.Links > n || d.Zero > n:
		return fmt.Errorf("%d links tested and %d without traffic, of %d", d.Links, d.Zero, n)
	case d.Worst >= n && d.Worst != noLink, d.E2Link >= n && d.E2Link != noLink, d.FPLink >= n && d.FPLink != noLink:
		return fmt.Errorf("a link index beyond the %d candidate links", n)
	case math.IsNaN(d.X) || d.X < 0:
		return fmt.Errorf("statistic %v", d.X)
	case math.IsNaN(d.Bias) || math.IsInf(d.Bias, 0) || math.IsNaN(d.MeanZ) || math.IsInf(d.MeanZ, 0):
		return fmt.Errorf("bias %v, mean z %v", d.Bias, d.MeanZ)
	}
	for _, v := range []float64{d.E2, d.E2FP, d.MeanE2, d.MeanFP, d.FP, d.FPE2} {
		if math.IsNaN(v) || v < 0 || math.IsInf(v, 0) {
			return fmt.Errorf("a mean square or rate of %v", v)
		}
	}
	for _, p := range d.Blame {
		if p.Link >= n && p.Link != noLink {
			return fmt.Errorf("a blamed link index beyond the %d candidate links", n)
		}
	}
	return nil
}

// planDecodeHash adds the hash test of hash h with id option opt and link
// encoding enc on workload w.
func (b *Battery) planDecodeHash(h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload) {
	sz := b.cfg.Size
	p := b.cfg.Decode.P
	maxBits := sz.DecodeMaxBits
	if !hasForm(h) {
		maxBits = min(maxBits, sz.DecodeSlowBits)
	}
	ks := sz.decodeWindows(maxBits)
	if len(ks) == 0 {
		return
	}
	runBits := ks[len(ks)-1]
	nl := len(w.set.Links)
	runs := b.decodeRuns(w, ks, runBits)
	subj := Subject{Hash: h.String(), ID: opt.String(), Link: enc.String()}
	t := &testSpec{name: "hash", group: "decode", subject: subj, scenario: w.name, chunks: 1, counts: len(ks) * decodeWindowWords,
		weight: max(1, runs*(1<<runBits)*nl>>20)}
	if !hasForm(h) {
		t.weight *= 8 // SipHash in full for every (packet, link)
	}
	t.limit = func(int) uint64 { return 0 }
	t.vet = func(_ int, a Acc) error {
		for i, k := range ks {
			if err := checkDecodeWindow(decodeWindowOf(a.Counts[i*decodeWindowWords:]), uint64(runs)<<(runBits-k), nl); err != nil {
				return fmt.Errorf("windows of 2^%d: %w", k, err)
			}
		}
		return nil
	}
	t.run = func(c int, a *Acc) {
		run := seed.Derive(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(c))
		ws, err := decodeHashRun(h, opt, enc, w, ks, runBits, runs, p, run)
		if err != nil {
			panic(fmt.Sprintf("battery: decode %s: %v", t.key(), err))
		}
		for i, d := range ws {
			copy(a.Counts[i*decodeWindowWords:], d.words())
		}
	}
	t.finalAll = func(a Acc) []Result {
		var rs []Result
		for i, k := range ks {
			d := decodeWindowOf(a.Counts[i*decodeWindowWords:])
			r := decodeHashResult(d, h, opt, enc, w, k, p)
			r.Subject.Window = k
			rs = append(rs, r)
		}
		return rs
	}
	b.add(t)
}

// decodeHashRun runs runs streams of 2^runBits packets of one workload and
// summarizes them for every window size 2^k, k in ks: 2^(runBits-k) windows
// per stream. The streams are consecutive parts of one stream of the test's
// flows (decodeFlows), so that no two windows share a packet id: the
// statistic's sum over the windows is chi2(K) for an ideal hash only when
// its windows are independent, and windows that repeat ids are not (streams
// with starting PSNs of their own overlap: two random 2^22-PSN ranges of a
// flow meet half the time).
func decodeHashRun(h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload, ks []int, runBits, runs int, p float64, run uint64) ([]decodeWindow, error) {
	mv, err := newDecodeMoments(h, opt, enc, w, ks[0], runBits, runs, run)
	if err != nil {
		return nil, err
	}
	return mv.summarize(ks, p)
}

// decodeMoments holds a hash test's exact moments per base window.
type decodeMoments struct {
	w      *workload
	m      *refmodel.Model
	fs     flowSet // the flows (stream 0 is their first packets), for the blame
	ds     []uint32
	mu, ss []int64
	nb     int // base windows per stream
	base   int // log2 of the base window
}

func newDecodeMoments(h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload, baseBits, runBits, runs int, run uint64) (*decodeMoments, error) {
	m, err := decodeModel(h, opt, enc, w, 3, 1)
	if err != nil {
		return nil, err
	}
	ds, err := w.set.Encode(enc)
	if err != nil {
		return nil, err
	}
	tds, tw := trafficLinks(ds, w.units)
	nl := len(ds)
	base := 1 << baseBits
	nb := 1 << (runBits - baseBits)
	// mu[b*nl+j]: base window b's sum of (-1)^H(id, d_j) * D*S_i; ss[b] its
	// sum of (D*S_i)^2. Both add over packets, so every larger window is a
	// sum of base windows (never across two streams: a stream is a whole
	// number of the largest windows).
	mu := make([]int64, runs*nb*nl)
	ss := make([]int64, runs*nb)
	ids := make([]uint32, base)
	sigma := make([]int64, base)
	prev := make([]int64, nl)
	fs := decodeFlows(w, run)
	for r := range runs {
		tl, err := m.NewTally(w.set)
		if err != nil {
			return nil, err
		}
		clear(prev)
		for b := range nb {
			bw := r*nb + b
			if ss[bw], err = w.expected(m, fs, tw, tds, tl, bw*base, ids, sigma); err != nil {
				return nil, err
			}
			cur, _ := tl.Counts()
			for j := range nl {
				mu[bw*nl+j] = cur[j] - prev[j]
			}
			prev = cur
		}
	}
	return &decodeMoments{w: w, m: m, fs: fs, ds: ds, mu: mu, ss: ss, nb: nb, base: baseBits}, nil
}

// summarize gives every window size's summary, with the link pairs to blame
// (from stream 0) where a size's worst link stands out.
func (mv *decodeMoments) summarize(ks []int, p float64) ([]decodeWindow, error) {
	w, m, fs, ds, mu, ss, nb := mv.w, mv.m, mv.fs, mv.ds, mv.mu, mv.ss, mv.nb
	nl := len(ds)
	out := make([]decodeWindow, len(ks))
	var significant []int // indices into ks whose worst link stands out
	for i, k := range ks {
		out[i] = decodeSummary(w, mu, ss, nl, k-ks[0], 1<<k, p)
		d := out[i]
		if d.Worst != noLink && sidak(chiSquareP(d.X, int(d.K)), int(d.Links)) < blameBelow {
			significant = append(significant, i)
		}
	}
	// Blame, where a window size's worst link stands out: the agreement of
	// its bits with every traffic link's, per base window, from a tally
	// whose samples carry H(id, d) (agreements). The links cost a pass over
	// the stream (two links share one), so only the smallest and the
	// largest window sizes that stand out get theirs (and every other size
	// with the same link).
	blameFor := map[int][]int{} // worst link -> indices into ks
	if n := len(significant); n > 0 {
		ends := []uint64{out[significant[0]].Worst, out[significant[n-1]].Worst}
		for _, i := range significant {
			if l := out[i].Worst; slices.Contains(ends, l) {
				blameFor[int(l)] = append(blameFor[int(l)], i)
			}
		}
	}
	worst := make([]int, 0, len(blameFor))
	for d := range blameFor {
		worst = append(worst, d)
	}
	slices.Sort(worst)
	// The two ends' links share one pass.
	if len(worst) > 0 {
		agree, err := agreements(m, w, fs, ds, worst, ks[0], nb)
		if err != nil {
			return nil, err
		}
		for x, d := range worst {
			for _, i := range blameFor[d] {
				out[i].Blame = blame(w, mu[:nb*nl], ss[:nb], agree[x], nl, d, ks[i]-ks[0], 1<<ks[i])
			}
		}
	}
	return out, nil
}

// decodeChi2 returns every link's statistic over the windows of n packets
// (each 2^g base windows), chi2(K) for an ideal hash, whether the link has
// one, and K.
func decodeChi2(w *workload, mu, ss []int64, nl, g, n int) ([]float64, []bool, int) {
	per := 1 << g
	K := len(ss) / per
	Q := float64(n)
	x := make([]float64, nl)
	tested := make([]bool, nl)
	for win := range K {
		var s2 int64
		for b := win * per; b < (win+1)*per; b++ {
			s2 += ss[b]
		}
		for j := range nl {
			var m int64
			for b := win * per; b < (win+1)*per; b++ {
				m += mu[b*nl+j]
			}
			u := float64(w.units[j])
			dev := float64(m) - Q*u // D * (E[W_d|ids] - N_d)/w
			// sum of S'_i^2 (D^2 units): link d's own share taken out.
			den := float64(s2) - 2*u*float64(m) + Q*u*u
			switch {
			case den > 0:
				x[j] += dev * dev / den
				tested[j] = true
			case dev != 0:
				x[j] = math.Inf(1)
				tested[j] = true
			}
		}
	}
	return x, tested, K
}

// decodeSummary summarizes windows of n packets, each 2^g base windows.
func decodeSummary(w *workload, mu, ss []int64, nl, g, n int, p float64) decodeWindow {
	nb := len(ss)
	per := 1 << g
	K := nb / per
	D := float64(w.denom)
	Q := float64(n)
	z := distuv.UnitNormal.Quantile(p)
	// The threshold over the weight: L*sqrt(Q)*z / w.
	thr := float64(w.diam) / float64(w.pathLen) * math.Sqrt(Q) * z
	x, tested, _ := decodeChi2(w, mu, ss, nl, g, n)
	e2 := make([]float64, nl)
	fp := make([]float64, nl)
	var zsum, devT, truth float64
	for win := range K {
		var s2 int64
		for b := win * per; b < (win+1)*per; b++ {
			s2 += ss[b]
		}
		v := Q - float64(s2)/(D*D) // Var[W_d | ids] / w^2, the same for every link
		for j := range nl {
			var m int64
			for b := win * per; b < (win+1)*per; b++ {
				m += mu[b*nl+j]
			}
			u := w.units[j]
			dev := float64(m) - Q*float64(u) // D * (E[W_d|ids] - N_d)/w
			e2[j] += (dev*dev/(D*D) + v) / Q
			zsum += dev / (D * math.Sqrt(Q))
			if u == 0 {
				if v > 0 {
					fp[j] += distuv.UnitNormal.Survival((thr - float64(m)/D) / math.Sqrt(v))
				} else if float64(m)/D >= thr {
					fp[j]++
				}
			} else {
				devT += dev
				truth += Q * float64(u)
			}
		}
	}
	d := decodeWindow{K: uint64(K), Worst: noLink, E2Link: noLink, FPLink: noLink, MeanZ: zsum / float64(K*nl)}
	if truth > 0 {
		d.Bias = devT / truth
	}
	for i := range d.Blame {
		d.Blame[i].Link = noLink
	}
	for j := range nl {
		e2[j] /= float64(K)
		fp[j] /= float64(K)
		if tested[j] {
			d.Links++
			if d.Worst == noLink || x[j] > d.X {
				d.Worst, d.X = uint64(j), x[j]
			}
		}
		if w.units[j] == 0 {
			d.Zero++
			d.MeanE2 += e2[j]
			d.MeanFP += fp[j]
			if d.E2Link == noLink || e2[j] > d.E2 {
				d.E2Link, d.E2, d.E2FP = uint64(j), e2[j], fp[j]
			}
			if d.FPLink == noLink || fp[j] > d.FP {
				d.FPLink, d.FP, d.FPE2 = uint64(j), fp[j], e2[j]
			}
		}
	}
	if d.Zero > 0 {
		d.MeanE2 /= float64(d.Zero)
		d.MeanFP /= float64(d.Zero)
	}
	return d
}

// agreements returns, for each link of worst (one or two) and per base
// window and traffic link j, the sum over the window's packets of
// (-1)^(H(id, d_j) ^ H(id, d_worst)): the model's tally of samples whose hop
// bit and weight carry the worst links' bits. Blame reads the traffic links'
// sums only, so the tally runs over them alone (a candidate set of the
// workload's traffic links, about half of its links); the other links' sums
// are 0.
//
// One worst link: weight-1 samples whose hop bit is its bit. Two, a and b,
// share one pass: packet i's sample has the signed weight a_i + M*b_i, a_i
// and b_i the signs (-1)^H(id_i, d), so that a link's count over a base
// window is A_a + M*A_b with |A_a| at most the window's packets; M = 2*base
// + 1 tells the two sums apart exactly.
func agreements(m *refmodel.Model, w *workload, fs flowSet, ds []uint32, worst []int, baseBits, nb int) ([][]int64, error) {
	if len(worst) < 1 || len(worst) > 2 {
		return nil, fmt.Errorf("agreements with %d links at once, want 1 or 2", len(worst))
	}
	sub := refmodel.NewCandidateSet(w.set.PathLen)
	var traffic []int // sub's links, by index in the workload's set
	for j, u := range w.units {
		if u != 0 {
			if err := sub.Add(w.set.Hops[j], w.set.Links[j]); err != nil {
				return nil, err
			}
			traffic = append(traffic, j)
		}
	}
	tl, err := m.NewTally(sub)
	if err != nil {
		return nil, err
	}
	nl := len(ds)
	base := 1 << baseBits
	M := int64(2*base + 1)
	out := make([][]int64, len(worst))
	for i := range out {
		out[i] = make([]int64, nb*nl)
	}
	ids := make([]uint32, base)
	prev := make([]int64, len(traffic))
	h := m.Config().Hash
	// The bit through the hash's Form where it has one (a multiply and a
	// parity, where hash.Func.Bit runs the CRCs over bytes), else in full.
	sign := func(id uint32, d int) int64 {
		if f, ok := h.FormD(id); ok {
			x := ds[d]
			return 1 - 2*int64(uint32(bits.OnesCount32((f.A*x*x+f.B*x)&f.Mask)&1)^f.C&1)
		}
		return 1 - 2*int64(h.Bit(id, ds[d]))
	}
	for bw := range nb {
		fs.ids(m.Config().ID, bw*base, ids)
		for _, id := range ids {
			s := sign(id, worst[0])
			if len(worst) == 2 {
				s += M * sign(id, worst[1])
			}
			bit, wt := uint8(0), s
			if s < 0 {
				bit, wt = 1, -s
			}
			tl.Add(refmodel.Sample{ID: id, HopBit: bit, HopCount: int(wt)})
		}
		cur, _ := tl.Counts()
		for k, j := range traffic {
			v := cur[k] - prev[k]
			if len(worst) == 1 {
				out[0][bw*nl+j] = v
				continue
			}
			a := ((v % M) + M) % M // A_a, in -base..base
			if a > int64(base) {
				a -= M
			}
			out[0][bw*nl+j], out[1][bw*nl+j] = a, (v-a)/M
		}
		prev = cur
	}
	return out, nil
}

// blame ranks the traffic links by their part in link d's deviation over
// windows of n packets (2^g base windows): the deviation is
// sum_j u_j * A_j over the window, A_j the agreement sum of d's bits with
// link j's (less link d's own share), so link j's part, signed to add to the
// deviation, is sum over windows of u_j * A_j * sign(deviation).
func blame(w *workload, mu, ss, agree []int64, nl, d, g, n int) [decodeBlame]decodePair {
	per := 1 << g
	K := len(ss) / per
	part := make([]float64, nl)
	imb := make([]float64, nl)
	var total float64
	for win := range K {
		var m int64
		a := make([]int64, nl)
		for b := win * per; b < (win+1)*per; b++ {
			m += mu[b*nl+d]
			for j := range nl {
				a[j] += agree[b*nl+j]
			}
		}
		dev := float64(m) - float64(n)*float64(w.units[d])
		total += math.Abs(dev)
		sgn := 1.0
		if dev < 0 {
			sgn = -1
		}
		for j := range nl {
			if j == d || w.units[j] == 0 {
				continue
			}
			part[j] += float64(w.units[j]) * float64(a[j]) * sgn
			imb[j] += math.Abs(float64(a[j])) / float64(n)
		}
	}
	var out [decodeBlame]decodePair
	for i := range out {
		out[i].Link = noLink
	}
	order := make([]int, 0, nl)
	for j := range nl {
		if j != d && w.units[j] != 0 {
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case part[x] > part[y]:
			return -1
		case part[x] < part[y]:
			return 1
		}
		return 0
	})
	for i := 0; i < decodeBlame && i < len(order); i++ {
		j := order[i]
		share := 0.0
		if total > 0 {
			share = part[j] / total
		}
		out[i] = decodePair{Link: uint64(j), Share: share, Imbalance: imb[j] / float64(K)}
	}
	return out
}

// decodeHashResult finishes one window size of a hash test.
func decodeHashResult(d decodeWindow, h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload, k int, p float64) Result {
	if d.Links == 0 {
		return Result{Verdict: Invalid, Statistic: "max chi2", Value: Float(math.NaN()),
			Detail: "no link could be tested: every packet's expected sample is 0"}
	}
	pw := chiSquareP(d.X, int(d.K))
	r := Result{
		Statistic: fmt.Sprintf("max chi2(%d)", d.K), Value: Float(d.X), P: Float(sidak(pw, int(d.Links))),
		Counts: []Count{{"window_packets", 1 << k}, {"windows", d.K}, {"links", d.Links}, {"zero_traffic_links", d.Zero}},
	}
	name := func(j uint64) string { return w.linkName(int(j)) }
	var b strings.Builder
	fmt.Fprintf(&b, "windows of 2^%d packets (%d of them, %s): worst of %d links: %s, chi2 %.1f over %d windows",
		k, d.K, w.name, d.Links, name(d.Worst), d.X, d.K)
	if d.Zero > 0 {
		fmt.Fprintf(&b, "; zero-traffic links: false positives at p=%g up to %.3g%% (%s; nominal %.3g%%), mean %.3g%%; E[z^2] up to %.3g (%s, false positives %.3g%%), mean %.3g",
			p, 100*d.FP, name(d.FPLink), 100*(1-p), 100*d.MeanFP, d.E2, name(d.E2Link), 100*d.E2FP, d.MeanE2)
	}
	fmt.Fprintf(&b, "; traffic links: total bias %+.3g%%; mean z over all links %+.3g", 100*d.Bias, d.MeanZ)
	var pairs []string
	for _, q := range d.Blame {
		if q.Link == noLink || q.Share <= 0 {
			continue
		}
		pairs = append(pairs, fmt.Sprintf("%s with %s: %.0f%% of the deviation, agreement off by %.3g%% per window (%s)",
			name(d.Worst), name(q.Link), 100*q.Share, 100*q.Imbalance, mechanism(h, opt, enc, w, int(d.Worst), int(q.Link), k)))
	}
	if len(pairs) > 0 {
		fmt.Fprintf(&b, "; to blame: %s", strings.Join(pairs, "; "))
	}
	r.Detail = b.String()
	return r
}

// linkName names candidate link j with its hop and traffic.
func (w *workload) linkName(j int) string {
	if j < 0 || j >= len(w.set.Links) {
		return "none"
	}
	l := w.set.Links[j]
	tr := "no traffic"
	if w.units[j] != 0 {
		tr = fmt.Sprintf("%.3g%% of the traffic", 100*float64(w.units[j])*float64(w.pathLen)/float64(w.denom))
	}
	return fmt.Sprintf("switch %d port %d (hop %d, %s)", l.Switch, l.Port, w.set.Hops[j], tr)
}

// mechanismMaxK bounds the harmonics the mechanism search tries: a pair's
// bits can stay correlated through k as high as 21 (amplitude 4%).
const mechanismMaxK = 63

// mechanism names why the bits of links a and b agree over n consecutive
// packets. For a hash whose Form over the id has a one-bit mask, H(id, d) is
// the sign of B(d)*id (mod 2^32): over consecutive ids a rotation by
// theta(d) = B(d)/2^32 per packet (section 5.4's "point on a circle"), and
// two links' bits stay correlated over the window when k*theta(a) and
// k'*theta(b) nearly coincide for small odd k, k' (the square wave's
// harmonics are odd): within about 1/n of a turn.
func mechanism(h hash.Func, opt hash.IDOption, enc hash.LinkEncoding, w *workload, a, b, k int) string {
	switch {
	case !hasForm(h):
		return "no structure to name: a pseudo-random function"
	}
	da, _ := enc.Encode(w.set.Links[a].Switch, w.set.Links[a].Port)
	db, _ := enc.Encode(w.set.Links[b].Switch, w.set.Links[b].Port)
	fa, _ := h.FormID(da)
	fb, _ := h.FormID(db)
	ta, oka := rotation32(fa)
	tb, okb := rotation32(fb)
	if !oka || !okb {
		return "agreement of a parity of the product's bits (no rotation)"
	}
	step := uint32(1)
	if opt == hash.IDPSNOdd {
		step = 2 // id = 2*PSN+1
	}
	ta, tb = ta*step, tb*step
	n := float64(uint64(1) << k)
	best, bk, bk2, bsign, bdist := 0.0, 0, 0, 1, 0.0
	for k1 := 1; k1 <= mechanismMaxK; k1 += 2 {
		for k2 := 1; k2 <= mechanismMaxK; k2 += 2 {
			for _, sg := range []int{1, -1} {
				diff := uint32(k1)*ta - uint32(sg*k2)*tb
				dist := math.Abs(float64(int32(diff))) / (1 << 32) // turns
				amp := 1 / float64(k1*k2)
				if x := 2 * math.Pi * dist * n; x > 1 {
					amp /= x
				}
				if amp > best {
					best, bk, bk2, bsign, bdist = amp, k1, k2, sg, dist
				}
			}
		}
	}
	rel := "+"
	if bsign < 0 {
		rel = "-"
	}
	var step0 string
	switch opt {
	case hash.IDPSNSLID:
		step0 = " (ids consecutive within aligned blocks of 2^16 PSNs)"
	case hash.IDPSNDestQP:
		step0 = " (ids consecutive within aligned blocks of 2^8 PSNs)"
	}
	return fmt.Sprintf("rotation alignment over consecutive PSNs%s: %d*theta(%d) %s %d*theta(%d) is %.2g turns from a whole turn, %.2g of the window's resolution 1/n (harmonics of amplitude 8/(pi^2*%d) = %.2g%%)",
		step0, bk, da, rel, bk2, db, bdist, bdist*n, bk*bk2, 800/(math.Pi*math.Pi*float64(bk*bk2)))
}

// rotation32 returns B' with H(id, d) = sign(B'*id) ^ C for a Form over the
// id whose mask has one bit (A = 0 for every built-in hash's FormID).
func rotation32(f hash.Form) (uint32, bool) {
	if f.A != 0 || f.Mask == 0 || f.Mask&(f.Mask-1) != 0 {
		return 0, false
	}
	sh := 0
	for f.Mask<<sh>>31 == 0 {
		sh++
	}
	return f.B << sh, true
}

func hasForm(h hash.Func) bool { _, ok := h.FormD(0); return ok }

// planDecodeGenerator adds the generator test of generator gs at count width
// cb on workload w's set, with routing "adaptive" (the workload's traffic)
// or "single-path" (every packet on one path), seeded per port or in
// lockstep.
func (b *Battery) planDecodeGenerator(gs GeneratorSpec, cb int, w *workload, routing, scenario string) {
	sz := b.cfg.Size
	sender := gs.PerPacket
	if sender && (gs.Name != refmodel.GeneratorSender || senderL(cb) > rng.MaxSenderL) {
		return
	}
	name := gs.Name
	if scenario == "lockstep" {
		name += lockstepSuffix
	}
	units, denom := w.units, w.denom
	if routing == "single-path" {
		units, denom = make([]int64, len(w.units)), int64(w.pathLen)
		for _, j := range w.single {
			units[j] = 1
		}
	}
	nl := len(w.set.Links)
	subj := Subject{Generator: name, CountBits: cb}
	scen := fmt.Sprintf("%s routing=%s", decodeTopologies[0].name, routing)
	if scenario != "" {
		scen += " " + scenario
	}
	// counts: held-hop frequencies (1..l, none), then the worst link, its z
	// (float bits), its relative bias (float bits), and the links compared.
	t := &testSpec{name: "generator", group: "decode", subject: subj, scenario: scen, chunks: 1, counts: w.pathLen + 5,
		weight: max(1, sz.DecodePackets*w.pathLen>>8)}
	t.limit = func(int) uint64 { return 0 } // float words: vet checks them
	t.vet = func(_ int, a Acc) error {
		var n uint64
		for _, v := range a.Counts[:w.pathLen+1] {
			if v > uint64(sz.DecodePackets) {
				return fmt.Errorf("a hop held %d times in %d packets", v, sz.DecodePackets)
			}
			n += v
		}
		l := a.Counts[w.pathLen+1]
		z, rb := math.Float64frombits(a.Counts[w.pathLen+2]), math.Float64frombits(a.Counts[w.pathLen+3])
		switch {
		case math.IsNaN(z) || math.IsInf(z, 0) || math.IsNaN(rb) || math.IsInf(rb, 0):
			return fmt.Errorf("z %v, relative bias %v", z, rb)
		case n != uint64(sz.DecodePackets):
			return fmt.Errorf("held-hop counts add to %d, the plan sends %d packets", n, sz.DecodePackets)
		case l >= uint64(nl):
			return fmt.Errorf("worst link %d of %d", l, nl)
		case a.Counts[w.pathLen+4] != uint64(nl):
			return fmt.Errorf("%d links compared, the set has %d", a.Counts[w.pathLen+4], nl)
		}
		return nil
	}
	t.run = func(c int, a *Acc) {
		run := seed.Derive(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(c))
		if err := decodeGeneratorRun(gs, cb, w, scenario, units, denom, sz.DecodePackets, run, a.Counts); err != nil {
			panic(fmt.Sprintf("battery: decode %s: %v", t.key(), err))
		}
	}
	t.final = func(a Acc) Result {
		held := a.Counts[:w.pathLen+1]
		worst := int(a.Counts[w.pathLen+1])
		z := math.Float64frombits(a.Counts[w.pathLen+2])
		rb := math.Float64frombits(a.Counts[w.pathLen+3])
		pz := 2 * distuv.UnitNormal.Survival(math.Abs(z))
		var fr []string
		for _, h := range held[:w.pathLen] {
			fr = append(fr, fmt.Sprintf("%.4f", float64(h)/float64(sz.DecodePackets)))
		}
		counts := []Count{{"packets", uint64(sz.DecodePackets)}, {"links", uint64(nl)}}
		for j, h := range held[:w.pathLen] {
			counts = append(counts, Count{fmt.Sprintf("held_hop%d", j+1), h})
		}
		counts = append(counts, Count{"held_none", held[w.pathLen]})
		return Result{
			Statistic: "max |z|", Value: Float(math.Abs(z)), P: Float(sidak(pz, nl)), Counts: counts,
			Detail: fmt.Sprintf("%d packets (%s, hash mult0 psn-slid thesis) through the model's sender, stages and receiver: held hops %s, none %d (ideal: 1/%d each); worst of %d links: %s, z %+.3g against the ideal generator's exact conditional mean%s",
				sz.DecodePackets, scen, strings.Join(fr, " "), held[w.pathLen], w.pathLen, nl, w.linkName(worst), z, biasNote(rb, units[worst])),
		}
	}
	b.add(t)
}

// biasNote words a generator test's relative bias of a link with traffic.
func biasNote(rb float64, units int64) string {
	if units == 0 {
		return ""
	}
	return fmt.Sprintf(", off by %+.3g%% of its traffic", 100*rb)
}

// decodeGeneratorRun sends packets through the model with real port
// generators and compares each link's count with its ideal expectation.
func decodeGeneratorRun(gs GeneratorSpec, cb int, w *workload, scenario string, units []int64, denom int64, packets int, run uint64, out []uint64) error {
	wl, we, ss, err := decodeGeneratorCounts(gs, cb, w, scenario, units, denom, packets, run, out, run)
	if err != nil {
		return err
	}
	nl := len(w.set.Links)
	l := float64(w.pathLen)
	D := float64(denom)
	sd := l * math.Sqrt(float64(packets)-float64(ss)/(D*D))
	worst, wz, wb := 0, 0.0, 0.0
	for j := range nl {
		e := l * float64(we[j]) / D
		z := (float64(wl[j]) - e) / sd
		if j == 0 || math.Abs(z) > math.Abs(wz) {
			// The bias relative to the link's true traffic, N_d = Q*D*q_j*l/D
			// (0 for a link without traffic).
			worst, wz, wb = j, z, 0
			if units[j] != 0 {
				wb = (float64(wl[j]) - e) / (float64(packets) * float64(units[j]) * l / D)
			}
		}
	}
	out[w.pathLen+1] = uint64(worst)
	out[w.pathLen+2] = math.Float64bits(wz)
	out[w.pathLen+3] = math.Float64bits(wb)
	out[w.pathLen+4] = uint64(nl)
	return nil
}

// decodeGeneratorCounts sends packets (flows drawn from flowSeed, routing and
// generators from run) through the model's sender, stages and receiver and
// returns the literal tally's counts, the ideal expectation's counts (units
// of 1/denom, the weight not applied) and the sum of the expected samples'
// squares; it counts the held hops into out[:pathLen+1].
func decodeGeneratorCounts(gs GeneratorSpec, cb int, w *workload, scenario string, units []int64, denom int64, packets int, run uint64, out []uint64, flowSeed uint64) ([]int64, []int64, int64, error) {
	cfg := refmodel.Config{
		Telemetry: header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: cb, SwitchBits: 16, PortBits: 8, Placement: header.PlaceAuto},
		Hash:      hash.New(hash.Mult0), ID: hash.IDPSNSLID, Link: hash.LinkThesis, Generator: "ideal",
		LNH: header.LNHLocal, Seed: run, MaxSwitch: w.maxSw, MaxPort: w.maxPort,
	}
	if gs.PerPacket {
		cfg.Telemetry.SenderL, cfg.Generator = senderL(cb), refmodel.GeneratorSender
	}
	m, err := refmodel.New(cfg)
	if err != nil {
		return nil, nil, 0, err
	}
	lit, err := m.NewTally(w.set)
	if err != nil {
		return nil, nil, 0, err
	}
	ideal := *w
	ideal.units, ideal.denom = units, denom
	// The ideal expectation decodes with an unsaturated count (b = 8).
	mi, err := decodeModel(cfg.Hash, cfg.ID, cfg.Link, w, 8, run)
	if err != nil {
		return nil, nil, 0, err
	}
	exp, err := mi.NewTally(w.set)
	if err != nil {
		return nil, nil, 0, err
	}
	ds, err := w.set.Encode(cfg.Link)
	if err != nil {
		return nil, nil, 0, err
	}
	tds, tw := trafficLinks(ds, units)
	fs := newFlowSet(w.src, newSampler(flowSeed, tagFlows))
	sm := newSampler(run, tagRouting)
	// Per hop, the traffic links leaving each switch: the routing's choices.
	next := map[int]map[uint16][]int{}
	for j, l := range w.set.Links {
		if units[j] == 0 {
			continue
		}
		h := w.set.Hops[j]
		if next[h] == nil {
			next[h] = map[uint16][]int{}
		}
		next[h][l.Switch] = append(next[h][l.Switch], j)
	}
	gens := make([]rng.Generator, len(w.set.Links))
	gen := func(j int) (rng.Generator, error) {
		if gs.PerPacket {
			return nil, nil
		}
		if gens[j] == nil {
			l := w.set.Links[j]
			s := cfg.PortSeed(l.Switch, l.Port)
			if scenario == "lockstep" {
				s = seed.Derive(run, tagLockstep)
			}
			g, err := gs.New(s, cfg.MaxL())
			if err != nil {
				return nil, err
			}
			gens[j] = g
		}
		return gens[j], nil
	}
	dlid := uint16(w.dst + 1)
	// Each flow's sender NIC keeps its generator from packet to packet.
	nics := map[uint16]rng.Generator{}
	for _, slid := range fs.slid {
		nics[slid] = cfg.NewSenderGenerator(slid)
	}
	for i := range packets {
		slid, qp, psn := fs.packet(i)
		pkt, err := header.Build(header.Headers{
			LRH: header.LRH{LNH: header.LNHLocal, DLID: dlid, SLID: slid},
			BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: qp, PSN: psn},
		}, make([]byte, 16), m.Layout().FooterBytes)
		if err != nil {
			return nil, nil, 0, err
		}
		if err := m.Send(pkt, nics[slid]); err != nil {
			return nil, nil, 0, err
		}
		held := 0
		at := w.set.Links[w.single[0]].Switch
		for h := 1; h <= w.pathLen; h++ {
			choices := next[h][at]
			if len(choices) == 0 {
				return nil, nil, 0, fmt.Errorf("hop %d: no traffic link leaves switch %d", h, at)
			}
			j := choices[sm.below(uint64(len(choices)))]
			g, err := gen(j)
			if err != nil {
				return nil, nil, 0, err
			}
			l := w.set.Links[j]
			r, err := m.Stage(pkt, l.Switch, l.Port, false, g)
			if err != nil {
				return nil, nil, 0, err
			}
			if r.HopReplaced {
				held = h
			}
			at = w.peerOf(j)
		}
		s, err := m.Receive(pkt)
		if err != nil {
			return nil, nil, 0, err
		}
		lit.Add(s)
		if held == 0 {
			out[w.pathLen]++
		} else {
			out[held-1]++
		}
	}
	var ss int64
	const batch = 1 << 12
	ids := make([]uint32, batch)
	sigma := make([]int64, batch)
	for first := 0; first < packets; first += batch {
		n := min(batch, packets-first)
		v, err := ideal.expected(mi, fs, tw, tds, exp, first, ids[:n], sigma[:n])
		if err != nil {
			return nil, nil, 0, err
		}
		ss += v
	}
	nl := len(w.set.Links)
	wl, we := make([]int64, nl), make([]int64, nl)
	countsOf(lit, w.diam, refmodel.DefaultP, wl)
	countsOf(exp, w.diam, refmodel.DefaultP, we)
	return wl, we, ss, nil
}

// decodeReport fills the report's decode parts and combinations.
func (b *Battery) decodeReport(r *Report) {
	c := b.cfg
	if !c.Decode.Enabled {
		return
	}
	ks := c.Size.decodeWindows(c.Size.DecodeMaxBits)
	ds := &DecodeSummary{Windows: ks, Sound: make([]int, len(ks)), Power: b.decodePower}
	for _, x := range r.Results {
		if isDecode(x.Test) {
			ds.count(x.Verdict)
		}
	}
	r.Summary.Decode = ds
	var hashParts, genParts []DecodePart
	for _, h := range c.Hashes {
		if _, err := hash.ParseKind(h); err != nil {
			continue
		}
		for _, id := range c.IDs {
			for _, link := range c.Links {
				p := DecodePart{PartName: PartName{Kind: "hash", Hash: h, ID: id, Link: link}}
				for _, k := range ks {
					wv := WindowVerdict{Window: k}
					for _, x := range r.Results {
						s := x.Subject
						if x.Test == "decode/hash" && s.Hash == h && s.ID == id && s.Link == link && s.Window == k {
							wv.add(x)
						}
					}
					p.Windows = append(p.Windows, wv.done())
				}
				hashParts = append(hashParts, p)
			}
		}
	}
	for _, g := range b.generatorParts() {
		for _, w := range c.CountBits {
			wv := WindowVerdict{}
			for _, x := range r.Results {
				if x.Test == "decode/generator" && x.Subject.Generator == g && x.Subject.CountBits == w {
					wv.add(x)
				}
			}
			if wv.Tests == 0 {
				continue // the sender draws at a width whose L the field cannot hold
			}
			genParts = append(genParts, DecodePart{PartName: PartName{Kind: "generator", Generator: g, CountBits: w}, Windows: []WindowVerdict{wv.done()}})
		}
	}
	r.DecodeParts = append(hashParts, genParts...)
	for _, hp := range hashParts {
		for _, gp := range genParts {
			cb := DecodeCombination{Hash: hp.Hash, ID: hp.ID, Link: hp.Link, Generator: gp.Generator, CountBits: gp.CountBits}
			for i := range ks {
				v := worse(hp.Windows[i].Verdict, gp.Windows[0].Verdict)
				cb.Verdicts = append(cb.Verdicts, v)
				if v == Pass {
					ds.Sound[i]++
				}
			}
			r.DecodeCombinations = append(r.DecodeCombinations, cb)
			ds.Combinations++
		}
	}
}

func (wv *WindowVerdict) add(x Result) {
	wv.Tests++
	switch x.Verdict {
	case Fail:
		wv.Failing = append(wv.Failing, x.Scenario)
	case Invalid:
		wv.Invalid = append(wv.Invalid, x.Scenario)
	}
}

func (wv WindowVerdict) done() WindowVerdict {
	wv.Verdict = verdictOf(wv.Failing, wv.Invalid)
	if wv.Tests == 0 {
		wv.Verdict = Invalid // nothing measured (a window beyond a slow hash's longest run)
	}
	return wv
}

// worse is the verdict of two parts together.
func worse(a, b Verdict) Verdict {
	switch {
	case a == Fail || b == Fail:
		return Fail
	case a == Invalid || b == Invalid:
		return Invalid
	}
	return Pass
}

// DecodeQuestion is the decision a decode verdict answers.
const DecodeQuestion = "Decode verdicts answer: decoding windows of n consecutive packets, does the receiver report the links that carried nothing " +
	"at no more than the nominal false-positive rate of the section 5.3 threshold, and the others without bias?"

// windowName is 2^k as the tables write it.
func windowName(k int) string { return fmt.Sprintf("2^%d", k) }

// cell is a window verdict as a table shows it: "-" when nothing was measured.
func (wv WindowVerdict) cell() string {
	if wv.Tests == 0 {
		return "-"
	}
	return string(wv.Verdict)
}

// writeDecodeText writes the decode family's verdicts: per hash part, one
// column per window size; per generator part, one verdict.
func (r *Report) writeDecodeText(w io.Writer) error {
	ds := r.Summary.Decode
	if ds == nil {
		return nil
	}
	fmt.Fprintf(w, "DECODE: %d tests: %d PASS, %d FAIL, %d INVALID; family-wise error rate %g (Holm, over the decode tests alone)\n",
		ds.Tests, ds.Pass, ds.Fail, ds.Invalid, r.Config.Alpha)
	fmt.Fprintln(w, DecodeQuestion)
	var sound []string
	for i, k := range ds.Windows {
		sound = append(sound, fmt.Sprintf("%d at %s", ds.Sound[i], windowName(k)))
	}
	fmt.Fprintf(w, "Combinations sound for decoding (hash part and generator part both pass), of %d: %s\n", ds.Combinations, strings.Join(sound, ", "))
	unmeasured := ""
	if r.Config.Size.DecodeSlowBits < r.Config.Size.DecodeMaxBits {
		unmeasured = fmt.Sprintf("; \"-\": not measured (SipHash and mxm beyond 2^%d packets)", r.Config.Size.DecodeSlowBits)
	}
	fmt.Fprintf(w, "Hash parts: every workload (%s; numberings %s with one flow, the first with %s flows) at each window size%s. Generator parts: %d packets through the stages, adaptive and single-path routing.\n",
		strings.Join(r.Config.Decode.Topologies, ", "), strings.Join(r.Config.Decode.Numberings, ", "), joinInts(r.Config.Decode.Flows), unmeasured, r.Config.Size.DecodePackets)
	if len(ds.Power) > 0 {
		fmt.Fprintf(w, "Power (a zero-traffic link reported at a constant rate in every window; the first workload, %s, runs up to %d independent streams, the others one; a hash without a Form runs shorter streams):\n", fmt.Sprintf("%s numbering=%s flows=%d", r.Config.Decode.Topologies[0], r.Config.Decode.Numberings[0], r.Config.Decode.Flows[0]), r.Config.Size.DecodeRuns)
		for _, p := range ds.Power {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "HASH\tID\tLINK"
	for _, k := range ds.Windows {
		head += "\t" + windowName(k)
	}
	fmt.Fprintln(tw, head+"\tFAILING AT THE LARGEST FAILING WINDOW")
	for _, p := range r.DecodeParts {
		if p.Kind != "hash" {
			continue
		}
		line := fmt.Sprintf("%s\t%s\t%s", p.Hash, p.ID, p.Link)
		why := ""
		for _, wv := range p.Windows {
			line += "\t" + wv.cell()
			if len(wv.Failing) > 0 {
				why = fmt.Sprintf("%s: %d of %d workloads, e.g. %s", windowName(wv.Window), len(wv.Failing), wv.Tests, wv.Failing[0])
			}
		}
		fmt.Fprintln(tw, line+"\t"+why)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "GENERATOR\tCOUNT BITS\tVERDICT\tFAILING")
	for _, p := range r.DecodeParts {
		if p.Kind != "generator" {
			continue
		}
		wv := p.Windows[0]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", p.Generator, p.CountBits, wv.cell(), strings.Join(wv.Failing, "; "))
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, " and ")
}

// writeDecodeMarkdown writes the decode verdicts as Markdown tables.
func (r *Report) writeDecodeMarkdown(md io.Writer) {
	ds := r.Summary.Decode
	if ds == nil {
		return
	}
	fmt.Fprintf(md, "\n## Decode\n\n%d decode tests: %d PASS, %d FAIL, %d INVALID (Holm over the decode tests alone). ", ds.Tests, ds.Pass, ds.Fail, ds.Invalid)
	var sound []string
	for i, k := range ds.Windows {
		sound = append(sound, fmt.Sprintf("%d at %s", ds.Sound[i], windowName(k)))
	}
	fmt.Fprintf(md, "Of %d combinations, sound for decoding: %s. \"-\": not measured.\n\n", ds.Combinations, strings.Join(sound, ", "))
	if len(ds.Power) > 0 {
		fmt.Fprintf(md, "Power, per window size (a zero-traffic link reported at a constant rate in every window, found with 90%% probability; the first workload runs up to %d independent streams, the others one):\n\n", r.Config.Size.DecodeRuns)
		for _, p := range ds.Power {
			fmt.Fprintf(md, "- %s\n", p)
		}
		fmt.Fprintln(md)
	}
	fmt.Fprintf(md, "| hash | id | link |")
	for _, k := range ds.Windows {
		fmt.Fprintf(md, " %s |", windowName(k))
	}
	fmt.Fprintf(md, "\n|---|---|---|%s\n", strings.Repeat("---|", len(ds.Windows)))
	for _, p := range r.DecodeParts {
		if p.Kind != "hash" {
			continue
		}
		fmt.Fprintf(md, "| %s | %s | %s |", p.Hash, p.ID, p.Link)
		for _, wv := range p.Windows {
			fmt.Fprintf(md, " %s |", wv.cell())
		}
		fmt.Fprintln(md)
	}
	fmt.Fprintf(md, "\n| generator | count bits | decode verdict | failing |\n|---|---|---|---|\n")
	for _, p := range r.DecodeParts {
		if p.Kind == "generator" {
			fmt.Fprintf(md, "| %s | %d | %s | %s |\n", p.Generator, p.CountBits, p.Windows[0].cell(), strings.Join(p.Windows[0].Failing, "; "))
		}
	}
}
