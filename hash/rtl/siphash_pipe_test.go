// SPDX-License-Identifier: Apache-2.0

package rtl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/verilog"
)

// sipFile is the pipelined SipHash's file, beside the stage's library.
const sipFile = "ibr_siphash.sv"

// sipPipeSources are the files of ibr_siphash's bench, its module's from
// sipPath.
func sipPipeSources(sipPath string) []string {
	return []string{filepath.Join(stageRTL, "ibr_pkg.sv"), sipPath, "ibr_siphash_pipe_tb.sv"}
}

// TestSipHashPipelineMatchesModel runs ibr_siphash at every latency, 0 to 8,
// on the hash-only bench's 4096 cases (back to back and between bubbles) and
// requires the Go model's bit from each, once per case, in order, exactly
// its latency after the case entered.
func TestSipHashPipelineMatchesModel(t *testing.T) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		t.Skip("iverilog is not installed")
	}
	simulateVectors(t, t.TempDir(), hashOnlyVectors(), sipPipeSources(filepath.Join(stageRTL, sipFile))...)
}

// sipPlants are bugs a pipelined SipHash could hide, each planted at one
// line of ibr_siphash.sv: the line, its bug, and the latency the bench must
// report failing ("" for any).
var sipPlants = []struct {
	name, old, bug, latency string
}{
	{"a stage's registers load on their own stage's valid, not the previous stage's",
		"if (vin[j-1]) begin", "if (vin[j]) begin", ""},
	{"the output register loads a cycle late",
		"if (vin[Latency-1]) begin", "if (vin[Latency]) begin", ""},
	{"a round skipped at latency 3 (its third stage starts one round late)",
		"assign xo[SW*j +: SW] = sip_rounds(x_q, (8 * j) / Latency, (8 * (j + 1)) / Latency);",
		"assign xo[SW*j +: SW] = sip_rounds(x_q, (8 * j) / Latency + ((Latency == 3 && j == 2) ? 1 : 0), (8 * (j + 1)) / Latency);",
		"latency 3"},
	{"valid_o a cycle early (with the previous input's bit)",
		"assign valid_o = vin[Latency];", "assign valid_o = vin[Latency-1];", ""},
}

// TestSipHashPipelinePlantedBugs plants each of sipPlants in a copy of
// ibr_siphash.sv (verilog.Patch) and requires the bench of
// TestSipHashPipelineMatchesModel to fail (at the plant's latency, when it
// names one).
func TestSipHashPipelinePlantedBugs(t *testing.T) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		t.Skip("iverilog is not installed")
	}
	src, err := os.ReadFile(filepath.Join(stageRTL, sipFile))
	if err != nil {
		t.Fatal(err)
	}
	hex := hashOnlyVectors()
	for _, p := range sipPlants {
		files, err := verilog.Patch([]verilog.File{{Name: sipFile, Data: src}}, sipFile, p.old, p.bug)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, sipFile)
		if err := os.WriteFile(path, files[0].Data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runVectors(dir, hex, sipPipeSources(path)...)
		switch {
		case err != nil:
			t.Errorf("%s: the bench did not run: %v", p.name, err)
		case strings.Contains(out, "CASES 4096 BAD 0") || !strings.Contains(out, "MISMATCH"):
			t.Errorf("%s: the bench passes:\n%s", p.name, out)
		case p.latency != "" && !strings.Contains(out, "MISMATCH "+p.latency+" "):
			t.Errorf("%s: the bench does not name %s:\n%s", p.name, p.latency, out)
		default:
			first, _, _ := strings.Cut(out, "\n")
			t.Logf("%s: caught: %s", p.name, first)
		}
	}
}

// TestSipHashPipelineLint: ibr_siphash passes the library's lint
// (verilator --lint-only -Wall, the library's waivers) at every latency, and
// refuses a latency outside 0..8.
func TestSipHashPipelineLint(t *testing.T) {
	if _, err := exec.LookPath("verilator"); err != nil {
		t.Skip("verilator is not installed")
	}
	lint := func(latency int) ([]byte, error) {
		return exec.Command("verilator", "--lint-only", "-Wall", "-I"+stageRTL, "--top-module", "ibr_siphash",
			fmt.Sprintf("-GLatency=%d", latency), filepath.Join(stageRTL, verilog.WaiverFile),
			filepath.Join(stageRTL, verilog.PackageFile), filepath.Join(stageRTL, sipFile)).CombinedOutput()
	}
	for l := 0; l <= 8; l++ {
		if out, err := lint(l); err != nil {
			t.Errorf("Latency %d: %v\n%s", l, err, out)
		}
	}
	for _, l := range []int{-1, 9} {
		if out, err := lint(l); err == nil || !strings.Contains(string(out), "Latency must be 0..8") {
			t.Errorf("Latency %d: lint passed or failed for another reason: %v\n%s", l, err, out)
		}
	}
}
