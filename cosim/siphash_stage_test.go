// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// sipStageConfigs are SipHash stages whose rounds are pipelined
// (HashLatency): at 64 bits over 3 and 8 cycles (the deepest, 4, at 8), at
// 128 bits over 4 (the PSN of a local packet in the beat after the
// telemetry byte), and at 512 bits over 8 cycles at the depth that hides
// them, 10 (the hash is taken a cycle after the PSN beat enters and comes
// HashLatency cycles later). The id is the recommended one, PSN ^ SLID<<16,
// and the generator the cheap LFSR, so that the ring's entries are small.
func sipStageConfigs() []verilog.Config {
	mk := func(w, lat, depth int) verilog.Config {
		c := verilog.DefaultConfig()
		c.Hash, c.ID, c.Generator = hash.New(hash.SipHash), hash.IDPSNSLID, "lfsr-lut/b16"
		c.Width, c.HashLatency, c.PipeDepth = w, lat, depth
		return c
	}
	return []verilog.Config{mk(64, 3, 2), mk(64, 8, 4), mk(128, 4, 6), mk(512, 8, 10)}
}

// TestSipHashStage co-simulates sipStageConfigs against the model: the
// width test's vectors under stalls and gaps, and back-to-back traffic of
// every size class; every packet and status must match, and at 512 bits
// one-beat packets must pass at a beat a cycle (at least 0.98 of the
// cycles), the pipelined hash hidden by the ring of pending decisions. Two
// planted bugs in the hash's pipeline must fail it: the packet's tag one
// stage short of its hash (the hash written to another packet's decision),
// and the hash one stage shorter than the tags.
func TestSipHashStage(t *testing.T) {
	testtool.Need(t, "verilator")
	cfgs := sipStageConfigs()
	var rows []rateRow
	for _, c := range cfgs {
		// One build per configuration: a build holds one beat width.
		m, err := BuildVerilator(context.Background(), filepath.Join(workDir(t, "siphash-stage-"+c.Name()), "verilator"), []verilog.Config{c}, 1)
		if err != nil {
			t.Fatal(err)
		}
		const i = 0
		set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 21), Seed: 21, Random: 300})
		if err != nil {
			t.Fatal(err)
		}
		path, _ := writeSet(t, set)
		res, err := m.Run(context.Background(), i, path, RunOptions{MaxFail: 3, Stall: 5, Gap: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors == 0 {
			t.Errorf("%s: %d vectors, %d mismatches, %d RTL assertions (%s)", c.Name(), res.Vectors, res.Mismatches, res.Assertions, res.FirstAssertion)
		}
		for k, mix := range rateMixes {
			if k == 4 && c.DataW() == 64 {
				continue // the longest packets tell nothing of the hash at 64 bits
			}
			path, _ := writeSet(t, rateSet(t, c, mix, uint64(31+k)))
			res, err := m.Run(context.Background(), i, path, RunOptions{MaxFail: 3, Dense: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mismatches != 0 || res.Assertions != 0 || res.Vectors != mix.n {
				t.Errorf("%s, %s: %d of %d packets checked, %d mismatches, %d RTL assertions (%s)",
					c.Name(), mix.name, res.Vectors, mix.n, res.Mismatches, res.Assertions, res.FirstAssertion)
				continue
			}
			row := measuredRow(t, c, mix.name, res)
			rows = append(rows, row)
			if c.DataW() == 512 {
				if rate := float64(res.Beats) / float64(res.Cycles); rate < 0.98 {
					t.Errorf("%s, %s: %.3f beats a cycle, want at least 0.98", c.Name(), mix.name, rate)
				}
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.String() + "\n")
	}
	t.Logf("back-to-back traffic, egress always ready:\n%s", b.String())

	plants := []struct{ name, old, bug string }{
		{"the tag one stage short of its hash", "assign hash_tag = sip_tags[DecW*HashLatency +: DecW];",
			"assign hash_tag = sip_tags[DecW*(HashLatency-1) +: DecW] | (sip_tags[DecW*HashLatency +: DecW] & '0);"},
		{"the hash one stage shorter than its tag", "ibr_siphash #(.SipKey(SipKey), .Latency(HashLatency)) u_siphash",
			"ibr_siphash #(.SipKey(SipKey), .Latency(HashLatency - 1)) u_siphash"},
	}
	c := cfgs[3]
	for i, p := range plants {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			pm := buildPlanted(t, fmt.Sprintf("siphash-plant-%d", i), c, "ibr_switch_stage.sv", p.old, p.bug)
			path, _ := writeSet(t, rateSet(t, c, rateMixes[2], 21))
			res, err := pm.Run(context.Background(), 0, path, RunOptions{MaxFail: 3, Dense: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mismatches == 0 && res.Assertions == 0 {
				t.Fatalf("%s (%s): passed co-simulation", p.name, c.Name())
			}
			t.Logf("%s (%s): %d mismatches, %d RTL assertions", p.name, c.Name(), res.Mismatches, res.Assertions)
		})
	}
}
