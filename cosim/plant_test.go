// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"path/filepath"
	"testing"

	"ibreservoir/header"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// buildPlanted builds c's stage for the Verilator harness from a copy of the
// library with one line of file changed (old to bug), in its own work
// directory: the setup of every planted-bug co-simulation test. The line must
// be in the file exactly once (verilog.Patch), so a plant cannot go stale.
func buildPlanted(t *testing.T, dir string, c verilog.Config, file, old, bug string) *Model {
	t.Helper()
	files, err := Sources([]verilog.Config{c}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if files, err = verilog.Patch(files, file, old, bug); err != nil {
		t.Fatal(err)
	}
	m, err := buildFiles(context.Background(), workDir(t, dir), files, []verilog.Config{c}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// icarusInputs is what every Icarus run of the example testbench starts
// from: the model's stage vectors of c (the directed ones and random more,
// from seed) written as the testbench's hex file, and c's RTL files.
func icarusInputs(t *testing.T, c verilog.Config, seed uint64, random int) (*vectors.StageSet, string, []verilog.File) {
	t.Helper()
	set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, seed), Seed: seed, Random: random})
	if err != nil {
		t.Fatal(err)
	}
	files, err := verilog.Files(c)
	if err != nil {
		t.Fatal(err)
	}
	return set, writeHex(t, set), files
}

// writeHex writes set as the example testbench's hex file in a temporary
// directory and returns its path.
func writeHex(t *testing.T, set *vectors.StageSet) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stage.hex")
	if err := writeFile(path, set.WriteHex); err != nil {
		t.Fatal(err)
	}
	return path
}
