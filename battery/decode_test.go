// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/refmodel"
)

// decodeConfig is a battery of the decode family alone on small windows:
// section 5.3's set on Tapered, topo's numbering, one flow.
func decodeConfig(hashes, gens []string) Config {
	c := smallConfig(hashes, gens)
	c.Decode = DecodeConfig{Enabled: true, Topologies: []string{"tapered-5.3"}, Numberings: []string{"topo"}, Flows: []int{1}, P: refmodel.DefaultP}
	c.Size.DecodeMinBits, c.Size.DecodeStepBits, c.Size.DecodeMaxBits, c.Size.DecodeSlowBits = 10, 2, 14, 14
	c.Size.DecodePackets = 1 << 12
	return c
}

// runDecode runs only the decode family of c.
func runDecode(t *testing.T, c Config, opts ...Option) *Report {
	t.Helper()
	b, err := New(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b.tests = slices.DeleteFunc(b.tests, func(ts *testSpec) bool { return ts.group != "decode" })
	r, err := b.Run(context.Background(), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decodePart(r *Report, kind, name, id string) DecodePart {
	for _, p := range r.DecodeParts {
		if p.Kind == kind && (p.Hash == name && p.ID == id || p.Generator == name) {
			return p
		}
	}
	return DecodePart{}
}

// TestSection53Workload: the Tapered workload is section 5.3's example: 401
// candidate links (8, 192, 192, 8, 1 at hops 1-5), 96 + 96 of them without
// traffic when the routing uses 12 of the group's 24 cores, and every
// packet's held-hop probabilities sum to one.
func TestSection53Workload(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.set.Links) != 401 {
		t.Fatalf("%d links, want 401", len(w.set.Links))
	}
	per, zero := map[int]int{}, map[int]int{}
	var sum int64
	for j, h := range w.set.Hops {
		per[h]++
		if w.units[j] == 0 {
			zero[h]++
		}
		sum += w.units[j]
	}
	want := map[int]int{1: 8, 2: 192, 3: 192, 4: 8, 5: 1}
	for h, n := range want {
		if per[h] != n {
			t.Errorf("hop %d: %d links, want %d", h, per[h], n)
		}
	}
	if zero[2] != 96 || zero[3] != 96 || zero[1]+zero[4]+zero[5] != 0 {
		t.Errorf("zero-traffic links by hop %v, want 96 at hops 2 and 3", zero)
	}
	if sum != w.denom {
		t.Errorf("the held-hop units sum to %d of %d", sum, w.denom)
	}
	// A renumbering changes the switch IDs, not the set's shape.
	r, err := buildWorkload(decodeTopologies[0], "random", 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(r.set.Links, w.set.Links) || !slices.Equal(r.units, w.units) || !slices.Equal(r.set.Hops, w.set.Hops) {
		t.Error("the random numbering left the links alone or changed the traffic")
	}
	f, err := buildWorkload(decodeTopologies[1], "topo", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.set.Links) != 685 || len(f.src) != 16 {
		t.Errorf("full: %d links and %d flows, want 685 and 16", len(f.set.Links), len(f.src))
	}
}

// The parity hash (every thesis-encoded d is odd, so H(id, d) = id & 1 for
// every link: all links agree) must fail the decode at every window; SipHash
// must pass. The lockstep generator must fail on a single path, the ideal one
// pass both routings.
func TestDecodeKnownBadFails(t *testing.T) {
	c := decodeConfig([]string{"parity", "siphash"}, []string{"ideal"})
	c.Lockstep = true
	c.CountBits = []int{3}
	r := runDecode(t, c)
	for _, wv := range decodePart(r, "hash", "parity", "psn-slid").Windows {
		if wv.Verdict != Fail {
			t.Errorf("parity at 2^%d: %s, want FAIL", wv.Window, wv.Verdict)
		}
	}
	for _, wv := range decodePart(r, "hash", "siphash", "psn-slid").Windows {
		if wv.Verdict != Pass {
			t.Errorf("siphash at 2^%d: %s (failing %v), want PASS", wv.Window, wv.Verdict, wv.Failing)
		}
	}
	if v := decodePart(r, "generator", "ideal", "").Windows; len(v) != 1 || v[0].Verdict != Pass {
		t.Errorf("ideal generator: %+v, want PASS", v)
	}
	lock := decodePart(r, "generator", "ideal+lockstep", "").Windows
	if len(lock) != 1 || lock[0].Verdict != Fail || len(lock[0].Failing) != 1 || !strings.Contains(lock[0].Failing[0], "single-path") {
		t.Errorf("lockstep generator: %+v, want FAIL on the single path only", lock)
	}
	for _, x := range r.Results {
		if x.Test == "decode/hash" && x.Subject.Hash == "parity" && !strings.Contains(x.Detail, "false positives") {
			t.Errorf("parity's detail lacks the false-positive rate: %s", x.Detail)
		}
	}
	var txt bytes.Buffer
	if err := r.WriteText(&txt, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DECODE:", DecodeQuestion, "Randomness verdicts answer"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("the text report lacks %q", want)
		}
	}
}

// An ideal hash passes at the declared rate: over several seeds, workloads
// and window sizes, the decode tests' raw p-values fall below alpha no more
// often than alpha allows, and Holm keeps every verdict a PASS. The same
// holds for the generator test of the ideal generator, whose literal run
// through the model's stages is compared with the exact expectation the hash
// tests use: a wrong expectation would fail it.
func TestDecodeNullPassesAtDeclaredRate(t *testing.T) {
	var rate nullRate
	for s := uint64(1); s <= 4; s++ {
		c := decodeConfig([]string{"siphash"}, []string{"ideal"})
		c.Seed = s
		c.Lockstep = false
		c.CountBits = []int{3, 4}
		c.Decode.Topologies = DecodeTopologies()
		c.Decode.Flows = []int{1, 16}
		r := runDecode(t, c)
		for _, x := range r.Results {
			if x.Verdict != Pass {
				t.Errorf("seed %d: %s %s [%s]: %s %s", s, x.Test, x.Subject, x.Scenario, x.Verdict, x.Detail)
			}
		}
		rate.add(r.Results)
	}
	rate.check(t)
	if rate.total < 60 {
		t.Errorf("only %d p-values", rate.total)
	}
}

// The exact expectation is the model's: for Hmult0 over consecutive PSNs,
// the conditional mean of every link's count, averaged over many literal
// runs through the model's sender, stages and receiver with independent
// routing and generators, matches it.
func TestDecodeExpectationMatchesStages(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	const packets, reps = 1 << 10, 48
	nl := len(w.set.Links)
	sum := make([]float64, nl)
	var gs = builtinGenerators()["ideal"]
	var exp []int64
	var ss int64
	for rep := range reps {
		out := make([]uint64, w.pathLen+5)
		lit, e, s, err := decodeGeneratorCounts(gs, 3, w, "", w.units, w.denom, packets, uint64(1000+rep), out, 7)
		if err != nil {
			t.Fatal(err)
		}
		for j := range nl {
			sum[j] += float64(lit[j])
		}
		if rep == 0 {
			exp, ss = e, s
		} else if !slices.Equal(exp, e) || s != ss {
			t.Fatal("the exact expectation depends on the routing seed")
		}
	}
	l, D := float64(w.pathLen), float64(w.denom)
	sd := l * math.Sqrt(float64(packets)-float64(ss)/(D*D)) / math.Sqrt(reps)
	worst := 0.0
	for j := range nl {
		z := (sum[j]/reps - l*float64(exp[j])/D) / sd
		worst = math.Max(worst, math.Abs(z))
	}
	// 401 links, two-sided: P(max |z| > 4.5) < 401 * 6.8e-6 = 0.003.
	if worst > 4.5 {
		t.Errorf("the literal mean departs from the exact expectation by %.2f standard errors", worst)
	}
	t.Logf("largest |z| over %d links: %.2f", nl, worst)
}

// The decode family shards and merges like the rest of the battery.
func TestDecodeShardsMerge(t *testing.T) {
	c := decodeConfig([]string{"mult0"}, []string{"ideal"})
	c.IDs = []string{"psn", "psn-odd"}
	c.Lockstep = false
	c.CountBits = []int{3}
	whole := jsonOf(t, runDecode(t, c))
	b, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	b.tests = slices.DeleteFunc(b.tests, func(ts *testSpec) bool { return ts.group != "decode" })
	var parts []*Partial
	for i := range 3 {
		p, err := b.RunShard(context.Background(), i, 3, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, rewrite(t, p))
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Finalize(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, r); !bytes.Equal(got, whole) {
		t.Fatalf("merged decode shards differ from the unsharded run:\n%s", firstDiff(got, whole))
	}
}

// Hmult0 over the PSN fails the decode on small windows (rotation alignment
// over consecutive PSNs), and the detail names the pair to blame.
func TestDecodeMult0BlamesRotation(t *testing.T) {
	c := decodeConfig([]string{"mult0"}, nil)
	c.IDs = []string{"psn"}
	r := runDecode(t, c)
	p := decodePart(r, "hash", "mult0", "psn")
	if len(p.Windows) == 0 || p.Windows[0].Verdict != Fail {
		t.Fatalf("mult0 psn at the smallest window: %+v, want FAIL", p.Windows)
	}
	for _, x := range r.Results {
		if x.Test == "decode/hash" && x.Verdict == Fail && !strings.Contains(x.Detail, "rotation alignment over consecutive PSNs") {
			t.Errorf("failing mult0 result names no mechanism: %s", x.Detail)
		}
	}
}

func TestDecodeConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Decode.Topologies = []string{"torus"} }, `unknown decode topology "torus"`},
		{func(c *Config) { c.Decode.Numberings = []string{"gray"} }, `unknown switch numbering "gray"`},
		{func(c *Config) { c.Decode.Flows = []int{17} }, "decode flows 17"},
		{func(c *Config) { c.Decode.P = 1 }, "decode threshold confidence"},
		{func(c *Config) { c.Size.DecodeMaxBits = 25 }, "decode_max_bits"},
		{func(c *Config) { c.Size.DecodeSlowBits = 20 }, "decode_slow_bits"},
	} {
		c := decodeConfig([]string{"mult0"}, []string{"ideal"})
		tc.edit(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want it to mention %q", err, tc.want)
		}
	}
}

