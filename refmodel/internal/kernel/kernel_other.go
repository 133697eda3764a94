// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package kernel

// simdPaths are the vector paths of this architecture: none (internal/cpu
// offers "portable" and "reference" alone).
var simdPaths []*Path
