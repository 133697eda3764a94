// SPDX-License-Identifier: Apache-2.0

package cpu

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChoose: the default is the widest path the CPU has; a forced path is
// honoured when the CPU has it and refused (with the variable named)
// otherwise; IBRESERVOIR_GENERIC=1 means "reference".
func TestChoose(t *testing.T) {
	all, noAVX512, none := available(true, true), available(false, true), available(false, false)
	for _, tc := range []struct {
		forced, generic string
		avail           []string
		want, err       string
	}{
		{"", "", all, KernelAVX512, ""},
		{"", "", noAVX512, KernelAVX2, ""},
		{"", "", none, KernelPortable, ""},
		{"", "0", none, KernelPortable, ""},
		{"avx2", "", all, KernelAVX2, ""},
		{"portable", "", all, KernelPortable, ""},
		{"reference", "", none, KernelReference, ""},
		{"", "1", all, KernelReference, ""},
		{"reference", "1", all, KernelReference, ""},
		{"avx512", "", noAVX512, "", "IBRESERVOIR_KERNEL=avx512: this CPU"},
		{"avx2", "", none, "", "IBRESERVOIR_KERNEL=avx2: this CPU"},
		{"AVX2", "", all, "", `IBRESERVOIR_KERNEL="AVX2": not a kernel`},
		{"generic", "", all, "", `not a kernel; want one of avx512, avx2, portable, reference`},
		{"avx2", "1", all, "", "IBRESERVOIR_GENERIC=1 forces the reference kernels but IBRESERVOIR_KERNEL=avx2"},
		{"", "yes", all, "", `IBRESERVOIR_GENERIC="yes"`},
	} {
		got, err := choose(tc.forced, tc.generic, tc.avail)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("choose(%q, %q, %v) = %q, %v; want %q", tc.forced, tc.generic, tc.avail, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("choose(%q, %q, %v) = %q, %v; want an error containing %q", tc.forced, tc.generic, tc.avail, got, err, tc.err)
		}
	}
}

// TestKernelFlags: the flags the fast paths read agree with Kernel, and the
// chosen path is one the CPU has.
func TestKernelFlags(t *testing.T) {
	k := Kernel()
	if AVX512 != (k == KernelAVX512) || AVX2 != (k == KernelAVX512 || k == KernelAVX2) || Generic != (k == KernelReference) {
		t.Errorf("kernel %s but AVX512 %t, AVX2 %t, Generic %t", k, AVX512, AVX2, Generic)
	}
	ok := false
	for _, a := range Available() {
		ok = ok || a == k
	}
	if !ok || Describe().Kernel != k {
		t.Errorf("kernel %s, available %v, provenance %q", k, Available(), Describe().Kernel)
	}
}

// TestRefusal runs this test binary with a bad IBRESERVOIR_KERNEL: it must
// stop at start, exit status 2, with the variable named on stderr, and run
// no test.
func TestRefusal(t *testing.T) {
	if os.Getenv("CPU_TEST_CHILD") == "1" {
		t.Fatal("the child ran a test: the bad value was not refused at start")
	}
	for _, env := range [][]string{{EnvKernel + "=avx3"}, {EnvKernel + "=avx2", EnvGeneric + "=1"}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRefusal$")
		cmd.Env = append(append(os.Environ(), "CPU_TEST_CHILD=1"), env...)
		out, err := cmd.CombinedOutput()
		ee, isExit := err.(*exec.ExitError)
		if err != nil && !isExit {
			t.Skipf("cannot run the test binary again (%v): under user-mode emulation without binfmt, say", err)
		}
		if !isExit || ee.ExitCode() != 2 || !strings.Contains(string(out), "ibreservoir: "+strings.SplitN(env[len(env)-1], "=", 2)[0]) {
			t.Errorf("%v: %v, output %q; want exit status 2 naming the variable", env, err, out)
		}
	}
}
