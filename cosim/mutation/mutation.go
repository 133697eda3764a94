// SPDX-License-Identifier: Apache-2.0

// Package mutation is the project's mutation campaign on the RTL switch
// stage: bugs of the kinds a team writes (which cycle samples an input,
// counter and length widths, gap and stall handling, bad-packet handling,
// lane and offset errors, reset values, generator faults, hash input
// selection), each a text patch applied to a copy of the library
// (verilog.Library), never to the checked-in RTL. Each mutant is checked as a
// user's stage (cosim.UserRTL, what `verify --rtl` runs) with the default
// co-simulation; a bug counts as caught only when the comparison with the
// model finds it, whatever the RTL's own assertions say. `ibreservoir mutate`
// runs the campaign and writes its table into docs/rtl.md (Section).
package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ibreservoir/cosim"
	"ibreservoir/dpi"
	"ibreservoir/internal/markers"
	"ibreservoir/verilog"
)

// Kinds of planted bugs.
const (
	KindSampling  = "sampling"   // which cycle samples an input
	KindWidth     = "width"      // counter and length widths
	KindGapStall  = "gap/stall"  // ingress gaps and egress stalls
	KindBadPacket = "bad packet" // bad-VCRC and non-IBA packets
	KindLane      = "lane"       // lane and offset errors
	KindReset     = "reset"      // reset and initial values
	KindGenerator = "generator"  // generator faults
	KindHash      = "hash input" // hash input selection
	KindCounter   = "counter"    // hop-count arithmetic
)

// A Mutation is one planted bug: Old, found exactly once in File of the
// library, becomes New; Config is the configuration the mutant is checked on.
type Mutation struct {
	ID     string
	Kind   string
	What   string
	File   string
	Old    string
	New    string
	Config string // a configuration name (verilog.Matrix or verilog.Variants)
}

const (
	stage = "ibr_switch_stage.sv"
	ideal = "ibr_gen_ideal.sv"
	def   = "mult0_ideal_c3"
)

