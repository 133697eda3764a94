// SPDX-License-Identifier: Apache-2.0

// Package markers rewrites the generated part of a text file: the lines
// between a begin marker and an end marker (HTML comments in Markdown, so a
// page renders the same), leaving the rest of the file as it is.
package markers

import (
	"bytes"
	"fmt"
	"os"

	"ibreservoir/internal/atomicfile"
)

// A Section is a generated part of a file, between the lines Begin and End.
type Section struct {
	Begin, End string
}

// Replace returns doc with the text between s's markers replaced by body
// (which should end in a newline). Both markers must be there, Begin first.
func (s Section) Replace(doc, body []byte) ([]byte, error) {
	i := bytes.Index(doc, []byte(s.Begin))
	j := bytes.Index(doc, []byte(s.End))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no markers: want a line %q and, after it, a line %q", s.Begin, s.End)
	}
	i += len(s.Begin)
	out := append([]byte{}, doc[:i]...)
	out = append(out, '\n')
	out = append(out, body...)
	return append(out, doc[j:]...), nil
}

// Check reports whether the file at path has s's markers, so that a command
// can refuse it before doing the work whose result it would write there.
func (s Section) Check(path string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if _, err := s.Replace(doc, nil); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Rewrite replaces s's section of the file at path with body, writing the
// file whole or not at all.
func (s Section) Rewrite(path string, body []byte) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := s.Replace(doc, body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, out)
}
