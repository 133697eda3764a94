// Package cpu reports the CPU features the fast paths dispatch on, and the
// CPU's identity for the provenance recorded in manifests.
//
// Setting IBRESERVOIR_GENERIC=1 in the environment makes every fast path fall
// back to its plain-Go reference, for comparison runs and benchmarks.
package cpu

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Generic reports whether the fast paths are disabled by the environment.
var Generic = os.Getenv("IBRESERVOIR_GENERIC") == "1"

// AVX512 reports whether the AVX-512 kernels may run: AVX-512 F, BW, VL and
// VPOPCNTDQ, on amd64, unless disabled.
var AVX512 = !Generic && runtime.GOARCH == "amd64" &&
	cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.AVX512VPOPCNTDQ)

// AVX2 reports whether the AVX2 kernels may run, unless disabled.
var AVX2 = !Generic && runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2)

// Provenance describes the machine for manifests and reports.
type Provenance struct {
	Brand    string   `json:"brand"`
	Vendor   string   `json:"vendor"`
	Family   int      `json:"family"`
	Model    int      `json:"model"`
	Cores    int      `json:"logical_cores"`
	Features []string `json:"features"`
	Kernel   string   `json:"kernel"` // which fast path the run used: avx512, avx2 or generic
	GOOS     string   `json:"goos"`
	GOARCH   string   `json:"goarch"`
}

// Kernel names the widest fast path available.
func Kernel() string {
	switch {
	case AVX512:
		return "avx512"
	case AVX2:
		return "avx2"
	}
	return "generic"
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