// The mechanism named for a pair is the alignment computed from the hash's
// own Form: for Hmult0, links d and 3d (mod 2^32) are aligned with k = 3,
// k' = 1 exactly.
func TestMechanismFindsAlignment(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Two links of the set whose encodings we know, and a pair made aligned
	// by construction: theta(b) = 3*theta(a) when d_b = 3*d_a.
	a := w.set.Links[0]
	da, _ := hash.LinkThesis.Encode(a.Switch, a.Port)
	fa, _ := hash.New(hash.Mult0).FormID(da)
	fb, _ := hash.New(hash.Mult0).FormID(3 * da)
	ta, _ := rotation32(fa)
	tb, _ := rotation32(fb)
	if tb != 3*ta {
		t.Fatalf("theta(3d) = %#x, want 3*theta(d) = %#x", tb, 3*ta)
	}
	m := mechanism(hash.New(hash.SipHash), hash.IDPSN, hash.LinkThesis, w, 0, 1, 12)
	if !strings.Contains(m, "pseudo-random") {
		t.Errorf("SipHash's mechanism: %q", m)
	}
}

// TestAgreementsWrittenOut holds the blame's agreement sums, one worst link
// a pass or two sharing one, to the sums written out with hash.Func.Bit: a
// traffic link's sum per base window, 0 for a link without traffic (blame
// reads the traffic links only).
func TestAgreementsWrittenOut(t *testing.T) {
	w, err := buildWorkload(decodeTopologies[0], "topo", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	const baseBits, nb = 6, 5
	nl := len(w.set.Links)
	for _, kn := range []string{"crc16", "double", "parity-xor", "siphash"} {
		k, err := hash.ParseKind(kn)
		if err != nil {
			t.Fatal(err)
		}
		h := hash.New(k)
		m, err := decodeModel(h, hash.IDPSNSLID, hash.LinkThesis, w, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := w.set.Encode(hash.LinkThesis)
		if err != nil {
			t.Fatal(err)
		}
		fs := newFlowSet(w.src, newSampler(9, tagFlows))
		// A zero-traffic link and a traffic link as the worst links.
		a, b := slices.Index(w.units, 0), slices.IndexFunc(w.units, func(u int64) bool { return u != 0 })
		want := func(d int) []int64 {
			out := make([]int64, nb*nl)
			ids := make([]uint32, 1<<baseBits)
			for bw := range nb {
				fs.ids(hash.IDPSNSLID, bw<<baseBits, ids)
				for j := range nl {
					if w.units[j] == 0 {
						continue
					}
					for _, id := range ids {
						out[bw*nl+j] += 1 - 2*int64(h.Bit(id, ds[j])^h.Bit(id, ds[d]))
					}
				}
			}
			return out
		}
		for _, worst := range [][]int{{a}, {b}, {a, b}, {b, a}} {
			got, err := agreements(m, w, fs, ds, worst, baseBits, nb)
			if err != nil {
				t.Fatal(err)
			}
			for x, d := range worst {
				if !slices.Equal(got[x], want(d)) {
					t.Errorf("%s, worst links %v: link %d's agreements differ from the written-out sums", kn, worst, d)
				}
			}
		}
	}
	if _, err := agreements(nil, w, flowSet{}, nil, []int{1, 2, 3}, 6, 1); err == nil {
		t.Error("three worst links at once were accepted")
	}
}

// TestFlowSetIDs holds ids, which counts the flow and step on, to packet's
// division, for one flow and several, from offsets inside a round of flows.
func TestFlowSetIDs(t *testing.T) {
	for _, n := range []int{1, 3, 16} {
		src := make([]int, n)
		for i := range src {
			src[i] = i
		}
		fs := newFlowSet(src, newSampler(4, tagFlows))
		for _, first := range []int{0, 1, 17, 1<<24 - 5} {
			ids := make([]uint32, 50)
			fs.ids(hash.IDPSNDestQP, first, ids)
			for k, id := range ids {
				slid, qp, psn := fs.packet(first + k)
				if want := hash.IDPSNDestQP.ID(slid, qp, psn); id != want {
					t.Fatalf("%d flows, packet %d: id %#x, packet gives %#x", n, first+k, id, want)
				}
			}
		}
	}
}
