// SPDX-License-Identifier: Apache-2.0

//go:build unix

package cli

import "golang.org/x/sys/unix"

// canWrite asks the system whether this process may create files in dir
// (access(2) with W_OK), creating nothing.
func canWrite(dir string) error { return unix.Access(dir, unix.W_OK) }
