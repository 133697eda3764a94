// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckOutputDir says, before any work, whether dir can be made the output
// directory of a run: it is a directory, or it can be created because its
// nearest existing ancestor is a writable directory. It creates nothing, so a
// run refused later leaves no trace.
func CheckOutputDir(flag, dir string) error {
	if dir == "" {
		return fmt.Errorf("%s: an empty path; name an output directory", flag)
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s %s: exists and is a file, not a directory", flag, dir)
	case err == nil:
		return writable(flag, dir, dir)
	case !missing(err):
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	return checkAncestor(flag, dir)
}

// CheckOutputFile says, before any work, whether path can be written as an
// output file: it is not a directory, and its directory exists and is
// writable or can be created.
func CheckOutputFile(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s: an empty path; name an output file", flag)
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s %s: is a directory; name a file", flag, path)
	case err == nil:
		return writable(flag, path, filepath.Dir(path))
	case !missing(err):
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return checkAncestor(flag, path)
}

// checkAncestor walks up from path to its nearest existing ancestor, which
// must be a writable directory.
func checkAncestor(flag, path string) error {
	for p := filepath.Dir(filepath.Clean(path)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s %s: %s is a file, not a directory", flag, path, p)
			}
			return writable(flag, path, p)
		}
		if !missing(err) {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		}
		if next := filepath.Dir(p); next == p {
			return fmt.Errorf("%s %s: no existing directory above it", flag, path)
		}
	}
}

// missing reports whether a stat error says the path does not exist, or
// runs through a file (ENOTDIR), which checkAncestor then names.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func writable(flag, path, dir string) error {
	if err := canWrite(dir); err != nil {
		return fmt.Errorf("%s %s: directory %s is not writable: %w", flag, path, dir, err)
	}
	return nil
}
