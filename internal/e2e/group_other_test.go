// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package e2e

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: without process groups, cancelling kills the
// command alone.
func ownGroup(cmd *exec.Cmd) {}

// peakRSSKB is 0: the process's peak memory is not accounted here.
func peakRSSKB(ps *os.ProcessState) int64 { return 0 }
