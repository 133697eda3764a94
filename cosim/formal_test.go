// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// The reduced formal check the tests run (verify --formal runs every property
// on every FormalConfigs configuration to its own depth): the register-level
// properties (c, d) on the thesis's generator kind under the smallest hash,
// the stream properties (a, b, e) on sender draws, which have no generator
// state, to a depth that holds reset, a shortest BTH packet (4 words) and the
// first words of the next through the stage with a stall: the least at which
// (e)'s cover (the eop word of a packet after the seventh word leaves)
// is reached.
var testFormal = FormalOptions{Depth: 12, Induction: 4}

// testFormalOptions are testFormal, but for (b), whose CRC trees CryptoMiniSat
// takes about 3 minutes through at 6 clocks (10 under heavy load) and 15-25 at
// 7: 6 clocks (verify --formal's depth) hold reset and the shortest packets (2
// words, LNH 0 or 1) through the stage with stalls; a packet with a BTH
// leaves its VCRC word at step 6 at the earliest.
func testFormalOptions(p Property) FormalOptions {
	o := testFormal
	if p.CRC {
		o.Depth = 6
	}
	return o
}

func testFormalConfig(p Property) verilog.Config {
	c := verilog.DefaultConfig()
	if p.HashLemma { // the hash is the property's subject: the thesis's mult0
		return c
	}
	c.Hash = hash.New(hash.Parity)
	if !p.Induction {
		c.Generator, c.CountBits, c.SenderL = refmodel.GeneratorSender, 0, 3
	}
	return c
}

func needFormal(t *testing.T) {
	t.Helper()
	testtool.Need(t, "yosys", "yosys-smtbmc", "z3", "yosys-abc", "cryptominisat5")
}

// formalPlants are the deliberately broken copies of ibr_switch_stage.sv, one per
// property: the line replaced, and what replaces it.
var formalPlants = map[string][2]string{
	// (a) DestQP's low bit is cleared as the telemetry word leaves.
	"a": {"assign edited = head_tel ? {head_data[63:32], byte4_new, head_data[23:0]} : head_data;",
		"assign edited = head_tel ? {head_data[63:32], byte4_new, head_data[23:1], 1'b0} : head_data;"},
	// (b) The outgoing VCRC starts from the wrong register value.
	"b": {"assign crc_base = head_sop ? 16'hffff : crc_q;", "assign crc_base = head_sop ? 16'hfffe : crc_q;"},
	// (c) The hop count wraps from 2^b-1 to 0.
	"c": {"assign field_new = saturated ? field_in : field_in + FieldW'(1);", "assign field_new = field_in + FieldW'(1);"},
	// (d) The reservoir takes the hop on a non-zero draw.
	"d": {"assign replace   = zero_q;", "assign replace   = !zero_q;"},
	// (f) The hash takes its id from the wrong bytes: BTH bytes 8-10 (the
	// reserved byte and the PSN's upper two bytes), not 9-11.
	"f": {"assign psn = iw_data[55:32];", "assign psn = iw_data[63:40];"},
	// (g) The congested bit is sampled with the telemetry word, not the sop word.
	"g": {"dec_cong_q   <= sop_cong_q;", "dec_cong_q   <= iw_cong;"},
	// (e) The skid buffer never holds a word: one offered while slot 0 is full is lost.
	"e": {"end else if (in_valid_i && !accept[0]) begin", "end else if (1'b0) begin"},
}

