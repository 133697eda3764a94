package battery

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ibreservoir/hash"
)

// TestCandidateMomentsMatchModel: the plain-Go moments equal the model's
// (kernels, Tally, WeightedBits) exactly, on Hmult0 with every id option and
// the thesis and packed encodings, two streams.
func TestCandidateMomentsMatchModel(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := hash.New(hash.Mult0)
	for _, opt := range hash.IDOptions() {
		for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
			want, err := newDecodeMoments(h, opt, enc, w, 10, 12, 2, 0.99, 3)
			if err != nil {
				t.Fatal(err)
			}
			got, err := candidateMoments(h.Bit, opt, enc, w, 10, 12, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.mu, want.mu) || !slices.Equal(got.ss, want.ss) {
				t.Errorf("%s %s: the plain-Go moments differ from the model's", opt, enc)
			}
		}
	}
}

// candidates are the hashes the search judges (docs/hashes-and-generators.md).
var candidates = []struct {
	name string
	bit  func(id, d uint32) uint32
}{
	{"mxm", hash.MXM},
	{"mult0", hash.New(hash.Mult0).Bit},
}

// TestCandidateSearch judges candidate hashes by the decode family: every
// workload, id option, the thesis and packed encodings, windows 2^12 up to
// 2^IBR_SEARCH_BITS (default 20), the first workload with the default's
// streams. Each window size's verdict is FAIL when its p-value (Sidak over
// the links) is below alpha over the default battery's decode tests (Holm's
// strictest step). IBR_SEARCH=mxm,mult0 runs it (minutes per candidate).
func TestCandidateSearch(t *testing.T) {
	names := os.Getenv("IBR_SEARCH")
	if names == "" {
		t.Skip("IBR_SEARCH=<candidates> runs the search")
	}
	maxBits := 20
	if s := os.Getenv("IBR_SEARCH_BITS"); s != "" {
		maxBits, _ = strconv.Atoi(s)
	}
	b, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	level := b.cfg.Alpha / float64(b.decodeTests)
	var ks []int
	for k := 12; k <= maxBits; k += 2 {
		ks = append(ks, k)
	}
	var loads []*workload
	for _, tp := range decodeTopologies {
		for i, num := range DecodeNumberings() {
			for _, f := range []int{1, 16} {
				if f > 1 && i > 0 {
					continue
				}
				w, err := buildWorkload(tp, num, f, 1)
				if err != nil {
					t.Fatal(err)
				}
				loads = append(loads, w)
			}
		}
	}
	loads[0].long = true
	for _, c := range candidates {
		if !slices.Contains(strings.Split(names, ","), c.name) {
			continue
		}
		for _, opt := range hash.IDOptions() {
			for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
				fails := make([]int, len(ks))
				worst := make([]decodeWindow, len(ks))
				worstName := make([]string, len(ks))
				for _, w := range loads {
					runs := b.decodeRuns(w, ks, maxBits)
					mv, err := candidateMoments(c.bit, opt, enc, w, 12, maxBits, runs, seedOf(c.name, opt, enc, w))
					if err != nil {
						t.Fatal(err)
					}
					for i, k := range ks {
						d := decodeSummary(w, mv.mu, mv.ss, len(w.set.Links), k-12, 1<<k, b.cfg.Decode.P)
						if sidak(chiSquareP(d.X, int(d.K)), int(d.Links)) < level {
							fails[i]++
						}
						if d.FP > worst[i].FP {
							worst[i], worstName[i] = d, w.name+": "+w.linkName(int(d.FPLink))
						}
					}
				}
				var cells []string
				for i, k := range ks {
					v := "PASS"
					if fails[i] > 0 {
						v = fmt.Sprintf("FAIL %d/%d", fails[i], len(loads))
					}
					cells = append(cells, fmt.Sprintf("2^%d %s, worst %.3g%% (E[z^2] %.3g)", k, v, 100*worst[i].FP, worst[i].FPE2))
				}
				t.Logf("SEARCH %s %s %s: %s; worst at 2^%d: %s", c.name, opt, enc, strings.Join(cells, "; "), ks[len(ks)-1], worstName[len(ks)-1])
			}
		}
	}
}

func seedOf(name string, opt hash.IDOption, enc hash.LinkEncoding, w *workload) uint64 {
	return keyTag(name + "/" + opt.String() + "/" + enc.String() + "/" + w.name)
}
