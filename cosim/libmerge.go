// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A libStmt is one statement at the top level of a Liberty library group: a
// simple attribute ("time_unit : "1ps";"), a complex one
// ("capacitive_load_unit (1,ff);") or a group ("cell (X) { ... }").
type libStmt struct {
	head  string // the keyword: "time_unit", "lu_table_template", "cell"
	name  string // a group's or complex attribute's parenthesized argument, trimmed
	group bool
	text  string // the statement as written, without its leading blank space
}

// libFile is one Liberty file taken apart: what precedes the library group
// (the license comment), the library's name and its top-level statements.
type libFile struct {
	preamble string
	name     string
	stmts    []libStmt
}

// skipBlank returns the offset of the first byte at or after i that is
// neither white space, a line continuation nor inside a /* */ or // comment.
func skipBlank(b []byte, i int) (int, error) {
	for i < len(b) {
		switch {
		case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\\':
			i++
		case bytes.HasPrefix(b[i:], []byte("/*")):
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return 0, fmt.Errorf("a /* comment at byte %d is not closed", i)
			}
			i += end + 4
		case bytes.HasPrefix(b[i:], []byte("//")):
			end := bytes.IndexByte(b[i:], '\n')
			if end < 0 {
				return len(b), nil
			}
			i += end
		default:
			return i, nil
		}
	}
	return i, nil
}

// statementEnd returns the offset just past the statement starting at i: its
// ';' or, for a group, its closing '}' (and a ';' right after it, if any).
// Quoted strings and comments are skipped, so their braces do not count.
func statementEnd(b []byte, i int) (int, bool, error) {
	// A simple attribute ("name : value") ends at its ';' or, without one,
	// at the end of its line (not continued by a backslash).
	if k := bytes.IndexAny(b[i:], ":({;"); k >= 0 && b[i+k] == ':' {
		for j := i + k; j < len(b); j++ {
			switch {
			case b[j] == '"':
				q := bytes.IndexByte(b[j+1:], '"')
				if q < 0 {
					return 0, false, fmt.Errorf("a string at byte %d is not closed", j)
				}
				j += q + 1
			case b[j] == ';':
				return j + 1, false, nil
			case b[j] == '\n' && b[j-1] != '\\':
				return j, false, nil
			}
		}
		return len(b), false, nil
	}
	depth, group := 0, false
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			k := j + 1
			for k < len(b) && b[k] != '"' {
				if b[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(b) {
				return 0, false, fmt.Errorf("a string at byte %d is not closed", j)
			}
			j = k
		case c == '/' && j+1 < len(b) && b[j+1] == '*':
			end := bytes.Index(b[j+2:], []byte("*/"))
			if end < 0 {
				return 0, false, fmt.Errorf("a /* comment at byte %d is not closed", j)
			}
			j += end + 3
		case c == '{':
			depth++
			group = true
		case c == '}':
			depth--
			if depth < 0 {
				return 0, false, fmt.Errorf("an unmatched } at byte %d", j)
			}
			if depth == 0 {
				return j + 1, true, nil
			}
		case c == ';' && depth == 0 && !group:
			return j + 1, false, nil
		}
	}
	return 0, false, fmt.Errorf("the statement at byte %d is not closed", i)
}

// parseLibFile takes a Liberty file apart into its library's top-level
// statements.
func parseLibFile(b []byte) (*libFile, error) {
	i, err := skipBlank(b, 0)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b[i:], []byte("library")) {
		return nil, fmt.Errorf("no library group at byte %d", i)
	}
	f := &libFile{preamble: string(b[:i])}
	open := bytes.IndexByte(b[i:], '{')
	if open < 0 {
		return nil, fmt.Errorf("the library group at byte %d has no {", i)
	}
	head := string(b[i : i+open])
	l, r := strings.IndexByte(head, '('), strings.IndexByte(head, ')')
	if l < 0 || r < l {
		return nil, fmt.Errorf("the library group at byte %d has no name", i)
	}
	f.name = strings.Trim(strings.TrimSpace(head[l+1:r]), `"`)
	i += open + 1
	for {
		if i, err = skipBlank(b, i); err != nil {
			return nil, err
		}
		if i >= len(b) {
			return nil, fmt.Errorf("library %s is not closed", f.name)
		}
		if b[i] == '}' {
			if rest, _ := skipBlank(b, i+1); rest != len(b) {
				return nil, fmt.Errorf("text after library %s's closing } at byte %d", f.name, rest)
			}
			return f, nil
		}
		end, group, err := statementEnd(b, i)
		if err != nil {
			return nil, fmt.Errorf("library %s: %w", f.name, err)
		}
		s := libStmt{text: string(b[i:end]), group: group}
		s.head = strings.TrimSpace(s.text[:strings.IndexAny(s.text+"(", ":({")])
		if l := strings.IndexByte(s.text, '('); l >= 0 && !strings.Contains(s.text[:l], ":") {
			if r := strings.IndexByte(s.text[l:], ')'); r > 0 {
				s.name = strings.Trim(strings.TrimSpace(s.text[l+1:l+r]), `"`)
			}
		}
		f.stmts = append(f.stmts, s)
		i = end
	}
}

