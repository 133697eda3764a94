// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/internal/testtool"
)

// TestPythonPackage installs the package of python/ as a user does, with
// pip into a fresh venv (its in-tree build backend builds libibreservoir.so
// with go build: nothing is downloaded), and runs its tests
// (python/tests) on the installed package.
func TestPythonPackage(t *testing.T) {
	testtool.Need(t, "python3", "go")
	if testing.Short() {
		t.Skip("a venv, a pip install and a library build: not in -short")
	}
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	run := func(cwd string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1", "IBRESERVOIR_LIB=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(dir, "python3", "-m", "venv", venv)
	py := filepath.Join(venv, "bin", "python")
	src, err := filepath.Abs(filepath.Join("..", "python"))
	if err != nil {
		t.Fatal(err)
	}
	run(dir, py, "-m", "pip", "install", "--no-index", src)
	where := run(dir, py, "-c", "import ibreservoir; print(ibreservoir.__file__, ibreservoir.Library().version())")
	if !strings.HasPrefix(where, venv) || !strings.Contains(where, "site-packages") {
		t.Errorf("the package imported is not the installed one: %s", where)
	}
	out := run(dir, py, "-m", "unittest", "discover", "-v", "-s", filepath.Join(src, "tests"))
	t.Log(out)
	if !strings.Contains(out, "\nOK") {
		t.Errorf("the package's tests:\n%s", out)
	}
}
