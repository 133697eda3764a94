// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Verdict is a test's or a combination's outcome.
type Verdict string

const (
	Pass    Verdict = "PASS"
	Fail    Verdict = "FAIL"
	Invalid Verdict = "INVALID" // too little data for the test to mean anything
)

// A Subject says what a test examines. Empty fields do not matter to the test:
// a hash test holds for every generator, a generator test for every hash.
type Subject struct {
	Hash      string `json:"hash,omitempty"`
	ID        string `json:"id,omitempty"`
	Link      string `json:"link,omitempty"`
	Generator string `json:"generator,omitempty"`
	L         int    `json:"l,omitempty"`          // a generator test's l (1..2^b)
	CountBits int    `json:"count_bits,omitempty"` // an estimator test's b
	Window    int    `json:"window,omitempty"`     // a decode test's window: 2^Window consecutive packets
}

func (s Subject) String() string {
	var parts []string
	for _, f := range []struct{ k, v string }{
		{"hash", s.Hash}, {"id", s.ID}, {"link", s.Link}, {"generator", s.Generator},
	} {
		if f.v != "" {
			parts = append(parts, f.k+"="+f.v)
		}
	}
	if s.L > 0 {
		parts = append(parts, fmt.Sprintf("l=%d", s.L))
	}
	if s.CountBits > 0 {
		parts = append(parts, fmt.Sprintf("b=%d", s.CountBits))
	}
	if s.Window > 0 {
		parts = append(parts, fmt.Sprintf("window=2^%d", s.Window))
	}
	return strings.Join(parts, " ")
}

// An Extreme is one entry of a search for the worst cases (the worst-pair
// search): the pair, its exact count and its distance from the ideal, an
// exact integer so that merged shards order entries exactly as one run does.
type Extreme struct {
	A     uint32 `json:"a"`
	B     uint32 `json:"b"`
	Count uint64 `json:"count"`
	Score uint64 `json:"score"` // |2*Count - N|
}

func extremeLess(x, y Extreme) int {
	switch {
	case x.Score != y.Score:
		if x.Score > y.Score {
			return -1
		}
		return 1
	case x.A != y.A:
		if x.A < y.A {
			return -1
		}
		return 1
	case x.B != y.B:
		if x.B < y.B {
			return -1
		}
		return 1
	}
	return 0
}

// An Acc holds one chunk's, or the sum of all chunks', data of a test.
type Acc struct {
	Counts []uint64  `json:"counts"`
	Top    []Extreme `json:"top,omitempty"`
}

// add adds o into a; Top keeps the k worst. A sum that overflows 64 bits is
// an error (every count of a real run is far below it).
func (a *Acc) add(o Acc, k int) error {
	for i := range a.Counts {
		sum, carry := bits.Add64(a.Counts[i], o.Counts[i], 0)
		if carry != 0 {
			return fmt.Errorf("count %d overflows 64 bits when the chunks are added (%d + %d)", i, a.Counts[i], o.Counts[i])
		}
		a.Counts[i] = sum
	}
	if len(o.Top) > 0 {
		a.Top = append(a.Top, o.Top...)
		slices.SortFunc(a.Top, extremeLess)
		if len(a.Top) > k {
			a.Top = a.Top[:k]
		}
	}
	return nil
}

// A testSpec is one test of the plan.
type testSpec struct {
	name     string  // e.g. "bias-over-ids"
	group    string  // "hash", "generator", "estimator"
	subject  Subject //
	scenario string  // "lockstep" for the lockstep-seeded variants
	check    bool    // an exact check: no p-value, not part of the Holm family
	chunks   int
	counts   int
	topK     int
	run      func(chunk int, a *Acc)
	final    func(a Acc) Result
	// finalAll, when set instead of final, gives several results (a decode
	// test's window sizes), each with its own Subject.Window.
	finalAll func(a Acc) []Result
	// limit is the most a count of the chunk can be: what the chunk counts
	// (its values, draws, packets, trials). 0 means the counts are not
	// bounded by one number and vet alone checks them.
	limit func(chunk int) uint64
	// vet checks a chunk's counts beyond the limit; nil for none.
	vet func(chunk int, a Acc) error
	// weight is a chunk's work in units of about a million hash
	// evaluations, for progress; 0 counts as 1.
	weight int
}

