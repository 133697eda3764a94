// SPDX-License-Identifier: Apache-2.0

//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, which cancelling kills.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// peakRSSKB is the finished process's peak resident memory, from the
// kernel's accounting (getrusage's ru_maxrss).
func peakRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
