// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package lock

import (
	"errors"
	"os"
)

// Elsewhere than Unix: no lock (two runs in one directory are not kept
// apart).

var errWouldBlock = errors.New("would block")

func flock(*os.File, bool) error { return nil }
func unflock(*os.File)           {}
