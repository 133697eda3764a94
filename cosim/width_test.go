// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/refmodel"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// widthConfigs are the configurations the beat-width tests run at each
// width: the default; mxm (its pipelined hash) with the DestQP id, depth 3
// and the combinational ready path; CRC-32 with the SLID id, the wide link
// encoding and depth 4; sender draws. Between them every field a wide beat
// feeds the hash from the sop or the telemetry beat, every depth and both
// ready paths.
func widthConfigs(w int) []verilog.Config {
	a := verilog.DefaultConfig()
	b := a
	b.Hash, b.ID, b.PipeDepth, b.Ready = hash.New(hash.MXM), hash.IDPSNDestQP, 3, verilog.ReadyComb
	c := a
	c.Hash, c.ID, c.Link, c.PipeDepth = hash.New(hash.CRC32), hash.IDPSNSLID, hash.LinkWide, 4
	d := a
	d.Generator, d.CountBits, d.SenderL = refmodel.GeneratorSender, 0, 3
	cs := []verilog.Config{a, b, c, d}
	for i := range cs {
		cs[i].Width = w
	}
	return cs
}

// TestWidth co-simulates widthConfigs at 64 and at 512 bits on the same
// vectors (the model's packets; the harness cuts them into beats of the
// width), under backpressure and input gaps, with zero mismatches and every
// reachable coverage bin hit.
func TestWidth(t *testing.T) {
	testtool.Need(t, "verilator")
	for _, w := range []int{64, 512} {
		t0 := time.Now()
		var log bytes.Buffer
		rep, err := Verify(context.Background(), Options{
			Configs: widthConfigs(w), Seed: 21, Random: 300, WorkDir: workDir(t, fmt.Sprintf("width-%d", w)),
			Lanes: 1, Parts: 1, Stall: 5, Gap: 3, Log: &log,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d bits: %.1f s (build %.1f s, 0 when reused)\n%s", w, time.Since(t0).Seconds(), rep.Build.Seconds(), log.String())
		for _, cr := range rep.Configs {
			for _, e := range cr.Explained {
				t.Error(e)
			}
			for _, b := range cr.Missing {
				t.Errorf("%s: coverage bin %s never hit", cr.Config.Name(), b)
			}
		}
		if !rep.OK() {
			t.Fatalf("%d bits: %d mismatches, %d RTL assertions, %d coverage holes", w, rep.Mismatches, rep.Assertions, rep.Uncovered)
		}
	}
}

// widthPlants are bugs that only wide beats can show: each is one line of
// a copy of the library changed, the configuration (index into
// widthConfigs) and width that must catch it, and whether back-to-back
// one-beat packets (whose next sop beat brings its port configuration while
// the packet ahead is still inside) must catch it. (A plant keeps every signal
// read, so the build's -Wall lint passes and the bug, not the lint, fails.)
var widthPlants = []struct {
	name, file, old, bug string
	cfg, width           int
	dense                bool // back-to-back one-beat packets (rateSet), not the width test's vectors
}{
	{"the PSN of a local packet read one lane late at 512 bits", "ibr_switch_stage.sv",
		", Psn2 = 8 + 9,", ", Psn2 = 8 + 10,", 0, 512, false},
	{"the congested bit of a telemetry byte in the sop beat taken from the packet before", "ibr_switch_stage.sv",
		"          if (iw_sop) begin\n            e_cong_q[wr_q] <= iw_cong;", "          if (1'b0) begin\n            e_cong_q[wr_q] <= iw_cong;", 0, 512, false},
	{"the SLID of a PSN in the sop beat taken from the packet before", "ibr_switch_stage.sv",
		"assign slid   = iw_sop ? iw_data[15:0] : slid_q;", "assign slid   = slid_q;", 2, 512, false},
	{"the DestQP of a PSN in the telemetry beat taken from the packet before", "ibr_switch_stage.sv",
		"assign destqp = is_tel_in ? tel_destqp : destqp_q;", "assign destqp = destqp_q;", 1, 512, false},
	{"the hash's K as the hash is taken, not as the PSN beat was (the next sop beat's cfg_we_i already applied)", "ibr_switch_stage.sv",
		"assign hash_k   = id_k_q;", "assign hash_k   = k_q | (id_k_q & 32'd0);", 3, 512, true},
	{"a beat waiting in the skid buffer given the configuration current when it leaves it", "ibr_switch_stage.sv",
		"assign iw_k = skid_v_q ? skid_k_q : (cfg_we_i ? k_pre : k_q);", "assign iw_k = (cfg_we_i ? k_pre : k_q) | (skid_k_q & 32'd0);", 3, 512, true},
	{"the VCRC ingress check of a 128-bit eop beat compared with the wrong lanes", "ibr_crc16_bytes_end.sv",
		"assign got[16*k +: 16] = {data_i[DataW-1-8*(NB-4*k-3) -: 8], data_i[DataW-1-8*(NB-4*k-4) -: 8]};",
		"assign got[16*k +: 16] = {data_i[DataW-1-8*(NB-4*k-4) -: 8], data_i[DataW-1-8*(NB-4*k-3) -: 8]};", 0, 128, false},
	{"a sop beat's segment given as nonzero with one packet a beat", "ibr_switch_stage.sv",
		"assign out_sop_seg_o = '0;", "assign out_sop_seg_o = {SegW{head_sop}};", 0, 512, false},
}

// queuePlants are bugs in the ring of pending decisions (DataW > 64), which
// only back-to-back short packets show: several decisions pending at once,
// the generator drawing ahead of the head beat, the ring full as its head
// leaves. TestWidthPlanted runs them on rateSet's one-beat packets (26 to
// 62 bytes) offered back to back, the egress stalled one cycle in 4.
var queuePlants = []struct {
	name, old, bug string
	cfg            int
}{
	{"the head beat given the congested bit of the packet behind it (the entries' decisions swapped)",
		"assign dec_cong_q   = e_cong_q[rd_q];", "assign dec_cong_q   = e_cong_q[dec_next(rd_q)];", 0},
	{"a ring of one entry: a second pending decision overwrites the first",
		"dec_next = (p == DecW'(DecN - 1)) ? '0 : p + DecW'(1);", "dec_next = p & '0;", 2},
	{"the state reported with a packet's status read from the generator, which has drawn ahead for the packets behind",
		"assign gen_state_o = Sender ? '0 : e_state_q[StateW*prev_rd +: StateW];",
		"assign gen_state_o = Sender ? '0 : gen_state | (e_state_q[StateW*prev_rd +: StateW] & '0);", 0},
	{"the head's draw answer written into its entry as it leaves, the full ring taking that entry again",
		"if (!(tel_done && dn_q == rd_q)) begin", "if (1'b1 || !(tel_done && dn_q == rd_q)) begin", 0},
}

// TestWidthPlanted plants each of widthPlants and queuePlants, and a wrong
// rewind matrix for one eop position (12 trailing bytes: 54 valid bytes in a
// 512-bit eop beat), in a copy of the library: the width test's vectors (for
// queuePlants, back-to-back one-beat packets) must fail it at its width
// (mismatches or an RTL assertion). The unchanged library passes the same
// vectors (TestWidth, TestWidthRate, TestWidthAll).
func TestWidthPlanted(t *testing.T) {
	testtool.Need(t, "verilator")
	type plant struct {
		name, file, old, bug string
		cfg, width           int
		dense                bool // back-to-back one-beat packets (rateSet), not the width test's vectors
	}
	var plants []plant
	for _, p := range widthPlants {
		plants = append(plants, plant(p))
	}
	for _, p := range queuePlants {
		plants = append(plants, plant{p.name, "ibr_switch_stage.sv", p.old, p.bug, p.cfg, 512, true})
	}
	lib, err := verilog.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lib {
		if f.Name != verilog.PackageFile {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(line, "      12: vcrc_rewind = 256'h") {
				// Flip the last bit of the row of register bit 0.
				last := line[len(line)-2]
				flip := fmt.Sprintf("%x", (strings.IndexByte("0123456789abcdef", last))^1)
				plants = append(plants, plant{"the rewind by 12 zero bytes wrong in one bit", verilog.PackageFile,
					line, line[:len(line)-2] + flip + ";", 0, 512, false})
			}
		}
	}
	if len(plants) != len(widthPlants)+len(queuePlants)+1 {
		t.Fatal("no rewind matrix for 12 bytes in ibr_pkg.sv")
	}
	for i, p := range plants {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := widthConfigs(p.width)[p.cfg]
			m := buildPlanted(t, fmt.Sprintf("width-plant-%d", i), c, p.file, p.old, p.bug)
			// The width test's vectors under stalls and gaps; or back-to-back
			// one-beat packets at line rate (the egress always ready) and with
			// the egress stalled one cycle in 4 (beats waiting in the skid
			// buffer).
			var set *vectors.StageSet
			opts := []RunOptions{{MaxFail: 3, Stall: 5, Gap: 3}}
			if p.dense {
				set, opts = rateSet(t, c, rateMixes[2], 21), []RunOptions{{MaxFail: 3, Dense: true}, {MaxFail: 3, Stall: 4, Dense: true}}
			} else if set, err = vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 21), Seed: 21, Random: 300}); err != nil {
				t.Fatal(err)
			}
			path, _ := writeSet(t, set)
			mismatches, assertions := 0, 0
			for _, o := range opts {
				res, err := m.Run(context.Background(), 0, path, o)
				if err != nil {
					t.Fatal(err)
				}
				mismatches, assertions = mismatches+res.Mismatches, assertions+res.Assertions
			}
			if mismatches == 0 && assertions == 0 {
				t.Fatalf("%s (%s, %d bits): passed co-simulation", p.name, c.Name(), p.width)
			}
			t.Logf("%s (%s): %d mismatches, %d RTL assertions", p.name, c.Name(), mismatches, assertions)
		})
	}
}

