// SPDX-License-Identifier: Apache-2.0

// Package lock keeps two runs out of one work or output directory. A run
// that holds a directory takes an exclusive flock(2) on a lock file inside
// it (Dir) or on the directory itself (Parent, for a directory that a run
// replaces whole). The kernel releases the lock when the process ends,
// however it ends, so a lock is never stale: a lock file left by a killed
// run is taken over by the next run.
package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileName is the lock file Dir keeps inside a work directory.
const FileName = ".lock"

// ErrBusy is what the error of a lock another run holds wraps.
var ErrBusy = errors.New("in use by another run")

// BusyError says which directory is held, and by which process when known.
type BusyError struct {
	Dir string
	PID int // 0: unknown
}

func (e *BusyError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is in use by another run (pid %d): wait for it to finish, or give another directory", e.Dir, e.PID)
	}
	return fmt.Sprintf("%s is in use by another run: wait for it to finish, or give another directory", e.Dir)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Dir creates the work directory dir if needed and locks it, failing at
// once with a *BusyError if another run holds it; wait, instead, blocks
// until the other run ends. The lock file, dir/.lock, holds the pid of the
// run holding it. The returned function releases the lock.
func Dir(dir string, wait bool) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return lockFile(filepath.Join(dir, FileName), dir, wait)
}

// File locks the lock file path (created if needed) as Dir locks its own,
// for what has no directory of its own to hold it: a *BusyError names what.
func File(path, what string, wait bool) (func(), error) {
	return lockFile(path, what, wait)
}

func lockFile(path, what string, wait bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f, wait); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &BusyError{Dir: what, PID: readPID(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is for the message of a run that finds the lock taken.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Truncate(0); unflock(f); f.Close() }, nil
}

// Parent locks the directory parent itself (no file is created), failing
// at once with a *BusyError naming what, if another run holds it. It is
// for a directory that a run replaces whole, whose lock cannot live inside
// it: the run locks the directory that holds it.
func Parent(parent, what string) (func(), error) {
	f, err := os.Open(parent)
	if err != nil {
		return nil, err
	}
	if err := flock(f, false); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &BusyError{Dir: what}
		}
		return nil, fmt.Errorf("lock %s: %w", parent, err)
	}
	return func() { unflock(f); f.Close() }, nil
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
