// SPDX-License-Identifier: Apache-2.0

// Package testtool is the tests' one rule for what they need from the
// machine: a missing program (or file) skips the test, except under CI (the
// environment variable CI set, as scripts/test.sh sets it), where
// scripts/setup.sh installs everything and a missing one fails the test.
package testtool

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// InCI reports whether the tests run under CI.
func InCI() bool { return os.Getenv("CI") != "" }

// Missing returns the programs of tools that are not on the PATH.
func Missing(tools ...string) []string {
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	return missing
}

// SkipOrFail skips t with msg, or under CI fails it.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Need skips t (under CI: fails it) unless every program of tools is
// installed.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	if m := Missing(tools...); len(m) > 0 {
		SkipOrFail(t, strings.Join(m, ", ")+" not installed (scripts/setup.sh installs it)")
	}
}

// Have reports whether tool is installed, for a part of a test that can be
// left out; under CI a missing tool fails t.
func Have(t testing.TB, tool string) bool {
	t.Helper()
	if len(Missing(tool)) == 0 {
		return true
	}
	if InCI() {
		t.Fatalf("%s not installed (scripts/setup.sh installs it)", tool)
	}
	t.Logf("%s not installed (scripts/setup.sh installs it): skipping its part", tool)
	return false
}
