// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"ibreservoir/capture"
	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/golden"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
	"ibreservoir/verilog"
)

func defaultStage(random int) StageConfig {
	return StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 1), Seed: 1, Random: random}
}

// defaultDir writes the default vector sets once per test binary, through
// WriteAll as `ibreservoir vectors` does, into a temporary directory.
var defaultDir = struct {
	once sync.Once
	dir  string
	res  *Result
	err  error
}{}

func writeDefaults(t *testing.T) (string, *Result) {
	t.Helper()
	defaultDir.once.Do(func() {
		d, err := os.MkdirTemp("", "ibr-vectors-test")
		if err != nil {
			defaultDir.err = err
			return
		}
		defaultDir.dir = filepath.Join(d, "out")
		defaultDir.res, defaultDir.err = WriteAll(context.Background(), defaultDir.dir, "test", DefaultSets(DefaultSeed, DefaultRandom, DefaultPaths))
	})
	if defaultDir.err != nil {
		t.Fatal(defaultDir.err)
	}
	return defaultDir.dir, defaultDir.res
}

func TestMain(m *testing.M) {
	code := m.Run()
	if defaultDir.dir != "" {
		os.RemoveAll(filepath.Dir(defaultDir.dir))
	}
	os.Exit(code)
}

// indexSums is the SHA-256 of every file of an index, by kind/name/file.
func indexSums(idx *Index) []byte {
	sums := map[string]string{}
	for _, s := range idx.Sets {
		for _, f := range s.Files {
			sums[s.Kind+"/"+s.Name+"/"+f.Name] = f.SHA256
		}
	}
	b, _ := json.MarshalIndent(sums, "", "  ")
	return append(b, '\n')
}

// TestGolden freezes every file `ibreservoir vectors` writes with its
// defaults: their SHA-256 (testdata/golden_sha256.json) and, for one small
// set, the hex and JSON Lines files themselves. -update rewrites them; the
// test then generates everything again and requires the same bytes.
func TestGolden(t *testing.T) {
	_, res := writeDefaults(t)
	got := indexSums(res.Index)
	if n := len(res.Index.Sets); n != len(DefaultSets(1, 1, 1)) {
		t.Errorf("index.json lists %d sets, want %d", n, len(DefaultSets(1, 1, 1)))
	}
	golden.Check(t, filepath.Join("testdata", "golden_sha256.json"), got)
	set, err := GenerateStage(defaultStage(16))
	if err != nil {
		t.Fatal(err)
	}
	var hexb, jsonb bytes.Buffer
	if err := set.WriteHex(&hexb); err != nil {
		t.Fatal(err)
	}
	if err := set.WriteJSONL(&jsonb); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "stage_mult0_ideal_c3.hex"), hexb.Bytes())
	golden.Check(t, filepath.Join("testdata", "stage_mult0_ideal_c3.jsonl"), jsonb.Bytes())
	if *golden.Update {
		again, err := WriteAll(context.Background(), filepath.Join(t.TempDir(), "again"), "test", DefaultSets(DefaultSeed, DefaultRandom, DefaultPaths))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(indexSums(again.Index), got) {
			t.Fatal("a second generation of the default sets differs from the first")
		}
	}
}

// TestStreamEqualsMemory: the streamed files are the in-memory writers'.
func TestStreamEqualsMemory(t *testing.T) {
	dir, _ := writeDefaults(t)
	for _, c := range []verilog.Config{verilog.DefaultConfig(), RTLMatrix()[len(RTLMatrix())-1]} {
		set, err := GenerateStage(StageSetSpec(KindStage, c, DefaultSeed, DefaultRandom).Stage)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			fill func(*bytes.Buffer) error
		}{
			{"stage.hex", func(b *bytes.Buffer) error { return set.WriteHex(b) }},
			{"stage.jsonl", func(b *bytes.Buffer) error { return set.WriteJSONL(b) }},
			{"stage.bin", func(b *bytes.Buffer) error { return set.WriteBinary(b) }},
		} {
			var b bytes.Buffer
			if err := f.fill(&b); err != nil {
				t.Fatal(err)
			}
			disk, err := os.ReadFile(filepath.Join(dir, KindStage, c.Name(), f.name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), disk) {
				t.Errorf("%s/%s: the streamed file differs from the in-memory writer's", c.Name(), f.name)
			}
		}
	}
}

// TestGOMAXPROCS: the bytes do not depend on how many goroutines made them.
func TestGOMAXPROCS(t *testing.T) {
	cfg := defaultStage(40000) // 625 chains: three batches of parallel generation
	var outs [][]byte
	for _, p := range []int{1, 2, 7} {
		old := runtime.GOMAXPROCS(p)
		var b bytes.Buffer
		_, err := WriteStageBinary(context.Background(), &b, cfg)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.Bytes())
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Fatalf("GOMAXPROCS changes the binary vectors")
		}
	}
	// The streaming writer equals the in-memory one.
	set, err := GenerateStage(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := set.WriteBinary(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), outs[0]) {
		t.Fatalf("WriteStageBinary and GenerateStage+WriteBinary differ")
	}
}

