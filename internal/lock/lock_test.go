// SPDX-License-Identifier: Apache-2.0

package lock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDirBusy: a second lock of a held directory fails at once, naming the
// holder's pid; after release it is taken again.
func TestDirBusy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	release, err := Dir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Dir(dir, false)
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) || be.PID != os.Getpid() ||
		!strings.Contains(err.Error(), dir+" is in use by another run (pid "+strconv.Itoa(os.Getpid())+")") {
		t.Fatalf("second lock: %v", err)
	}
	release()
	r2, err := Dir(dir, false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	r2()
}

// TestParent: the parent lock creates nothing and excludes a second holder.
func TestParent(t *testing.T) {
	dir := t.TempDir()
	release, err := Parent(dir, "out")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parent(dir, "out"); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "out is in use by another run") {
		t.Fatalf("second lock: %v", err)
	}
	release()
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the lock left %v", es)
	}
}

// TestDeadHolder: the lock of a process that ended is free (the kernel
// released it), whatever its lock file says.
func TestDeadHolder(t *testing.T) {
	if os.Getenv("LOCK_HELPER") != "" {
		if _, err := Dir(os.Getenv("LOCK_HELPER"), false); err != nil {
			os.Exit(3)
		}
		os.Exit(0) // ends holding the lock
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeadHolder$")
	cmd.Env = append(os.Environ(), "LOCK_HELPER="+dir)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	release, err := Dir(dir, false)
	if err != nil {
		t.Fatalf("a dead holder's lock: %v", err)
	}
	release()
}
