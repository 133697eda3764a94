// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package cli

import "os"

// canWrite says whether this process may create files in dir. Without
// access(2) (Windows), it creates an empty file there and removes it.
func canWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".ibreservoir-write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