// TestStageVectors checks every vector of every RTL configuration against
// the IBA checks and the model: the output has good CRCs, differs from the
// input only in BTH byte 4 and the VCRC, and staging the input again from the
// recorded state gives the recorded output and state.
func TestStageVectors(t *testing.T) {
	for _, c := range RTLMatrix() {
		if c.Hash.Kind != hash.Mult0 && c.Hash.Kind != hash.SipHash {
			continue // every hash is co-simulated in package cosim; two suffice here
		}
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 3), Seed: 3, Random: 300})
		if err != nil {
			t.Fatal(err)
		}
		// The first vector, which loads nothing, draws from the reset state.
		var prev rng.State
		if g, err := set.Config.Model.NewPortGenerator(0, 1); err != nil {
			t.Fatal(err)
		} else if r, ok := g.(rng.Resetter); ok {
			r.Reset()
			prev = g.State()
		}
		raws := 0
		for i := range set.Vectors {
			v := &set.Vectors[i]
			if v.Result.Raw {
				raws++
				if v.FieldOut != 0 || v.Flags()&(FlagReplace|FlagSaturated|FlagHash) != 0 || !slices.Equal(v.StateIn, v.StateOut) {
					t.Fatalf("%s: vector %d (%s): a raw packet with a decision (%+v) or a draw", c.Name(), i, v.Case, v.Result)
				}
			}
			if v.Index != i {
				t.Fatalf("%s: vector %d has index %d", c.Name(), i, v.Index)
			}
			if err := v.checkInvariant(); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			if n := len(v.Out) - header.VCRCLen; v.Corrupt != 0 {
				// Stomped: the complement of the valid VCRC.
				if got, valid := binary.LittleEndian.Uint16(v.Out[n:]), header.CRC16(v.Out[:n]); got != ^valid {
					t.Fatalf("%s: vector %d (%s, %v): VCRC %#04x, want it stomped (%#04x)", c.Name(), i, v.Case, v.Corrupt, got, ^valid)
				}
			} else if v.Result.Raw {
				checkRaw(t, fmt.Sprintf("%s: vector %d (%s) out", c.Name(), i, v.Case), v.Out)
			} else if !damaged(v) {
				chk, err := header.Check(v.Out, 0)
				if err != nil || chk.Err() != nil {
					t.Fatalf("%s: vector %d: output fails the IBA checks: %v %v", c.Name(), i, err, chk.Err())
				}
			}
			if !v.Load && !slices.Equal(v.StateIn, prev) {
				t.Fatalf("%s: vector %d continues a chain but its state in is not the previous state out", c.Name(), i)
			}
			prev = v.StateOut
			// Replay through a fresh model and generator.
			mc := c.ModelConfig(max(v.LNH(), header.LNHLocal), 9) // a raw packet through a local model
			m, err := refmodel.New(mc)
			if err != nil {
				t.Fatal(err)
			}
			g, err := mc.NewPortGenerator(v.Switch, v.Port)
			if err != nil {
				t.Fatal(err)
			}
			if g != nil {
				if err := g.SetState(v.StateIn); err != nil {
					t.Fatal(err)
				}
			}
			out := append([]byte(nil), v.In...)
			if _, corrupt, err := m.StageCutThrough(out, v.Switch, v.Port, v.Congested, g); err != nil || corrupt != v.Corrupt {
				t.Fatalf("%s: vector %d: %v, %v (the vector says %v)", c.Name(), i, corrupt, err, v.Corrupt)
			}
			if !bytes.Equal(out, v.Out) || g != nil && !slices.Equal(g.State(), v.StateOut) {
				t.Fatalf("%s: vector %d does not replay", c.Name(), i)
			}
		}
		if raws < 12 {
			t.Errorf("%s: %d raw packets, want the 12 directed ones at least", c.Name(), raws)
		}
		if v := set.Vectors[0]; v.Load != c.ModelConfig(header.LNHLocal, 3).SenderMode() {
			t.Errorf("%s: the first vector (%s) loads %t: a switch generator's set starts from its reset state, with no load", c.Name(), v.Case, v.Load)
		}
	}
}

// edgeConfigs are configurations whose generators differ in their edges:
// every kind of the default matrix with both count widths, and the variants.
func edgeConfigs() []verilog.Config {
	var cs []verilog.Config
	for _, c := range RTLMatrix() {
		if c.Hash.Kind == hash.Mult0 {
			cs = append(cs, c)
		}
	}
	for _, v := range []struct {
		gen  string
		b, l int
	}{{"lfsr-lut/b32", 2, 0}, {"lfsr-lut/b16/k16", 4, 0}, {"lfsr-lut/b3", 2, 0}, {"shiftreg/free/5:8", 4, 0}, {"sender", 0, 1}} {
		c := verilog.DefaultConfig()
		c.Generator, c.CountBits, c.SenderL = v.gen, v.b, v.l
		cs = append(cs, c)
	}
	return cs
}

