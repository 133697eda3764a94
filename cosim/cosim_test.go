// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/lock"
	"ibreservoir/internal/testtool"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// workDir is a directory that keeps Verilator builds between test runs; a
// build is reused only when its sources and flags are unchanged (the stamp).
// The directories are shared by every run of these tests, so a test process
// holds their lock (ibreservoir-test/cosim.lock) from its first use to its
// exit: a second run at once waits for it instead of rebuilding under it.
func workDir(t testing.TB, name string) string {
	t.Helper()
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	root := filepath.Join(d, "ibreservoir-test")
	workLock.Do(func() {
		if workLockErr = os.MkdirAll(root, 0o755); workLockErr == nil {
			// Kept referenced: an unreachable lock file would be closed, and
			// its lock dropped, by the garbage collector.
			workUnlock, workLockErr = lock.File(filepath.Join(root, "cosim.lock"), root, true)
		}
	})
	if workLockErr != nil {
		t.Fatal(workLockErr)
	}
	return filepath.Join(root, name)
}

var (
	workLock    sync.Once
	workLockErr error
	workUnlock  func() // never called: the lock is held to the process's exit
)

// TestVerifyAll: vectors for every hash x generator x count-width
// configuration, each co-simulated in one Verilator build with zero
// mismatches (under backpressure and input gaps) and every reachable coverage
// bin hit, and a subset cross-run on Icarus Verilog. (Synthesis: synth_test.go.)
// 200 random vectors a configuration: the realistic mix averages 52 words a
// packet (the directed cases, which reach every bin and edge, add about 12,000
// words), so each configuration simulates about 22,000 words.
func TestVerifyAll(t *testing.T) {
	testtool.Need(t, "verilator", "iverilog", "vvp")
	all := vectors.RTLMatrix()
	var icarus []verilog.Config
	gens := verilog.Generators()
	for _, c := range all {
		if c.Generator == gens[int(c.Hash.Kind)%len(gens)] && (c.CountBits == 3 || c.Generator == "sender") {
			icarus = append(icarus, c)
		}
	}
	var log bytes.Buffer
	t0 := time.Now()
	rep, err := Verify(context.Background(), Options{
		Configs: all, Icarus: icarus, Seed: 11, Random: 200, IcarusRandom: 150,
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
	}
	if !rep.OK() {
		t.Fatalf("%d mismatches, %d coverage holes", rep.Mismatches, rep.Uncovered)
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
	sb := int(binary.LittleEndian.Uint32(b[vectors.BinPosStateBytes:]))
	count := int(binary.LittleEndian.Uint64(b[vectors.BinPosCount:]))
	var rs []recordAt
	off := vectors.BinaryHeaderLen
	for range count {
		r := recordAt{start: off, n: int(binary.LittleEndian.Uint16(b[off+vectors.RecPosLen:])), k: int(b[off+vectors.RecPosDiffs])}
		o := off + vectors.RecHeadLen
		if sb > 0 && b[off+vectors.RecPosFlags]&vectors.FlagLoad != 0 {
			o += sb
		}
		r.stateOut = o
		o += sb
		r.packet = o
		o += r.n
		r.diffs = o
		o += vectors.DiffLen * r.k
		o += -(o - off) & (vectors.RecAlign - 1)
		rs = append(rs, r)
		off = o
	}
	return rs
}

// TestCorruptVector flips one bit of one vector's expected output packet,
// and one bit of another's expected generator state, and requires the
// testbench to report exactly those two vectors, by index.
func TestCorruptVector(t *testing.T) {
	testtool.Need(t, "verilator")
	m := defaultModel(t)
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 7), Seed: 7, Random: 2000})
	if err != nil {
		t.Fatal(err)
	}
	_, b := writeSet(t, set)
	rs := recordOffsets(b)
	// The expected output of badPacket, the first vector from 1234 on whose
	// output differs from its input (a sound raw packet's does not): flip bit
	// 0 of its last diff byte (the VCRC's second byte, or BTH byte 4).
	badPacket, badState := 1234, 777
	for rs[badPacket].k == 0 {
		badPacket++
	}
	r := rs[badPacket]
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
	testtool.Need(t, "verilator")
	c := verilog.DefaultConfig()
	m := buildPlanted(t, "corrupt-rtl", c, verilog.PackageFile, "32'd1846571429", "32'd1846571428")
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