// plant returns the library with property id's planted bug.
func formalPlant(t *testing.T, id string) []verilog.File {
	t.Helper()
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := formalPlants[id]
	if !ok {
		t.Fatalf("no planted bug for property (%s)", id)
	}
	lib, err = verilog.Patch(lib, "ibr_switch_stage.sv", p[0], p[1])
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestFormalProofs: the register-level properties, (c) and (d), are proved
// by k-induction on the test configuration, the stream properties (a), (b)
// and (e) hold to their test depths (ABC's bmc3; CryptoMiniSat for (b),
// after its lemma is proved), and each reaches its covers.
func TestFormalProofs(t *testing.T) {
	needFormal(t)
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	dir := workDir(t, "formal")
	for _, p := range Properties {
		t.Run(p.ID, func(t *testing.T) {
			t.Parallel()
			o := testFormalOptions(p)
			r, err := CheckProperty(context.Background(), filepath.Join(dir, "ok", p.ID), lib, testFormalConfig(p), p, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %s, %d covers, %.1f s", r.Config, p.ID, r.Status(), r.Covers, r.Time.Seconds())
			if r.Failed || r.Covers == 0 || r.Proved != p.Induction || r.Depth != map[bool]int{true: o.Induction, false: o.Depth}[p.Induction] {
				t.Errorf("%s (%s): %s, %d covers; want it proved (c, d) or bounded to %d clocks (a, b, e)", r.Config, p.ID, r.Status(), r.Covers, o.Depth)
			}
		})
	}
}

// TestFormalPlantedBugs: each property fails on the RTL copy with its
// planted bug, naming the step of the counterexample; the counterexamples
// ABC finds replay in Yosys's simulator (every value the environment chooses
// is an input port, so the witness carries it).
func TestFormalPlantedBugs(t *testing.T) {
	needFormal(t)
	dir := workDir(t, "formal")
	for _, p := range Properties {
		t.Run(p.ID, func(t *testing.T) {
			t.Parallel()
			r, err := CheckProperty(context.Background(), filepath.Join(dir, "planted", p.ID), formalPlant(t, p.ID), testFormalConfig(p), p, testFormalOptions(p))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s) planted: %s, %.1f s", r.Config, p.ID, r.Status(), r.Time.Seconds())
			if !r.Failed || r.Step == 0 {
				t.Errorf("%s (%s): the planted bug %q passed: %s", r.Config, p.ID, formalPlants[p.ID][1], r.Status())
			}
		})
	}
}

// TestFormalLemma: (b)'s lemma holds for the library's CRC-16 step and
// fails, before any bounded check, when one bit of one of its masks is wrong.
func TestFormalLemma(t *testing.T) {
	needFormal(t)
	p, _ := PropertyByID("b")
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	const mask = "0: vcrc_mask = 80'h1a5b_000000005b1a1a11;"
	if lib, err = verilog.Patch(lib, verilog.PackageFile, mask, strings.Replace(mask, "1a11;", "1a10;", 1)); err != nil {
		t.Fatal(err)
	}
	r, err := CheckProperty(context.Background(), filepath.Join(workDir(t, "formal"), "lemma"), lib, testFormalConfig(p), p, testFormalOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s) with a wrong mask bit: %s, %.1f s", r.Config, p.ID, r.Status(), r.Time.Seconds())
	if !r.Failed || r.Where != "lemma "+p.Lemma {
		t.Errorf("a wrong VCRC mask bit: %s, want the lemma %s to fail", r.Status(), p.Lemma)
	}
}

// TestFormalHashLemma: (f)'s lemma holds for the thesis's mult0 and fails,
// before any bounded check, when the multiplier's constant in ibr_pkg is off
// by two (K = 1846571431*d: still odd, and the stage would still run).
func TestFormalHashLemma(t *testing.T) {
	needFormal(t)
	p, _ := PropertyByID("f")
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	if lib, err = verilog.Patch(lib, verilog.PackageFile, "Mult0Const = 32'd1846571429;", "Mult0Const = 32'd1846571431;"); err != nil {
		t.Fatal(err)
	}
	r, err := CheckProperty(context.Background(), filepath.Join(workDir(t, "formal"), "hashlemma"), lib, testFormalConfig(p), p, testFormalOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s) with a wrong mult0 constant: %s, %.1f s", r.Config, p.ID, r.Status(), r.Time.Seconds())
	if !r.Failed || r.Where != "lemma ibr_hash_lemma" {
		t.Errorf("a wrong mult0 constant: %s, want the lemma ibr_hash_lemma to fail", r.Status())
	}
}

// TestFormalHashLemmaKinds: ibr_hash_lemma holds for every hash ibr_spec.svh
// restates, under the thesis's link encoding.
func TestFormalHashLemmaKinds(t *testing.T) {
	needFormal(t)
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	for k := range hashLemmaKinds {
		c := verilog.DefaultConfig()
		c.Hash = hash.New(k)
		dir := filepath.Join(workDir(t, "formal"), "hashlemma-"+k.String())
		srcs, err := writeSources(dir, lib)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := proveHashLemma(context.Background(), dir, srcs, c)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("ibr_hash_lemma fails for %s", k)
		}
	}
}

// TestFormalInterrupt: a cancelled check is reported as an interrupt, with
// its solver killed, not as a failed tool run.
func TestFormalInterrupt(t *testing.T) {
	needFormal(t)
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = CheckProperty(ctx, filepath.Join(workDir(t, "formal"), "interrupt"), lib, testFormalConfig(Properties[0]), Properties[0], testFormal)
	if !Interrupted(err) {
		t.Errorf("cancelled check: error %v, want an interrupt", err)
	}
}