// TestDirected checks that the directed cases are there and do what their
// names say.
func TestDirected(t *testing.T) {
	for _, gen := range []string{"ideal", "lfsr-lut/b16", "shiftreg/free/7:3", "sender"} {
		c := verilog.DefaultConfig()
		c.Generator = gen
		if gen == "sender" {
			c.CountBits, c.SenderL = 0, 3
		}
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", gen, err)
		}
		cases := map[string]*StageVector{}
		for i := range set.Vectors {
			v := &set.Vectors[i]
			if cases[v.Case] != nil {
				t.Fatalf("%s: case %s twice", gen, v.Case)
			}
			cases[v.Case] = v
		}
		for _, ln := range []string{"local", "global"} {
			want := []string{ln + "/psn/0", ln + "/psn/ffffff", ln + "/bits/fecn-becn-spare"}
			if gen == "sender" {
				for v := 1; v < 16; v++ {
					want = append(want, fmt.Sprintf("%s/rand/%04b/idle", ln, v), fmt.Sprintf("%s/rand/%04b/cong", ln, v))
				}
			} else {
				for n := 0; n < 8; n++ {
					for _, d := range []string{"replace", "keep"} {
						if n == 0 && d == "keep" {
							continue
						}
						for _, cg := range []string{"idle", "cong"} {
							name := fmt.Sprintf("%s/count/%d/%s/%s", ln, n, d, cg)
							want = append(want, name)
							if v := cases[name]; v != nil {
								if v.Result.HopReplaced != (d == "replace") || v.Congested != (cg == "cong") || v.Result.HopSaturated != (n == 7) {
									t.Errorf("%s: %s: replace %t congested %t saturated %t", gen, name, v.Result.HopReplaced, v.Congested, v.Result.HopSaturated)
								}
							}
						}
					}
				}
			}
			if gen == "ideal" {
				for _, l := range []int{3, 5, 6, 7} {
					for k := 1; k <= 3; k++ {
						want = append(want, fmt.Sprintf("%s/reject/l%d/x%d", ln, l, k))
					}
				}
			}
			for _, w := range want {
				if cases[w] == nil {
					t.Errorf("%s: no directed case %s", gen, w)
				}
			}
			for name, v := range cases {
				if strings.HasPrefix(name, ln+"/") && (v.LNH() == header.LNHGlobal) != (ln == "global") {
					t.Errorf("%s: %s has LNH %d", gen, name, v.LNH())
				}
				if strings.Contains(name, "/psn/0") && psnOf(v) != 0 || strings.Contains(name, "/psn/ffffff") && psnOf(v) != 0xFFFFFF {
					t.Errorf("%s: %s has PSN %#x", gen, name, psnOf(v))
				}
				if strings.Contains(name, "/reject/") {
					if idealRejections(v.StateIn, v.Result.HopL) < 1 {
						t.Errorf("%s: %s rejects nothing", gen, name)
					}
				}
			}
		}
	}
}

// TestEdges: the directed cases alone sit on every comparator edge of every
// generator, and each edge case's compared value is where its name says,
// computed here from the generator's documented bounds (an oracle apart from
// edges.go's classifier).
func TestEdges(t *testing.T) {
	for _, c := range edgeConfigs() {
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 4), Seed: 4})
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		cov := set.EdgeCoverage()
		if cov.Total == 0 || cov.Hit != cov.Total {
			t.Errorf("%s: the directed cases sit on %d of %d edges; missed %v", c.Name(), cov.Hit, cov.Total, cov.Missed)
		}
		for i := range set.Vectors {
			v := &set.Vectors[i]
			name, ok := strings.CutPrefix(v.Case, "local/edge/")
			if !ok {
				continue
			}
			var l int
			var kind string
			if c.Generator == "sender" {
				kind = name
			} else if _, err := fmt.Sscanf(name, "l%d/%s", &l, &kind); err != nil {
				t.Fatalf("%s: case %s", c.Name(), v.Case)
			}
			if err := edgeOracle(c, v, l, kind); err != nil {
				t.Errorf("%s: case %s: %v", c.Name(), v.Case, err)
			}
		}
	}
}

// edgeOracle checks that vector v sits on edge (l, kind) of c's generator.
func edgeOracle(c verilog.Config, v *StageVector, l int, kind string) error {
	if c.Generator != "sender" && v.Result.HopL != l {
		return fmt.Errorf("drew for l=%d", v.Result.HopL)
	}
	switch {
	case c.Generator == "sender":
		w := c.FieldBits()
		want := map[string]uint64{"spent": 1 << (w - 1), "to-spent/zero": 1 << (w - 2), "to-spent/one": 3 << (w - 2)}[kind]
		if v.FieldIn != want {
			return fmt.Errorf("hop_rand %0*b, want %0*b", w, v.FieldIn, w, want)
		}
	case c.Generator == "ideal":
		a := (1 << 32) / uint64(l) * uint64(l)
		z := (1 << 32) / uint64(l)
		want := map[string]uint64{"z-1": z - 1, "z": z, "a-1": a - 1, "a": a}[kind]
		g := rng.NewIdeal(1, 16)
		if err := g.SetState(v.StateIn); err != nil {
			return err
		}
		if r := uint64(g.Next()); r != want {
			return fmt.Errorf("first output %#x, want %#x", r, want)
		}
	case strings.HasPrefix(c.Generator, "lfsr-lut"):
		var b int
		fmt.Sscanf(c.Generator, "lfsr-lut/b%d", &b)
		m := uint64(1)<<b - 1
		t := (2*m + uint64(l)) / (2 * uint64(l)) // round((2^B-1)/l), half up
		want := map[string]uint64{"t-1": t - 1, "t": t, "t+1": t + 1}[kind]
		if v.StateIn[0] != want {
			return fmt.Errorf("state %d, want %d (T[%d] = %d)", v.StateIn[0], want, l, t)
		}
	default: // shift registers: register l occupies state bits l(l-1)/2 ..
		off := l * (l - 1) / 2
		pos := -1
		for i := range l {
			if v.StateIn[(off+i)/64]>>((off+i)%64)&1 == 0 {
				pos = i
			}
		}
		switch kind {
		case "pos0", "pos1":
			if pos != int(kind[3]-'0') {
				return fmt.Errorf("register %d's 0 at %d", l, pos)
			}
		case "pos-last":
			if pos != l-1 {
				return fmt.Errorf("register %d's 0 at %d", l, pos)
			}
		case "phase-wrap":
			var p, q int
			fmt.Sscanf(c.Generator, "shiftreg/free/%d:%d", &p, &q)
			w := 0
			for 1<<w < q {
				w++
			}
			maxL := 1 << c.CountBits
			n := maxL * (maxL + 1) / 2 // the registers of l = 1..maxL; the draw count follows
			phase := v.StateIn[n/64] >> (n % 64) & (1<<w - 1)
			if int(phase) != q-1 {
				return fmt.Errorf("draw count %d, want %d", phase, q-1)
			}
		}
	}
	return nil
}