func (t *testSpec) key() string {
	k := t.group + "/" + t.name + "|" + t.subject.String()
	if t.scenario != "" {
		k += "|" + t.scenario
	}
	return k
}

// A Result is one test's outcome.
type Result struct {
	Test      string    `json:"test"` // group/name, e.g. "hash/bias-over-ids"
	Subject   Subject   `json:"subject"`
	Scenario  string    `json:"scenario,omitempty"`
	Check     bool      `json:"check,omitempty"` // an exact check rather than a hypothesis test
	Statistic string    `json:"statistic"`       // what the statistic is, e.g. "chi2(6)" or "max |z|"
	Value     Float     `json:"value"`           // its value
	Counts    []Count   `json:"counts"`          // the exact counts behind it
	P         Float     `json:"p"`               // the p-value (null for checks and INVALID)
	PHolm     Float     `json:"p_holm"`          // Holm-adjusted over the battery
	Verdict   Verdict   `json:"verdict"`
	Detail    string    `json:"detail"`        // the worst case, or why INVALID
	Top       []Extreme `json:"top,omitempty"` // worst pairs of a search
}

// A Count is a named exact count.
type Count struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// Float is a float64 in JSON with 6 significant digits (statistics and
// p-values are derived from exact counts through floating point, and rounding
// keeps a report identical across machines whose last bits differ); NaN is
// null and infinities are the strings "+Inf" and "-Inf".
type Float float64

// Battery is a configured battery, ready to run.
type Battery struct {
	cfg    Config
	hashes map[string]Hash
	gens   map[string]GeneratorSpec
	tests  []*testSpec
	// The decode family's power (power.go): the number of decode tests its
	// plan expects, for Holm's worst level, and each window size's power.
	decodeTests int
	decodePower []DecodePower
	runsCache   map[runsKey]int
}

// An Option adds a hash or a generator under test to the built-in ones.
type Option func(*Battery)

// WithHash adds a hash under test (tests use it to inject broken hashes).
// Only bit 0 of its Bit is used.
func WithHash(h Hash) Option {
	return func(b *Battery) {
		bit := h.Bit
		h.Bit = func(id, d uint32) uint32 { return bit(id, d) & 1 }
		b.hashes[h.Name] = h
	}
}

// WithGenerator adds a generator under test.
func WithGenerator(g GeneratorSpec) Option { return func(b *Battery) { b.gens[g.Name] = g } }