// Mutations is the campaign, in the order of the table.
var Mutations = []Mutation{
	{"cong-tel-word", KindSampling, "the congested bit taken from cong_i with the telemetry word, not the sop word", stage,
		"dec_cong_q   <= sop_cong_q;", "dec_cong_q   <= iw_cong;", def},
	{"cong-offered", KindSampling, "the sop word's congested bit sampled from cong_i when slot 0 takes the word, not when it was offered (wrong after a skid-buffer wait)", stage,
		"sop_cong_q <= iw_cong;", "sop_cong_q <= cong_i;", def},
	{"skid-cong-lost", KindGapStall, "the skid buffer drops the congested bit of the word it holds", stage,
		"skid_cong_q  <= cong_i;", "skid_cong_q  <= 1'b0;", def},
	{"skid-word-lost", KindGapStall, "slot 0 takes the input, not the word waiting in the skid buffer", stage,
		"assign iw_valid   = skid_v_q || in_valid_i;", "assign iw_valid   = in_valid_i;", def},
	{"leave-no-ready", KindGapStall, "the head word leaves without out_ready_i", stage,
		"assign head_leave = v_q[PipeDepth-1] && head_ok && out_ready_i;", "assign head_leave = v_q[PipeDepth-1] && head_ok;", def},
	{"valid-before-decision", KindGapStall, "out_valid_o raised while the telemetry word waits for its decision", stage,
		"assign out_valid_o = v_q[PipeDepth-1] && head_ok;", "assign out_valid_o = v_q[PipeDepth-1];", def},
	{"hash-no-valid", KindGapStall, "the hash latched on the PSN word without its valid qualifier (wrong after an ingress bubble)", stage,
		"assign psn_take = iw_fire && is_psn_in;", "assign psn_take = is_psn_in;", def},
	{"tel-no-ready", KindGapStall, "the telemetry word captured while offered, not when taken (a draw per waiting cycle)", stage,
		"        if (iw_fire && is_tel_in) begin\n          tel_seen_q", "        if (iw_valid && is_tel_in) begin\n          tel_seen_q", def},
	{"wcnt-511", KindWidth, "the word counter saturating at 511 words (packets over 4 KiB)", stage,
		"widx == 11'h7ff ? widx : widx + 11'd1", "widx == 11'h1ff ? widx : widx + 11'd1", def},
	{"pktlen-10-bits", KindWidth, "PktLen held as 10 bits, not 11, after the sop word (packets over 4 KiB)", stage,
		"pktlen_q   <= iw_data[26:16];", "pktlen_q   <= {1'b0, iw_data[25:16]};", def},
	{"l-overflow", KindWidth, "l = count+1 computed in the count's width (0 at saturation)", stage,
		"assign l = {1'b0, draw_field} + LW'(1);", "assign l = {1'b0, draw_field + FieldW'(1)};", def},
	{"count-wraps", KindCounter, "the hop count wraps instead of saturating", stage,
		"assign field_new = saturated ? field_in : field_in + FieldW'(1);", "assign field_new = field_in + FieldW'(1);", def},
	{"saturate-early", KindCounter, "saturation at 2^b-2", stage,
		"assign saturated = field_in == FieldW'(CountMax);", "assign saturated = field_in == FieldW'(CountMax - 1);", def},
	{"stat-field-old", KindCounter, "stat_field_o reports the field before the stage", stage,
		"stat_field_o     <= field_new;", "stat_field_o     <= field_in;", def},
	{"bad-vcrc-odd", KindBadPacket, "a bad-VCRC packet of odd PktLen (VCRC in lanes 4-5) leaves with a fresh valid VCRC", stage,
		"assign vcrc_bad  = v_q[0] && vcrc_q[0] && (ivcrc_got != ivcrc || len_bad_q);",
		"assign vcrc_bad  = v_q[0] && vcrc_q[0] && (!lane4_q[0] && ivcrc_got != ivcrc || len_bad_q);", def},
	{"bad-vcrc-fresh", KindBadPacket, "a bad-VCRC packet leaves with a fresh valid VCRC (no stomp)", stage,
		"assign vcrc = (head_lane4 ? crc4 : crc_base) ^ (head_bad ? 16'h0000 : 16'hffff);", "assign vcrc = (head_lane4 ? crc4 : crc_base) ^ 16'hffff;", def},
	{"lnh1-as-iba", KindBadPacket, "a raw packet (LNH 1) taken for an IBA transport packet", stage,
		"assign iba     = lnh[1];", "assign iba     = lnh != 2'd0;", def},
	{"raw-len-unchecked", KindBadPacket, "a raw packet's frame not checked against its PktLen's word count (a raw packet of the wrong length leaves with a fresh VCRC)", stage,
		"assign len_bad_in = widx != {1'b0", "assign len_bad_in = iba && widx != {1'b0", def},
	{"grh-offset", KindLane, "BTH byte 4 of a global packet looked for in word 5, not 6", stage,
		"assign tel_widx   = lnh[0] ? 11'd6 : 11'd1;", "assign tel_widx   = lnh[0] ? 11'd5 : 11'd1;", def},
	{"byte4-lane", KindLane, "BTH byte 4 read from lane 3, not lane 4", stage,
		"assign tel_byte4  = iw_data[31:24];", "assign tel_byte4  = iw_data[39:32];", def},
	{"psn-lane", KindLane, "the PSN read one byte off (BTH bytes 8-10)", stage,
		"assign psn = iw_data[55:32];", "assign psn = iw_data[63:40];", def},
	{"vcrc-byte-order", KindLane, "the VCRC sent most-significant byte first", stage,
		": {vcrc[7:0], vcrc[15:8], edited[47:0]};", ": {vcrc[15:8], vcrc[7:0], edited[47:0]};", def},
	{"vcrc-lane4", KindLane, "the VCRC lane chosen by PktLen bit 1, not by the frame's end (in_empty_i 2)", stage,
		"assign lane4_in   = iw_empty == 3'd2;", "assign lane4_in   = pktlen[1];", def},
	{"empty-lost", KindLane, "in_empty_i not carried to out_empty_o", stage,
		"empty_q[EmptyW-1:0] <= iw_empty;", "empty_q[EmptyW-1:0] <= '0;", def},
	{"vcrc-seed", KindReset, "the outgoing VCRC seeded with 0, not 0xFFFF", stage,
		"assign crc_base = head_sop ? 16'hffff : crc_q;", "assign crc_base = head_sop ? 16'h0000 : crc_q;", def},
	{"ideal-reset-zero", KindReset, "the ideal generator reset to all zeros (xoshiro's fixed point)", ideal,
		"{s3_q, s2_q, s1_q, s0_q} <= 128'd1;", "{s3_q, s2_q, s1_q, s0_q} <= 128'd0;", def},
	{"lfsr-reset-zero", KindReset, "the LFSR reset to zero", "ibr_gen_lfsr_lut.sv",
		"s_q    <= Width'(1);", "s_q    <= '0;", "mult0_lfsr_lut_b16_c3"},
	{"ideal-accept-le", KindGenerator, "the ideal generator accepts r <= A(l), not r < A(l)", ideal,
		"assign accept = {1'b0, r} < ab[65:33];", "assign accept = {1'b0, r} <= ab[65:33];", def},
	{"ideal-zero-le", KindGenerator, "the ideal generator answers zero for r <= Z(l), not r < Z(l)", ideal,
		"assign zero   = {1'b0, r} < ab[32:0];", "assign zero   = {1'b0, r} <= ab[32:0];", def},
	{"ideal-rotl6", KindGenerator, "xoshiro128**'s rotation by 6, not 7", ideal,
		"assign r    = {s1x5[24:0], s1x5[31:25]} * 32'd9;", "assign r    = {s1x5[25:0], s1x5[31:26]} * 32'd9;", def},
	{"lfsr-threshold-lt", KindGenerator, "the LFSR draw is zero for state < T[l], not <=", "ibr_gen_lfsr_lut.sv",
		"assign zero = 32'(s_q) <= t;", "assign zero = 32'(s_q) < t;", "mult0_lfsr_lut_b16_c3"},
	{"shiftreg-inverted", KindGenerator, "the shift register's draw inverted (zero on a 1)", "ibr_gen_shiftreg.sv",
		"assign zero = !outs[l_i];", "assign zero = outs[l_i];", "mult0_shiftreg_per_draw_c3"},
	{"hash-k-is-d", KindHash, "the hash multiplies the id by d, not by the port's K", stage,
		".k_i(HashKind == ibr_pkg::HashMxm ? 32'd1 : hash_k), .bit_o(hash_bit)", ".k_i(HashKind == ibr_pkg::HashMxm ? 32'd1 : hash_d), .bit_o(hash_bit)", def},
	{"slid-low-bits", KindHash, "the id XORs SLID into bits 15..0, not 31..16", stage,
		"assign id = {8'd0, psn} ^ {slid, 16'd0};", "assign id = {8'd0, psn} ^ {16'd0, slid};", "mult0_ideal_c3_psn_slid_wide"},
	{"link-port-shift", KindHash, "the thesis link encoding shifts the port by 8, not 9", "ibr_link_pre.sv",
		"assign d_o = {1'b0, switch_i, 15'd0} + {15'd0, port_i, 9'd0} + 32'd509;", "assign d_o = {1'b0, switch_i, 15'd0} + {16'd0, port_i, 8'd0} + 32'd509;", def},
	{"crc-hash-no-c", KindHash, "the CRC-16 hash drops its constant C (1 for CRC-16; CRC-32's is 0)", "ibr_hash.sv",
		"assign bit_o = ^(p & Mask) ^ C;", "assign bit_o = ^(p & Mask);", "crc16_ideal_c3"},
}

