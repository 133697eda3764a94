// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
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

// testFormalOptions are testFormal, but for (b) its own depth (Depth 0):
// at 64 bits 7 clocks, where the first VCRC word of a BTH packet leaves; at
// wider beats 4, with its covers to 5 (a packet leaving sound, one stomped
// for its VCRC, one for its PktLen).
func testFormalOptions(p Property) FormalOptions {
	o := testFormal
	if p.UF {
		o.Depth = 0
	}
	return o
}

func testFormalConfig(p Property) verilog.Config {
	c := verilog.DefaultConfig()
	if p.HashLemma { // the hash is the property's subject: the thesis's mult0
		return c
	}
	c.Hash = hash.New(hash.Parity)
	if p.Stream || p.UF {
		c.Generator, c.CountBits, c.SenderL = refmodel.GeneratorSender, 0, 3
	}
	return c
}

func needFormal(t *testing.T) {
	t.Helper()
	testtool.Need(t, "yosys", "yosys-smtbmc", "z3", "yosys-abc", "cryptominisat5")
}

// formalPlants are the deliberately broken copies of ibr_switch_stage.sv, one
// or more per property: the line replaced, and what replaces it.
var formalPlants = map[string][][2]string{
	"a": {
		// DestQP's low bit is cleared as the telemetry word leaves.
		{"assign edited = head_tel ? {head_data[63:32], byte4_new, head_data[23:0]} : head_data;",
			"assign edited = head_tel ? {head_data[63:32], byte4_new, head_data[23:1], 1'b0} : head_data;"},
		// BTH byte 4's FECN bit, outside the telemetry bits, is flipped when
		// the reservoir takes the hop.
		{"assign byte4_new = replace ? {byte4_q[7:FieldW+2], hash_q",
			"assign byte4_new = replace ? {~byte4_q[7], byte4_q[6:FieldW+2], hash_q"},
	},
	"b": {
		// The outgoing VCRC starts from the wrong register value.
		{"assign crc_base = head_sop ? 16'hffff : crc_q;", "assign crc_base = head_sop ? 16'hfffe : crc_q;"},
		// A corrupt packet is laundered: it leaves with a fresh VCRC.
		{"(head_bad ? 16'h0000 : 16'hffff)", "16'hffff"},
	},
	// (c) The hop count wraps from 2^b-1 to 0.
	"c": {{"assign field_new = saturated ? field_in : field_in + FieldW'(1);", "assign field_new = field_in + FieldW'(1);"}},
	// (d) The reservoir takes the hop on a non-zero draw.
	"d": {{"assign replace   = zero_q;", "assign replace   = !zero_q;"}},
	// (f) The hash takes its id from the wrong bytes: BTH bytes 8-10 (the
	// reserved byte and the PSN's upper two bytes), not 9-11.
	"f": {{"assign psn = iw_data[55:32];", "assign psn = iw_data[63:40];"}},
	// (g) The congested bit is sampled with the telemetry word, not the sop word.
	"g": {{"dec_cong_q   <= sop_cong_q;", "dec_cong_q   <= iw_cong;"}},
	"e": {
		// The skid buffer never holds a word: one offered while slot 0 is
		// full is lost (dropped).
		{"end else if (in_valid_i && !accept[0]) begin", "end else if (1'b0) begin"},
		// The skid buffer keeps its word after slot 0 takes it, and offers
		// it again (duplicated).
		{"skid_v_q <= 1'b0;", "skid_v_q <= 1'b1;"},
	},
}

// formalPlant returns the library with the i-th planted bug of property id.
func formalPlant(t *testing.T, id string, i int) []verilog.File {
	t.Helper()
	ps := formalPlants[id]
	if i >= len(ps) {
		t.Fatalf("no planted bug %d for property (%s)", i, id)
	}
	return plantedLibrary(t, ps[i][0], ps[i][1])
}

// plantedLibrary returns the library with old replaced by bug in the stage.
func plantedLibrary(t *testing.T, old, bug string) []verilog.File {
	t.Helper()
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	if lib, err = verilog.Patch(lib, "ibr_switch_stage.sv", old, bug); err != nil {
		t.Fatal(err)
	}
	return lib
}