// TestChainsPerConfiguration: each configuration draws its own random
// chains, so the eight hashes do not share packets and generator states.
func TestChainsPerConfiguration(t *testing.T) {
	pairs := map[[2]uint64]bool{}
	total := 0
	for _, k := range []hash.Kind{hash.Mult0, hash.CRC32, hash.Parity} {
		c := verilog.DefaultConfig()
		c.Hash, c.Generator = hash.New(k), "lfsr-lut/b16"
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 1, Random: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range set.Vectors[set.Directed:] {
			pairs[[2]uint64{v.StateIn[0], uint64(v.Result.HopL)}] = true
			total++
		}
	}
	// Chains shared between hashes would give one third as many pairs.
	if len(pairs) < total*9/10 {
		t.Errorf("%d distinct (state, l) pairs in %d vectors of three hashes", len(pairs), total)
	}
}

func psnOf(v *StageVector) uint32 {
	p, err := header.DecodePacket(v.In, 0)
	if err != nil {
		return 0xFFFFFFFF
	}
	return p.BTH.PSN
}

// TestBinaryRoundTrip decodes the binary form and compares it with the set.
func TestBinaryRoundTrip(t *testing.T) {
	for _, gen := range []string{"ideal", "shiftreg/per-packet", "sender"} {
		c := verilog.DefaultConfig()
		c.Generator, c.CountBits = gen, 4
		if gen == "sender" {
			c.CountBits, c.SenderL = 0, 3
		}
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 2, Random: 500})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := set.WriteBinary(&b); err != nil {
			t.Fatal(err)
		}
		h, recs, err := ReadBinary(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if h.StateBytes != set.StateBytes() || h.FieldBits != set.FieldBits || len(recs) != len(set.Vectors) || h.Digest != ConfigDigest(c.ModelConfig(0, 0)) {
			t.Fatalf("%s: header %+v, %d records", gen, h, len(recs))
		}
		for i, r := range recs {
			v := &set.Vectors[i]
			if !bytes.Equal(r.In, v.In) || !bytes.Equal(r.Out, v.Out) || r.Flags != v.Flags() || r.Switch != v.Switch ||
				r.Port != v.Port || uint64(r.FieldOut) != v.FieldOut || !bytes.Equal(r.StateOut, stateBytes(v.StateOut, h.StateBytes)) ||
				(v.Load && h.StateBytes > 0) != (r.StateIn != nil) {
				t.Fatalf("%s: record %d does not round-trip", gen, i)
			}
		}
		// A count that disagrees with the records is an error either way.
		for _, n := range []uint64{0, 1, uint64(len(recs) + 1)} {
			bad := bytes.Clone(b.Bytes())
			bad[BinPosCount] = byte(n)
			bad[BinPosCount+1] = byte(n >> 8)
			if _, _, err := ReadBinary(bad); err == nil {
				t.Errorf("%s: a header count of %d over %d records reads without error", gen, n, len(recs))
			}
		}
		var j bytes.Buffer
		if err := set.WriteJSONL(&j); err != nil {
			t.Fatal(err)
		}
		js, err := ReadJSONL(&j)
		if err != nil || len(js) != len(set.Vectors) {
			t.Fatalf("%s: JSON Lines: %v, %d lines", gen, err, len(js))
		}
		if js[7].In != hex.EncodeToString(set.Vectors[7].In) {
			t.Fatalf("%s: JSON Lines record 7 differs", gen)
		}
	}
}

// TestJSONOneBitValues: every one-bit value of both JSON Lines forms is the
// integer 0 or 1, never true or false.
func TestJSONOneBitValues(t *testing.T) {
	dir, _ := writeDefaults(t)
	for _, f := range []string{"stage/mult0_ideal_c3/stage.jsonl", "path/onereservoir-c3@resv6_mult0_ideal_local/path.jsonl",
		"path/fullid-s16p8-c8@footer_mult0_ideal_local/path.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("true")) || bytes.Contains(b, []byte("false")) {
			t.Errorf("%s has a true or false", f)
		}
	}
}

// TestPathJSONPerScheme: path records carry their scheme's fields only,
// and full-ID samples always carry their links.
func TestPathJSONPerScheme(t *testing.T) {
	for _, mc := range PathModels() {
		ps, err := GeneratePaths(PathConfig{Model: mc, Seed: 2, Random: 5})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := ps.WriteJSONL(&b); err != nil {
			t.Fatal(err)
		}
		s := mc.Telemetry.Scheme
		first, _, _ := bytes.Cut(b.Bytes(), []byte("\n")) // the 0-hop path
		for _, f := range []struct {
			key  string
			want bool
		}{
			{`"hash":`, s != header.FullID}, {`"cong_drew":`, s != header.OneReservoir}, {`"cong_replace":`, s != header.OneReservoir},
			{`"hop_bit":`, s != header.FullID}, {`"cong_count":`, s != header.OneReservoir},
			{`"hop_link":`, s == header.FullID}, {`"cong_link":`, s == header.FullID},
		} {
			if strings.Contains(b.String(), f.key) != f.want {
				t.Errorf("%s: %s present %t, want %t", pathName(mc), f.key, !f.want, f.want)
			}
			if f.key == `"hop_link":` && bytes.Contains(first, []byte(f.key)) != f.want {
				t.Errorf("%s: the 0-hop path: %s present %t, want %t", pathName(mc), f.key, !f.want, f.want)
			}
		}
	}
}

