// SPDX-License-Identifier: Apache-2.0

// Package cpu reports the CPU features the fast paths dispatch on, the path
// the process runs, and the CPU's identity for the provenance recorded in
// manifests.
//
// # Choosing the path
//
// By default every fast path runs the widest kernels the CPU has: "avx512"
// (AVX-512 F, BW, DQ, VL and VPOPCNTDQ, with AVX2 and BMI2), else "avx2"
// (AVX2 and BMI2), both on amd64 alone, else "portable" (plain Go written
// for speed, every GOARCH). The environment variable IBRESERVOIR_KERNEL
// forces one of them, or "reference" (the plain-Go references, the oracle
// the fast paths are tested against), for comparison runs, benchmarks and
// tests on a machine that has a wider path. IBRESERVOIR_GENERIC=1, its older
// spelling, means IBRESERVOIR_KERNEL=reference. A value the process cannot
// honour (an unknown name, a path this CPU or GOARCH lacks, or the two
// variables disagreeing) stops the process at start with a message naming
// the variable: a silent fallback would leave a comparison run measuring the
// wrong path.
//
// Forcing "avx2" hides AVX-512 from every fast path (AVX512 is false);
// "portable" and "reference" hide both. The hash sweeps, which have vector
// kernels and a reference but no portable form, run their reference under
// either.
package cpu

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// The paths, widest first.
const (
	KernelAVX512    = "avx512"
	KernelAVX2      = "avx2"
	KernelPortable  = "portable"
	KernelReference = "reference"
)

// Kernels lists the paths, widest first.
var Kernels = []string{KernelAVX512, KernelAVX2, KernelPortable, KernelReference}

// EnvKernel and EnvGeneric are the variables that force a path.
const (
	EnvKernel  = "IBRESERVOIR_KERNEL"
	EnvGeneric = "IBRESERVOIR_GENERIC"
)

// hasAVX512 and hasAVX2 are what the CPU offers, whatever the environment.
var (
	hasAVX512 = runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ,
		cpuid.AVX512VL, cpuid.AVX512VPOPCNTDQ, cpuid.AVX2, cpuid.BMI2)
	hasAVX2 = runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2)
	// hasCLMUL: carry-less multiply (PCLMULQDQ) and SSE4.1, for the
	// VCRC's folding CRC (package header).
	hasCLMUL = runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.CLMUL, cpuid.SSE4)
)

// kernel is the path this process runs (Kernel).
var kernel = mustChoose()

// AVX512 reports whether the AVX-512 kernels run: the CPU has them and the
// environment does not force a narrower path.
var AVX512 = kernel == KernelAVX512

// AVX2 reports whether the AVX2 kernels may run (the CPU has them and the
// environment does not force "portable" or "reference"). It is true under
// "avx512" as well: a fast path without an AVX-512 form runs its AVX2 one.
var AVX2 = kernel == KernelAVX512 || kernel == KernelAVX2

// CLMUL reports whether the carry-less-multiply CRC may run: the CPU has
// PCLMULQDQ and SSE4.1 and the path is a vector one ("avx512" or "avx2";
// "portable" and "reference" hide it, as they hide the vector kernels).
var CLMUL = hasCLMUL && AVX2

// Generic reports whether the environment forces the plain-Go references.
var Generic = kernel == KernelReference

// Kernel names the path this process runs: "avx512", "avx2", "portable" or
// "reference".
func Kernel() string { return kernel }

// Available lists the paths this CPU can run, widest first, whatever the
// environment forces: the cross-checks run each against the reference.
func Available() []string { return available(hasAVX512, hasAVX2) }

func available(avx512, avx2 bool) []string {
	var ks []string
	if avx512 {
		ks = append(ks, KernelAVX512)
	}
	if avx2 {
		ks = append(ks, KernelAVX2)
	}
	return append(ks, KernelPortable, KernelReference)
}

func mustChoose() string {
	k, err := choose(os.Getenv(EnvKernel), os.Getenv(EnvGeneric), Available())
	if err != nil {
		fmt.Fprintf(os.Stderr, "ibreservoir: %v\n", err)
		os.Exit(2)
	}
	return k
}

// choose returns the path for the environment's values of EnvKernel and
// EnvGeneric, given the paths the CPU has (widest first): the widest by
// default, the forced one when it is available, an error otherwise.
func choose(forced, generic string, avail []string) (string, error) {
	switch generic {
	case "", "0":
	case "1":
		if forced != "" && forced != KernelReference {
			return "", fmt.Errorf("%s=1 forces the reference kernels but %s=%s asks for another; set one of them",
				EnvGeneric, EnvKernel, forced)
		}
		forced = KernelReference
	default:
		return "", fmt.Errorf("%s=%q: want 1 (the reference kernels) or unset", EnvGeneric, generic)
	}
	if forced == "" {
		return avail[0], nil
	}
	known := false
	for _, k := range Kernels {
		known = known || k == forced
	}
	if !known {
		return "", fmt.Errorf("%s=%q: not a kernel; want one of %s", EnvKernel, forced, strings.Join(Kernels, ", "))
	}
	for _, k := range avail {
		if k == forced {
			return k, nil
		}
	}
	return "", fmt.Errorf("%s=%s: this CPU (%s, %s) cannot run it; it can run %s",
		EnvKernel, forced, strings.TrimSpace(cpuid.CPU.BrandName), runtime.GOARCH, strings.Join(avail, ", "))
}

// Provenance describes the machine for manifests and reports.
type Provenance struct {
	Brand    string   `json:"brand"`
	Vendor   string   `json:"vendor"`
	Family   int      `json:"family"`
	Model    int      `json:"model"`
	Cores    int      `json:"logical_cores"`
	Features []string `json:"features"`
	Kernel   string   `json:"kernel"` // the path the run used: avx512, avx2, portable or reference
	GOOS     string   `json:"goos"`
	GOARCH   string   `json:"goarch"`
}

// Describe returns the provenance of this machine.
func Describe() Provenance {
	var fs []string
	for _, f := range cpuid.CPU.FeatureSet() {
		if strings.HasPrefix(f, "AVX") || f == "BMI2" || f == "POPCNT" || f == "GFNI" || f == "VPCLMULQDQ" {
			fs = append(fs, f)
		}
	}
	return Provenance{
		Brand: cpuid.CPU.BrandName, Vendor: cpuid.CPU.VendorString, Family: cpuid.CPU.Family,
		Model: cpuid.CPU.Model, Cores: runtime.NumCPU(), Features: fs, Kernel: Kernel(),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
	}
}
