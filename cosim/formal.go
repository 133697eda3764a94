// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ibreservoir/hash"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// A Property is one group of the formal properties of ibr_switch_stage (its
// `ifdef FORMAL block, compiled in by Define).
type Property struct {
	ID        string // a..e
	Define    string
	Statement string
	// Induction: the property is stated on the registers it follows, or
	// carries the strengthening invariants that tie what it follows to them,
	// so that k-induction closes; the others are checked to a bounded depth.
	Induction bool
	// Stream: the property follows words through the skid buffer and the
	// pipeline, and its bounded check (the base of its induction) runs ABC's
	// bmc3, which reaches in seconds depths z3 does not reach in hours.
	Stream bool
	// WideBMC: at beats wider than 64 bits the bounded check runs ABC's bmc3
	// as a Stream property's does (z3 takes over ten minutes on 10 clocks of
	// (g)'s 512-bit slots).
	WideBMC bool
	// Depth is the property's default bounded depth (FormalOptions.Depth 0
	// takes it): the deepest that completes in minutes (docs/rtl.md).
	// WideDepth, when set, replaces it at beats wider than 64 bits, where a
	// packet is one or a few beats (so fewer clocks hold more packets) and
	// each clock of ABC's bmc3, or for (b) of z3, costs more (DepthAt).
	Depth, WideDepth int
	// CoverDepth, when above the bounded depth, is the depth its covers are
	// searched to: (b)'s wide bounded check is the base of its induction
	// alone (k clocks: each further clock of 512-bit beats costs z3
	// minutes), and its covers, where the shortest packets leave, need one
	// clock more.
	CoverDepth int
	// Cut names what the property does not depend on, which the check
	// replaces by free values (Yosys cutpoint): sound, since a safety property
	// that holds for any values there holds for the values the logic makes,
	// and it keeps the solver off the hash's multiplier, the generator and
	// the CRC trees where they cannot matter.
	Cut []string
	// Lemma names a combinational module the property rests on, proved
	// first for every input (an assert that must hold: its check is complete).
	Lemma string
	// WideLemma names a further such module, parameterized by the beat
	// width DataW, that the property rests on at beats wider than 64 bits,
	// proved there after Lemma.
	WideLemma string
	// UF: every CRC step (ibr_crc16_bytes of one 4-byte group at 64 bits,
	// of the whole beat wider: crcStep), in the stage and in the monitors
	// alike, is replaced by one uninterpreted function of its register and
	// bytes (crcFunction, a blackbox the flow writes and Yosys's chtype puts
	// in the step's place), and the bounded check, the induction and the
	// covers run z3 on that model. Sound: a property that holds for every
	// function there holds for the CRC, which Lemma (and WideLemma) tie to
	// the bit-serial CRC-16. The solver follows bytes, registers and tags,
	// not XOR trees of 4 to 64 bytes, whose equivalences no solver here
	// decides in minutes beyond a few clocks. A cover reached with some
	// function is reached with the CRC: a packet's VCRC bytes follow the
	// bytes its CRC covers, so for any function some packet has a right VCRC
	// and some a wrong one.
	UF bool
	// HashLemma: the property rests on ibr_hash_lemma (ibr_link_pre and
	// ibr_hash compute docs/spec.md's d and H(id, d)), proved first for the
	// configuration's hash and link encoding, for every input, by z3 (whose
	// rewriting closes the multiplications mult0 and double order
	// differently, which no SAT solver does in hours). SipHash has no lemma.
	HashLemma bool
	// Bounded says why a property without Induction is checked to a depth
	// only (verify --formal prints it).
	Bounded string
	// SegBounded says why a property with Induction is checked to a depth
	// only on segmented beats (verilog.Config.Segmented): its strengthening
	// invariants describe one packet a beat; its induction is not attempted
	// there. Empty: the property takes induction on every beat layout it is
	// checked on.
	SegBounded string
	// SegRefused says why the property is not checked on segmented beats
	// (verilog.Config.Segmented: a beat may hold the end of one packet and
	// the start of the next; CheckProperty refuses it there; verify --formal
	// --segmented leaves it out, or refuses it when --formal-props names
	// it). Empty: its monitors follow segmented beats too.
	SegRefused string
	// SegDepth, when set, is the property's default bounded depth on
	// segmented beats (it replaces DepthAt's), where each clock of ABC's bmc3
	// costs more again (the segment rules, two packets' fields a beat).
	SegDepth int
}

// DepthFor is the property's default bounded depth on configuration c:
// SegDepth on segmented beats, else DepthAt of its width.
func (p Property) DepthFor(c verilog.Config) int {
	if c.Segmented && p.SegDepth != 0 {
		return p.SegDepth
	}
	return p.DepthAt(c.DataW())
}

// DepthAt is the property's default bounded depth at beats of width bits.
func (p Property) DepthAt(width int) int {
	if width > verilog.DefaultWidth && p.WideDepth != 0 {
		return p.WideDepth
	}
	return p.Depth
}