// ByID returns the mutation named id.
func ByID(id string) (Mutation, bool) {
	for _, m := range Mutations {
		if m.ID == id {
			return m, true
		}
	}
	return Mutation{}, false
}

// ConfigOf resolves the mutation's configuration.
func (m Mutation) ConfigOf() (verilog.Config, error) {
	for _, c := range append(verilog.Matrix(), verilog.Variants()...) {
		if c.Name() == m.Config {
			return c, nil
		}
	}
	return verilog.Config{}, fmt.Errorf("mutation %s: no configuration %s", m.ID, m.Config)
}

// Apply returns a copy of files with the mutation applied: Old must occur
// exactly once in File.
func (m Mutation) Apply(files []verilog.File) ([]verilog.File, error) {
	out, err := verilog.Patch(files, m.File, m.Old, m.New)
	if err != nil {
		return nil, fmt.Errorf("mutation %s: %w (the RTL changed: update the mutation)", m.ID, err)
	}
	return out, nil
}

// Write writes the mutant as a user would hold it: the patched library, the
// configuration's wrapper and the file list ibr_stage.f, into dir; it returns
// the file list's path and the top module.
func (m Mutation) Write(dir string) (fileList, top string, err error) {
	c, err := m.ConfigOf()
	if err != nil {
		return "", "", err
	}
	files, err := verilog.Files(c)
	if err != nil {
		return "", "", err
	}
	if files, err = m.Apply(files); err != nil {
		return "", "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", "", err
	}
	if _, err := verilog.Write(dir, files); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, verilog.FileList), c.Module(), nil
}

