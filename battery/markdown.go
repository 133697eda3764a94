// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ibreservoir/internal/atomicfile"
	"ibreservoir/refmodel"
)

// WriteMarkdown writes the report as dir/report.md with its figures beside
// it: Figure 5.1's bitmaps of H(FigureID, d) for d = 1..900 (30 x 30), the
// histogram of the p-values, and the reservoir selection frequencies. Every
// file is written whole or not at all.
func (r *Report) WriteMarkdown(dir string) error {
	var md bytes.Buffer
	figs := map[string]*plot.Plot{}
	var order []string
	addFig := func(name string, p *plot.Plot) {
		figs[name] = p
		order = append(order, name)
	}

	s := r.Summary
	fmt.Fprintf(&md, "# Statistical battery\n\n")
	if r.Note != "" {
		fmt.Fprintf(&md, "> **%s**\n\n", r.Note)
	}
	fmt.Fprintf(&md, "%d randomness tests: %d PASS, %d FAIL, %d INVALID, at a family-wise error rate of %g (Holm). "+
		"%d of %d combinations are sound. Seed %d.\n\n", s.Tests, s.Pass, s.Fail, s.Invalid, r.Config.Alpha, s.Sound, s.Combinations, r.Config.Seed)
	fmt.Fprintf(&md, "See docs/battery.md for what each test does and how to read a verdict. Randomness verdicts answer: does the hash, "+
		"on the ids and links a switch sees, and the generator behave like the ideal the thesis's analysis assumes? %s\n\n", DecodeQuestion)

	fmt.Fprintf(&md, "## Hashes\n\n| hash | id | link | verdict | failing tests |\n|---|---|---|---|---|\n")
	for _, p := range r.Parts {
		if p.Kind == "hash" {
			fmt.Fprintf(&md, "| %s | %s | %s | %s | %s |\n", p.Hash, p.ID, p.Link, p.Verdict, partWhy(p))
		}
	}
	fmt.Fprintf(&md, "\n## Generators\n\n| generator | count bits | verdict | failing tests |\n|---|---|---|---|\n")
	for _, p := range r.Parts {
		if p.Kind == "generator" {
			fmt.Fprintf(&md, "| %s | %d | %s | %s |\n", p.Generator, p.CountBits, p.Verdict, partWhy(p))
		}
	}

	r.writeDecodeMarkdown(&md)

	// Figure 5.1.
	var hashes []string
	for _, h := range r.Config.Hashes {
		if _, ok := builtinHashes()[h]; ok {
			hashes = append(hashes, h)
		}
	}
	if len(hashes) > 0 {
		fmt.Fprintf(&md, "\n## Figure 5.1: H(%d, d) for d = 1..900\n\nRows of 30, left to right, top to bottom; black is 1.\n\n", FigureID)
		for _, h := range hashes {
			name := "fig51-" + safeName(h) + ".png"
			addFig(name, bitmapPlot(builtinHashes()[h], FigureID))
			fmt.Fprintf(&md, "![%s](%s) ", h, name)
		}
		fmt.Fprintln(&md)
	}

	// The periodicity analysis.
	for _, x := range r.Results {
		if x.Test == "hash/periodicity" {
			fmt.Fprintf(&md, "\n## Periodicity of Hmult0 (section 5.4): %s\n\n", x.Verdict)
			for _, part := range strings.Split(x.Detail, "; ") {
				fmt.Fprintf(&md, "- %s\n", part)
			}
		}
	}

	// p-values.
	var ps plotter.Values
	for _, x := range r.Results {
		if p := float64(x.P); p >= 0 && p <= 1 {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 {
		p := plot.New()
		p.Title.Text = "p-values of every hypothesis test"
		p.X.Label.Text = "p"
		p.Y.Label.Text = "tests"
		if h, err := plotter.NewHist(ps, 20); err == nil {
			p.Add(h)
		}
		addFig("pvalues.png", p)
		fmt.Fprintf(&md, "\n## p-values\n\nUnder the null every p-value would be uniform; failures pile up at 0, "+
			"and exact balance (Theorem 5.1) and the conservative worst-of-k tests put mass near 1.\n\n![p-values](pvalues.png)\n")
	}

	// Reservoir selection frequencies: the longest path of each generator and width.
	type key struct {
		g string
		w int
	}
	longest := map[key]Result{}
	var keys []key
	for _, x := range r.Results {
		if x.Test != "estimator/reservoir-uniformity" {
			continue
		}
		k := key{x.Subject.Generator, x.Subject.CountBits}
		old, ok := longest[k]
		if !ok {
			keys = append(keys, k)
		}
		if !ok || x.Subject.L > old.Subject.L {
			longest[k] = x
		}
	}
	if len(keys) > 0 {
		fmt.Fprintf(&md, "\n## Reservoir selection frequencies\n\nThe longest path tested for each generator and count width: "+
			"bars are the observed fraction of packets holding each hop, dots the exact expectation (section 5.6).\n\n")
		for _, k := range keys {
			x := longest[k]
			name := fmt.Sprintf("selection-%s-b%d.png", safeName(k.g), k.w)
			p := selectionPlot(x, strings.HasPrefix(k.g, refmodel.GeneratorSender))
			if p == nil {
				continue
			}
			addFig(name, p)
			fmt.Fprintf(&md, "![%s b=%d](%s) ", k.g, k.w, name)
		}
		fmt.Fprintln(&md)
	}

	fmt.Fprintf(&md, "\n## Failing and invalid tests\n\n")
	if r.Summary.Decode != nil {
		fmt.Fprintf(&md, "Of the decode hash tests, the worst failing window and workload of each hash part; the JSON report has every one.\n\n")
	}
	fmt.Fprintf(&md, "| verdict | test | subject | statistic | value | p | p (Holm) | detail |\n|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.decodeWorst() {
		if x.Verdict == Pass {
			continue
		}
		fmt.Fprintf(&md, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", x.Verdict, x.Test, x.Subject, x.Statistic, x.Value, x.P, x.PHolm,
			strings.ReplaceAll(x.Detail, "|", "/"))
	}

	for _, name := range order {
		p := figs[name]
		wt, err := p.WriterTo(4*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return fmt.Errorf("figure %s: %w", name, err)
		}
		if err := atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(filepath.Join(dir, "report.md"), md.Bytes())
}

func partWhy(p Part) string {
	why := strings.Join(trimGroup(p.Failing), ", ")
	if len(p.Invalid) > 0 {
		why += " (invalid: " + strings.Join(trimGroup(p.Invalid), ", ") + ")"
	}
	return why
}

func safeName(s string) string {
	return strings.NewReplacer("/", "-", ":", "-", "+", "-").Replace(s)
}

// bitGrid is Figure 5.1's 30 x 30 grid of H(id, d), d = 1..900, row 0 on top.
type bitGrid struct{ z [30][30]float64 }

func (g *bitGrid) Dims() (c, r int)   { return 30, 30 }
func (g *bitGrid) Z(c, r int) float64 { return g.z[29-r][c] }
func (g *bitGrid) X(c int) float64    { return float64(c) }
func (g *bitGrid) Y(r int) float64    { return float64(r) }

type twoColors struct{}

func (twoColors) Colors() []color.Color { return []color.Color{color.White, color.Black} }

func bitmapPlot(h Hash, id uint32) *plot.Plot {
	g := &bitGrid{}
	for d := 1; d <= 900; d++ {
		g.z[(d-1)/30][(d-1)%30] = float64(h.Bit(id, uint32(d)))
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: H(%d, d), d = 1..900", h.Name, id)
	hm := plotter.NewHeatMap(g, twoColors{})
	hm.Min, hm.Max = 0, 1
	p.Add(hm)
	p.HideAxes()
	return p
}

// selectionPlot draws an estimator result's observed selection fractions and
// the exact expectation.
func selectionPlot(x Result, sender bool) *plot.Plot {
	l := x.Subject.L
	var obs []uint64
	for _, c := range x.Counts {
		if strings.HasPrefix(c.Name, "worst_cell") {
			obs = append(obs, c.Value)
		}
	}
	if len(obs) < l {
		return nil
	}
	var n uint64
	for _, o := range obs {
		n += o
	}
	var sel refmodel.Selection
	var err error
	if sender {
		sel, err = refmodel.SenderSaturation(l, senderL(x.Subject.CountBits))
	} else {
		sel, err = refmodel.Saturation(l, x.Subject.CountBits, nil)
	}
	if err != nil || n == 0 {
		return nil
	}
	bars := make(plotter.Values, l)
	exp := make(plotter.XYs, l)
	for j := range l {
		bars[j] = float64(obs[j]) / float64(n)
		exp[j].X, exp[j].Y = float64(j), ratFloat(sel.P[j])
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, b=%d, %d hops: %s", x.Subject.Generator, x.Subject.CountBits, l, x.Verdict)
	p.X.Label.Text = "hop held by the reservoir"
	p.Y.Label.Text = "fraction of packets"
	if bc, err := plotter.NewBarChart(bars, vg.Points(12)); err == nil {
		bc.Color = color.Gray{Y: 160}
		p.Add(bc)
	}
	if sc, err := plotter.NewScatter(exp); err == nil {
		p.Add(sc)
	}
	names := make([]string, l)
	for j := range names {
		names[j] = strconv.Itoa(j + 1)
	}
	p.NominalX(names...)
	return p
}
