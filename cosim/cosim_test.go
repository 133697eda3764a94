package cosim

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// needTools skips a test when an HDL tool is missing, except in CI (CI set),
// where scripts/setup.sh installs them and their absence is a failure.
func needTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; scripts/setup.sh installs it", tool)
			}
			t.Skipf("%s is not installed (run scripts/setup.sh)", tool)
		}
	}
}

// workDir is a directory that keeps Verilator builds between test runs; a
// build is reused only when its sources and flags are unchanged (the stamp).
func workDir(t testing.TB, name string) string {
	t.Helper()
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "ibreservoir-test", name)
}

// TestVerifyAll is the RTL's end-to-end check: vectors for every hash x
// generator x count-width configuration, each co-simulated in one Verilator
// build with zero mismatches (under backpressure and input gaps) and every
// reachable coverage bin hit; a subset cross-run on Icarus Verilog; and Yosys
// synthesis running clean on a few configurations.
func TestVerifyAll(t *testing.T) {
	needTools(t, "verilator", "iverilog", "vvp", "yosys")
	all := vectors.RTLMatrix()
	var icarus, synth []verilog.Config
	gens := verilog.Generators()
	for _, c := range all {
		if c.Generator == gens[int(c.Hash.Kind)%len(gens)] && (c.CountBits == 3 || c.Generator == "sender") {
			icarus = append(icarus, c)
		}
		if c.Hash.Kind == hash.Mult0 && (c.Generator == "ideal" && c.CountBits == 3 || c.Generator == "sender") {
			synth = append(synth, c)
		}
	}
	var log bytes.Buffer
	t0 := time.Now()
	rep, err := Verify(context.Background(), Options{
		Configs: all, Icarus: icarus, Synth: synth, Seed: 11, Random: 600, IcarusRandom: 150,
		WorkDir: workDir(t, "verify-all"), Lanes: 1, Parts: 1, Stall: 7, Gap: 5, Log: &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d configurations in %.1f s (Verilator build %.1f s, 0 when reused)\n%s", len(all), time.Since(t0).Seconds(), rep.Build.Seconds(), log.String())
	if len(icarus) < 8 {
		t.Errorf("Icarus subset has %d configurations, want one per hash", len(icarus))
	}
	for _, cr := range rep.Configs {
		for _, e := range cr.Explained {
			t.Error(e)
		}
		for _, b := range cr.Missing {
			t.Errorf("%s: coverage bin %s never hit", cr.Config.Name(), b)
		}
		if cr.Verilator.Vectors != cr.Vectors {
			t.Errorf("%s: Verilator checked %d of %d vectors", cr.Config.Name(), cr.Verilator.Vectors, cr.Vectors)
		}
		if cr.Synth != nil && (len(cr.Synth.Warnings) > 0 || cr.Synth.Cells == 0 || cr.Synth.FlipFlops == 0) {
			t.Errorf("%s: Yosys: %d cells, %d flip-flops, warnings %v", cr.Config.Name(), cr.Synth.Cells, cr.Synth.FlipFlops, cr.Synth.Warnings)
		}
	}
	if !rep.OK() {
		t.Fatalf("%d mismatches, %d coverage holes", rep.Mismatches, rep.Uncovered)
	}
	checkSynthesisPage(t, rep)
}

// checkSynthesisPage requires docs/synthesis.md to agree with the Yosys runs
// of rep, so that a change to the RTL cannot leave the published table (and
// the README's summary of it) stale. A different Yosys version may count
// differently; then the check is skipped.
func checkSynthesisPage(t *testing.T, rep *Report) {
	t.Helper()
	page, err := os.ReadFile("../docs/synthesis.md")
	if err != nil {
		t.Fatal(err)
	}
	if v := YosysVersion(); !bytes.Contains(page, []byte("Tool: "+v+".")) {
		t.Logf("docs/synthesis.md was made by another Yosys than %q; not compared", v)
		return
	}
	stats, err := ParseSynthesisMarkdown(page)
	if err != nil {
		t.Fatalf("docs/synthesis.md: %v", err)
	}
	rows := map[string]*SynthStats{}
	for _, s := range stats {
		rows[s.Config] = s
	}
	for _, cr := range rep.Configs {
		if cr.Synth == nil {
			continue
		}
		row := rows[cr.Synth.Config]
		if row == nil || row.Cells != cr.Synth.Cells || row.FlipFlops != cr.Synth.FlipFlops {
			t.Errorf("%s: Yosys gives %d cells and %d flip-flops, docs/synthesis.md %+v: regenerate it with "+
				"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md",
				cr.Synth.Config, cr.Synth.Cells, cr.Synth.FlipFlops, row)
		}
	}
}

// singleModel builds the default configuration alone (shared by the tests
// that corrupt a vector).
var singleModel = struct {
	once sync.Once
	m    *Model
	err  error
}{}

func defaultModel(t *testing.T) *Model {
	singleModel.once.Do(func() {
		singleModel.m, singleModel.err = BuildVerilator(context.Background(), workDir(t, "default"), []verilog.Config{verilog.DefaultConfig()}, 1)
	})
	if singleModel.err != nil {
		t.Fatal(singleModel.err)
	}
	return singleModel.m
}

func writeSet(t *testing.T, set *vectors.StageSet) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := set.WriteBinary(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "v.bin")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b.Bytes()
}

// recordOffsets locates each record of a binary vector file (the layout of
// vectors/format.go): the record's start and its state-out, packet and diff
// offsets.
type recordAt struct{ start, stateOut, packet, diffs, n, k int }

func recordOffsets(b []byte) []recordAt {
	sb := int(binary.LittleEndian.Uint32(b[12:]))
	count := int(binary.LittleEndian.Uint64(b[24:]))
	var rs []recordAt
	off := 32
	for range count {
		r := recordAt{start: off, n: int(binary.LittleEndian.Uint16(b[off:])), k: int(b[off+6])}
		o := off + 8
		if sb > 0 && b[off+2]&vectors.FlagLoad != 0 {
			o += sb
		}
		r.stateOut = o
		o += sb
		r.packet = o
		o += r.n
		r.diffs = o
		o += 3 * r.k
		o += -(o - off) & 7
		rs = append(rs, r)
		off = o
	}
	return rs
}

// TestCorruptVector flips one bit of one vector's expected output packet,
// and one bit of another's expected generator state, and requires the
// testbench to report exactly those two vectors, by index.
func TestCorruptVector(t *testing.T) {
	needTools(t, "verilator")
	m := defaultModel(t)
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 7), Seed: 7, Random: 2000})
	if err != nil {
		t.Fatal(err)
	}
	_, b := writeSet(t, set)
	rs := recordOffsets(b)
	const badPacket, badState = 1234, 777
	// The expected output of badPacket: flip bit 0 of its last diff byte (the
	// VCRC's second byte, or BTH byte 4).
	r := rs[badPacket]
	if r.k == 0 {
		t.Fatalf("vector %d changes no byte", badPacket)
	}
	b[r.diffs+3*(r.k-1)+2] ^= 1
	b[rs[badState].stateOut+5] ^= 0x20
	p := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background(), 0, p, RunOptions{MaxFail: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatches != 2 || len(res.First) != 2 {
		t.Fatalf("%d mismatches (%+v), want 2", res.Mismatches, res.First)
	}
	got := map[int]string{res.First[0].Index: res.First[0].What, res.First[1].Index: res.First[1].What}
	if got[badPacket] != "packet" || got[badState] != "state" {
		t.Fatalf("mismatches %v, want vector %d's packet and vector %d's state", got, badPacket, badState)
	}
	for _, mm := range res.First {
		e := Explain(set, "verilator", mm)
		if !strings.Contains(e, fmt.Sprintf("vector %d", mm.Index)) || mm.What == "packet" && !strings.Contains(e, "byte ") {
			t.Errorf("the explanation does not name the vector and the byte:\n%s", e)
		}
		t.Logf("reported:\n%s", e)
	}
}

