// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// processGone reports whether no process pid exists (kill(pid, 0) says
// ESRCH; a process of another user still exists).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
