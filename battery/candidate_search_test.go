// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/rng"
)

// bitCandidate is a hash given by its bit function as a candidate: pre keeps
// d (the function derives its own per-port constants from it).
func bitCandidate(name string, f func(id, d uint32) uint32) candidate {
	return candidate{name: name, pre: func(d uint32) uint32 { return d }, signs: func(id uint32, ks []uint32, sign []int64) {
		for j, d := range ks {
			sign[j] = 1 - 2*int64(f(id, d))
		}
	}}
}

// moreCandidates are the other cheap families of docs/hashes-and-generators.md
// ("Candidates"), each defined in hash/candidates_more.go.
var moreCandidates = []candidate{
	mult0FmixCandidate,
	bitCandidate("mult0-crcid", hash.Mult0CRC),
	bitCandidate("mult0-randk", hash.Mult0RandK),
	bitCandidate("mult0-salt", hash.Mult0Salt),
	fmixXorCandidate,
	bitCandidate("crc32-xor", hash.CRC32Xor),
	bitCandidate("crc32-k", hash.CRC32K),
	bitCandidate("mxa", hash.MXA),
}

// mult0FmixCandidate is hash.Mult0Fmix with the scramble once per packet
// and K = 1846571429*d per port, and fmixXorCandidate hash.FmixXor with K
// per port: the same bits as their bitCandidate forms (held equal by
// TestSpecializedCandidates), in loops the compiler sees whole.
var mult0FmixCandidate = candidate{name: "mult0-fmix", pre: func(d uint32) uint32 { return hash.Mult0Const * d }, signs: func(id uint32, ks []uint32, sign []int64) {
	x := hash.Fmix32(id)
	for j, k := range ks {
		sign[j] = 1 - 2*int64(k*x>>31)
	}
}}

var fmixXorCandidate = candidate{name: "fmix-xor", pre: func(d uint32) uint32 { return hash.Mult0Const * d }, signs: func(id uint32, ks []uint32, sign []int64) {
	for j, k := range ks {
		sign[j] = 1 - 2*int64(hash.Fmix32(id^k)>>31)
	}
}}

// TestSpecializedCandidates holds the specialized loops to the bit
// functions: equal moments on Hmult0's workload, every id option, both
// encodings.
func TestSpecializedCandidates(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		fast candidate
		f    func(id, d uint32) uint32
	}{{mult0FmixCandidate, hash.Mult0Fmix}, {fmixXorCandidate, hash.FmixXor}, {mult0Candidate, hash.New(hash.Mult0).Bit}} {
		for _, opt := range hash.IDOptions() {
			for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
				a, err := candidateMoments(p.fast, opt, enc, w, 10, 11, 1, 3)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := candidateMoments(bitCandidate(p.fast.name, p.f), opt, enc, w, 10, 11, 1, 3)
				if !slices.Equal(a.mu, b.mu) || !slices.Equal(a.ss, b.ss) {
					t.Errorf("%s %s %s: the specialized loop differs from the bit function", p.fast.name, opt, enc)
				}
				// The sender-drawn ids: the same draws through either loop.
				a, _ = candidateMoments(senderID("s", 7, p.fast), opt, enc, w, 10, 11, 1, 3)
				b, _ = candidateMoments(senderID("s", 7, bitCandidate(p.fast.name, p.f)), opt, enc, w, 10, 11, 1, 3)
				if !slices.Equal(a.mu, b.mu) || !slices.Equal(a.ss, b.ss) {
					t.Errorf("%s %s %s: on sender-drawn ids the specialized loop differs from the bit function", p.fast.name, opt, enc)
				}
			}
		}
	}
}

// senderIDCandidates take no id from the packet's fields: the sender NIC
// draws a 32-bit id per packet from its xoshiro128** generator (rng.Ideal,
// the sender draws' generator) and carries it in the packet, so the receiver
// reads it back; the switch hashes it with Hmult0 (or mxm). fresh gives the
// candidate of one stream, its generator seeded from the stream's seed.
var senderIDCandidates = map[string]func(seed uint64) candidate{
	"sender-mult0": func(seed uint64) candidate { return senderID("sender-mult0", seed, mult0Candidate) },
	"sender-mxm":   func(seed uint64) candidate { return senderID("sender-mxm", seed, mxmCandidate) },
}

