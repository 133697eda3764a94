// SPDX-License-Identifier: Apache-2.0

// Package golden compares test output with the golden files in a package's
// testdata directory, and rewrites them when the tests run with -update.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is the -update flag of every test binary that imports this package.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Check compares got with the golden file at path. Under -update it writes got
// there first (creating the directory). A difference fails the test, naming
// the first differing line.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := firstDiff(got, want); d != "" {
		t.Fatalf("output differs from %s (go test -update rewrites it if intended): %s", path, d)
	}
}

// CheckStable renders the output twice and fails if the two renderings
// differ (the output must depend on its inputs alone, not on map order, time
// or the machine), then compares it with the golden file at path as Check
// does.
func CheckStable(t testing.TB, path string, render func() []byte) {
	t.Helper()
	got := render()
	if d := firstDiff(render(), got); d != "" {
		t.Fatalf("%s: a second rendering differs from the first: %s", path, d)
	}
	Check(t, path, got)
}

// firstDiff describes the first line where got and want differ, or returns ""
// when they are equal.
func firstDiff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			c := 0
			for c < min(len(g), len(w)) && g[c] == w[c] {
				c++
			}
			return fmt.Sprintf("line %d, column %d:\n\tgot  %s\n\twant %s", i+1, c+1, around(g, c), around(w, c))
		}
	}
	return "" // not reached: lines split at every newline lose nothing
}

// around shortens a long line to the 120 bytes from a little before column c.
func around(line string, c int) string {
	const width = 120
	if len(line) <= width {
		return line
	}
	lo := max(0, c-20)
	hi := min(len(line), lo+width)
	out := line[lo:hi]
	if lo > 0 {
		out = "..." + out
	}
	if hi < len(line) {
		out += "..."
	}
	return out
}