// TestReachableBins counts the bins of Alg. 8 that the model's directed
// vectors reach: with a b-bit count, a field of 1 comes only from a
// replacement (l = 1), every other value from either decision, and the
// largest value also saturated; times congested or not. With L=3 sender
// draws: every nonzero hop_rand but the spent one shifts, for 14 fields out
// and either decision as its leading bit says, the spent one saturates, and
// a field of 0 (malformed) passes with no decision: 30 bins, and 2 more.
func TestReachableBins(t *testing.T) {
	for _, tc := range []struct {
		gen        string
		bits, want int
	}{{"ideal", 3, 2 + 4*6 + 4}, {"ideal", 4, 2 + 4*14 + 4}, {"lfsr-lut/b16", 2, 2 + 4*2 + 4}, {"sender", 0, 30 + 2}} {
		c := verilog.DefaultConfig()
		c.Generator, c.CountBits = tc.gen, tc.bits
		if tc.gen == "sender" {
			c.SenderL = 3
		}
		bins, err := ReachableBins(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(bins) != tc.want {
			t.Errorf("%s b=%d: %d bins, want %d", tc.gen, tc.bits, len(bins), tc.want)
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
	l := set.Layout()
	fr, err := l.Locate(got)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := l.Get(got, fr, header.FieldHopBit)
	l.Set(got, fr, header.FieldHopBit, h^1)
	got[2] ^= 0x80                        // DLID
	got[fr.BTH+header.BTHPosFECN] ^= 0x20 // Resv6 bit 5: outside the 3-bit layout's fields
	d := DiffPackets(got, v.Out, l)
	for _, want := range []string{"telemetry hop_bit: got", "DLID", "byte 2:", "byte 12:", "Resv6 outside the telemetry fields"} {
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
	testtool.Need(b, "verilator")
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
	set, err := vectors.WriteStageBinary(context.Background(), f, vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 1, Random: b.N})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	n := set.Counts()["vectors"]
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

// TestVerifyVariants co-simulates the options the default matrix holds fixed
// (verilog.Variants): every packet-id option and link encoding, pipeline
// depths 3 and 4, the combinational ready path, LFSR step counts and widths,
// another free-running clock ratio, sender draws with L = 1, and a
// non-default SipHash key.
func TestVerifyVariants(t *testing.T) {
	testtool.Need(t, "verilator")
	cfgs := verilog.Variants()
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
	testtool.Need(t, "verilator")
	m := defaultModel(t)
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: verilog.DefaultConfig().ModelConfig(header.LNHLocal, 8), Seed: 8, Random: 1000})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range set.Vectors {
		v := &set.Vectors[i]
		if v.Corrupt != 0 || v.Result.Raw {
			continue // corrupt already (the set's own corruption cases), and stomped; or raw (the set's raw cases)
		}
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

// A plant is an off-by-one planted in one comparator of the RTL: the
// library file, the line as it is, the line with the bug, and the
// configuration whose generator the comparator serves.
type plant struct {
	name, file, old, bug string
	cfg                  func(*verilog.Config)
}

var plants = []plant{
	{"ideal: accepts r = A(l) (rejection bound compared with <=)", "ibr_gen_ideal.sv",
		"assign accept = {1'b0, r} < ab[65:33];", "assign accept = {1'b0, r} <= ab[65:33];", nil},
	{"ideal: rejects r = A(l)-1 (rejection bound one too low)", "ibr_gen_ideal.sv",
		"assign accept = {1'b0, r} < ab[65:33];", "assign accept = {1'b0, r} < ab[65:33] - 33'd1;", nil},
	{"ideal: draws r <= floor(2^32/l) (zero bound compared with <=)", "ibr_gen_ideal.sv",
		"assign zero   = {1'b0, r} < ab[32:0];", "assign zero   = {1'b0, r} <= ab[32:0];", nil},
	{"ideal: r = Z(l)-1 answers non-zero (zero bound one too low)", "ibr_gen_ideal.sv",
		"assign zero   = {1'b0, r} < ab[32:0];", "assign zero   = {1'b0, r} < ab[32:0] - 33'd1;", nil},
	{"ideal: a count that saturates one early", "ibr_switch_stage.sv",
		"assign saturated = field_in == FieldW'(CountMax);", "assign saturated = field_in == FieldW'(CountMax - 1);", nil},
	{"lfsr-lut: state < T[l] instead of <=", "ibr_gen_lfsr_lut.sv",
		"assign zero = 32'(s_q) <= t;", "assign zero = 32'(s_q) < t;", lfsrConfig},
	{"lfsr-lut: T[2] rounded down (65535/2 = 32767.5 rounds half up to 32768)", "ibr_gen_lfsr_lut.sv",
		"assign t    = tab[32*l_i +: 32];", "assign t    = tab[32*l_i +: 32] - ((l_i == LW'(2)) ? 32'd1 : 32'd0);", lfsrConfig},
	{"lfsr-lut: T[7] rounded up (65535/7 = 9362.1 rounds to 9362)", "ibr_gen_lfsr_lut.sv",
		"assign t    = tab[32*l_i +: 32];", "assign t    = tab[32*l_i +: 32] + ((l_i == LW'(7)) ? 32'd1 : 32'd0);", lfsrConfig},
	{"shiftreg: a register that does not wrap (its 0 falls off the output)", "ibr_gen_shiftreg.sv",
		"assign dbl = {cur, cur} >> k;", "assign dbl = {{l{1'b1}}, cur} >> k;",
		func(c *verilog.Config) { c.Generator = "shiftreg/per-draw" }},
	{"shiftreg free-running: the draw count wraps at Q instead of Q-1", "ibr_gen_shiftreg.sv",
		"phase_q <= (phase_q == PhaseW'(Q - 1)) ? '0 : phase_q + PhaseW'(1);", "phase_q <= (phase_q == PhaseW'(Q)) ? '0 : phase_q + PhaseW'(1);",
		func(c *verilog.Config) { c.Generator = "shiftreg/free/7:3" }},
	{"sender: a spent field is not recognised (it shifts on)", "ibr_switch_stage.sv",
		"assign spent     = field_in == {1'b1, {(FieldW-1){1'b0}}};", "assign spent     = 1'b0;", senderConfig},
	{"sender: the field counts as spent one draw early", "ibr_switch_stage.sv",
		"assign spent     = field_in == {1'b1, {(FieldW-1){1'b0}}};", "assign spent     = field_in == {2'b01, {(FieldW-2){1'b0}}};", senderConfig},
}

func lfsrConfig(c *verilog.Config)   { c.Generator = "lfsr-lut/b16" }
func senderConfig(c *verilog.Config) { c.Generator, c.CountBits, c.SenderL = "sender", 0, 3 }

// TestPlantedOffByOne plants each off-by-one of plants in the RTL (one
// comparator line changed) and requires the directed vectors of its
// configuration, alone, to catch it in Icarus Verilog; the unchanged RTL
// passes the same vectors. The comparator-edge cases (edge/...) are what
// catch the generator bounds: the random vectors almost never sit on them.
func TestPlantedOffByOne(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	type run struct {
		c     verilog.Config
		set   *vectors.StageSet
		hex   string
		files []verilog.File
	}
	runs := map[string]*run{}
	get := func(f func(*verilog.Config)) *run {
		c := verilog.DefaultConfig()
		if f != nil {
			f(&c)
		}
		if r := runs[c.Name()]; r != nil {
			return r
		}
		set, hexFile, files := icarusInputs(t, c, 21, 0)
		r := &run{c: c, set: set, hex: hexFile, files: files}
		res, err := runIcarusFiles(context.Background(), t.TempDir(), c, files, hexFile, len(set.Vectors), 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Mismatches != 0 || res.Vectors != len(set.Vectors) {
			t.Fatalf("%s: the unchanged RTL: %d mismatches over %d of %d vectors", c.Name(), res.Mismatches, res.Vectors, len(set.Vectors))
		}
		runs[c.Name()] = r
		return r
	}
	for _, p := range plants {
		r := get(p.cfg)
		files, err := verilog.Patch(r.files, p.file, p.old, p.bug)
		if err != nil {
			t.Fatalf("%s: the comparator line: %v", p.name, err)
		}
		res, err := runIcarusFiles(context.Background(), t.TempDir(), r.c, files, r.hex, len(r.set.Vectors), 0)
		if err != nil && strings.Contains(err.Error(), "FATAL: ") {
			// An assertion inside the RTL (assert ... else $fatal) stopped the run: caught.
			t.Logf("%s: %s: an assertion inside the RTL stopped the run: %.300s", p.name, r.c.Name(), err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if res.Mismatches == 0 {
			t.Errorf("%s: %s passes all %d directed vectors", p.name, r.c.Name(), len(r.set.Vectors))
			continue
		}
		var caught []string
		for _, m := range res.First {
			if m.Index >= 0 && m.Index < len(r.set.Vectors) {
				caught = append(caught, r.set.Vectors[m.Index].Case)
			}
		}
		t.Logf("%s: %s: %d mismatches, first at %s", p.name, r.c.Name(), res.Mismatches, strings.Join(caught, ", "))
	}
}

// TestTBHeaderCurrent: the testbench's format header is the one package
// vectors' constants give (go generate ./cosim rewrites it).
func TestTBHeaderCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("tb", "ibr_vectors.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, TBHeader()) {
		t.Error("cosim/tb/ibr_vectors.h is stale: run go generate ./cosim")
	}
}

// TestRunOptionsValidate: options that would panic, hang or check nothing
// are refused before a process starts.
func TestRunOptionsValidate(t *testing.T) {
	for _, o := range []RunOptions{{MaxFail: -1}, {Stall: 1}, {Stall: -3}, {Gap: -1}, {Parts: -2}, {Parts: MaxParts + 1}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
		m := &Model{Configs: []verilog.Config{verilog.DefaultConfig()}, Binary: "/nonexistent"}
		if _, err := m.Run(context.Background(), 0, "x.bin", o); err == nil || !strings.Contains(err.Error(), "give") {
			t.Errorf("%+v: Run: %v", o, err)
		}
	}
	if err := (&Options{Configs: []verilog.Config{verilog.DefaultConfig()}, WorkDir: "w", MaxFail: -1}).Validate(); err == nil {
		t.Error("Options with MaxFail -1: no error")
	}
}

// TestRelativeWorkDir builds and runs the co-simulation in a relative
// directory, as `go run . verify` does with its default --work out/cosim
// (Verilator's makefile runs in obj/, where a relative path points
// elsewhere). A fresh build: the directory is new.
func TestRelativeWorkDir(t *testing.T) {
	testtool.Need(t, "verilator")
	t.Chdir(t.TempDir())
	c := verilog.DefaultConfig()
	m, err := BuildVerilator(context.Background(), filepath.Join("out", "cosim"), []verilog.Config{c}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.BuildTime == 0 {
		t.Fatal("the build in a new directory was not made")
	}
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 3), Seed: 3, Random: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile("v.bin", set.WriteBinary); err != nil {
		t.Fatal(err)
	}
	r, err := m.Run(context.Background(), 0, "v.bin", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mismatches != 0 || r.Vectors != len(set.Vectors) {
		t.Fatalf("%d mismatches over %d of %d vectors", r.Mismatches, r.Vectors, len(set.Vectors))
	}
}

// TestVectorFileChecks: a vector file is checked whole before anything is
// simulated (vectors.CheckSet, the header against the manifest), a file of
// another configuration is a configuration mismatch, and the testbench
// itself refuses a header count that is not the file's and a digest that is
// not its build's.
func TestVectorFileChecks(t *testing.T) {
	testtool.Need(t, "verilator")
	m := defaultModel(t)
	root := filepath.Join(t.TempDir(), "v")
	mult0, crc := verilog.DefaultConfig(), verilog.DefaultConfig()
	crc.Hash = hash.New(hash.CRC32)
	if _, err := vectors.WriteAll(context.Background(), root, "test", []vectors.SetSpec{
		vectors.StageSetSpec(vectors.KindStage, mult0, 5, 300), vectors.StageSetSpec(vectors.KindBulk, crc, 5, 300),
	}); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(root, vectors.KindStage, mult0.Name(), "stage.bin")
	vf, err := OpenVectorFile(context.Background(), good, &mult0, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := vf.Run(context.Background(), m, 0, RunOptions{})
	if err != nil || r.Mismatches != 0 || uint64(r.Vectors) != vf.Header.Count {
		t.Fatalf("a good file: %v, %+v", err, r)
	}
	other := filepath.Join(root, vectors.KindBulk, crc.Name(), "stage.bin")
	var cm *ConfigMismatchError
	if _, err := OpenVectorFile(context.Background(), other, &mult0, 2); !errors.As(err, &cm) {
		t.Errorf("a crc32 file against mult0: %v, want a configuration mismatch", err)
	}
	if _, err := m.Run(context.Background(), 0, other, RunOptions{}); err == nil || !strings.Contains(err.Error(), "configuration mismatch") {
		t.Errorf("the testbench ran a crc32 file on the mult0 build: %v", err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []uint64{0, 1, vf.Header.Count - 1, 1 << 40} {
		bad := bytes.Clone(b)
		binary.LittleEndian.PutUint64(bad[vectors.BinPosCount:], n)
		p := filepath.Join(t.TempDir(), "stage.bin")
		os.WriteFile(p, bad, 0o644)
		if _, err := m.Run(context.Background(), 0, p, RunOptions{Parts: 2}); err == nil {
			t.Errorf("a header count of %d over %d records ran", n, vf.Header.Count)
		} else if n == 1<<40 && !strings.Contains(err.Error(), "the header counts 1099511627776 vectors, but its") {
			// Not a failed allocation: the count is checked against the size.
			t.Errorf("a header count of 2^40: %v", err)
		}
		// Beside the manifest, the file no longer matches it.
		os.WriteFile(good, bad, 0o644)
		if _, err := OpenVectorFile(context.Background(), good, nil, 2); err == nil || !strings.Contains(err.Error(), "SHA-256") {
			t.Errorf("a changed file beside its manifest: %v", err)
		}
		os.WriteFile(good, b, 0o644)
	}
	lone := filepath.Join(t.TempDir(), "stage.bin")
	os.WriteFile(lone, b, 0o644)
	if _, err := OpenVectorFile(context.Background(), lone, nil, 2); err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("a file without a manifest: %v", err)
	}
}
