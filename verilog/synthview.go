// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"bytes"
	"fmt"
	"strings"
)

// synthMacros are the macros whose value synthesis knows: Yosys defines
// SYNTHESIS when it reads a design and nothing defines FORMAL outside the
// formal checks.
var synthMacros = map[string]bool{"SYNTHESIS": true, "FORMAL": false}

// SynthesisView is the library as synthesis reads it, for a digest of what
// a synthesis result depends on: every file but SpecFile (read only by the
// formal checks) and the waivers, each with the text of the branches
// synthesis skips removed: the body of `ifdef FORMAL (the properties and
// the lemmas) and of `ifndef SYNTHESIS (the simulation checks), and the
// `else branches of their opposites. The directive lines stay, so that the
// structure is in the view; a branch on any other macro stays whole (the
// wrappers choose those). An edit to a property or a simulation check then
// leaves the view, and the figures of a synthesis campaign, as they were.
func SynthesisView(files []File) ([]File, error) {
	var out []File
	for _, f := range files {
		if f.Name == SpecFile || f.Name == WaiverFile {
			continue
		}
		v, err := synthesisText(f.Data)
		if err != nil {
			return nil, fmt.Errorf("verilog: %s: %w", f.Name, err)
		}
		out = append(out, File{f.Name, v})
	}
	return out, nil
}

// synthesisText is one file's text with the branches synthesis skips
// removed (SynthesisView).
func synthesisText(src []byte) ([]byte, error) {
	// Each open conditional: whether synthesis reads its current branch
	// (known: the macro is one of synthMacros), and whether the text around
	// it is read.
	type cond struct {
		known, read, outer bool
	}
	var (
		stack []cond
		out   bytes.Buffer
	)
	read := true
	for n, line := range strings.SplitAfter(string(src), "\n") {
		f := strings.Fields(line)
		dir := ""
		if len(f) > 0 && strings.HasPrefix(f[0], "`") {
			dir = f[0]
		}
		switch dir {
		case "`ifdef", "`ifndef":
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: %s without a macro", n+1, dir)
			}
			c := cond{outer: read, read: true}
			if v, ok := synthMacros[f[1]]; ok {
				c.known, c.read = true, v == (dir == "`ifdef")
			}
			stack = append(stack, c)
			if read {
				out.WriteString(line)
			}
			read = read && c.read
			continue
		case "`elsif":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: `elsif without `ifdef", n+1)
			}
			// A further condition: its branch is read as far as this view
			// knows when the text around is.
			c := &stack[len(stack)-1]
			c.known, c.read = false, true
			read = c.outer
		case "`else":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: `else without `ifdef", n+1)
			}
			c := &stack[len(stack)-1]
			if c.known {
				c.read = !c.read
			}
			read = c.outer && c.read
			if c.outer {
				out.WriteString(line)
			}
			continue
		case "`endif":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: `endif without `ifdef", n+1)
			}
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			read = c.outer
		}
		if read {
			out.WriteString(line)
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("%d `ifdef without `endif", len(stack))
	}
	return out.Bytes(), nil
}
