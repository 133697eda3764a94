// SPDX-License-Identifier: Apache-2.0

package cfplot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"ibreservoir/internal/golden"
	"ibreservoir/topo"
)

// fractions gives the 4-ary 3-tree a congestion tree rooted at node 0, as the
// naive reduction of section 4.3 does: node 0's link at 1, the links into
// its leaf at 0.9, into its pod's aggregation switches at 0.5, the rest clear.
func fractions(t *topo.Topology) Fractions {
	leaf0, port0 := t.LeafOf(0)
	return func(l topo.Link) (float64, bool) {
		if l == (topo.Link{Switch: leaf0, Port: port0}) {
			return 1, true
		}
		pt := t.Peer(l)
		if pt.Kind == topo.ToSwitch && !pt.Up && t.Covers(l.Switch, 0) {
			if uint16(pt.Peer) == leaf0 {
				return 0.9, true
			}
			return 0.5, true
		}
		return 0, true
	}
}

// TestGoldenSVG freezes the three panels of a congestion tree on the 4-ary
// 3-tree (testdata/kary43-*.svg.golden; go test -update rewrites them after
// the drawing has been checked by eye), each drawn twice to show it stable.
func TestGoldenSVG(t *testing.T) {
	tp, err := topo.KaryNTree(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []Direction{Up, Down, Both} {
		path := filepath.Join(dir, d.String()+".svg")
		o := Options{Title: "4-ary 3-tree, naive reduction (" + d.String() + ")", Direction: d,
			Notes: []string{"one5 = onereservoir-c3@resv6: Alg. 8-9, 3-bit hop count, 5 bits in BTH Resv6",
				"20000 packets, seed 1; links below the threshold of section 5.3 (L = 6, p = 0.99) are not drawn"}}
		golden.CheckStable(t, filepath.Join("testdata", "kary43-"+d.String()+".svg.golden"), func() []byte {
			if err := Write(path, tp, fractions(tp), o); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		})
	}
	// The down panel draws the congested links; the up panel has none.
	down, _ := os.ReadFile(filepath.Join(dir, "down.svg"))
	up, _ := os.ReadFile(filepath.Join(dir, "up.svg"))
	// Every panel labels the node numbers' axis and carries its notes.
	for _, want := range []string{"compute node 0-63", "one5 = onereservoir-c3@resv6", "20000 packets, seed 1"} {
		if !bytes.Contains(down, []byte(want)) {
			t.Errorf("the down panel lacks %q", want)
		}
	}
	if bytes.Count(down, []byte("<path")) <= bytes.Count(up, []byte("<path")) {
		t.Error("the down panel draws no more than the up panel")
	}
}

// TestPNGAndCrop crops Tapered to its first pod's 24 leaves: the plot shows
// those leaves, the pod's 16 aggregation switches and the 48 cores linked to
// them, about a third of the whole tree's width, and writes a PNG.
func TestPNGAndCrop(t *testing.T) {
	tp, err := topo.Tapered.Build()
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Size(tp, Options{})
	crop, _ := Size(tp, Options{MaxLeaves: 24})
	if crop >= full/2 {
		t.Errorf("cropped to 24 of 144 leaves the plot is %v wide, the whole %v", crop, full)
	}
	g := layout(tp, Options{MaxLeaves: 24})
	for l, want := range []int{24, 16, 48} {
		if len(g.rows[l]) != want {
			t.Errorf("cropped row %d shows %d switches, want %d", l, len(g.rows[l]), want)
		}
	}
	if len(g.nodes) != 24*32 {
		t.Errorf("cropped plot shows %d nodes, want %d", len(g.nodes), 24*32)
	}
	path := filepath.Join(t.TempDir(), "tapered.png")
	if err := Write(path, tp, fractions(tp), Options{Title: "tapered", MaxLeaves: 24}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("not a PNG: %v", err)
	}
	if err := Write(filepath.Join(t.TempDir(), "x.jpg"), tp, fractions(tp), Options{}); err == nil {
		t.Error("a .jpg accepted")
	}
}

// recorder is a vg.Canvas that keeps the extent of everything drawn on it.
type recorder struct {
	off   vg.Point // the current translation
	stack []vg.Point
	out   []string // what fell outside the picture
	w, h  vg.Length
	drawn int
	lines [][2]vg.Point // strokes of one straight segment: links and legend swatches
}

func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(color.Color)                {}
func (r *recorder) Rotate(float64)                      { r.out = append(r.out, "a rotation") }
func (r *recorder) Scale(float64, float64)              { r.out = append(r.out, "a scaling") }
func (r *recorder) Translate(p vg.Point)                { r.off = r.off.Add(p) }
func (r *recorder) Push()                               { r.stack = append(r.stack, r.off) }
func (r *recorder) Pop()                                { r.off, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recorder) DrawImage(vg.Rectangle, image.Image) { r.out = append(r.out, "an image") }
func (r *recorder) Stroke(p vg.Path)                    { r.path("stroke", p) }
func (r *recorder) Fill(p vg.Path)                      { r.path("fill", p) }

func (r *recorder) point(what string, p vg.Point) {
	p = p.Add(r.off)
	const eps = 1e-6
	if p.X < -eps || p.X > r.w+eps || p.Y < -eps || p.Y > r.h+eps {
		r.out = append(r.out, fmt.Sprintf("%s at (%.1f, %.1f)", what, p.X, p.Y))
	}
}

func (r *recorder) path(what string, p vg.Path) {
	r.drawn++
	if what == "stroke" && len(p) == 2 && p[0].Type == vg.MoveComp && p[1].Type == vg.LineComp {
		r.lines = append(r.lines, [2]vg.Point{p[0].Pos.Add(r.off), p[1].Pos.Add(r.off)})
	}
	for _, c := range p {
		switch c.Type {
		case vg.ArcComp:
			r.point(what+" arc", c.Pos.Sub(vg.Point{X: c.Radius, Y: c.Radius}))
			r.point(what+" arc", c.Pos.Add(vg.Point{X: c.Radius, Y: c.Radius}))
		case vg.MoveComp, vg.LineComp:
			r.point(what, c.Pos)
		}
	}
}

func (r *recorder) FillString(f font.Face, p vg.Point, s string) {
	r.drawn++
	e := f.Extents()
	r.point(fmt.Sprintf("text %q", s), p.Sub(vg.Point{Y: e.Descent}))
	r.point(fmt.Sprintf("text %q", s), p.Add(vg.Point{X: f.Width(s), Y: e.Ascent}))
}

// TestEverythingInside draws whole and cropped trees in every direction, with
// every link at 0.5 so that every link between shown switches is drawn, on a
// canvas that records where each path and string lands: all of it must lie
// inside the picture, so that no link runs off an edge where a crop cuts the
// tree and no label is clipped; every link must join the centres of two
// switches the plot shows. A cropped plot must say what it left out.
func TestEverythingInside(t *testing.T) {
	k43, err := topo.KaryNTree(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	tap, err := topo.Tapered.Build()
	if err != nil {
		t.Fatal(err)
	}
	small, err := topo.SmallTapered.Build()
	if err != nil {
		t.Fatal(err)
	}
	full, err := topo.Full.Build()
	if err != nil {
		t.Fatal(err)
	}
	half := func(topo.Link) (float64, bool) { return 0.5, true }
	for _, c := range []struct {
		tp   *topo.Topology
		crop int
	}{{k43, 0}, {k43, 3}, {tap, 24}, {tap, 0}, {small, 5}, {full, 36}} {
		for _, d := range []Direction{Up, Down, Both} {
			o := Options{Title: "a title\nof two lines", Direction: d, MaxLeaves: c.crop}
			r := &recorder{}
			r.w, r.h = Size(c.tp, o)
			Draw(r, c.tp, half, o)
			if len(r.out) > 0 {
				t.Fatalf("%s crop %d %s: %d things outside the %.1f x %.1f picture, first %s", c.tp.Name, c.crop, d, len(r.out), r.w, r.h, r.out[0])
			}
			if r.drawn < len(c.tp.Switches)/4 {
				t.Fatalf("%s crop %d %s: only %d things drawn", c.tp.Name, c.crop, d, r.drawn)
			}
			g := layout(c.tp, o)
			centre := map[vg.Point]bool{}
			for _, row := range g.rows {
				for _, id := range row {
					centre[vg.Point{X: g.x[id], Y: g.y[id]}] = true
				}
			}
			links := 0
			for _, l := range r.lines {
				if l[0].Y > g.legend.Y-3*nodeH && l[1].Y > g.legend.Y-3*nodeH {
					continue // a legend swatch
				}
				links++
				if !centre[l[0]] || !centre[l[1]] {
					t.Fatalf("%s crop %d %s: a link from (%.1f, %.1f) to (%.1f, %.1f) does not join two switches shown", c.tp.Name, c.crop, d, l[0].X, l[0].Y, l[1].X, l[1].Y)
				}
			}
			if links == 0 {
				t.Fatalf("%s crop %d %s: no link drawn", c.tp.Name, c.crop, d)
			}
			if noted := strings.Contains(fmt.Sprint(g.texts), "cropped: the left-most"); noted != (c.crop > 0) {
				t.Errorf("%s crop %d: a note on the crop: %v", c.tp.Name, c.crop, noted)
			}
		}
	}
}

// TestLegend checks that a plot carries the legend's ten values, a name for
// each row of switches, and node numbers, and that the node box appears in
// the legend except in the up panel, whose nodes are never shaded.
func TestLegend(t *testing.T) {
	tp, err := topo.KaryNTree(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Direction{Up, Down} {
		g := layout(tp, Options{Direction: d})
		var texts []string
		for _, p := range g.texts {
			texts = append(texts, p.s)
		}
		all := strings.Join(texts, "|")
		for _, want := range []string{"|0.1|", "|0.5|", "|1.0", "leaf 0-15", "aggregation 16-31", "core 32-47", "|0|", "|60|", "0.01 or less: not drawn"} {
			if !strings.Contains("|"+all+"|", want) {
				t.Errorf("%s: no %q among the texts %q", d, want, texts)
			}
		}
		if box := strings.Contains(all, "(box)"); box != (d != Up) {
			t.Errorf("%s: the legend mentions the node box: %v", d, box)
		}
	}
}
