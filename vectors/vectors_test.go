package vectors

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
	"ibreservoir/verilog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func defaultStage(random int) StageConfig {
	return StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 1), Seed: 1, Random: random}
}

// goldenSums is the SHA-256 of every file of every default set.
func goldenSums(t *testing.T) map[string]string {
	t.Helper()
	sums := map[string]string{}
	sets := DefaultSets(DefaultSeed, DefaultRandom, DefaultPaths)
	res := make([][]struct{ name, sum string }, len(sets))
	errs := make([]error, len(sets))
	parallel(len(sets), func(i int) {
		files, _, err := sets[i].Files()
		errs[i] = err
		for _, f := range files {
			s := sha256.Sum256(f.Data)
			res[i] = append(res[i], struct{ name, sum string }{sets[i].Kind + "/" + sets[i].Name + "/" + f.Name, hex.EncodeToString(s[:])})
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("set %s: %v", sets[i].Name, err)
		}
		for _, r := range res[i] {
			sums[r.name] = r.sum
		}
	}
	return sums
}

// TestGolden freezes every file `ibreservoir vectors` writes with its
// defaults: their SHA-256 (testdata/golden_sha256.json) and, for one set in
// full, the files themselves. -update rewrites them; the test then runs the
// generation again and requires the same bytes.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden_sha256.json")
	sums := goldenSums(t)
	if *update {
		b, _ := json.MarshalIndent(sums, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		again := goldenSums(t)
		for k, v := range sums {
			if again[k] != v {
				t.Fatalf("%s: a second generation differs", k)
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./vectors -run TestGolden -update)", err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(sums) {
		t.Errorf("%d files, golden has %d", len(sums), len(want))
	}
	for k, v := range want {
		if sums[k] != v {
			t.Errorf("%s: SHA-256 %s, golden %s", k, sums[k], v)
		}
	}
	// One small set in full, to read and to diff.
	set, err := GenerateStage(defaultStage(16))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		fill func(*bytes.Buffer) error
	}{
		{"stage_mult0_ideal_c3.hex", func(b *bytes.Buffer) error { return set.WriteHex(b) }},
		{"stage_mult0_ideal_c3.jsonl", func(b *bytes.Buffer) error { return set.WriteJSONL(b) }},
	} {
		var got bytes.Buffer
		if err := f.fill(&got); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join("testdata", f.name)
		if *update {
			if err := os.WriteFile(p, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test ./vectors -run TestGolden -update, then review the diff)", p)
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
		_, err := WriteStageBinary(&b, cfg)
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
		var prev rng.State
		for i := range set.Vectors {
			v := &set.Vectors[i]
			if v.Index != i {
				t.Fatalf("%s: vector %d has index %d", c.Name(), i, v.Index)
			}
			if err := v.checkInvariant(); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			chk, err := header.Check(v.Out, 0)
			if err != nil || chk.Err() != nil {
				t.Fatalf("%s: vector %d: output fails the IBA checks: %v %v", c.Name(), i, err, chk.Err())
			}
			if !v.Load && !equalState(v.StateIn, prev) {
				t.Fatalf("%s: vector %d continues a chain but its state in is not the previous state out", c.Name(), i)
			}
			prev = v.StateOut
			// Replay through a fresh model and generator.
			mc := c.ModelConfig(v.LNH(), 9)
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
			if _, err := m.Stage(out, v.Switch, v.Port, v.Congested, g); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, v.Out) || g != nil && !equalState(g.State(), v.StateOut) {
				t.Fatalf("%s: vector %d does not replay", c.Name(), i)
			}
		}
	}
}

func equalState(a, b rng.State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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

func psnOf(v *StageVector) uint32 {
	fr, _ := header.FrameOf(v.In)
	b := v.In[fr.BTH+9:]
	return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
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
		sb, fb, recs, err := ReadBinary(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if sb != set.StateBytes() || fb != set.FieldBits || len(recs) != len(set.Vectors) {
			t.Fatalf("%s: header: state %d field %d records %d", gen, sb, fb, len(recs))
		}
		for i, r := range recs {
			v := &set.Vectors[i]
			if !bytes.Equal(r.In, v.In) || !bytes.Equal(r.Out, v.Out) || r.Flags != v.Flags() || r.Switch != v.Switch ||
				r.Port != v.Port || uint64(r.FieldOut) != v.FieldOut || !bytes.Equal(r.StateOut, stateBytes(v.StateOut, sb)) ||
				(v.Load && sb > 0) != (r.StateIn != nil) {
				t.Fatalf("%s: record %d does not round-trip", gen, i)
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
	f.Add(b.Bytes())                    // a whole file
	f.Add(b.Bytes()[:40])               // cut inside the first record
	f.Add([]byte(BinaryMagic + "\x01")) // a header cut short
	f.Fuzz(func(t *testing.T, in []byte) {
		sb, fb, recs, err := ReadBinary(in)
		if err != nil {
			return
		}
		if sb%8 != 0 || fb < 1 || fb > 8 {
			t.Fatalf("accepted state %d bytes, field %d bits", sb, fb)
		}
		for _, r := range recs {
			if len(r.Out) != len(r.In) {
				t.Fatalf("output length %d, input %d", len(r.Out), len(r.In))
			}
		}
	})
}

// FuzzReadJSONL: the JSON Lines reader refuses bad input with an error that
// names the line, never a panic.
func FuzzReadJSONL(f *testing.F) {
	set, err := GenerateStage(defaultStage(2))
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := set.WriteJSONL(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
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
