// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Dir is a set of output files written together into a directory: they are
// written into a staging directory inside it and moved into place by Commit,
// once all of them are complete. Abort (or an interrupted run) removes the
// staging directory and leaves the files already in the directory as they
// were; files of the directory that the run does not write are never touched.
type Dir struct {
	dir, stage string
	created    bool // dir did not exist before Create
	done       bool
}

// CreateDir starts a set of files for dir, creating dir if needed. Staging
// directories left in dir by runs that were killed (their process is gone)
// are removed first.
func CreateDir(dir string) (*Dir, error) {
	_, err := os.Stat(dir)
	created := errors.Is(err, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	removeStale(dir)
	stage, err := os.MkdirTemp(dir, fmt.Sprintf("%s%d-*", stagePrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	return &Dir{dir: dir, stage: stage, created: created}, nil
}

// stagePrefix starts the name of a staging directory, followed by the
// process id of the run that owns it.
const stagePrefix = ".staging-"

// removeStale removes the staging directories in dir whose process no
// longer exists.
func removeStale(dir string) {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Name(), stagePrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, '-'))])
		if err != nil || pid <= 0 {
			continue
		}
		if processGone(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// Path is where to write the file name of the set (a name, not a path).
func (d *Dir) Path(name string) string { return filepath.Join(d.stage, name) }

// Commit moves every file of the staging directory into the directory,
// each by one rename, and removes the staging directory.
func (d *Dir) Commit() error {
	if d.done {
		return fmt.Errorf("commit %s: already finished", d.dir)
	}
	es, err := os.ReadDir(d.stage)
	if err != nil {
		d.Abort()
		return fmt.Errorf("commit %s: %w", d.dir, err)
	}
	for _, e := range es {
		if err := os.Rename(filepath.Join(d.stage, e.Name()), filepath.Join(d.dir, e.Name())); err != nil {
			d.Abort()
			return fmt.Errorf("commit %s: %w", d.dir, err)
		}
	}
	d.done = true
	return os.Remove(d.stage)
}

// Abort removes the staging directory, and the directory itself if
// CreateDir made it and it is empty. It is safe after Commit (it does
// nothing), so `defer d.Abort()` covers every early return.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	os.RemoveAll(d.stage)
	if d.created {
		os.Remove(d.dir) // only if empty
	}
}