// senderID is candidate c hashing the sender's draws instead of the id.
func senderID(name string, seed uint64, c candidate) candidate {
	g := rng.NewIdeal(seed, 1)
	signs := c.signs
	c.name = name
	c.signs = func(_ uint32, ks []uint32, sign []int64) { signs(g.Next(), ks, sign) }
	return c
}

// mult0Candidate is Hmult0 with K = 1846571429*d per port, in a loop the
// compiler sees whole (TestSpecializedCandidates).
var mult0Candidate = candidate{name: "mult0", pre: func(d uint32) uint32 { return hash.Mult0Const * d }, signs: func(id uint32, ks []uint32, sign []int64) {
	for j, k := range ks {
		sign[j] = 1 - 2*int64(k*id>>31)
	}
}}

// searchable returns every candidate the search knows by name (a sender-id
// candidate with a generator of seed 0: fresh ones are made per stream).
func searchable() []candidate {
	all := append(slices.Clone(candidates), moreCandidates...)
	var names []string
	for n := range senderIDCandidates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		all = append(all, senderIDCandidates[n](0))
	}
	return all
}

// A searchRow is one candidate, id option and link encoding judged by the
// decode family to windows of 2^maxBits packets (the first workload, with
// its streams) and 2^otherBits (the others, one stream each).
type searchRow struct {
	name, opt, enc     string
	maxBits, otherBits int
	cells              []string // per window size: "2^k PASS|FAIL n fp% E[z^2]"
	worst              string   // the worst zero-traffic link at the largest window
}

func (r searchRow) key() string {
	return fmt.Sprintf("%s %s %s %d/%d", r.name, r.opt, r.enc, r.maxBits, r.otherBits)
}

func (r searchRow) String() string {
	return r.key() + " | " + strings.Join(r.cells, " | ") + " | " + r.worst
}

// searchLoads builds the decode family's workloads: both trees, the three
// numberings with one flow and topo's with sixteen; the first is long.
func searchLoads() ([]*workload, error) {
	var loads []*workload
	for _, tp := range decodeTopologies {
		for i, num := range DecodeNumberings() {
			for _, f := range []int{1, 16} {
				if f > 1 && i > 0 {
					continue
				}
				w, err := buildWorkload(tp, num, f, 1)
				if err != nil {
					return nil, err
				}
				loads = append(loads, w)
			}
		}
	}
	loads[0].long = true
	return loads, nil
}

// shortName is a workload's name as a cell gives it: tree/numbering/flows.
func shortName(w *workload) string {
	return strings.NewReplacer(" numbering=", "/", " flows=", "/").Replace(w.name)
}

// senderOpt is the row label of a sender-drawn id (no id option applies).
const senderOpt = "sender"

