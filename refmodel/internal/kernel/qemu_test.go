// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
)

// TestPortableOnARM64 builds this package's tests for linux/arm64 and runs
// the cross-checks under qemu-aarch64-static (Debian's qemu-user-static):
// the portable path, the one arm64 runs, held to the reference on an
// (emulated) arm64 CPU, with the plan and count entries. Each cross-check must have run on the portable path.
// Skipped, visibly, where qemu-aarch64-static is missing, on arm64 itself
// (where the cross-checks run natively) and with -short.
func TestPortableOnARM64(t *testing.T) {
	if runtime.GOARCH == "arm64" {
		t.Skip("on arm64 the cross-checks run natively")
	}
	if testing.Short() {
		t.Skip("-short: no arm64 build")
	}
	testtool.Need(t, "qemu-aarch64-static") // Debian's qemu-user-static; skipped visibly, failed under CI
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the arm64 tests with")
	}
	bin := filepath.Join(t.TempDir(), "kernel-arm64.test")
	build := exec.Command(goBin, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the tests for linux/arm64: %v\n%s", err, out)
	}
	run := exec.Command(qemu, bin, "-test.v", "-test.run",
		"^(TestParityFastMatchesGeneric|TestSipFastMatchesGeneric|TestParityGenericContract|TestSipGenericContract|TestParityPlanMatchesGeneric|TestCountPlanMatchesGeneric|TestCountGenericContract)$")
	// The default path: the portable one on arm64, whatever this process forces.
	run.Env = append(os.Environ(), "IBRESERVOIR_KERNEL=", "IBRESERVOIR_GENERIC=")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the arm64 tests under %s: %v\n%s", qemu, err, out)
	}
	for _, want := range []string{"--- PASS: TestParityFastMatchesGeneric/portable", "--- PASS: TestSipFastMatchesGeneric/portable",
		"--- SKIP: TestParityFastMatchesGeneric/avx2", "--- PASS: TestParityGenericContract", "--- PASS: TestSipGenericContract",
		"--- PASS: TestParityPlanMatchesGeneric/portable", "--- PASS: TestCountPlanMatchesGeneric/portable", "--- PASS: TestCountGenericContract"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the arm64 run's output lacks %q:\n%s", want, out)
		}
	}
}
