// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The model's packages must not depend on the command line: a program that
// imports the model gets neither the CLI's flag and command libraries nor
// its terminal and progress-bar code.
var (
	modelPackages = []string{"ibreservoir/refmodel", "ibreservoir/header", "ibreservoir/hash", "ibreservoir/rng", "ibreservoir/lfsr"}
	cliPackages   = []string{
		"ibreservoir/internal/cli",
		"github.com/spf13/cobra",
		"github.com/spf13/pflag",
		"github.com/agnivade/levenshtein",
		"golang.org/x/term",
		"github.com/schollz/progressbar/v3",
	}
)

// TestNoCommandLineDependencies lists the model packages' dependencies
// (go list -deps, the graph a program importing them builds) and refuses any
// package of the command line's.
func TestNoCommandLineDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, append([]string{"list", "-deps", "-test=false"}, modelPackages...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < len(modelPackages) {
		t.Fatalf("go list listed %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		for _, bad := range cliPackages {
			if d == bad || strings.HasPrefix(d, bad+"/") {
				t.Errorf("the model packages depend on %s (go list -deps %s)", d, strings.Join(modelPackages, " "))
			}
		}
	}
}
