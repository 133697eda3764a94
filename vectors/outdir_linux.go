// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// exchange swaps directories a and b atomically; false if the file system
// cannot (then the caller renames twice).
func exchange(a, b string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return false, nil
	}
	return false, fmt.Errorf("swap %s and %s: %w", a, b, err)
}

// freeBytes is the space an unprivileged process may still write in dir's
// file system.
func freeBytes(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