// Outcome is what the campaign found of one mutation.
type Outcome struct {
	ID         string  `json:"id"`
	Caught     bool    `json:"caught"`     // the comparison with the model found it
	By         string  `json:"by"`         // verify or scoreboard: the run whose comparison found it
	Check      string  `json:"check"`      // what differed first: packet, stat, state, count, deadlock, status, ...
	Vectors    int     `json:"vectors"`    // verify: vectors up to and including the first mismatch
	OfVectors  int     `json:"of_vectors"` // verify: vectors the run had
	Packets    int     `json:"packets"`    // scoreboard: packets up to and including the first mismatch
	OfPackets  int     `json:"of_packets"` // scoreboard: packets the run had (0: not run)
	Mismatches int     `json:"mismatches"` // every mismatch of the run that found it (or of verify)
	Assertions int     `json:"assertions"` // errors the RTL's own assertions reported, over the runs made
	Stopped    string  `json:"stopped"`    // the runs an RTL assertion ended ($fatal) before their end: verify, scoreboard or both
	Seconds    float64 `json:"seconds"`    // the mutant's builds and runs
}

// Options of a campaign run: the work directory, and whether a mutant that
// verify's comparison misses goes on to the DPI-C scoreboard (with its
// default options, dpi.DefaultRun) built over the C library Lib ("": built
// into the work directory, which needs a checkout).
type Options struct {
	WorkDir    string
	Scoreboard bool
	Lib        string
	Log        func(format string, args ...any)
}

