// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A Table is a titled table of a command's report, written as text (aligned
// columns) or as Markdown for a specification or a review to paste.
type Table struct {
	Title   string     // "Layout ..."; Markdown writes it as a level-3 heading
	Notes   []string   // lines under the title
	Columns []string   // column headings
	Rows    [][]string // cells, as many per row as there are columns
	Footer  []string   // lines after the table (verdicts)
}

// WriteMarkdown writes the table as a Markdown section: the title as a
// heading, the notes as a paragraph, a pipe table, the footer as a paragraph.
// A "|" inside a cell is escaped.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	if len(t.Notes) > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(mdCells(t.Columns), " | "), strings.Repeat("---|", len(t.Columns)))
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(mdCells(r), " | "))
	}
	if len(t.Footer) > 0 {
		b.WriteByte('\n')
		for _, f := range t.Footer {
			fmt.Fprintf(&b, "%s\n", f)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCells(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

// WriteText writes the table as text: the title, the notes indented by two
// spaces, a blank line, the columns aligned (headings in capitals), then the
// footer.
func (t *Table) WriteText(w io.Writer) error {
	if t.Title != "" {
		fmt.Fprintf(w, "%s\n", t.Title)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if t.Title != "" || len(t.Notes) > 0 {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(t.Columns, "\t")))
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range t.Footer {
		if _, err := fmt.Fprintf(w, "%s\n", f); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes v as indented JSON with a final newline. Floats are
// written in their shortest exact form, so every figure reads back as the
// same float64.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// A Report is a command's output in every format it offers.
type Report struct {
	// Text writes the human form; when nil, the tables are written as text.
	Text func(io.Writer) error
	// Tables are the Markdown form (and the text form when Text is nil);
	// their cells should carry enough digits to reproduce each figure.
	Tables []*Table
	// JSON is the machine form: every figure at full precision.
	JSON any
}

// Write writes r in format f.
func (r Report) Write(w io.Writer, f Format) error {
	switch f {
	case "", Text:
		if r.Text != nil {
			return r.Text(w)
		}
		return writeTables(w, r.Tables, (*Table).WriteText)
	case Markdown:
		return writeTables(w, r.Tables, (*Table).WriteMarkdown)
	case JSON:
		return WriteJSON(w, r.JSON)
	}
	return fmt.Errorf("unknown output format %q", f)
}

func writeTables(w io.Writer, ts []*Table, write func(*Table, io.Writer) error) error {
	for i, t := range ts {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := write(t, w); err != nil {
			return err
		}
	}
	return nil
}
