// SPDX-License-Identifier: Apache-2.0

// Package atomicfile writes output files whole or not at all: the data goes to
// a temporary file in the same directory, which is synced and renamed over the
// destination only when everything succeeded.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A File is an output file being written. Commit publishes it; Abort (or a
// failed Commit) removes the temporary file and leaves the destination as it was.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path, creating its directory if needed.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// Commit flushes, syncs and renames the file into place.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already finished", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort discards the file. It is safe to call after Commit (it does nothing),
// so `defer f.Abort()` covers every early return.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// Write creates path and fills it with fill; the file appears only if fill
// returns nil.
func Write(path string, fill func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
