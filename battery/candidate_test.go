// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
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
			got, err := candidateMoments(funcCandidate(h), opt, enc, w, 10, 12, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.mu, want.mu) || !slices.Equal(got.ss, want.ss) {
				t.Errorf("%s %s: the plain-Go moments differ from the model's", opt, enc)
			}
			// The specialized MXM loop against hash.MXM through Bit's path.
			ref := candidate{pre: func(d uint32) uint32 { return d }, signs: func(id uint32, ks []uint32, sign []int64) {
				for j, d := range ks {
					sign[j] = 1 - 2*int64(hash.New(hash.MXM).Bit(id, d))
				}
			}}
			a, _ := candidateMoments(mxmCandidate, opt, enc, w, 10, 11, 1, 3)
			b, _ := candidateMoments(ref, opt, enc, w, 10, 11, 1, 3)
			if !slices.Equal(a.mu, b.mu) || !slices.Equal(a.ss, b.ss) {
				t.Errorf("%s %s: the MXM loop differs from hash.MXM", opt, enc)
			}
		}
	}
}

// candidates are the hashes the search judges (docs/hashes-and-generators.md).
var candidates = []candidate{mxmCandidate, funcCandidate(hash.New(hash.Mult0))}

// TestCandidateSearch judges candidate hashes by the decode family: every
// workload, id option, the thesis and packed encodings, windows 2^12 up to
// 2^IBR_SEARCH_BITS (default 22), the first workload with the default's
// streams, the other workloads one stream to 2^IBR_SEARCH_OTHER_BITS (default
// 20). Each window size's verdict is FAIL when its p-value (Sidak over
// the links) is below alpha over the default battery's decode tests (Holm's
// strictest step). IBR_SEARCH=mxm,mult0 runs it (minutes per candidate);
// IBR_SEARCH_IDS=psn-slid,... keeps those id options.
func TestCandidateSearch(t *testing.T) {
	names := os.Getenv("IBR_SEARCH")
	if names == "" {
		t.Skip("IBR_SEARCH=<candidates> runs the search")
	}
	maxBits, longBits := 22, 20
	if s := os.Getenv("IBR_SEARCH_BITS"); s != "" {
		maxBits, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("IBR_SEARCH_OTHER_BITS"); s != "" {
		longBits, _ = strconv.Atoi(s)
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
			if only := os.Getenv("IBR_SEARCH_IDS"); only != "" && !slices.Contains(strings.Split(only, ","), opt.String()) {
				continue
			}
			for _, enc := range []hash.LinkEncoding{hash.LinkThesis, hash.LinkPacked} {
				fails := make([]int, len(ks))
				worst := make([]decodeWindow, len(ks))
				worstName := make([]string, len(ks))
				type res struct {
					ds   []decodeWindow
					fail []bool
				}
				out := make([]res, len(loads))
				var wg sync.WaitGroup
				sem := make(chan struct{}, 2)
				for li, w := range loads {
					wg.Add(1)
					go func() {
						defer wg.Done()
						sem <- struct{}{}
						defer func() { <-sem }()
						// The first workload to the largest window with its
						// streams; the others, one stream, to 2^longBits.
						top, runs := min(maxBits, longBits), 1
						if w.long {
							top = maxBits
							runs = b.decodeRuns(w, ks, maxBits)
						}
						mv, err := candidateMoments(c, opt, enc, w, 12, top, runs, seedOf(c.name, opt, enc, w))
						if err != nil {
							panic(err)
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
				for li, w := range loads {
					for i, d := range out[li].ds {
						if out[li].fail[i] {
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
						v = fmt.Sprintf("FAIL %d", fails[i])
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