// TestPathsAgainstWalk replays every path vector's hops with Model.Walk
// (the model's register-level path, independent of packet bytes) and requires
// the same receiver sample.
func TestPathsAgainstWalk(t *testing.T) {
	for _, mc := range PathModels() {
		mc.Seed = 5
		ps, err := GeneratePaths(PathConfig{Model: mc, Seed: 5, Random: 100})
		if err != nil {
			t.Fatalf("%s: %v", pathName(mc), err)
		}
		m, err := refmodel.New(mc)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range ps.Vectors {
			var hops []refmodel.Hop
			for _, h := range v.Hops {
				g, err := mc.NewPortGenerator(h.Switch, h.Port)
				if err != nil {
					t.Fatal(err)
				}
				if g != nil {
					if err := g.SetState(h.StateIn); err != nil {
						t.Fatal(err)
					}
				}
				hops = append(hops, refmodel.Hop{Link: refmodel.Link{Switch: h.Switch, Port: h.Port}, Congested: h.Congested, Gen: g})
			}
			pc := mc
			pc.Seed = seedForPath(ps.Config.Seed, v.Index)
			slid := uint16(v.Sent[6])<<8 | uint16(v.Sent[7])
			s, err := m.Walk(v.Sample.ID, hops, pc.NewSenderGenerator(slid))
			if err != nil {
				t.Fatal(err)
			}
			want := v.Sample
			want.SLID, want.DLID = 0, 0
			if s != want {
				t.Fatalf("%s: path %d (%s): Walk gives %+v, the packet bytes %+v", pathName(mc), v.Index, v.Case, s, want)
			}
		}
	}
}

// checkRaw requires a valid raw packet (LNH 0 or 1): an LRH with VL 0..14, a
// unicast LID pair and the PktLen of the frame; a Raw Header with the
// vectors' EtherType, or an IPv6 header (version 6, no next header, the
// payload's length); a good VCRC.
func checkRaw(t *testing.T, name string, pkt []byte) {
	t.Helper()
	var l header.LRH
	if err := l.DecodeFromBytes(pkt); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n := len(pkt) - header.VCRCLen
	switch {
	case l.VL == 15 || l.SLID == 0 || l.SLID >= 0xC000 || l.DLID == 0 || l.DLID >= 0xC000:
		t.Fatalf("%s: VL %d, SLID %#x, DLID %#x", name, l.VL, l.SLID, l.DLID)
	case int(l.PktLen) != n/4:
		t.Fatalf("%s: PktLen %d for a %d-byte frame", name, l.PktLen, len(pkt))
	case binary.LittleEndian.Uint16(pkt[n:]) != header.CRC16(pkt[:n]):
		t.Fatalf("%s: VCRC", name)
	case l.LNH == header.LNHRaw && binary.BigEndian.Uint16(pkt[header.LRHLen+2:]) != rawEtherType:
		t.Fatalf("%s: EtherType %#04x", name, binary.BigEndian.Uint16(pkt[header.LRHLen+2:]))
	case l.LNH == header.LNHIPv6Raw:
		ip := pkt[header.LRHLen:]
		if ip[0]>>4 != header.IPVer6 || ip[header.GRHPosNxtHdr] != ipv6NoNextHdr ||
			int(binary.BigEndian.Uint16(ip[header.GRHPosPayLen:])) != n-header.LRHLen-header.GRHLen {
			t.Fatalf("%s: IPv6 header % x", name, ip[:header.GRHLen])
		}
	}
}

