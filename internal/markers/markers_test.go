// SPDX-License-Identifier: Apache-2.0

package markers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	s := Section{"<!-- b -->", "<!-- e -->"}
	doc := "# x\n\n" + s.Begin + "\nold\n" + s.End + "\ntail\n"
	got, err := s.Replace([]byte(doc), []byte("| new |\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# x\n\n" + s.Begin + "\n| new |\n" + s.End + "\ntail\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"no markers\n", s.End + "\n" + s.Begin + "\n", s.Begin + "\n"} {
		if _, err := s.Replace([]byte(bad), nil); err == nil || !strings.Contains(err.Error(), "markers") {
			t.Errorf("Replace(%q): error %v, want one naming the markers", bad, err)
		}
	}
	p := filepath.Join(t.TempDir(), "r.md")
	if err := os.WriteFile(p, []byte("none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(p); err == nil {
		t.Error("Check passed a file without markers")
	}
	if err := s.Rewrite(p, nil); err == nil {
		t.Error("Rewrite changed a file without markers")
	}
	if b, _ := os.ReadFile(p); string(b) != "none\n" {
		t.Errorf("the file became %q", b)
	}
}