// checkPlanted checks property p on c, in dir, with the stage's old replaced
// by bug (the plant called name), and requires a counterexample.
func checkPlanted(t *testing.T, dir string, c verilog.Config, p Property, o FormalOptions, name, old, bug string) {
	t.Helper()
	r, err := CheckProperty(context.Background(), dir, plantedLibrary(t, old, bug), c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s) planted %s: %s, %.1f s", r.Config, p.ID, name, r.Status(), r.Time.Seconds())
	if !r.Failed || r.Step == 0 {
		t.Errorf("%s (%s): the planted bug %s passed: %s", r.Config, p.ID, name, r.Status())
	}
}

// TestFormalProofs: every property is proved by k-induction on its test
// configuration, after its bounded check to the test depth (z3 for the
// register-level properties and for (b), after its lemma is proved, with its
// CRC steps uninterpreted; ABC's bmc3 for the stream properties (a) and
// (e)), and each reaches its covers. (b) is proved on the default
// configuration as well, whose generator's table is a ROM (z3's QF_UFBV,
// which the uninterpreted CRC steps take, has no arrays).
func TestFormalProofs(t *testing.T) {
	needFormal(t)
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	dir := workDir(t, "formal")
	type check struct {
		name string
		p    Property
		c    verilog.Config
	}
	var checks []check
	for _, p := range Properties {
		checks = append(checks, check{p.ID, p, testFormalConfig(p)})
	}
	b, _ := PropertyByID("b")
	checks = append(checks, check{"b-default", b, verilog.DefaultConfig()})
	for _, ck := range checks {
		p := ck.p
		t.Run(ck.name, func(t *testing.T) {
			t.Parallel()
			o := testFormalOptions(p)
			r, err := CheckProperty(context.Background(), filepath.Join(dir, "ok", ck.name), lib, ck.c, p, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %s, %d covers, %.1f s", r.Config, p.ID, r.Status(), r.Covers, r.Time.Seconds())
			if r.Failed || r.Covers == 0 || r.Proved != p.Induction || r.Depth != map[bool]int{true: o.Induction, false: o.Depth}[p.Induction] {
				t.Errorf("%s (%s): %s, %d covers; want it proved (k-induction, k=%d)", r.Config, p.ID, r.Status(), r.Covers, o.Induction)
			}
		})
	}
}

// TestFormalPlantedBugs: each property fails on the RTL copy with each of
// its planted bugs, naming the step of the counterexample; the
// counterexamples ABC finds replay in Yosys's simulator (every value the
// environment chooses is an input port, so the witness carries it).
func TestFormalPlantedBugs(t *testing.T) {
	needFormal(t)
	dir := workDir(t, "formal")
	for _, p := range Properties {
		for i, plant := range formalPlants[p.ID] {
			name := fmt.Sprintf("%s%d", p.ID, i)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				o := testFormalOptions(p)
				r, err := CheckProperty(context.Background(), filepath.Join(dir, "planted", name), formalPlant(t, p.ID, i), testFormalConfig(p), p, o)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s (%s) planted %q: %s, %.1f s", r.Config, p.ID, plant[1], r.Status(), r.Time.Seconds())
				if !r.Failed || r.Step == 0 {
					t.Errorf("%s (%s): the planted bug %q passed: %s", r.Config, p.ID, plant[1], r.Status())
				}
			})
		}
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

// formalOpen are strengthening invariants, each of a property proved with
// it at a width, whose removal leaves the property true (the invariant
// only states it) but its induction step open: the induction checks what it
// claims, and the invariants carry the proofs.
var formalOpen = []struct {
	id    string
	width int
	drop  string
}{
	// (b): within a packet, the egress monitor's running CRC is the stage's.
	{"b", 64, "        if (f_out_mid) assert (crc_q == f_out_crc);\n"},
	{"b", 128, "        if (f_out_mid) assert (crc_q == f_out_crc);\n"},
	// (e): the last word taken is never a telemetry word that has left.
	{"e", 64, "        assert (f_since_tel != 11'd0 || f_held != 8'd0);\n"},
	// (e) at wide beats: while a packet's PSN beat has yet to enter, the
	// newest decision entry is its telemetry beat's, without a hash.
	{"e", 128, "          assert (f_ntel != 8'd0 && !gen_dec_queue.e_hok_q[f_newest] && !f_pend[f_newest]);\n"},
	// (g) at wide beats: the k-th beat's entry holds its packet's congested bit.
	{"g", 128, "            assert (gen_dec_queue.e_cong_q[f_entry(32'(f_tabove), f_rd)] == f_cong);\n"},
}

// TestFormalInductionOpen: without one of its strengthening invariants,
// the induction step of (b) (at 64 and 128 bits), (e) (at 64 and 128) and
// (g) (at 128) stays open (the step alone is checked: the invariant's
// removal changes neither the base nor the covers).
func TestFormalInductionOpen(t *testing.T) {
	needFormal(t)
	for _, tc := range formalOpen {
		name := tc.id
		if tc.width != verilog.DefaultWidth {
			name = fmt.Sprintf("%s-w%d", tc.id, tc.width)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, _ := PropertyByID(tc.id)
			lib, err := verilog.Library()
			if err != nil {
				t.Fatal(err)
			}
			if lib, err = verilog.Patch(lib, "ibr_switch_stage.sv", tc.drop, ""); err != nil {
				t.Fatal(err)
			}
			o, c := testFormalOptions(p), testFormalConfig(p)
			o.stepOnly = true
			c.Width = tc.width
			r, err := CheckProperty(context.Background(), filepath.Join(workDir(t, "formal"), "open", name), lib, c, p, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s) without %q: %s, %.1f s", r.Config, tc.id, strings.TrimSpace(tc.drop), r.Status(), r.Time.Seconds())
			if r.Failed || r.Proved {
				t.Errorf("%s (%s) without an invariant: %s; want the induction step open", r.Config, tc.id, r.Status())
			}
		})
	}
}

