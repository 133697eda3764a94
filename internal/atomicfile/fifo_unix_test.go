// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFIFO: a FIFO (as /dev/stdout can be) is written in place, its
// reader gets the data, and it stays a FIFO. A planted rename over the
// destination fails here without touching the machine's /dev/null.
func TestWriteFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if err := WriteFile(p, []byte("streamed")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		// The reader waits for a writer that never came.
		t.Fatalf("%s is %v after a write, want a FIFO", p, fi.Mode())
	}
	if b := <-got; string(b) != "streamed" {
		t.Fatalf("the FIFO's reader got %q, want %q", b, "streamed")
	}
}
