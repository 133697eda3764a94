// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package hash

// No vector kernels outside amd64: CountOnes and CountAgree use the reference.

func availableKernels() []*kernelSet { return nil }
