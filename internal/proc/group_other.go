// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package proc

import "os/exec"

// ownGroup leaves cmd as exec.CommandContext made it: without process groups
// (Windows), cancelling kills the tool itself, and WaitDelay bounds the wait
// for any child that holds its output open.
func ownGroup(cmd *exec.Cmd) {}
