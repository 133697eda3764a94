// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"testing"

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