// New checks cfg and builds the battery's plan.
func New(cfg Config, opts ...Option) (*Battery, error) {
	b := &Battery{cfg: cfg, hashes: builtinHashes(), gens: builtinGenerators()}
	for _, o := range opts {
		o(b)
	}
	err := cfg.validate()
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, h := range cfg.Hashes {
		if _, ok := b.hashes[h]; !ok {
			errs = append(errs, fmt.Errorf("unknown hash %q (want one of %s)", h, strings.Join(sortedKeys(b.hashes), ", ")))
		}
	}
	for _, g := range cfg.Generators {
		if _, ok := b.gens[g]; !ok {
			errs = append(errs, fmt.Errorf("unknown generator %q (want one of %s)", g, strings.Join(sortedKeys(b.gens), ", ")))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := b.plan(); err != nil {
		return nil, err
	}
	return b, nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Config returns the battery's configuration.
func (b *Battery) Config() Config { return b.cfg }

// Tests returns the number of tests and of work items (chunks) in the plan.
func (b *Battery) Tests() (tests, chunks int) {
	for _, t := range b.tests {
		chunks += t.chunks
	}
	return len(b.tests), chunks
}

// A Partial is the counts of some or all chunks of a battery: what a shard
// writes and what Merge combines. Its checksum is the SHA-256 of its JSON
// with the checksum empty: ReadPartial refuses a partial whose checksum does
// not match, and Finalize every chunk whose counts lie outside what the plan
// allows.
type Partial struct {
	Format   string        `json:"format"`
	Config   Config        `json:"config"`
	Shards   []int         `json:"shards"` // the shard indices this holds (of Of)
	Of       int           `json:"of"`     // the number of shards
	Items    []PartialItem `json:"items"`
	Checksum string        `json:"checksum"`
}

// A PartialItem is one chunk's data, with what it counted: N, the values,
// draws, packets or trials behind its counts, each of which is at most N (0
// for a test whose counts are vetted otherwise).
type PartialItem struct {
	Test  string `json:"test"`
	Chunk int    `json:"chunk"`
	N     uint64 `json:"n"`
	Acc
}

// Progress is told, after each chunk, how much of the shard's work is done:
// in units of about a million hash evaluations, so that the share done and
// the time left mean something when a few chunks are much heavier than the
// rest (the decode family's).
type Progress func(done, total int)

type item struct {
	t     *testSpec
	chunk int
}

// items lists the plan's chunks in order; shard i of n takes every n-th,
// starting at i, which spreads each test's chunks over the shards.
func (b *Battery) items(shard, of int) []item {
	var out []item
	j := 0
	for _, t := range b.tests {
		for c := range t.chunks {
			if j%of == shard {
				out = append(out, item{t, c})
			}
			j++
		}
	}
	return out
}

// RunShard runs shard i of n (0 <= i < n) on up to workers goroutines
// (GOMAXPROCS if workers < 1). The counts do not depend on workers.
func (b *Battery) RunShard(ctx context.Context, shard, of, workers int, progress Progress) (*Partial, error) {
	if of < 1 || shard < 0 || shard >= of {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= i < n", shard, of)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	items := b.items(shard, of)
	total := 0
	for _, it := range items {
		total += max(it.t.weight, 1)
	}
	accs := make([]Acc, len(items))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				it := items[i]
				a := Acc{Counts: make([]uint64, it.t.counts)}
				it.t.run(it.chunk, &a)
				if it.t.topK > 0 {
					slices.SortFunc(a.Top, extremeLess)
					if len(a.Top) > it.t.topK {
						a.Top = a.Top[:it.t.topK]
					}
				}
				accs[i] = a
				mu.Lock()
				done += max(it.t.weight, 1)
				if progress != nil {
					progress(done, total)
				}
				mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for i := range items {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("battery interrupted: %w", err)
	}
	p := &Partial{Format: PartialFormat, Config: b.cfg, Shards: []int{shard}, Of: of}
	for i, it := range items {
		p.Items = append(p.Items, PartialItem{Test: it.t.key(), Chunk: it.chunk, N: it.t.limit(it.chunk), Acc: accs[i]})
	}
	return p, nil
}

// Run runs the whole battery and finalizes it.
func (b *Battery) Run(ctx context.Context, workers int, progress Progress) (*Report, error) {
	p, err := b.RunShard(ctx, 0, 1, workers, progress)
	if err != nil {
		return nil, err
	}
	return b.Finalize(p)
}

// Merge combines partials of one battery (equal configurations, the same
// shard count) into one. It refuses a shard given twice.
func Merge(parts []*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no partial results given")
	}
	first := parts[0]
	out := &Partial{Format: PartialFormat, Config: first.Config, Of: first.Of}
	seen := map[int]int{}
	for i, p := range parts {
		if p.Format != PartialFormat {
			return nil, fmt.Errorf("merge: partial %d has format %q, want %q", i+1, p.Format, PartialFormat)
		}
		if p.Config.canonical() != first.Config.canonical() {
			return nil, fmt.Errorf("merge: partial %d was run with a different configuration than partial 1; rerun its shards with the same flags", i+1)
		}
		if p.Of != first.Of {
			return nil, fmt.Errorf("merge: partial %d is a shard of %d, partial 1 of %d; shards of different splits cannot be merged", i+1, p.Of, first.Of)
		}
		for _, s := range p.Shards {
			if j, dup := seen[s]; dup {
				return nil, fmt.Errorf("merge: shard %d/%d is in partials %d and %d; give each shard once", s, p.Of, j+1, i+1)
			}
			seen[s] = i
			out.Shards = append(out.Shards, s)
		}
		out.Items = append(out.Items, p.Items...)
	}
	slices.Sort(out.Shards)
	return out, nil
}

// Finalize sums a complete partial's chunks per test and computes every
// result, the Holm correction and the combinations' verdicts. It refuses a
// partial that lacks a shard, or whose chunks do not match the plan.
func (b *Battery) Finalize(p *Partial) (*Report, error) {
	if p.Config.canonical() != b.cfg.canonical() {
		return nil, errors.New("finalize: the partial was run with a different configuration")
	}
	var missing []string
	have := map[int]bool{}
	for _, s := range p.Shards {
		have[s] = true
	}
	for s := range p.Of {
		if !have[s] {
			missing = append(missing, fmt.Sprintf("%d/%d", s, p.Of))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("finalize: shards %s are missing; run them (--shard i/n) and merge all %d", strings.Join(missing, ", "), p.Of)
	}
	index := make(map[string]int, len(b.tests))
	for i, t := range b.tests {
		index[t.key()] = i
	}
	sums := make([]Acc, len(b.tests))
	got := make([][]bool, len(b.tests))
	for i, t := range b.tests {
		sums[i] = Acc{Counts: make([]uint64, t.counts)}
		got[i] = make([]bool, t.chunks)
	}
	for _, it := range p.Items {
		i, ok := index[it.Test]
		if !ok {
			return nil, fmt.Errorf("finalize: the partial holds test %q, which this battery does not plan", it.Test)
		}
		t := b.tests[i]
		if it.Chunk < 0 || it.Chunk >= t.chunks || len(it.Counts) != t.counts {
			return nil, fmt.Errorf("finalize: test %q chunk %d with %d counts does not match the plan (%d chunks of %d counts)", it.Test, it.Chunk, len(it.Counts), t.chunks, t.counts)
		}
		if got[i][it.Chunk] {
			return nil, fmt.Errorf("finalize: test %q chunk %d appears twice", it.Test, it.Chunk)
		}
		got[i][it.Chunk] = true
		if err := t.checkItem(it); err != nil {
			return nil, fmt.Errorf("finalize: test %q chunk %d: %w; the partial is corrupt, rerun its shard", it.Test, it.Chunk, err)
		}
		if err := sums[i].add(it.Acc, t.topK); err != nil {
			return nil, fmt.Errorf("finalize: test %q chunk %d: %w; the partial is corrupt, rerun its shard", it.Test, it.Chunk, err)
		}
	}
	for i, t := range b.tests {
		for c, ok := range got[i] {
			if !ok {
				return nil, fmt.Errorf("finalize: test %q chunk %d is missing from the partials", t.key(), c)
			}
		}
	}
	var results []Result
	for i, t := range b.tests {
		var rs []Result
		if t.finalAll != nil {
			rs = t.finalAll(sums[i])
		} else {
			rs = []Result{t.final(sums[i])}
		}
		for _, r := range rs {
			r.Test = t.group + "/" + t.name
			window := r.Subject.Window
			r.Subject = t.subject
			r.Subject.Window = window
			r.Scenario = t.scenario
			r.Check = t.check
			if t.check {
				r.P = Float(math.NaN())
			}
			if r.Verdict == Invalid {
				r.P = Float(math.NaN())
			}
			results = append(results, r)
		}
	}
	// Holm's correction runs over each family apart: the randomness tests
	// and the decode tests answer different questions, and each family's
	// verdicts hold at its family-wise error rate alpha.
	for _, decode := range []bool{false, true} {
		var idx []int
		var ps []float64
		for i, r := range results {
			if isDecode(r.Test) == decode {
				idx = append(idx, i)
				ps = append(ps, float64(r.P))
			}
		}
		adj := holm(ps)
		for k, i := range idx {
			results[i].PHolm = Float(adj[k])
			if results[i].Check || results[i].Verdict == Invalid {
				continue
			}
			if adj[k] <= b.cfg.Alpha {
				results[i].Verdict = Fail
			} else {
				results[i].Verdict = Pass
			}
		}
	}
	return b.report(results), nil
}

// checkItem checks a chunk's counts against its domain: what it counted is
// what the plan counts, no count exceeds it, and the test's own vetting.
func (t *testSpec) checkItem(it PartialItem) error {
	n := t.limit(it.Chunk)
	if it.N != n {
		return fmt.Errorf("it says it counted %d values, the plan counts %d", it.N, n)
	}
	if n > 0 {
		for i, c := range it.Counts {
			if c > n {
				return fmt.Errorf("count %d is %d, more than the %d values it counted", i, c, n)
			}
		}
		for _, e := range it.Top {
			if e.Count > n || e.Score > n {
				return fmt.Errorf("a worst pair %d,%d agrees on %d (score %d) of %d values", e.A, e.B, e.Count, e.Score, n)
			}
		}
	}
	if t.vet != nil {
		return t.vet(it.Chunk, it.Acc)
	}
	return nil
}

// isDecode reports whether a result's test belongs to the decode family.
func isDecode(test string) bool { return strings.HasPrefix(test, "decode/") }