// runSearchRow judges candidate c under id option opt (ignored for a
// sender-drawn id) and encoding enc on every workload: the first to
// 2^maxBits with the battery's streams for it, the others one stream to
// 2^min(maxBits, otherBits). A window size FAILs on a workload when its
// p-value (Sidak over the links) is below alpha over the default battery's
// decode tests (Holm's strictest step); each cell gives the number of
// workloads that failed and the largest zero-traffic false-positive rate
// over the workloads with its E[z^2].
func runSearchRow(b *Battery, loads []*workload, c candidate, opt hash.IDOption, enc hash.LinkEncoding, maxBits, otherBits, par int) (searchRow, error) {
	fresh, sender := senderIDCandidates[c.name]
	row := searchRow{name: c.name, opt: opt.String(), enc: enc.String(), maxBits: maxBits, otherBits: otherBits}
	if sender {
		row.opt = senderOpt
	}
	level := b.cfg.Alpha / float64(b.decodeTests)
	var ks []int
	for k := 12; k <= maxBits; k += 2 {
		ks = append(ks, k)
	}
	type res struct {
		ds   []decodeWindow
		fail []bool
		err  error
	}
	out := make([]res, len(loads))
	runs := make([]int, len(loads))
	for li, w := range loads {
		runs[li] = 1
		if w.long {
			runs[li] = b.decodeRuns(w, ks, maxBits)
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for li, w := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			top := min(maxBits, otherBits)
			if w.long {
				top = maxBits
			}
			seed := keyTag(row.name + "/" + row.opt + "/" + row.enc + "/" + w.name)
			cc := c
			if sender {
				cc = fresh(seed)
			}
			mv, err := candidateMoments(cc, opt, enc, w, 12, top, runs[li], seed)
			if err != nil {
				out[li].err = err
				return
			}
			for _, k := range ks {
				if k > top {
					break
				}
				d := decodeSummary(w, mv.mu, mv.ss, len(w.set.Links), k-12, 1<<k, b.cfg.Decode.P)
				out[li].ds = append(out[li].ds, d)
				out[li].fail = append(out[li].fail, sidak(chiSquareP(d.X, int(d.K)), int(d.Links)) < level)
			}
		}()
	}
	wg.Wait()
	fails := make([][]string, len(ks))
	worst := make([]decodeWindow, len(ks))
	worstName := make([]string, len(ks))
	for li, w := range loads {
		if out[li].err != nil {
			return row, out[li].err
		}
		for i, d := range out[li].ds {
			if out[li].fail[i] {
				fails[i] = append(fails[i], shortName(w))
			}
			if d.FP > worst[i].FP || worstName[i] == "" {
				worst[i], worstName[i] = d, w.name+": "+w.linkName(int(d.FPLink))
			}
		}
	}
	for i, k := range ks {
		v := "PASS"
		if len(fails[i]) > 0 {
			v = fmt.Sprintf("FAIL %d (%s)", len(fails[i]), strings.Join(fails[i], ", "))
		}
		row.cells = append(row.cells, fmt.Sprintf("2^%d %s %.3g%% %.3g", k, v, 100*worst[i].FP, worst[i].FPE2))
	}
	row.worst = "worst at 2^" + strconv.Itoa(ks[len(ks)-1]) + ": " + worstName[len(ks)-1]
	return row, nil
}

// searchRecord is the checked-in record of the search's runs.
const searchRecord = "testdata/candidate_search.txt"

// TestCandidateSearch judges candidate hashes by the decode family: every
// workload, id option (a sender-drawn id has none), the thesis and packed
// encodings, windows 2^12 up to 2^IBR_SEARCH_BITS (default 22), the first
// workload with the battery's streams, the other workloads one stream to
// 2^IBR_SEARCH_OTHER_BITS (default 20). IBR_SEARCH=mxm,mult0 runs it
// (minutes per candidate at the full reach); IBR_SEARCH_IDS=psn-slid,...
// keeps those id options, IBR_SEARCH_ENCS=thesis those encodings;
// IBR_SEARCH_RECORD=1 writes the rows into testdata/candidate_search.txt
// (replacing the rows of the same candidate, id, encoding and reach).
func TestCandidateSearch(t *testing.T) {
	names := os.Getenv("IBR_SEARCH")
	if names == "" {
		t.Skip("IBR_SEARCH=<candidates> runs the search")
	}
	maxBits, otherBits := 22, 20
	for _, v := range []struct {
		env string
		p   *int
	}{{"IBR_SEARCH_BITS", &maxBits}, {"IBR_SEARCH_OTHER_BITS", &otherBits}} {
		if s := os.Getenv(v.env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 12 || n > 24 || n%2 != 0 {
				t.Fatalf("%s=%q: want an even number of bits from 12 to 24", v.env, s)
			}
			*v.p = n
		}
	}
	b, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	loads, err := searchLoads()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(names, ",")
	var rows []searchRow
	all := searchable()
	for _, n := range want {
		if !slices.ContainsFunc(all, func(c candidate) bool { return c.name == n }) {
			t.Fatalf("IBR_SEARCH: no candidate %q", n)
		}
	}
	for _, c := range all {
		if !slices.Contains(want, c.name) {
			continue
		}
		for _, opt := range hash.IDOptions() {
			if only := os.Getenv("IBR_SEARCH_IDS"); only != "" && !slices.Contains(strings.Split(only, ","), opt.String()) {
				continue
			}
			for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
				if only := os.Getenv("IBR_SEARCH_ENCS"); only != "" && !slices.Contains(strings.Split(only, ","), enc.String()) {
					continue
				}
				row, err := runSearchRow(b, loads, c, opt, enc, maxBits, otherBits, 2)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("SEARCH %s", row)
				rows = append(rows, row)
			}
			if _, sender := senderIDCandidates[c.name]; sender {
				break // one id: the sender's
			}
		}
	}
	if os.Getenv("IBR_SEARCH_RECORD") == "1" {
		if err := recordSearchRows(searchRecord, rows); err != nil {
			t.Fatal(err)
		}
	}
}

