// SPDX-License-Identifier: Apache-2.0

// Package atomicfile writes output files whole or not at all: the data goes to
// a temporary file in the same directory, which is synced and renamed over the
// destination only when everything succeeded.
//
// A destination that is not a regular file (/dev/null, /dev/stdout, a FIFO)
// is written in place, as it comes, since renaming over it would replace it;
// a symbolic link is followed, and the file it names is replaced.
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
	path   string // as given, for messages
	dest   string // the file renamed over: path with its symbolic links followed
	direct bool   // writing into path itself (not a regular file)
	done   bool
}

// Create starts writing path, creating its directory if needed.
func Create(path string) (*File, error) {
	dest := path
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("create %s: is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("create %s: %w", path, err)
			}
			return &File{File: f, path: path, dest: path, direct: true}, nil
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			dest = real
		}
	}
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: f, path: path, dest: dest}, nil
}

// Commit flushes, syncs and renames the file into place.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already finished", f.path)
	}
	f.done = true
	if f.direct {
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		return nil
	}
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, f.dest)
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
	if !f.direct {
		os.Remove(f.Name())
	}
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