// TestValidPackets decodes every packet of a few sets (package header, an
// oracle apart from packet.go's builder) and requires a valid IBA transport
// packet: an opcode of transportOps with room for its extended headers and
// an allowed data length, VL 0..14, a unicast LID pair, a usable QP and
// P_Key, and good CRCs.
func TestValidPackets(t *testing.T) {
	ops := map[uint8]transportOp{}
	for _, o := range transportOps {
		ops[o.code] = o
	}
	check := func(name string, pkt []byte, footer int) {
		t.Helper()
		if lnh := header.LNHOf(pkt); lnh < header.LNHLocal {
			checkRaw(t, name, pkt)
			return
		}
		p, err := header.DecodePacket(pkt, footer)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		op, ok := ops[p.BTH.OpCode]
		payload := len(p.Payload) - int(p.BTH.PadCnt)
		switch {
		case !ok:
			t.Fatalf("%s: opcode %#02x is not one of the vectors'", name, p.BTH.OpCode)
		case payload < op.ext || op.data == noData && payload != op.ext || payload-op.ext == 1 ||
			op.data == lastData && payload-op.ext < 2:
			t.Fatalf("%s: opcode %#02x with %d bytes after the BTH", name, p.BTH.OpCode, payload)
		case p.LRH.VL == 15 || p.LRH.SLID == 0 || p.LRH.SLID >= 0xC000 || p.LRH.DLID == 0 || p.LRH.DLID >= 0xC000:
			t.Fatalf("%s: VL %d, SLID %#x, DLID %#x", name, p.LRH.VL, p.LRH.SLID, p.LRH.DLID)
		case p.BTH.DestQP < 2 || p.BTH.DestQP == 0xFFFFFF || p.BTH.PKey&0x7FFF == 0:
			t.Fatalf("%s: DestQP %#x, P_Key %#x", name, p.BTH.DestQP, p.BTH.PKey)
		case op.lead == aeth && p.Payload[0]&0xE0 != 0:
			t.Fatalf("%s: AETH syndrome %#02x is not an ACK", name, p.Payload[0])
		case op.lead == atomicETH && p.Payload[7]&7 != 0:
			t.Fatalf("%s: AtomicETH virtual address not 8-byte aligned", name)
		}
		if chk, err := header.Check(pkt, footer); err != nil || chk.Err() != nil {
			t.Fatalf("%s: CRCs: %v %v", name, err, chk.Err())
		}
	}
	for _, c := range edgeConfigs()[:4] {
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 6), Seed: 6, Random: 2000})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range set.Vectors {
			if damaged(&v) {
				continue // corrupt on purpose: TestStageVectors checks its VCRC is stomped
			}
			check(fmt.Sprintf("%s vector %d (%s) in", c.Name(), v.Index, v.Case), v.In, 0)
			check(fmt.Sprintf("%s vector %d (%s) out", c.Name(), v.Index, v.Case), v.Out, 0)
		}
	}
	for _, mc := range PathModels() {
		ps, err := GeneratePaths(PathConfig{Model: mc, Seed: 6, Random: 50})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := mc.Telemetry.Layout()
		for _, v := range ps.Vectors {
			for i, p := range v.Packets() {
				check(fmt.Sprintf("%s path %d packet %d", pathName(mc), v.Index, i), p, l.FooterBytes)
			}
		}
	}
}