// TestWidthIcarus runs the example testbench in Icarus Verilog at 512-bit
// beats (the file's packets cut into beats under the beat rules, gaps before
// any beat, stalls, cong_i random off the sop beat) on the default
// configuration's directed vectors and 20 random ones: zero mismatches and
// every vector checked. The PSN of widthPlants[0], read one lane late, fails
// a run of the first 64 vectors by comparison. (Icarus simulates a 512-bit
// stage about 40 times slower a cycle than a 64-bit one: the runs are kept
// short.)
func TestWidthIcarus(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	c := widthConfigs(512)[0]
	set, hexFile, files := icarusInputs(t, c, 21, 20)
	t0 := time.Now()
	res, err := runIcarusFiles(context.Background(), t.TempDir(), c, files, hexFile, len(set.Vectors), 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d vectors, %d mismatches, %.1f s (compile and run)", c.Name(), res.Vectors, res.Mismatches, time.Since(t0).Seconds())
	if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != len(set.Vectors) {
		t.Fatalf("%s: %d mismatches, %d RTL assertions over %d of %d vectors: %v", c.Name(), res.Mismatches, res.Assertions, res.Vectors, len(set.Vectors), res.First)
	}
	p := widthPlants[0]
	planted, err := verilog.Patch(files, p.file, p.old, p.bug)
	if err != nil {
		t.Fatal(err)
	}
	set.Vectors = set.Vectors[:64]
	short := writeHex(t, set)
	res, err = runIcarusFiles(context.Background(), t.TempDir(), c, planted, short, len(set.Vectors), 5)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	if res.Mismatches == 0 {
		t.Fatalf("%s: the Icarus bench at 512 bits passed it", p.name)
	}
	t.Logf("%s: %d mismatches in %d vectors", p.name, res.Mismatches, len(set.Vectors))
}