// formalWidePlants are planted bugs of the wide-beat datapath (DataW > 64),
// each with the property that must catch it at 512 bits: the telemetry
// beat's DestQP low bit cleared as it leaves (a), in the wide stage's lane
// edit; the PSN read one lane late (f), so the hash takes BTH bytes 10-12;
// a decision entry of a telemetry beat in its sop beat given the previous
// packet's congested bit (g); and the 64-bit plant of (e), a word dropped by
// the skid buffer, which is width-independent logic.
var formalWidePlants = []struct {
	id, old, new string
}{
	{"a", "byte4_new : head_data[DataW-1-8*k -: 8];",
		"byte4_new : head_data[DataW-1-8*k -: 8] & ~{7'd0, head_tel && k == Tel2 + 3};"},
	{"f", "assign psn        = lnh[0] ? iw_beat[DataW-1-8*(Psn3 % NB) -: 24] : iw_beat[DataW-1-8*(Psn2 % NB) -: 24];",
		"assign psn        = lnh[0] ? iw_beat[DataW-9-8*(Psn3 % NB) -: 24] : iw_beat[DataW-9-8*(Psn2 % NB) -: 24];"},
	{"g", "e_cong_q[wr_q] <= iw_cong;  // BTH byte 4 in the sop beat itself",
		"e_cong_q[wr_q] <= sop_cong_q;  // BTH byte 4 in the sop beat itself"},
	{"e", formalPlants["e"][0][0], formalPlants["e"][0][1]},
}

// testFormalWide is the reduced check of the wide-beat tests: 6 clocks hold
// reset and several one- and two-beat packets at 512 bits, with stalls.
var testFormalWide = FormalOptions{Depth: 6, Induction: 4}

// formalWideProofs are the wide-beat proofs the tests run: (f) and (g) at
// 512 bits on testFormalWide's base; (a) and (e), whose stream invariants
// (the beats inside, the ring of decisions, its hashes and draws) are
// written for every width, at 128 bits on their own base (8 clocks: (e)'s
// covers need more than 6), where each takes seconds to a minute rather than
// minutes. `verify --formal --width 512` proves all four there.
var formalWideProofs = []struct {
	id    string
	width int
	o     FormalOptions
}{{"f", 512, testFormalWide}, {"g", 512, testFormalWide}, {"a", 128, DefaultFormal}, {"e", 128, DefaultFormal}}