// TestTshark has Wireshark's dissector read every frame of every pcap the
// default vector sets hold (all of them, merged into one capture per kind of
// frame so that tshark starts twice, not 185 times) and requires zero
// malformed frames, zero dissector errors, and every frame dissected as
// InfiniBand; frames of layouts without a footer must show their ICRC and
// VCRC (a footer hides the ICRC from a reader that does not know it: spec
// section 2). Skipped without tshark, except under CI.
func TestTshark(t *testing.T) {
	testtool.Need(t, "tshark")
	dir, res := writeDefaults(t)
	merged := map[bool]*bytes.Buffer{false: {}, true: {}} // by "has a footer"
	writers := map[bool]*capture.Writer{}
	for k, b := range merged {
		w, err := capture.NewWriter(b)
		if err != nil {
			t.Fatal(err)
		}
		writers[k] = w
	}
	frames := map[bool]int{}
	badLen := map[bool][]bool{} // by frame: PktLen disagrees with the frame's length (a corrupt vector)
	raws := map[bool][][]byte{} // by frame: its LRH
	files := 0
	for _, s := range res.Index.Sets {
		footer := false
		if s.Kind == KindPath {
			m, err := ReadManifest(filepath.Join(dir, s.Kind, s.Name))
			if err != nil {
				t.Fatal(err)
			}
			mc, err := m.ModelConfig()
			if err != nil {
				t.Fatal(err)
			}
			l, _ := mc.Telemetry.Layout()
			footer = l.FooterBytes > 0
		}
		for _, f := range s.Files {
			if !strings.HasSuffix(f.Name, ".pcap") {
				continue
			}
			files++
			pkts, err := capture.ReadFile(filepath.Join(dir, s.Kind, s.Name, f.Name))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pkts {
				if err := writers[footer].WritePacket(pcapTime(frames[footer]), p.Data); err != nil {
					t.Fatal(err)
				}
				frames[footer]++
				badLen[footer] = append(badLen[footer], 4*int(header.PktLenOf(p.Data))+header.VCRCLen != len(p.Data))
				raws[footer] = append(raws[footer], p.Data[:header.LRHLen:header.LRHLen])
			}
		}
	}
	if files != 2*len(RTLMatrix())+len(PathModels()) {
		t.Errorf("%d pcap files, want %d", files, 2*len(RTLMatrix())+len(PathModels()))
	}
	for footer, b := range merged {
		p := filepath.Join(t.TempDir(), "merged.pcap")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("tshark", "-n", "-r", p, "-T", "fields", "-E", "separator=|",
			"-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.malformed", "-e", "_ws.expert.severity",
			"-e", "infiniband.invariant.crc", "-e", "infiniband.variant.crc", "-e", "_ws.col.Info")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != frames[footer] {
			t.Fatalf("tshark read %d frames, want %d", len(lines), frames[footer])
		}
		bad, flagged := 0, 0
		for i, l := range lines {
			f := strings.Split(l, "|")
			// A raw packet has no ICRC; a raw IPv6 one is dissected as IPv6.
			lnh := header.LNHOf(raws[footer][i])
			problem := len(f) != 7 || !strings.Contains(f[1], "infiniband") || f[2] != "" || strings.Contains(f[6], "Unknown") ||
				f[3] != "" || !footer && (f[4] == "") != (lnh < header.LNHLocal) || !footer && f[5] == "" ||
				lnh == header.LNHIPv6Raw && !strings.Contains(f[1], "ipv6")
			if badLen[footer][i] {
				// A corrupt vector's PktLen: tshark reports one longer than
				// the frame ("Invalid Packet Length from LRH") and reads one
				// shorter as a shorter packet; either is right.
				problem = len(f) != 7
				if strings.Contains(f[6], "Invalid Packet Length") {
					flagged++
				}
			}
			if problem {
				if bad < 5 {
					t.Errorf("tshark, frame %s: %q", f[0], l)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d frames (footer %t) are not dissected cleanly", bad, len(lines), footer)
		}
		t.Logf("tshark dissected %d frames (footer %t): none malformed but %d of the %d whose PktLen disagrees with their length, reported so", len(lines), footer, flagged, countTrue(badLen[footer]))
	}
}

// TestOutDirUnit: a vector directory is rewritten as a unit. An interrupted
// run leaves it as it was, with no temporaries; what a killed run left is
// removed (or put back) by the next run; a run of some sets keeps the
// others, and index.json lists every set.
func TestOutDirUnit(t *testing.T) {
	root := filepath.Join(t.TempDir(), "v")
	sets := DefaultSets(1, 200, 20)
	pick := func(names ...string) []SetSpec {
		var out []SetSpec
		for _, s := range sets {
			if slices.Contains(names, s.Name) {
				out = append(out, s)
			}
		}
		return out
	}
	two := pick("mult0_ideal_c3", "crc32_sender_l3")
	if _, err := WriteAll(context.Background(), root, "test", two); err != nil {
		t.Fatal(err)
	}
	before := treeSums(t, root)
	// Interrupted: a context cancelled while the sets are being generated.
	ctx, cancel := context.WithCancel(context.Background())
	big := StageSetSpec(KindStage, verilog.DefaultConfig(), 2, 200000)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(root), fmt.Sprintf(".v.staging-%d", os.Getpid()), KindStage, big.Name, "stage.bin")); err == nil {
				cancel() // the set is being written
				return
			}
			runtime.Gosched()
		}
	}()
	_, err := WriteAll(ctx, root, "test", []SetSpec{big})
	close(done)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("an interrupted run: %v", err)
	}
	if d := diffSums(before, treeSums(t, root)); d != "" {
		t.Fatalf("an interrupted run changed the directory: %s", d)
	}
	assertNoTemporaries(t, root)
	// Killed runs: a staging directory, and a swap stopped between its two
	// renames (root moved aside).
	parent := filepath.Dir(root)
	os.MkdirAll(filepath.Join(parent, ".v.staging-99999", "stage"), 0o755)
	if err := os.Rename(root, filepath.Join(parent, ".v.old-99998")); err != nil {
		t.Fatal(err)
	}
	res, err := WriteAll(context.Background(), root, "test", pick("parity_ideal_c4"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stale != 2 {
		t.Errorf("%d stale temporaries removed, want 2", res.Stale)
	}
	assertNoTemporaries(t, root)
	after := treeSums(t, root)
	for k, v := range before {
		if k != IndexName && after[k] != v {
			t.Errorf("%s: changed or gone after a run of another set", k)
		}
	}
	idx, err := ReadIndex(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range idx.Sets {
		names = append(names, s.Name)
		if _, err := CheckSet(filepath.Join(root, s.Kind, s.Name)); err != nil {
			t.Error(err)
		}
	}
	if !slices.Equal(names, []string{"crc32_sender_l3", "mult0_ideal_c3", "parity_ideal_c4"}) {
		t.Errorf("index.json lists %v", names)
	}
	// A set whose file no longer matches its manifest, and an index that
	// disagrees with a manifest, are refused.
	p := filepath.Join(root, KindStage, "mult0_ideal_c3", "stage.bin")
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 1
	os.WriteFile(p, b, 0o644)
	if _, err := CheckSet(filepath.Dir(p)); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a changed file: %v", err)
	}
	// A directory that is not a vector directory is refused.
	foreign := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("keep me"), 0o644)
	if _, err := WriteAll(context.Background(), foreign, "test", two); err == nil || !strings.Contains(err.Error(), "not a vector directory") {
		t.Errorf("a foreign directory: %v", err)
	}
}

// TestOutDirNotWorkingDir: the current directory, by any name, and every
// directory holding it are refused before anything is written, locked or
// created; a directory inside it is not.
func TestOutDirNotWorkingDir(t *testing.T) {
	base := t.TempDir()
	wd := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "a"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wd, "keep.txt"), []byte("keep me"), 0o644)
	// tree lists every entry under base, directories and links included,
	// with each file's bytes.
	tree := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				m[p] = err.Error()
				return nil
			}
			b, _ := os.ReadFile(p)
			m[p] = d.Type().String() + string(b)
			return nil
		})
		return m
	}
	t.Chdir(wd)
	for _, c := range []struct{ root, want string }{
		{".", "is the current directory"},
		{"./", "is the current directory"},
		{wd, "is the current directory"},
		{"../b", "is the current directory"},
		{filepath.Join(base, "link", "b"), "is the current directory"},
		{"..", "holds the current directory " + wd},
		{filepath.Join(base, "link"), "is a symbolic link"}, // refused for what it is
	} {
		was := tree()
		od, err := OpenOutDir(c.root)
		if err == nil {
			od.Abort()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OpenOutDir(%q) = %v, want an error saying it %s", c.root, err, c.want)
		}
		if now := tree(); !maps.Equal(was, now) {
			t.Errorf("OpenOutDir(%q) changed %s", c.root, base)
		}
	}
	od, err := OpenOutDir("v")
	if err != nil {
		t.Fatalf("a directory inside the current one: %v", err)
	}
	od.Abort()
}

