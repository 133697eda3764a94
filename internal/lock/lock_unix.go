// SPDX-License-Identifier: Apache-2.0

//go:build unix

package lock

import (
	"os"

	"golang.org/x/sys/unix"
)

var errWouldBlock = unix.EWOULDBLOCK

func flock(f *os.File, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

func unflock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
