// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"ibreservoir/internal/lock"
)

// refuseEmpty refuses a string flag given an empty value (--out "",
// --configs ""): an empty value never means "all" or "none" or "here"; the
// flag's default is had by leaving it out.
func refuseEmpty(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		switch {
		case err != nil || f.Value.Type() != "string" || f.Value.String() != "":
		case f.DefValue == "":
			err = fmt.Errorf("--%s is empty: give a value, or leave the flag out", f.Name)
		default:
			err = fmt.Errorf("--%s is empty: give a value, or leave the flag out for its default, %s", f.Name, f.DefValue)
		}
	})
	return err
}

// lockWork takes the work directory of a run (created if needed), so that
// two runs never build or run in one directory at once; the error names
// the run holding it. The returned function releases it.
func lockWork(dir string) (func(), error) {
	release, err := lock.Dir(dir, false)
	if errors.Is(err, lock.ErrBusy) {
		return nil, fmt.Errorf("--work: work directory %w", err)
	}
	return release, err
}

// checkLibrary refuses a --lib that is not a static library (an ar archive)
// before anything is built with it.
func checkLibrary(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--lib: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("--lib: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--lib %s: not a regular file; give libibreservoir.a (go build -buildmode=c-archive ./capi)", path)
	}
	magic := make([]byte, len(arMagic))
	if n, _ := f.Read(magic); n != len(arMagic) || string(magic) != arMagic {
		return fmt.Errorf("--lib %s: not a static library (no %q archive header); give libibreservoir.a (go build -buildmode=c-archive ./capi)", path, arMagic[:7])
	}
	return nil
}

// arMagic starts every ar archive, and so every static library.
const arMagic = "!<arch>\n"