// Run checks one mutant as `verify --rtl` does, with the default
// co-simulation's vectors, stalls and gaps (Verilator; the Icarus cross-run
// adds nothing the comparison counts), then, if that comparison misses it and
// o.Scoreboard is set, as `scoreboard --rtl` does.
func Run(ctx context.Context, m Mutation, o Options) (*Outcome, error) {
	t0 := time.Now()
	dir := filepath.Join(o.WorkDir, m.ID)
	list, top, err := m.Write(filepath.Join(dir, "mutant"))
	if err != nil {
		return nil, err
	}
	c, err := m.ConfigOf()
	if err != nil {
		return nil, err
	}
	u, err := cosim.LoadUserRTL(list, top, c)
	if err != nil {
		return nil, err
	}
	vo := cosim.DefaultVerify
	vo.Configs, vo.RTL, vo.WorkDir = []verilog.Config{c}, u, dir
	out := &Outcome{ID: m.ID}
	rep, err := cosim.Verify(ctx, vo)
	var st *cosim.Stopped
	switch {
	case errors.As(err, &st):
		// An assertion inside the RTL ended the run: that is the RTL's own
		// check, not the comparison, which caught the bug only if it found a
		// mismatch before the stop.
		r := st.Result
		out.Stopped, out.Mismatches, out.Assertions, out.OfVectors = "verify", len(r.First), r.Assertions, st.Of
		if len(r.First) > 0 {
			out.Caught, out.By, out.Check, out.Vectors = true, "verify", r.First[0].What, r.First[0].Index+1
		}
	case err != nil:
		return nil, fmt.Errorf("mutation %s: %w", m.ID, err)
	default:
		out.Mismatches, out.Assertions = rep.Mismatches, rep.Assertions
		for _, cr := range rep.Configs {
			out.OfVectors += cr.Vectors
			if r := cr.Verilator; r != nil && len(r.First) > 0 {
				out.Caught, out.By, out.Check, out.Vectors = true, "verify", r.First[0].What, r.First[0].Index+1
			}
		}
	}
	// The builds are large and each mutant's own: keep the disk flat.
	if err := os.RemoveAll(filepath.Join(dir, "rtl")); err != nil {
		return nil, err
	}
	if !out.Caught && o.Scoreboard {
		lib := o.Lib
		if lib == "" {
			lib = filepath.Join(o.WorkDir, "libibreservoir.a")
			if _, err := os.Stat(lib); err != nil {
				if err := dpi.BuildLibrary(ctx, lib); err != nil {
					return nil, err
				}
			}
		}
		sdir := filepath.Join(dir, "scoreboard")
		b, err := dpi.BuildRTL(ctx, sdir, u, lib)
		if err != nil {
			return nil, fmt.Errorf("mutation %s: %w", m.ID, err)
		}
		ro := dpi.DefaultRun
		r, err := b.Run(ctx, 0, ro)
		var dst *dpi.Stopped
		if errors.As(err, &dst) {
			r, err = dst.Result, nil
			out.Stopped = strings.TrimPrefix(out.Stopped+", scoreboard", ", ")
		}
		if err != nil {
			return nil, fmt.Errorf("mutation %s: scoreboard: %w", m.ID, err)
		}
		out.OfPackets, out.Assertions = ro.Packets, out.Assertions+r.Assertions
		if len(r.First) > 0 {
			out.Caught, out.By, out.Check, out.Packets, out.Mismatches = true, "scoreboard", r.First[0].What, r.First[0].Packet+1, max(r.Mismatches, len(r.First))
		}
		if err := os.RemoveAll(sdir); err != nil {
			return nil, err
		}
	}
	out.Seconds = time.Since(t0).Seconds()
	if o.Log != nil {
		o.Log("mutation %-22s %s\n", m.ID, out.Summary())
	}
	return out, nil
}

// Summary is the outcome in a few words.
func (o *Outcome) Summary() string {
	s := "escaped verify"
	if o.OfPackets > 0 {
		s += " and the scoreboard"
	}
	if o.Caught {
		s = "caught by " + o.caughtAt()
	}
	if o.Stopped != "" {
		s += "; an RTL assertion stopped " + o.Stopped
	}
	return fmt.Sprintf("%s; %d mismatches, %d RTL assertion errors, %.1f s", s, o.Mismatches, o.Assertions, o.Seconds)
}

// caughtAt is the run, the check and the vector or packet that caught it.
func (o *Outcome) caughtAt() string {
	if o.By == "scoreboard" {
		return fmt.Sprintf("scoreboard (%s) at packet %d of %d", o.Check, o.Packets, o.OfPackets)
	}
	return fmt.Sprintf("verify (%s) at vector %d of %d", o.Check, o.Vectors, o.OfVectors)
}

// Section is the campaign's table in docs/rtl.md.
var Section = markers.Section{
	Begin: "<!-- mutation campaign: begin (go run . mutate --doc docs/rtl.md) -->",
	End:   "<!-- mutation campaign: end -->",
}

