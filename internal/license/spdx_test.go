// SPDX-License-Identifier: Apache-2.0

package license

// TestSPDX: every source file of the tree says its license (the SPDX line
// the RTL ecosystem expects of IP); -update writes the line where it is
// missing. A generated file (a "Code generated ... DO NOT EDIT." first line)
// is its generator's to write: the RTL's and the testbench header's
// generators write it (verilog, cosim), and the tests that hold those files
// current hold the line too; the assembly generators' outputs are left as
// their generators make them.

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// generated is Go's mark of a generated file, on its first line.
var generated = regexp.MustCompile(`\A// Code generated .* DO NOT EDIT\.\r?\n`)

var update = flag.Bool("update", false, "write the SPDX line into every source file that lacks it")

// comment is each source extension's line-comment marker.
var comment = map[string]string{
	".go": "//", ".s": "//", ".sv": "//", ".svh": "//", ".vlt": "//",
	".c": "//", ".h": "//", ".cc": "//", ".cpp": "//",
	".sh": "#", ".py": "#", ".toml": "#",
}

// skipDir: directories that hold no source of the project's (test inputs,
// outputs, tool state).
func skipDir(name string) bool {
	switch name {
	case ".git", "testdata", "out", "obj_dir", "__pycache__", "node_modules":
		return true
	}
	return strings.HasSuffix(name, ".egg-info")
}

// head is how many leading lines may come before the SPDX line (a shebang, a
// generated-code line, a build constraint).
const head = 4

func TestSPDX(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	lic, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil || !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(lic, []byte("Version 2.0, January 2004")) {
		t.Errorf("LICENSE is missing or is not the Apache License 2.0 (%v)", err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		mark, ok := comment[filepath.Ext(path)]
		if !ok {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated.Match(b) {
			return nil
		}
		checked++
		lines := strings.SplitN(string(b), "\n", head+2)
		for i, l := range lines {
			if i > head {
				break
			}
			if strings.Contains(l, Line) {
				return nil
			}
		}
		rel, _ := filepath.Rel(root, path)
		if !*update {
			t.Errorf("%s: no %q in its first %d lines (go test ./internal/license -update writes it)", rel, Line, head+1)
			return nil
		}
		return os.WriteFile(path, withLine(b, mark), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d source files under %s: the walk missed the tree", checked, root)
	}
}

// withLine puts the SPDX line at the top of src, after a shebang; in Go a
// blank line keeps it out of the package documentation.
func withLine(src []byte, mark string) []byte {
	var out bytes.Buffer
	if bytes.HasPrefix(src, []byte("#!")) {
		i := bytes.IndexByte(src, '\n') + 1
		out.Write(src[:i])
		src = src[i:]
	}
	out.WriteString(mark + " " + Line + "\n")
	if mark == "//" {
		out.WriteString("\n")
	}
	out.Write(src)
	return out.Bytes()
}