// MergeLiberty merges Liberty files into one library named name, for tools
// that take a single Liberty file (Yosys's dfflibmap and abc): the first
// file's preamble (its license comment) and header attributes, the union of
// every file's non-cell groups (lu_table_template, power_lut_template,
// operating_conditions, input_voltage, ...), then every file's cells in
// order. default_max_transition, a design-rule limit the files set
// differently (ASAP7's SIMPLE file 4000 ps, the others 320 ps; every output
// pin sets its own), takes the smallest. Otherwise the files must agree: a unit or another attribute that differs
// between them, a group of one name defined differently, or a cell defined
// twice is an error, not a choice.
func MergeLiberty(name string, files ...[]byte) ([]byte, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("merge liberty: no files")
	}
	var header, cells []string
	attrs := map[string]string{}  // simple and complex attributes: head(name) -> text
	groups := map[string]string{} // non-cell groups: head(name) -> text
	cellOf := map[string]int{}    // cell -> file
	var preamble string
	for k, b := range files {
		f, err := parseLibFile(b)
		if err != nil {
			return nil, fmt.Errorf("merge liberty: file %d: %w", k+1, err)
		}
		if k == 0 {
			preamble = f.preamble
		}
		for _, s := range f.stmts {
			key := s.head + "(" + s.name + ")"
			switch {
			case s.head == "cell":
				if j, dup := cellOf[s.name]; dup {
					return nil, fmt.Errorf("merge liberty: cell %s is in files %d and %d", s.name, j+1, k+1)
				}
				cellOf[s.name] = k
				cells = append(cells, s.text)
			case s.group:
				// A group is named by its head and argument, except the
				// driver waveforms, several of which share a template name:
				// those are told apart by their content.
				if !strings.HasSuffix(s.head, "_template") && !libNamedGroup[s.head] {
					key = normalize(s.text)
				}
				if t, ok := groups[key]; ok {
					if normalize(t) != normalize(s.text) {
						return nil, fmt.Errorf("merge liberty: file %d defines %s %s unlike an earlier file", k+1, s.head, s.name)
					}
					continue
				}
				groups[key] = s.text
				header = append(header, s.text)
			default:
				if t, ok := attrs[key]; ok {
					if s.head == "default_max_transition" {
						// A design-rule limit: the stricter holds.
						if libNumber(s.text) < libNumber(t) {
							attrs[key] = s.text
							header[slices.Index(header, t)] = s.text
						}
						continue
					}
					if normalize(t) != normalize(s.text) && !libFreeAttr[s.head] {
						return nil, fmt.Errorf("merge liberty: file %d has %q, an earlier file %q", k+1, s.text, t)
					}
					continue
				}
				if k > 0 && !libFreeAttr[s.head] {
					return nil, fmt.Errorf("merge liberty: file %d has %q, which file 1 has not", k+1, s.text)
				}
				attrs[key] = s.text
				header = append(header, s.text)
			}
		}
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("merge liberty: no cells")
	}
	var out strings.Builder
	out.WriteString(preamble)
	fmt.Fprintf(&out, "library (%s) {\n", name)
	for _, t := range header {
		out.WriteString("  " + t + "\n")
	}
	for _, t := range cells {
		out.WriteString("  " + t + "\n")
	}
	out.WriteString("}\n")
	return []byte(out.String()), nil
}

// libFreeAttr are the library attributes that describe one file (when and
// how it was written), not the cells: the merged library keeps the first
// file's and the others may differ.
var libFreeAttr = map[string]bool{"comment": true, "date": true, "revision": true}

// libNamedGroup are the library groups other than templates whose argument
// names them (one definition per name).
var libNamedGroup = map[string]bool{"operating_conditions": true, "input_voltage": true, "output_voltage": true, "wire_load": true}

// libNumber is a simple attribute's numeric value ("x : 320;" is 320), or
// +Inf when it has none.
func libNumber(stmt string) float64 {
	_, v, _ := strings.Cut(stmt, ":")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ";")), 64)
	if err != nil {
		return math.Inf(1)
	}
	return f
}

// normalize collapses a statement's white space, so that two files that
// indent a group differently still agree.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
