// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bytes"
	"slices"
	"testing"

	"ibreservoir/header"
	"ibreservoir/rng"
	"ibreservoir/verilog"
)

// TestAppend makes a one-vector set from a packet and a state and checks it
// against the vector the generator made from the same inputs.
func TestAppend(t *testing.T) {
	for _, c := range []verilog.Config{verilog.DefaultConfig(), {Hash: verilog.DefaultConfig().Hash, Generator: "sender", SenderL: 3, PipeDepth: 2}} {
		set, err := GenerateStage(StageConfig{Model: c.ModelConfig(header.LNHLocal, 1), Seed: 1, Random: 64})
		if err != nil {
			t.Fatal(err)
		}
		one, err := NewStageSet(set.Config)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{set.Directed, set.Directed + 5, set.Directed + 20} {
			v := set.Vectors[i]
			got, err := one.Append("given", v.In, v.Switch, v.Port, v.Congested, v.StateIn)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Out, v.Out) || !slices.Equal(got.StateOut, v.StateOut) || got.Result != v.Result || !got.Load {
				t.Errorf("%s: vector %d appended as %+v, generated %+v", c.Name(), i, got, v)
			}
		}
		if one.Directed != 3 || len(one.Vectors) != 3 || one.Vectors[2].Index != 2 {
			t.Errorf("%s: set of %d vectors, %d directed", c.Name(), len(one.Vectors), one.Directed)
		}
		bad := rng.State{0, 0}
		if c.Generator == "sender" {
			bad = rng.State{1}
		}
		if _, err := one.Append("bad", set.Vectors[0].In, 1, 1, false, bad); err == nil {
			t.Errorf("%s: state %v accepted", c.Name(), bad)
		}
	}
}
