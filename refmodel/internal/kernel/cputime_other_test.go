// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package kernel

import "time"

// threadCPU is not measured outside Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