// TestCorruptRTL flips one bit of the generated Verilog (the low bit of the
// mult0 constant 1846571429 of thesis section 5.4) and requires the
// co-simulation to fail, naming vectors whose hop_bit differs.
func TestCorruptRTL(t *testing.T) {
	needTools(t, "verilator")
	c := verilog.DefaultConfig()
	files, err := Sources([]verilog.Config{c}, 1)
	if err != nil {
		t.Fatal(err)
	}
	edited := 0
	for i, f := range files {
		if f.Name == "ibr_link_pre.sv" {
			files[i].Data = bytes.Replace(f.Data, []byte("32'd1846571429"), []byte("32'd1846571428"), 1)
			if !bytes.Equal(files[i].Data, f.Data) {
				edited++
			}
		}
	}
	if edited != 1 {
		t.Fatal("the mult0 constant is not in ibr_link_pre.sv")
	}
	m, err := buildFiles(context.Background(), workDir(t, "corrupt-rtl"), files, []verilog.Config{c}, 1)
	if err != nil {
		t.Fatal(err)
	}
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 7), Seed: 7, Random: 500})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := writeSet(t, set)
	res, err := m.Run(context.Background(), 0, p, RunOptions{MaxFail: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatches == 0 {
		t.Fatal("a corrupted RTL passed co-simulation")
	}
	first := res.First[0]
	var e string
	for _, mm := range res.First {
		if mm.Index == first.Index {
			e += Explain(set, "verilator", mm) + "\n"
		}
	}
	if !strings.Contains(e, fmt.Sprintf("vector %d", first.Index)) || !strings.Contains(e, "hop_bit") {
		t.Errorf("the first mismatch is not explained as a hop_bit difference:\n%s", e)
	}
	if !set.Vectors[first.Index].Result.HopReplaced {
		t.Errorf("vector %d did not replace the reservoir, yet its hash bit differs", first.Index)
	}
	t.Logf("%d mismatches; first:\n%s", res.Mismatches, e)
}

// TestReachableBins counts the bins of Alg. 8: with a b-bit count, a field
// of 1 comes only from a replacement (l = 1), every other value from either
// decision, and the largest value also saturated; times congested or not.
func TestReachableBins(t *testing.T) {
	for _, tc := range []struct {
		gen        string
		bits, want int
	}{{"ideal", 3, 2 + 4*6 + 4}, {"ideal", 4, 2 + 4*14 + 4}, {"sender", 0, 30}} {
		c := verilog.DefaultConfig()
		c.Generator, c.CountBits = tc.gen, tc.bits
		if tc.gen == "sender" {
			c.SenderL = 3
		}
		if got := len(ReachableBins(c)); got != tc.want {
			t.Errorf("%s b=%d: %d bins, want %d", tc.gen, tc.bits, got, tc.want)
		}
	}
}

// TestDiffPackets names the header fields and telemetry bits that differ.
func TestDiffPackets(t *testing.T) {
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 1), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := set.Vectors[0]
	got := append([]byte(nil), v.Out...)
	got[header.LRHLen+4] ^= 1 << 4 // hop_bit of the 3-bit layout
	got[2] ^= 0x80                 // DLID
	d := DiffPackets(got, v.Out, set.FieldBits)
	for _, want := range []string{"hop_bit", "DLID", "byte 2:", "byte 12:"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff does not mention %s:\n%s", want, d)
		}
	}
}