func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		s, err := fileSHA256(p)
		rel, _ := filepath.Rel(root, p)
		sums[rel] = s
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func diffSums(a, b map[string]string) string {
	for k, v := range a {
		if b[k] != v {
			return k
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return "new " + k
		}
	}
	return ""
}

func assertNoTemporaries(t *testing.T, root string) {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Dir(root))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".staging-") || strings.Contains(e.Name(), ".old-") {
			t.Errorf("temporary %s left beside %s", e.Name(), root)
		}
	}
}

// TestMemoryFlat: writing ten times the vectors does not take more memory.
// Two batches of chains are in memory at once, so the peak is reached at
// 2*batchChains chains; the test lowers batchChains to reach it sooner.
func TestMemoryFlat(t *testing.T) {
	old := batchChains
	batchChains = 8
	defer func() { batchChains = old }()
	defer debug.SetGCPercent(debug.SetGCPercent(20)) // little garbage: the peak is what is live
	peak := func(random int) uint64 {
		runtime.GC()
		var max uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				max = maxU(max, ms.HeapInuse)
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
		_, err := WriteAll(context.Background(), filepath.Join(t.TempDir(), "v"), "test", []SetSpec{StageSetSpec(KindStage, verilog.DefaultConfig(), 1, random)})
		close(stop)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		return max
	}
	// Holding the vectors would take 60,000 * 300 bytes or more.
	small, large := peak(5000), peak(60000)
	t.Logf("peak heap in use: %.1f MB for 5,000 vectors, %.1f MB for 60,000", float64(small)/(1<<20), float64(large)/(1<<20))
	if large > small+6<<20 {
		t.Errorf("peak heap grows with the vectors: %.1f MB for 5,000, %.1f MB for 60,000", float64(small)/(1<<20), float64(large)/(1<<20))
	}
}

// recordLen is the length of the first record of a binary file.
func recordLen(b []byte, sb int) int {
	r := b[BinaryHeaderLen:]
	n := RecHeadLen + sb + (int(r[RecPosLen]) | int(r[RecPosLen+1])<<8)
	if r[RecPosFlags]&FlagLoad != 0 && sb > 0 {
		n += sb
	}
	n += DiffLen * int(r[RecPosDiffs])
	return (n + RecAlign - 1) &^ (RecAlign - 1)
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// FuzzReadBinary: the binary reader refuses bad input with an error, never
// a panic, and what it accepts re-encodes to the same bytes.
func FuzzReadBinary(f *testing.F) {
	set, err := GenerateStage(defaultStage(4))
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := set.WriteBinary(&b); err != nil {
		f.Fatal(err)
	}
	_, recs, err := ReadBinary(b.Bytes())
	if err != nil {
		f.Fatal(err)
	}
	one := bytes.Clone(b.Bytes()[:BinaryHeaderLen+len(recs[0].In)+64])
	one[BinPosCount] = 1 // a count of 1: the file is the header and the first record
	_, first, err := ReadBinary(one[:BinaryHeaderLen+recordLen(one, set.StateBytes())])
	if err != nil || len(first) != 1 {
		f.Fatalf("one-record seed: %v", err)
	}
	f.Add(one[:BinaryHeaderLen+recordLen(one, set.StateBytes())]) // a whole file of one vector
	f.Add(one[:BinaryHeaderLen+4])                                // cut inside the first record
	f.Add([]byte(BinaryMagic + "\x02"))                           // a header cut short
	f.Fuzz(func(t *testing.T, in []byte) {
		h, recs, err := ReadBinary(in)
		if err != nil {
			return
		}
		if h.StateBytes%8 != 0 || h.FieldBits < 1 || h.FieldBits > 8 || uint64(len(recs)) != h.Count {
			t.Fatalf("accepted %+v with %d records", h, len(recs))
		}
		for _, r := range recs {
			if len(r.Out) != len(r.In) {
				t.Fatalf("output length %d, input %d", len(r.Out), len(r.In))
			}
		}
	})
}

// FuzzReadJSONL: the JSON Lines reader refuses bad input with an error that
// names the line, never a panic. The seeds are small (one vector), so the
// fuzzing budget goes to mutations, not to minimizing a large seed.
func FuzzReadJSONL(f *testing.F) {
	set, err := GenerateStage(defaultStage(0))
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := set.WriteJSONL(&b); err != nil {
		f.Fatal(err)
	}
	line, _, _ := bytes.Cut(b.Bytes(), []byte("\n"))
	f.Add(append(line, '\n'))
	f.Add([]byte(`{"index":1,"in":"zz"}`))
	f.Add([]byte(`{"unknown":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		vs, err := ReadJSONL(bytes.NewReader(in))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error names no line: %v", err)
			}
			return
		}
		for _, v := range vs {
			if _, err := hex.DecodeString(v.In); err != nil {
				t.Fatalf("accepted bad hex %q", v.In)
			}
		}
	})
}

// damaged says a vector's input packet is corrupt on purpose (traffic.go):
// the stage stomps it (Corrupt), or its ICRC is wrong, which a switch does
// not check.
func damaged(v *StageVector) bool {
	return v.Corrupt != 0 || strings.HasSuffix(v.Case, "/icrc") || strings.Contains(v.Case, "/icrc/")
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		n += b2i(b)
	}
	return n
}
