// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReplaces: the destination appears whole, replacing what was there,
// and a failed fill leaves it as it was, with no temporary file behind.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("%s holds %q, want %q", p, b, "new")
	}
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { w.Write([]byte("partial")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("a failed fill gave %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after a failed fill %s holds %q, want %q", p, b, "new")
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("%d entries in %s, want the output alone", len(es), dir)
	}
}

// TestWriteDevNull: writing to /dev/null leaves it the device it is. Renaming
// a temporary file over it, as a regular destination is written, would
// replace the machine's /dev/null with a file when run as root.
func TestWriteDevNull(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is %v after a write, want a character device", os.DevNull, fi.Mode())
	}
}

// TestWriteSymlink: a symbolic link is followed: the file it names gets the
// data and the link stays a link.
func TestWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is %v after a write, want a symbolic link", link, fi.Mode())
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("%s holds %q, want %q", target, b, "new")
	}
}

// TestCreateDirectory: a directory as the destination is refused, naming it.
func TestCreateDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir); err == nil {
		t.Fatalf("Create(%s) of a directory succeeded", dir)
	}
}