// Table renders the outcomes (one per mutation, in the campaign's order) as
// the Markdown table of Section.
func Table(outs []*Outcome) ([]byte, error) {
	if err := complete(outs); err != nil {
		return nil, err
	}
	var b strings.Builder
	caught := 0
	for _, o := range outs {
		if o.Caught {
			caught++
		}
	}
	fmt.Fprintf(&b, "%d of %d planted bugs caught by the comparison with the model (verify --rtl, default vectors: seed %d, %d random, stall %d, gap %d).\n\n",
		caught, len(outs), cosim.DefaultVerify.Seed, cosim.DefaultVerify.Random, cosim.DefaultVerify.Stall, cosim.DefaultVerify.Gap)
	b.WriteString("| mutation | kind | bug | file | configuration | caught by | first check | caught after | RTL assertion errors |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for i, o := range outs {
		b.WriteString(Row(Mutations[i], o) + "\n")
	}
	return []byte(b.String()), nil
}

// Row is the mutation's row of the table.
func Row(m Mutation, o *Outcome) string {
	by, check, n := "escaped", "-", "-"
	switch {
	case o.Caught && o.By == "scoreboard":
		by, check, n = "scoreboard", o.Check, fmt.Sprintf("%d of %d packets", o.Packets, o.OfPackets)
	case o.Caught:
		by, check, n = "verify", o.Check, fmt.Sprintf("%d of %d vectors", o.Vectors, o.OfVectors)
	case o.OfPackets > 0:
		by = "escaped (verify, scoreboard)"
	}
	switch {
	case o.Stopped != "" && o.Caught:
		by += " (then an RTL assertion stopped " + o.Stopped + ")"
	case o.Stopped != "":
		// The RTL's own assertion ended a run ($fatal) before the comparison
		// found anything: caught by the assertion, not by the comparison.
		by = "RTL assertion only (it stopped " + o.Stopped + ")"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %d |", m.ID, m.Kind, m.What, m.File, m.Config, by, check, n, o.Assertions)
}

// complete checks the outcomes are the campaign's, one per mutation, in order.
func complete(outs []*Outcome) error {
	if len(outs) != len(Mutations) {
		return fmt.Errorf("mutation: %d outcomes for %d mutations: run the whole campaign (or merge every shard)", len(outs), len(Mutations))
	}
	for i, o := range outs {
		if o.ID != Mutations[i].ID {
			return fmt.Errorf("mutation: outcome %d is %s, want %s", i, o.ID, Mutations[i].ID)
		}
	}
	return nil
}

// Merge orders outcomes of several shards into the campaign's order.
func Merge(parts ...[]*Outcome) ([]*Outcome, error) {
	by := map[string]*Outcome{}
	for _, p := range parts {
		for _, o := range p {
			if by[o.ID] != nil {
				return nil, fmt.Errorf("mutation: %s in two shards", o.ID)
			}
			by[o.ID] = o
		}
	}
	var outs []*Outcome
	for _, m := range Mutations {
		o := by[m.ID]
		if o == nil {
			return nil, fmt.Errorf("mutation: no outcome for %s: merge every shard", m.ID)
		}
		outs = append(outs, o)
		delete(by, m.ID)
	}
	for id := range by {
		return nil, fmt.Errorf("mutation: outcome for %s, which is not in the campaign", id)
	}
	return outs, nil
}

// ReadJSON reads a shard's outcomes (WriteJSON's file).
func ReadJSON(path string) ([]*Outcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var outs []*Outcome
	if err := json.Unmarshal(b, &outs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, o := range outs {
		if o.Caught && o.By != "verify" && o.By != "scoreboard" {
			return nil, fmt.Errorf("%s: %s caught by %q, want verify or scoreboard", path, o.ID, o.By)
		}
		switch o.Stopped {
		case "", "verify", "scoreboard", "verify, scoreboard":
		default:
			return nil, fmt.Errorf("%s: %s stopped %q, want verify, scoreboard or both", path, o.ID, o.Stopped)
		}
	}
	return outs, nil
}

// Shard is the mutations of shard i of n (0 <= i < n): every n-th, from i.
func Shard(i, n int) []Mutation {
	var ms []Mutation
	for k, m := range Mutations {
		if k%n == i {
			ms = append(ms, m)
		}
	}
	return ms
}