// PropertyByID returns the property with the given ID (a..e).
func PropertyByID(id string) (Property, bool) {
	for _, p := range Properties {
		if p.ID == id {
			return p, true
		}
	}
	return Property{}, false
}

// The stage's cut points: the hash bit, the generator's answer (zero, done),
// the VCRC trees. (e) keeps the generator: a stalled telemetry word must hold
// its byte 4, which is made from the answer, and a free answer could change
// while the word waits where the generator's cannot (it holds zero from done
// to the next draw).
var (
	cutHash = []string{"u_stage.hash_bit"}
	cutGen  = []string{"u_stage.gen_switch_gen.zero", "u_stage.gen_switch_gen.done"}
	cutCRC  = []string{"u_stage.crc4", "u_stage.crc8", "u_stage.icrc_hi", "u_stage.icrc8"}
)

// segDecisions is why (a), (e) and (g) are bounded only on segmented beats
// (Property.SegBounded).
const segDecisions = "the invariants that close its induction describe one packet a beat (the ingress account, the beats inside and the ring of decisions, one entry a telemetry beat), where a segmented beat holds the tail of one packet and the head of the next, with up to two decisions, which they do not describe"

// Properties are the seven properties of docs/rtl.md ("Formal properties").
var Properties = []Property{
	{ID: "a", Define: "IBR_PROP_A", Statement: "every byte but the telemetry bits of BTH byte 4 and the VCRC leaves the stage unchanged (so the ICRC cannot break)",
		Induction: true, Stream: true, Depth: 14, WideDepth: 8, SegDepth: 7, Cut: concat(cutHash, cutGen, cutCRC), SegBounded: segDecisions},
	{ID: "b", Define: "IBR_PROP_B", Statement: "the outgoing VCRC is correct for the outgoing bytes when the incoming one was, and stomped when it was not",
		Induction: true, Depth: 7, WideDepth: 4, CoverDepth: 5, Cut: concat(cutHash, cutGen), UF: true, Lemma: "ibr_crc16_bytes_lemma",
		WideLemma:  "ibr_crc16_bytes_end_lemma",
		SegRefused: "its wide monitors follow one packet's CRC a beat (ibr_crc16_bytes_end, one full-width step), where a segmented beat's CRC is ibr_crc16_seg's per-slot trees shared by the tail and the head; the uninterpreted function that stands for the full-width step does not describe those, and restating the two packets' registers on the ports is more than the monitor's change. The co-simulation checks every outgoing VCRC on segmented beats (TestSegmented, TestScoreboardSegmented)"},
	{ID: "c", Define: "IBR_PROP_C", Statement: "the hop count saturates and never wraps (a spent sender field stays spent)", Induction: true,
		Depth: 24, SegDepth: 10, Cut: concat(cutHash, cutGen, cutCRC)},
	{ID: "d", Define: "IBR_PROP_D", Statement: "the telemetry update is the Alg. 8 reference function (alg8_ref) of the drawn value", Induction: true,
		Depth: 24, SegDepth: 10, Cut: concat(cutHash, cutGen, cutCRC)},
	{ID: "e", Define: "IBR_PROP_E", Statement: "the stream neither drops, duplicates nor reorders words, and holds a stalled word",
		Induction: true, Stream: true, Depth: 14, WideDepth: 8, SegDepth: 7, Cut: concat(cutHash, cutCRC), SegBounded: segDecisions},
	{ID: "f", Define: "IBR_PROP_F", Statement: "the hop bit is H(id, d) of the packet's id and the configured link: the hash takes the PSN word's id and the configured link's d, and the bit written is the one taken; with ibr_hash_lemma, ibr_hash of those is the spec's H", Induction: true,
		Depth: 10, Cut: concat(cutGen, cutCRC), HashLemma: true,
		SegRefused: "its monitor follows one PSN a beat into the one hash (the PSN word entering slot 0, its id, the link as of its handshake), where a segmented beat carries up to two PSNs, the tail's and the head's, through a two-entry id queue before the hash unit; restating that queue on the ports is more than its monitor's change. The co-simulation checks every hop bit against the model on segmented beats (TestSegmented, TestScoreboardSegmented)"},
	{ID: "g", Define: "IBR_PROP_G", Statement: "a telemetry word whose hop the reservoir takes leaves with the congested bit cong_i had in the cycle its packet's sop word was taken", Induction: true,
		Depth: 10, WideDepth: 8, SegDepth: 7, WideBMC: true, Cut: concat(cutHash, cutGen, cutCRC), SegBounded: segDecisions},
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// FormalConfigs are the configurations `verify --formal` checks: every
// generator kind under a hash whose logic the properties cut away, plus the
// thesis's default (mult0, ideal) for the register-level properties.
// SipHash's 2-4 rounds only widen the cut hash, so it adds nothing.
func FormalConfigs() []verilog.Config {
	mk := func(k hash.Kind, gen string, bits, l int) verilog.Config {
		c := verilog.DefaultConfig()
		c.Hash, c.Generator, c.CountBits, c.SenderL = hash.New(k), gen, bits, l
		return c
	}
	return []verilog.Config{
		verilog.DefaultConfig(),
		mk(hash.Parity, refmodel.GeneratorSender, 0, 3),
		mk(hash.CRC16, "lfsr-lut/b16", 4, 0),
		mk(hash.Parity, "shiftreg/per-packet", 3, 0),
		// mxm's hash comes a cycle after the PSN word (its pipeline register,
		// cut at hash_bit as every hash is): the decision waits for it.
		mk(hash.MXM, refmodel.GeneratorSender, 0, 3),
	}
}

// FormalOptions tune a formal check.
type FormalOptions struct {
	Depth     int // bounded-model-check depth (steps, one clock each); 0: each property's own
	Induction int // k of the k-induction step, for the properties that take it
	// stepOnly (the tests that hold an induction open): the induction step
	// alone, without the lemmas, the bounded check and the covers, none of
	// which an invariant's removal changes.
	stepOnly bool
}

// DefaultFormal are the depths of `verify --formal`: each property's own
// bounded depth (Property.Depth), which is the base of its k = 4 induction
// (every property takes induction, so each is proved for every frame length
// when its induction closes) and the depth its covers must be reached in:
// 24 clocks, reset and three of the shortest packets with stalls, for (c)
// and (d); 10 for (f) and (g); 14 for the stream properties (a) and (e),
// reset, a shortest BTH packet and a longer one with stalls, which ABC's
// bmc3 checks in about a minute; 7 for (b), the first depth at which a BTH
// packet's VCRC word leaves (z3, the CRC steps uninterpreted: seconds), and
// at wider beats 4, k, the base of its induction alone (each clock of
// 512-bit beats costs z3 minutes), its covers searched to 5
// (Property.CoverDepth), where the shortest packets, sound and corrupt,
// leave. With the induction closed the proof covers every length whatever
// the depth.
var DefaultFormal = FormalOptions{Depth: 0, Induction: 4}

// FormalResult is what one property check found on one configuration.
type FormalResult struct {
	Config   string
	Property Property
	Proved   bool // k-induction closed: the property holds in every reachable state
	Depth    int  // the induction's k (Proved), or the bounded depth checked
	Failed   bool // a counterexample: Step and Where say which step and assertion
	Step     int
	Where    string
	Trace    string // the counterexample's VCD (none for a lemma)
	Covers   int    // cover statements reached (every one must be)
	Time     time.Duration
	// LemmaTime is the time the property's lemma took (included in Time),
	// BMCTime the bounded check's and InductionTime the induction's.
	LemmaTime, BMCTime, InductionTime time.Duration
	// NoLemma says why the property's lemma was not checked (a hash
	// ibr_spec.svh does not restate): the result is the property's alone.
	NoLemma string
	// NoInduction says why the induction was not attempted (Property.SegBounded
	// on segmented beats): the result is bounded only.
	NoInduction string
	stepOnly    bool // FormalOptions.stepOnly: the induction step alone was run
}

// Phases gives the time of each phase of the check: the lemma, the bounded
// check and the induction (those run).
func (r *FormalResult) Phases() string {
	var ps []string
	if r.LemmaTime > 0 {
		ps = append(ps, fmt.Sprintf("lemma %.1f s", r.LemmaTime.Seconds()))
	}
	if r.BMCTime > 0 {
		ps = append(ps, fmt.Sprintf("bounded %.1f s", r.BMCTime.Seconds()))
	}
	if r.InductionTime > 0 {
		ps = append(ps, fmt.Sprintf("induction %.1f s", r.InductionTime.Seconds()))
	}
	return strings.Join(ps, ", ")
}

// Status describes the result in one phrase.
func (r *FormalResult) Status() string {
	switch {
	case r.Failed && r.Trace == "": // a lemma: combinational, no trace
		return fmt.Sprintf("FAILED (%s: some input breaks it)", r.Where)
	case r.Failed:
		return fmt.Sprintf("FAILED at step %d (%s; trace %s)", r.Step, r.Where, r.Trace)
	case r.stepOnly && r.Proved:
		return fmt.Sprintf("induction step closed (k=%d; lemmas, base and covers not checked)", r.Depth)
	case r.stepOnly:
		return fmt.Sprintf("induction step open (k=%d)", r.Depth)
	case r.Proved && r.NoLemma != "":
		return fmt.Sprintf("proved (k-induction, k=%d; %s)", r.Depth, r.NoLemma)
	case r.Proved:
		return fmt.Sprintf("proved (k-induction, k=%d)", r.Depth)
	}
	if r.NoInduction != "" {
		return fmt.Sprintf("bounded only (no counterexample in %d clocks; not proved: %s)", r.Depth, r.NoInduction)
	}
	return fmt.Sprintf("bounded only (no counterexample in %d clocks; not proved)", r.Depth)
}

var (
	reAssertFailed = regexp.MustCompile(`Assert failed in \S+: (\S+)`)
	reFailedStep   = regexp.MustCompile(`Checking assertions in step (\d+)`)
	reReached      = regexp.MustCompile(`Reached cover statement`)
	reUnreached    = regexp.MustCompile(`Unreached cover statement at (\S+)`)
)

// CheckProperty checks property p of configuration c, in dir, on the library
// lib (verilog.Library, or a test's patched copy), with Yosys's formal flows:
//
//   - the property's lemma (Property.Lemma), proved for every input;
//   - a bounded model check to o.Depth: for the register-level properties
//     and (b) (its CRC steps uninterpreted, Property.UF), yosys-smtbmc with
//     z3; for the stream properties (Stream), ABC's bmc3 (yosys-abc) on the
//     design written as AIGER (assumptions as AIGER constraints), which
//     reaches in seconds depths z3 does not reach in hours; a
//     counterexample ABC finds is replayed by Yosys's simulator, which
//     names the failing assertion and its step and writes the VCD;
//   - for the properties that take it, k-induction with k = o.Induction
//     (yosys-smtbmc with z3);
//   - the property's cover statements (yosys-smtbmc, z3), each of which must
//     be reached within o.Depth, or the property's CoverDepth if more (a
//     property that holds only vacuously proves nothing).
//
// A counterexample is a result (Failed), not an error; the error is for runs
// that could not be made.
func CheckProperty(ctx context.Context, dir string, lib []verilog.File, c verilog.Config, p Property, o FormalOptions) (*FormalResult, error) {
	tools := []string{"yosys", "yosys-smtbmc", "z3", "yosys-abc"}
	if p.Lemma != "" && !p.HashLemma {
		tools = append(tools, "cryptominisat5")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("cosim: %s is not installed (run scripts/setup.sh): %w", tool, err)
		}
	}
	if p.SegRefused != "" && c.Segmented {
		return nil, fmt.Errorf("cosim: (%s) on segmented beats: %s", p.ID, p.SegRefused)
	}
	if o.Depth == 0 {
		o.Depth = p.DepthFor(c)
	}
	if o.Depth < 2 || o.Induction < 1 || o.Induction > o.Depth {
		return nil, fmt.Errorf("cosim: formal depth %d, induction %d: want depth >= 2 and 1 <= induction <= depth", o.Depth, o.Induction)
	}
	// The tools run in dir, so every path they are given is absolute.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	w, err := verilog.Wrapper(c)
	if err != nil {
		return nil, err
	}
	files := append(append([]verilog.File{}, lib...), verilog.File{Name: c.Module() + ".sv", Data: w})
	srcs, err := writeSources(dir, files)
	if err != nil {
		return nil, err
	}
	cut := p.Cut
	if c.Generator == refmodel.GeneratorSender {
		cut = nil
		for _, w := range p.Cut {
			if !strings.Contains(w, "gen_switch_gen") {
				cut = append(cut, w)
			}
		}
	}
	var cuts string
	for _, w := range cut {
		cuts += " w:" + w
	}
	model := filepath.Join(dir, "model.smt2")
	aig, aim := filepath.Join(dir, "model.aig"), filepath.Join(dir, "model.aim")
	step := crcStep(c.DataW())
	script := []string{fmt.Sprintf("read_verilog -formal -sv -DSYNTHESIS -D%s -I %s %s", p.Define, dir, strings.Join(srcs, " "))}
	script = append(script, "prep -top "+c.Module())
	if p.UF {
		src := filepath.Join(dir, crcFunction(step)+".v")
		if err := os.WriteFile(src, crcFunctionSource(step), 0o644); err != nil {
			return nil, err
		}
		script = append(script, crcRetype(step, src)...)
	}
	script = append(script, "flatten")
	if cuts != "" {
		script = append(script, "cutpoint"+cuts)
	}
	if p.UF {
		// QF_UFBV has no arrays: a ROM (the ideal generator's table) is
		// mapped to logic.
		script = append(script, "memory_map")
	}
	script = append(script, "async2sync", "dffunmap", "opt_clean")
	// The same design as an and-inverter graph for ABC (SymbiYosys's recipe):
	// assumptions hold from the step they are checked in, covers are for z3,
	// undriven bits are free inputs, registers without an initial value get a
	// free one (-zinit), asserts are bad states (-B). A counterexample ABC
	// finds is replayed on the same design (aigPrep) by Yosys's simulator.
	aigPasses := []string{"chformal -assume -early", "chformal -cover -remove", "setundef -anyseq",
		"memory_map", "opt -keepdc -fast", "setattr -unset keep", "delete -output", "opt -full", "techmap", "opt -fast",
		"dffunmap", "abc -g AND -fast", "opt_clean"}
	aigPrep := append(append([]string{}, script...), aigPasses...)
	script = append(script, "write_smt2 -wires "+model)
	// The bounded check runs z3 on the SMT-LIB model for the register-level
	// properties and (b), ABC's bmc3 on the AIGER file for the others.
	stream := p.Stream || p.WideBMC && c.DataW() != verilog.DefaultWidth
	z3Base := p.Induction && !stream
	if !z3Base && !o.stepOnly { // (the step alone is z3's)
		script = append(append(script, aigPasses...), fmt.Sprintf("write_aiger -I -B -zinit -map %s %s", aim, aig))
	}
	t0 := time.Now()
	r := &FormalResult{Config: c.Name(), Property: p, Depth: o.Depth}
	induction := p.Induction
	if p.Induction && p.SegBounded != "" && c.Segmented {
		induction, r.NoInduction = false, "on segmented beats: "+p.SegBounded
	}
	if o.stepOnly && !induction {
		return nil, fmt.Errorf("cosim: (%s) on %s: the induction step alone, where no induction is attempted", p.ID, c.Module())
	}
	if p.HashLemma && !hashLemmaKinds[c.Hash.Kind] {
		r.NoLemma = "no lemma for " + c.Hash.Kind.String() + ": ibr_spec.svh does not restate it"
	}
	if p.HashLemma && hashLemmaKinds[c.Hash.Kind] && !o.stepOnly {
		ok, err := proveHashLemma(ctx, dir, srcs, c)
		if err != nil {
			return nil, fmt.Errorf("cosim: %s (%s): %w", c.Module(), p.ID, err)
		}
		if !ok {
			r.Failed, r.Where, r.Time = true, "lemma ibr_hash_lemma", time.Since(t0)
			return r, nil
		}
		r.LemmaTime = time.Since(t0)
	}
	lemmas := [][2]string{{p.Lemma, ""}}
	if w := c.DataW(); p.WideLemma != "" && w != verilog.DefaultWidth {
		// Each tag value apart (ibr_crc16_bytes_end_lemma): a beat, and an
		// eop beat with its VCRC in each 4-byte group.
		lemmas = append(lemmas, [2]string{p.WideLemma, fmt.Sprintf("-set DataW %d -set Eop 0 -set J 0", w)})
		for j := 0; j < w/32; j++ {
			lemmas = append(lemmas, [2]string{p.WideLemma, fmt.Sprintf("-set DataW %d -set Eop 1 -set J %d", w, j)})
		}
	}
	for _, l := range lemmas {
		if l[0] == "" || o.stepOnly {
			continue
		}
		ok, err := proveLemma(ctx, dir, srcs, l[0], l[1])
		if err != nil {
			return nil, fmt.Errorf("cosim: %s (%s): %w", c.Module(), p.ID, err)
		}
		if !ok {
			r.Failed, r.Where, r.Time = true, "lemma "+l[0], time.Since(t0)
			if l[1] != "" {
				r.Where += " (" + strings.ReplaceAll(strings.TrimPrefix(l[1], "-set "), " -set ", ", ") + ")"
			}
			return r, nil
		}
		r.LemmaTime = time.Since(t0)
	}
	t1 := time.Now()
	if out, err := runTool(ctx, dir, "yosys", "-q", "-p", strings.Join(script, "; ")); err != nil {
		return nil, fmt.Errorf("cosim: yosys -formal of %s (%s): %w\n%s", c.Module(), p.ID, err, tail(out, 30))
	}
	// z3 stalls on the SMT-LIB datatypes of the incremental encoding of a
	// model this size; --unroll gives it plain terms.
	bmcArgs := []string{"-s", "z3", "--unroll"}
	var fresh []string // before the bounded check's and the induction's arguments
	if p.UF {
		if err := declareCRCFunction(model, step); err != nil {
			return nil, err
		}
		// Each query to a fresh z3 (--noincr) in the logic of bit vectors
		// and uninterpreted functions: z3 then Ackermannizes the function
		// and bit-blasts the query to its SAT solver (its QF_UFBV tactic),
		// where its incremental core, which every query with push and pop
		// takes, gave (b)'s induction step at 128 bits no answer in an hour
		// (the same step this way: under a minute). The covers stay
		// incremental: their search, step by step, is what the incremental
		// core does well (at 256 bits minutes, where afresh it took 25).
		bmcArgs = append(bmcArgs, "--logic", "QF_UFBV")
		fresh = []string{"--noincr"}
	}
	smtbmc := func(args ...string) (string, bool, error) {
		out, err := runTool(ctx, dir, "yosys-smtbmc", append(bmcArgs, append(args, model)...)...)
		switch {
		case strings.Contains(out, "Status: PASSED"):
			return out, true, nil
		case strings.Contains(out, "Status: FAILED"):
			return out, false, nil
		case err == nil:
			err = fmt.Errorf("no status line")
		}
		return out, false, fmt.Errorf("cosim: yosys-smtbmc %s on %s (%s): %w\n%s", strings.Join(args, " "), c.Module(), p.ID, err, tail(out, 30))
	}
	r.Trace = filepath.Join(dir, "counterexample.vcd")
	var out string
	ok := true
	switch {
	case o.stepOnly:
	case z3Base:
		out, ok, err = smtbmc(append(fresh, "-t", strconv.Itoa(o.Depth), "--dump-vcd", r.Trace)...)
	default:
		witness := filepath.Join(dir, "counterexample.aiw")
		ok, err = abcBMC(ctx, dir, aig, witness, o.Depth)
		if err == nil && !ok {
			// The witness fixes every input and initial value: the replay
			// is a simulation, which names the failing assert and its cycle.
			replay := append(aigPrep, fmt.Sprintf("sim -clock clk_i -r %s -map %s -vcd %s", witness, aim, r.Trace))
			out, err = runTool(ctx, dir, "yosys", "-p", strings.Join(replay, "; "))
			if err == nil {
				r.Step, r.Where, ok = simFailure(out)
			}
			if err == nil && ok {
				err = fmt.Errorf("ABC's counterexample does not fail in Yosys's simulation")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("cosim: %s (%s): %w", c.Module(), p.ID, err)
		}
		if !ok {
			r.Failed, r.Time = true, time.Since(t0)
			return r, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		r.Failed, r.Where, r.Step = true, "an assumption fails at the start", 0
		if m := reAssertFailed.FindStringSubmatch(out); m != nil {
			r.Where = filepath.Base(m[1])
		}
		// The failing step is the last one whose assertions were checked.
		if ms := reFailedStep.FindAllStringSubmatch(out, -1); ms != nil {
			r.Step, _ = strconv.Atoi(ms[len(ms)-1][1])
		}
		r.Time = time.Since(t0)
		return r, nil
	}
	if !o.stepOnly {
		r.BMCTime = time.Since(t1)
	}
	if induction {
		t2 := time.Now()
		_, ok, err = smtbmc(append(fresh, "-i", "-t", strconv.Itoa(o.Induction))...)
		if err != nil {
			return nil, err
		}
		r.InductionTime = time.Since(t2)
		if ok {
			r.Proved, r.Depth = true, o.Induction
		}
	}
	if o.stepOnly {
		r.stepOnly, r.Depth, r.Time = true, o.Induction, time.Since(t0)
		return r, nil
	}
	coverDepth := max(o.Depth, p.CoverDepth)
	out, ok, err = smtbmc("-c", "-t", strconv.Itoa(coverDepth))
	if err != nil {
		return nil, err
	}
	r.Covers = len(reReached.FindAllString(out, -1))
	if !ok || r.Covers == 0 {
		where := "no cover statement"
		if m := reUnreached.FindStringSubmatch(out); m != nil {
			where = "cover " + filepath.Base(m[1]) + " unreached"
		}
		return nil, fmt.Errorf("cosim: %s (%s): %s within %d clocks: the property would hold vacuously", c.Module(), p.ID, where, coverDepth)
	}
	r.Time = time.Since(t0)
	return r, nil
}

var (
	reSimCycle  = regexp.MustCompile(`^Simulating cycle (\d+)\.`)
	reSimFailed = regexp.MustCompile(`Assert \S+ \((\S+)\) failed`)
)

// simFailure reads Yosys's sim output: the cycle of the first failed assert
// and its source location (the last of its |-separated parts), or ok if no
// assert failed.
func simFailure(out string) (step int, where string, ok bool) {
	for _, l := range strings.Split(out, "\n") {
		if m := reSimCycle.FindStringSubmatch(l); m != nil {
			step, _ = strconv.Atoi(m[1])
		}
		if m := reSimFailed.FindStringSubmatch(l); m != nil {
			loc := strings.Split(m[1], "|")
			return step, filepath.Base(loc[len(loc)-1]), false
		}
	}
	return 0, "", true
}

var (
	reABCPassed = regexp.MustCompile(`No output asserted in (\d+) frames`)
	reABCFailed = regexp.MustCompile(`Output \d+ of miter .* was asserted in frame \d+`)
)

// abcBMC runs ABC's bmc3 on the AIGER file aig to depth clocks (frames
// 0..depth-1, as yosys-smtbmc -t depth checks steps 0..depth-1): true if no
// assertion fails; false with the counterexample written to witness (AIGER
// witness, without header) if one does.
func abcBMC(ctx context.Context, dir, aig, witness string, depth int) (bool, error) {
	// fold turns the AIGER constraints (the assumptions) into the condition
	// the bad states are checked under.
	cmds := fmt.Sprintf("read_aiger %s; fold; strash; bmc3 -F %d; write_cex -a %s", aig, depth, witness)
	out, err := runTool(ctx, dir, "yosys-abc", "-c", cmds)
	if err != nil {
		return false, fmt.Errorf("yosys-abc bmc3: %w\n%s", err, tail(out, 30))
	}
	if reABCFailed.MatchString(out) {
		return false, nil
	}
	if m := reABCPassed.FindStringSubmatch(out); m != nil {
		if n, _ := strconv.Atoi(m[1]); n >= depth {
			return true, nil
		}
	}
	return false, fmt.Errorf("yosys-abc bmc3 to %d clocks: no verdict\n%s", depth, tail(out, 30))
}

// hashLemmaKinds are the hashes ibr_spec.svh restates from docs/spec.md, for
// which ibr_hash_lemma is checked (SipHash, and any hash added later, is not
// restated: spec_hash_bit gives x for it, which must never meet an assert).
var hashLemmaKinds = map[hash.Kind]bool{
	hash.Parity: true, hash.ParityXor: true, hash.SingleMult: true, hash.DoubleMult: true,
	hash.Mult0: true, hash.CRC32: true, hash.CRC16: true,
}

// proveHashLemma proves ibr_hash_lemma for configuration c's hash and link
// encoding: a top module drives it from free inputs, and yosys-smtbmc with z3
// checks its asserts at step 0 (there are no registers, so that covers every
// input); false if some input breaks one.
func proveHashLemma(ctx context.Context, dir string, srcs []string, c verilog.Config) (bool, error) {
	top := filepath.Join(dir, "ibr_hash_lemma_top.sv")
	src := fmt.Sprintf(`module ibr_hash_lemma_top (
  input logic [31:0] id_i,
  input logic [15:0] switch_i,
  input logic [7:0]  port_i
);
  ibr_hash_lemma #(.HashKind(%s), .LinkEnc(%s)) u_lemma (.id_i, .switch_i, .port_i);
endmodule
`, verilog.HashEnum(c.Hash.Kind), verilog.LinkEnum(c.Link))
	if err := os.WriteFile(top, []byte(src), 0o644); err != nil {
		return false, err
	}
	model := filepath.Join(dir, "hash_lemma.smt2")
	script := []string{
		fmt.Sprintf("read_verilog -formal -sv -DSYNTHESIS -I %s %s %s", dir, strings.Join(srcs, " "), top),
		"prep -top ibr_hash_lemma_top", "flatten", "write_smt2 -wires " + model,
	}
	if out, err := runTool(ctx, dir, "yosys", "-q", "-p", strings.Join(script, "; ")); err != nil {
		return false, fmt.Errorf("yosys -formal of ibr_hash_lemma: %w\n%s", err, tail(out, 30))
	}
	out, err := runTool(ctx, dir, "yosys-smtbmc", "-s", "z3", "-t", "1", model)
	switch {
	case Interrupted(err):
		return false, err
	case strings.Contains(out, "Status: PASSED"):
		return true, nil
	case strings.Contains(out, "Status: FAILED"):
		return false, nil
	}
	return false, fmt.Errorf("yosys-smtbmc on ibr_hash_lemma: no status line (%v)\n%s", err, tail(out, 30))
}

// crcStep is the width in bits of the CRC step that Property.UF makes
// uninterpreted in a stage of width-bit beats: at 64 bits the stage and the
// monitors chain 4-byte steps (ibr_crc16_bytes #(.NBytes(4))); wider, each
// takes one full-width step (in ibr_crc16_bytes_end).
func crcStep(width int) int {
	if width == verilog.DefaultWidth {
		return 32
	}
	return width
}

// crcFunction is the name of the uninterpreted function, and of the
// blackbox module that applies it, standing for the CRC step over bits
// bits (crcStep).
func crcFunction(bits int) string { return fmt.Sprintf("ibr_crc16_f%d", bits) }

// crcFunctionSource is the blackbox module crcFunction(bits): the ports of
// ibr_crc16_bytes #(.NBytes(bits/8)), its output the SMT-LIB function of
// that name applied to its inputs (declared by declareCRCFunction). Only the
// check of a UF property reads it: any other SMT-LIB model with it refers
// to a function it does not declare.
func crcFunctionSource(bits int) []byte {
	f := crcFunction(bits)
	return []byte(fmt.Sprintf(`// %s: ibr_crc16_bytes #(.NBytes(%d)) as an uninterpreted function.
(* blackbox *) (* smtlib2_module *)
module %s (input wire [15:0] crc_i, input wire [%d:0] data_i,
  (* smtlib2_comb_expr = "(|%s| crc_i data_i)" *) output wire [15:0] crc_o);
endmodule
`, f, bits/8, f, bits-1, f))
}

// crcRetype are the Yosys commands, after prep and before flatten, that
// put crcFunction(bits) in place of every CRC step over bits bits
// (Property.UF): the step, ibr_crc16_bytes of bits/8 bytes, is retyped, and
// the blackbox (crcFunctionSource, in file src) is read.
func crcRetype(bits int, src string) []string {
	step := fmt.Sprintf(`$paramod\ibr_crc16_bytes\NBytes=s32'%032b`, bits/8)
	return []string{fmt.Sprintf("chtype -map %s %s", step, crcFunction(bits)), "read_verilog -sv " + src}
}

// declareCRCFunction puts the declaration of the uninterpreted function
// crcFunction(bits) (a 16-bit register and bits bits to 16 bits) before
// the SMT-LIB model file, whose blackbox of that name applies it. (Its
// sorts are named: yosys-smtbmc's unrolling reads a declaration's argument
// sorts as names.)
func declareCRCFunction(model string, width int) error {
	b, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	var d bytes.Buffer
	d.WriteString("(define-sort |ibr_bv16| () (_ BitVec 16))\n")
	fmt.Fprintf(&d, "(define-sort |ibr_bv%d| () (_ BitVec %d))\n", width, width)
	fmt.Fprintf(&d, "(declare-fun |%s| (|ibr_bv16| |ibr_bv%d|) |ibr_bv16|)\n", crcFunction(width), width)
	return os.WriteFile(model, append(d.Bytes(), b...), 0o644)
}

// proveLemma proves the combinational module lemma of the library sources
// srcs (its parameters set by chparam's options params, unless empty): its
// asserts hold for every input (CryptoMiniSat finds the miter, written with
// the netlist's XORs as XOR clauses by writeXORCNF, unsatisfiable); false
// if some input breaks one.
func proveLemma(ctx context.Context, dir string, srcs []string, lemma, params string) (bool, error) {
	netlist, cnf := filepath.Join(dir, "lemma.json"), filepath.Join(dir, "lemma.cnf")
	script := []string{fmt.Sprintf("read_verilog -formal -sv -DSYNTHESIS -I %s %s", dir, strings.Join(srcs, " "))}
	if params != "" {
		script = append(script, fmt.Sprintf("chparam %s %s", params, lemma))
	}
	script = append(script, "prep -top "+lemma, "flatten", "hierarchy -top "+lemma+" -purge_lib", "techmap", "opt -fast", "opt_clean",
		"write_json "+netlist)
	if out, err := runTool(ctx, dir, "yosys", "-q", "-p", strings.Join(script, "; ")); err != nil {
		return false, fmt.Errorf("yosys -formal of lemma %s: %w\n%s", lemma, err, tail(out, 30))
	}
	if err := xorCNFFile(netlist, cnf); err != nil {
		return false, fmt.Errorf("lemma %s: %w", lemma, err)
	}
	return cmsUnsat(ctx, dir, cnf)
}

// xorCNFFile writes the netlist file netlist as the CNF file cnf
// (writeXORCNF).
func xorCNFFile(netlist, cnf string) error {
	in, err := os.Open(netlist)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(cnf)
	if err != nil {
		return err
	}
	if err := writeXORCNF(in, out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// gaussArgs lift CryptoMiniSat's limits on the XOR matrices its Gaussian
// elimination takes (2,000 rows and 1,000 columns by default): a CRC tree
// over 64 bytes and its restatement make a matrix of about 1,700 x 2,200,
// which it then decides in a fraction of a second, and without which it
// searches for hours.
var gaussArgs = []string{"--maxmatrixrows", "1000000", "--maxmatrixcols", "1000000", "--maxxormat", "1000000000"}

// cmsUnsat runs CryptoMiniSat on the CNF file cnf: true if unsatisfiable.
// (It exits with 10 or 20, so its answer is read from its status line.)
func cmsUnsat(ctx context.Context, dir, cnf string) (bool, error) {
	out, err := runTool(ctx, dir, "cryptominisat5", append([]string{"--verb", "0"}, append(gaussArgs, cnf)...)...)
	switch {
	case Interrupted(err):
		return false, err
	case strings.Contains(out, "s UNSATISFIABLE"):
		return true, nil
	case strings.Contains(out, "s SATISFIABLE"):
		return false, nil
	}
	return false, fmt.Errorf("cryptominisat5 on %s: no answer (%v)\n%s", filepath.Base(cnf), err, tail(out, 30))
}

// runTool runs a tool in dir (killed with its children if ctx ends) and
// returns its combined output.
func runTool(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := toolCommand(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := interrupted(ctx, name, cmd.Run())
	return out.String(), err
}

// CheckAll checks every property on every configuration, workers at a time,
// each in its own directory under dir, and returns the results in that order
// (configuration-major); log (may be nil) gets each result as it ends.
func CheckAll(ctx context.Context, dir string, lib []verilog.File, cfgs []verilog.Config, props []Property, o FormalOptions,
	workers int, log func(*FormalResult)) ([]*FormalResult, error) {
	results := make([]*FormalResult, len(cfgs)*len(props))
	job := func(i int) (err error) {
		c, p := cfgs[i/len(props)], props[i%len(props)]
		results[i], err = CheckProperty(ctx, filepath.Join(dir, c.Name(), p.ID), lib, c, p, o)
		return err
	}
	var done func(int)
	if log != nil {
		done = func(i int) { log(results[i]) }
	}
	if err := runAll(ctx, "formal check", len(results), workers, job, done); err != nil {
		return nil, err
	}
	return results, nil
}
