// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package atomicfile

import "os"

// processGone reports whether no process pid exists: on Windows,
// os.FindProcess opens the process and fails when there is none.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