// readSearchRecord returns the record's rows as lines, keyed by searchRow.key.
func readSearchRecord(path string) (keys []string, lines map[string]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	lines = map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, _, ok := strings.Cut(l, " | ")
		if !ok || len(strings.Fields(k)) != 4 {
			return nil, nil, fmt.Errorf("%s:%d: want \"name id encoding max/other | cells...\", got %q", path, n, l)
		}
		if _, dup := lines[k]; dup {
			return nil, nil, fmt.Errorf("%s:%d: a second row for %s", path, n, k)
		}
		keys = append(keys, k)
		lines[k] = l
	}
	return keys, lines, sc.Err()
}

// recordSearchRows merges rows into the record, replacing rows of the same
// key, and writes it whole (a temporary file renamed over it).
func recordSearchRows(path string, rows []searchRow) error {
	keys, lines, err := readSearchRecord(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if lines == nil {
		lines = map[string]string{}
	}
	for _, r := range rows {
		if _, ok := lines[r.key()]; !ok {
			keys = append(keys, r.key())
		}
		lines[r.key()] = r.String()
	}
	var sb strings.Builder
	sb.WriteString("# The decode search of candidate hashes (battery/candidate_search_test.go,\n" +
		"# docs/hashes-and-generators.md \"Candidates\"): candidate, id option, link encoding,\n" +
		"# reach (first workload / others, in bits); per window size the verdict (FAIL n: on n\n" +
		"# of the 8 workloads, named tree/numbering/flows), the largest zero-traffic\n" +
		"# false-positive rate and its E[z^2]; the worst link at the largest window.\n" +
		"# TestCandidateSearchRecord reruns each candidate's first row at reach 14/14;\n" +
		"# IBR_SEARCH=<names> IBR_SEARCH_RECORD=1 go test ./battery -run\n" +
		"# 'TestCandidateSearch$' rewrites the rows it runs.\n")
	for _, k := range keys {
		sb.WriteString(lines[k] + "\n")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".candidate_search-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(sb.String()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// cheapReach is the reach whose rows TestCandidateSearchRecord reruns.
const cheapReach = 14

// TestCandidateSearchRecord holds the checked-in record to the candidates'
// definitions: every row names a known candidate, and every row at the
// cheap reach (2^14 on every workload) is recomputed and must match to the
// last digit; each candidate has such a row.
func TestCandidateSearchRecord(t *testing.T) {
	keys, lines, err := readSearchRecord(searchRecord)
	if err != nil {
		t.Fatal(err)
	}
	all := searchable()
	byName := map[string]candidate{}
	for _, c := range all {
		byName[c.name] = c
	}
	b, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	loads, err := searchLoads()
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	reach := fmt.Sprintf("%d/%d", cheapReach, cheapReach)
	for _, k := range keys {
		f := strings.Fields(k)
		c, ok := byName[f[0]]
		if !ok {
			t.Errorf("%s: no candidate %q", searchRecord, f[0])
			continue
		}
		if f[3] != reach || checked[f[0]] {
			continue
		}
		opt, enc, err := searchRowArgs(f[1], f[2])
		if err != nil {
			t.Errorf("%s: %s: %v", searchRecord, k, err)
			continue
		}
		row, err := runSearchRow(b, loads, c, opt, enc, cheapReach, cheapReach, 2)
		if err != nil {
			t.Fatal(err)
		}
		if row.String() != lines[k] {
			t.Errorf("%s: the record says\n\t%s\nrecomputed\n\t%s", searchRecord, lines[k], row)
		}
		checked[f[0]] = true
	}
	for _, c := range all {
		if !checked[c.name] {
			t.Errorf("%s: no row at reach %s for %s", searchRecord, reach, c.name)
		}
	}
}

func searchRowArgs(opt, enc string) (hash.IDOption, hash.LinkEncoding, error) {
	if opt == senderOpt {
		opt = hash.IDOptions()[0].String()
	}
	o, err := hash.ParseIDOption(opt)
	if err != nil {
		return 0, 0, err
	}
	e, err := hash.ParseLinkEncoding(enc)
	return o, e, err
}