// TestFormalWide: at wide beats (f), (g), (a) and (e) are proved
// (formalWideProofs), and each wide plant fails its property with a
// counterexample that replays in Yosys's simulator. The full check at every
// width is `verify --formal --width W` (docs/rtl.md).
func TestFormalWide(t *testing.T) {
	needFormal(t)
	dir := workDir(t, "formal")
	for _, tc := range formalWideProofs {
		t.Run(fmt.Sprintf("%s-w%d", tc.id, tc.width), func(t *testing.T) {
			t.Parallel()
			p, _ := PropertyByID(tc.id)
			lib, err := verilog.Library()
			if err != nil {
				t.Fatal(err)
			}
			c := testFormalConfig(p)
			c.Width = tc.width
			r, err := CheckProperty(context.Background(), filepath.Join(dir, "wide", fmt.Sprintf("ok-%s-w%d", tc.id, tc.width)), lib, c, p, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %s, %d covers, %.1f s (%s)", r.Config, p.ID, r.Status(), r.Covers, r.Time.Seconds(), r.Phases())
			if r.Failed || !r.Proved {
				t.Errorf("%s (%s): %s; want it proved (k-induction, k=%d)", r.Config, p.ID, r.Status(), tc.o.Induction)
			}
		})
	}
	for _, pl := range formalWidePlants {
		t.Run("planted-"+pl.id, func(t *testing.T) {
			t.Parallel()
			p, _ := PropertyByID(pl.id)
			c := testFormalConfig(p)
			c.Width = 512
			checkPlanted(t, filepath.Join(dir, "wide", "planted-"+pl.id), c, p, testFormalWide, strconv.Quote(pl.new), pl.old, pl.new)
		})
	}
}

// TestFormalWideVCRC: at 128-bit beats, (b) is proved by k-induction with
// every full-width CRC step uninterpreted (Property.UF), after
// ibr_crc16_bytes_end_lemma is proved for each tag value; a corrupt packet
// laundered with a fresh VCRC fails it with a counterexample; and a rewind
// matrix off by four bytes (the VCRC in the beat's third group from its
// end) fails the lemma, before any sequential check.
func TestFormalWideVCRC(t *testing.T) {
	needFormal(t)
	dir := workDir(t, "formal")
	p, _ := PropertyByID("b")
	c := testFormalConfig(p)
	c.Width = 128
	o := DefaultFormal
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		lib, err := verilog.Library()
		if err != nil {
			t.Fatal(err)
		}
		r, err := CheckProperty(context.Background(), filepath.Join(dir, "wide", "ok-b"), lib, c, p, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%s): %s, %d covers, %.1f s (%s)", r.Config, p.ID, r.Status(), r.Covers, r.Time.Seconds(), r.Phases())
		if !r.Proved || r.Depth != o.Induction || r.NoInduction != "" {
			t.Errorf("%s (%s): %s; want it proved by k-induction, k = %d", r.Config, p.ID, r.Status(), o.Induction)
		}
	})
	t.Run("planted-laundered", func(t *testing.T) {
		t.Parallel()
		checkPlanted(t, filepath.Join(dir, "wide", "planted-b"), c, p, o, "laundered", "assign vcrc = crc_end ^ {16{!head_bad}};\n    // The VCRC, least-significant byte first", "assign vcrc = ~crc_end;\n    // The VCRC, least-significant byte first")
	})
	t.Run("planted-rewind", func(t *testing.T) {
		lib, err := verilog.Library()
		if err != nil {
			t.Fatal(err)
		}
		if lib, err = verilog.Patch(lib, "ibr_crc16_bytes_end.sv", "vcrc_rewind(4 * (k + 1))", "vcrc_rewind(4 * (k + 1) + (k == 2 ? 4 : 0))"); err != nil {
			t.Fatal(err)
		}
		r, err := CheckProperty(context.Background(), filepath.Join(dir, "wide", "planted-rewind"), lib, c, p, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%s) with a wrong rewind: %s, %.1f s", r.Config, p.ID, r.Status(), r.Time.Seconds())
		if want := "lemma ibr_crc16_bytes_end_lemma (DataW 128, Eop 1, J 2)"; !r.Failed || r.Where != want {
			t.Errorf("a wrong rewind matrix: %s, want the lemma to fail: %s", r.Status(), want)
		}
	})
}
