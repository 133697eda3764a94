// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"fmt"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/testtool"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// TestPlantedMalformed: with sender draws, a packet whose hop_rand is 0 is
// malformed (docs/spec.md section 4); a cut-through stage forwards it with no
// draw and no telemetry change, stomped when corrupt, and flags it (section
// 5). The directed vectors hold such packets, sound and corrupt, and the
// model gives their expected bytes and status. Each planted bug must fail the
// co-simulation by comparison with the model, not only by an RTL assertion.
func TestPlantedMalformed(t *testing.T) {
	testtool.Need(t, "verilator")
	c := verilog.DefaultConfig()
	c.Hash, c.Generator, c.CountBits, c.SenderL = hash.New(hash.SipHash), "sender", 0, 3
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 23), Seed: 23, Random: 100})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeSet(t, set)
	for i, p := range []struct{ name, old, bug string }{
		{"a malformed packet drawn from as a sound one",
			"assign replace   = zero_q && !spent && !malformed;", "assign replace   = zero_q && !spent;"},
		{"a malformed packet not flagged",
			"stat_malformed_o <= malformed;", "stat_malformed_o <= 1'b0;"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := buildPlanted(t, fmt.Sprintf("malformed-plant-%d", i), c, "ibr_switch_stage.sv", p.old, p.bug)
			res, err := m.Run(context.Background(), 0, path, RunOptions{MaxFail: 3, Stall: 5, Gap: 3})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mismatches == 0 {
				t.Fatalf("%s (%s): no mismatch with the model (%d RTL assertions)", p.name, c.Name(), res.Assertions)
			}
			t.Logf("%s (%s): %d mismatches, %d RTL assertions", p.name, c.Name(), res.Mismatches, res.Assertions)
		})
	}
}