// BenchmarkCoSim co-simulates vectors of the default configuration in
// Verilator after the build: one lane (wider tops simulate slower per vector
// in Verilator 5.006) and 2 simulator processes, one per core. It reports vectors/s of the simulation loops (sim) and of the
// whole run (file indexing and process start included). Run it with
// -benchtime 10000000x to check the target of 10 million vectors in under 5 s.
func BenchmarkCoSim(b *testing.B) {
	needTools(b, "verilator")
	c := verilog.DefaultConfig()
	m, err := BuildVerilator(context.Background(), workDir(b, "bench"), []verilog.Config{c}, 1)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "bench.bin")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	n, err := vectors.WriteStageBinary(f, vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 1, Random: b.N})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	r, err := m.Run(context.Background(), 0, p, RunOptions{Parts: 2})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if r.Mismatches != 0 || r.Vectors != n {
		b.Fatalf("%d of %d vectors checked, %d mismatches", r.Vectors, n, r.Mismatches)
	}
	b.ReportMetric(float64(n)/r.SimTime.Seconds(), "vectors/s(sim)")
	b.ReportMetric(float64(n)/r.Wall.Seconds(), "vectors/s(run)")
	b.ReportMetric(float64(r.Cycles)/float64(n), "cycles/vector")
}

// TestVerifyVariants co-simulates the options the default matrix holds fixed:
// every packet-id option and link encoding, pipeline depths 3 and 4, LFSR
// step counts and widths, another free-running clock ratio, sender draws with
// L = 1, and a non-default SipHash key.
func TestVerifyVariants(t *testing.T) {
	needTools(t, "verilator")
	mk := func(f func(*verilog.Config)) verilog.Config {
		c := verilog.DefaultConfig()
		f(&c)
		return c
	}
	cfgs := []verilog.Config{
		mk(func(c *verilog.Config) { c.ID = hash.IDPSNOdd; c.PipeDepth = 3 }),
		mk(func(c *verilog.Config) { c.ID = hash.IDPSNSLID; c.Link = hash.LinkWide }),
		mk(func(c *verilog.Config) { c.ID = hash.IDPSNDestQP; c.Link = hash.LinkPacked; c.PipeDepth = 4 }),
		mk(func(c *verilog.Config) { c.Hash = hash.New(hash.CRC32); c.Link = hash.LinkPacked; c.PipeDepth = 4 }),
		mk(func(c *verilog.Config) { c.Generator, c.CountBits, c.PipeDepth = "lfsr-lut/b16/k16", 4, 3 }),
		mk(func(c *verilog.Config) { c.Generator, c.CountBits = "lfsr-lut/b32", 2 }),
		mk(func(c *verilog.Config) { c.Generator, c.CountBits = "shiftreg/free/5:8", 4 }),
		mk(func(c *verilog.Config) { c.Generator, c.CountBits, c.SenderL = "sender", 0, 1 }),
		mk(func(c *verilog.Config) {
			c.Hash = hash.NewKeyed(hash.SipHash, [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
			c.ID = hash.IDPSNSLID
		}),
	}
	rep, err := Verify(context.Background(), Options{
		Configs: cfgs, Seed: 12, Random: 1500, WorkDir: workDir(t, "verify-variants"), Lanes: 2, Parts: 1, Stall: 3, Gap: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, cr := range rep.Configs {
		for _, e := range cr.Explained {
			t.Error(e)
		}
		for _, b := range cr.Missing {
			t.Errorf("%s: coverage bin %s never hit", cr.Config.Name(), b)
		}
	}
	if !rep.OK() {
		t.Fatalf("%d mismatches, %d coverage holes", rep.Mismatches, rep.Uncovered)
	}
}

// TestBadVCRC: a packet whose incoming VCRC fails (spec section 5, step 0)
// must not leave with a fresh VCRC covering its corrupt bytes. The model
// refuses such packets, so the expectation is built here from its vectors:
// corrupt a payload byte (which passes through) or the incoming VCRC itself,
// and expect the outgoing VCRC stomped, the valid one inverted; every other
// output bit, the decision and the generator state are the model's.
func TestBadVCRC(t *testing.T) {
	needTools(t, "verilator")
	m := defaultModel(t)
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 8), Seed: 8, Random: 1000})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range set.Vectors {
		v := &set.Vectors[i]
		fr, err := header.FrameOf(v.In)
		if err != nil {
			t.Fatal(err)
		}
		payload := fr.BTH + header.BTHLen
		switch {
		case i%7 == 3 && payload < fr.PktLen-header.ICRCLen:
			v.In[payload] ^= 0x10
			v.Out[payload] ^= 0x10
		case i%11 == 5:
			v.In[fr.PktLen] ^= 0x40
		default:
			continue
		}
		binary.LittleEndian.PutUint16(v.Out[fr.PktLen:], header.CRC16(v.Out[:fr.PktLen])^0xFFFF)
		bad++
	}
	p, _ := writeSet(t, set)
	res, err := m.Run(context.Background(), 0, p, RunOptions{Stall: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range res.First {
		t.Error(Explain(set, "verilator", mm))
	}
	if res.Mismatches != 0 || res.Vectors != len(set.Vectors) {
		t.Fatalf("%d mismatches over %d of %d vectors (%d with a bad VCRC)", res.Mismatches, res.Vectors, len(set.Vectors), bad)
	}
	t.Logf("%d vectors, %d with a failing incoming VCRC, all stomped", len(set.Vectors), bad)
}
