// SPDX-License-Identifier: Apache-2.0

// Package cfplot draws congested-fraction plots in the style of the thesis's
// Figure 3.1 (section 3.4): switch stages in rows (cores at the top, leaves at
// the bottom), switches as light blue circles, every link between switches
// shaded and thickened by its congested fraction (thin and light gray when
// low, thick and black at 1, absent at 0.01 or less), and the compute nodes
// as small rectangles in a column under their leaf, shaded as the link
// between leaf and node. Links are full duplex: a plot shows the up direction
// (toward the cores), the down direction (toward the nodes), or the average
// of both.
//
// So that a reader can read each link's value from the picture alone, every
// plot carries a legend of the shading at fractions 0.1, 0.2, ..., 1, names
// each row of switches with its level and switch IDs, and numbers the node
// columns (the number of each labelled column's first, top, node; nodes are
// numbered top to bottom, left to right). Wide networks are cropped to their
// left-most leaves, as the thesis's plots are; a cropped plot shows those
// leaves and every switch with a link to a switch shown in the row below, so
// each link drawn has both ends in the picture, and says what it left out.
//
// Plots are drawn on gonum/plot's vector canvases and written as SVG or PNG,
// whole or not at all (internal/atomicfile).
package cfplot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"ibreservoir/internal/atomicfile"
	"ibreservoir/topo"
)

// Direction selects which direction of the links a plot shows.
type Direction uint8

const (
	Both Direction = iota // the average of the two directions (section 3.4's default)
	Up                    // toward the cores
	Down                  // toward the compute nodes
)

func (d Direction) String() string { return [...]string{"both", "up", "down"}[d] }

// Options control a plot.
type Options struct {
	Title string
	// Notes are lines of small text under the title: what the plot needs to
	// be judged (the scheme a short name stands for, the packets, the seed,
	// the threshold below which a link is not drawn).
	Notes     []string
	Direction Direction
	// MaxLeaves crops the plot to the left-most leaves (0: the whole tree).
	MaxLeaves int
	// PNGDPI is the resolution of PNG output (0: 96).
	PNGDPI int
}

// Fractions gives a link's congested fraction, and whether the link has a
// value (links without one are not drawn).
type Fractions func(l topo.Link) (float64, bool)

// Layout constants, in points.
const (
	leafGap   = 14 * vg.Millimeter / 4 // least distance between the switches of a row
	rowGap    = 34 * vg.Millimeter
	margin    = 8 * vg.Millimeter
	nodeH     = 1.6 * vg.Millimeter
	nodeW     = 2.4 * vg.Millimeter
	switchR   = 1.3 * vg.Millimeter
	titleSize = 10
	smallSize = 6.5
	lineGap   = 1.25 // line height over font size

	// The legend: one swatch per tenth.
	swatchW   = 6 * vg.Millimeter
	swatchGap = 9 * vg.Millimeter
	swatches  = 10
	// minShown: a link whose fraction is at most this is not drawn.
	minShown = 0.01
)

var (
	switchFill = color.RGBA{R: 0xa6, G: 0xce, B: 0xe3, A: 0xff} // light blue
	nodeLine   = color.RGBA{R: 0x8f, G: 0xbc, B: 0xd6, A: 0xff}
	labelColor = color.RGBA{R: 0x40, G: 0x40, B: 0x40, A: 0xff}
)

// shade maps a fraction to the thesis's shading: light gray and thin at low
// fractions, black and thick at 1. Fractions outside [0, 1] (sampling can give
// them) are clamped for display.
func shade(f float64) (color.Color, vg.Length) {
	f = math.Max(0, math.Min(1, f))
	g := uint8(math.Round(215 * (1 - f)))
	return color.RGBA{R: g, G: g, B: g, A: 0xff}, vg.Length(0.4 + 2.6*f)
}

func textStyle(size vg.Length, c color.Color) draw.TextStyle {
	ts := draw.TextStyle{Color: c, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
	ts.Font.Size = size
	return ts
}

// geometry places every switch, node and piece of text of a plot.
type geometry struct {
	t       *topo.Topology
	shown   []bool      // by switch ID
	x, y    []vg.Length // by switch ID, for shown switches
	rows    [][]uint16  // shown switches by level, left to right
	nodes   []nodePlace
	left    vg.Length // left edge of the rows (after their labels)
	width   vg.Length
	height  vg.Length
	nodeTop vg.Length
	cropped bool
	legend  vg.Point // top left of the legend's swatches
	texts   []placedText
}

// nodePlace is a compute node's box: the leaf's port to it, and the box's
// lower left corner.
type nodePlace struct {
	link topo.Link
	x, y vg.Length
}

// placedText is a line of text and where it goes.
type placedText struct {
	style draw.TextStyle
	at    vg.Point
	s     string
}

// box is the text's bounding box.
func (p placedText) box() vg.Rectangle {
	r := p.style.Rectangle(p.s)
	return vg.Rectangle{Min: r.Min.Add(p.at), Max: r.Max.Add(p.at)}
}

// levelName names a row of switches.
func levelName(t *topo.Topology, l int) string {
	switch {
	case l == 0:
		return "leaf"
	case l == t.Levels-1:
		return "core"
	case t.Levels == 3:
		return "aggregation"
	}
	return fmt.Sprintf("level %d", l)
}

// idRange writes a row's switch IDs as a range when they are consecutive.
func idRange(ids []uint16) string {
	lo, hi := ids[0], ids[len(ids)-1]
	if int(hi)-int(lo)+1 == len(ids) {
		if lo == hi {
			return fmt.Sprintf("%d", lo)
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	return fmt.Sprintf("%d of %d-%d", len(ids), lo, hi)
}

func layout(t *topo.Topology, o Options) geometry {
	n := len(t.Switches)
	g := geometry{t: t, shown: make([]bool, n), x: make([]vg.Length, n), y: make([]vg.Length, n)}
	leaves := t.Level(0)
	if o.MaxLeaves > 0 && o.MaxLeaves < len(leaves) {
		leaves = leaves[:o.MaxLeaves]
		g.cropped = true
	}
	// The shown leaves, then every switch linked to one shown a row below.
	g.rows = make([][]uint16, t.Levels)
	g.rows[0] = leaves
	for _, id := range leaves {
		g.shown[id] = true
	}
	for l := 1; l < t.Levels; l++ {
		for _, id := range t.Level(l) {
			for _, pt := range t.Switches[id].Ports {
				if pt.Kind == topo.ToSwitch && !pt.Up && g.shown[pt.Peer] && t.Switches[pt.Peer].Level == l-1 {
					g.shown[id] = true
					g.rows[l] = append(g.rows[l], id)
					break
				}
			}
		}
	}
	small := textStyle(smallSize, labelColor)
	var rowLabels []string
	var labelW vg.Length
	widest := 0
	for l, r := range g.rows {
		rowLabels = append(rowLabels, fmt.Sprintf("%s %s", levelName(t, l), idRange(r)))
		labelW = max(labelW, small.Width(rowLabels[l]))
		widest = max(widest, len(r))
	}
	// The axis of the compute nodes' numbers, labelled as the rows are.
	nodeAxis := fmt.Sprintf("compute node 0-%d", t.Nodes()-1)
	labelW = max(labelW, small.Width(nodeAxis))
	g.left = margin + labelW + 2*vg.Millimeter
	treeW := vg.Length(widest) * leafGap

	// Bottom up: node numbers, node columns, the rows of switches.
	nl := len(t.Leaves)
	perLeaf := (t.Nodes() + nl - 1) / nl
	numY := margin
	g.nodeTop = numY + small.Height("0") + vg.Millimeter + vg.Length(perLeaf)*nodeH + 2*vg.Millimeter
	for l, r := range g.rows {
		span := treeW / vg.Length(len(r))
		for i, id := range r {
			g.x[id] = g.left + (vg.Length(i)+0.5)*span
			g.y[id] = g.nodeTop + 6*vg.Millimeter + vg.Length(l)*rowGap
		}
		ts := small
		ts.XAlign, ts.YAlign = draw.XRight, draw.YCenter
		g.texts = append(g.texts, placedText{ts, vg.Point{X: g.left - 2*vg.Millimeter, Y: g.y[r[0]]}, rowLabels[l]})
	}
	axis := small
	axis.XAlign = draw.XRight
	g.texts = append(g.texts, placedText{axis, vg.Point{X: g.left - 2*vg.Millimeter, Y: numY}, nodeAxis})
	// Compute nodes: a column under each shown leaf, numbered top to bottom;
	// every step-th column is labelled with its first node's number.
	colGap := treeW / vg.Length(len(leaves))
	step := max(1, int(math.Ceil(float64((small.Width(fmt.Sprint(t.Nodes()-1))+vg.Millimeter)/colGap))))
	column := map[uint16]int{}
	for i, id := range leaves {
		column[id] = i
	}
	for nd := range t.Nodes() {
		leaf, port := t.LeafOf(nd)
		col, ok := column[leaf]
		if !ok {
			continue
		}
		row := 0
		for _, pt := range t.Switches[leaf].Ports[:port-1] {
			if pt.Kind == topo.ToNode {
				row++
			}
		}
		g.nodes = append(g.nodes, nodePlace{topo.Link{Switch: leaf, Port: port}, g.x[leaf] - nodeW/2, g.nodeTop - vg.Length(row+1)*nodeH})
		if row == 0 && col%step == 0 {
			ts := small
			ts.XAlign = draw.XCenter
			g.texts = append(g.texts, placedText{ts, vg.Point{X: g.x[leaf], Y: numY}, fmt.Sprint(nd)})
		}
	}

	// Top down from the top edge (y negative, shifted once the height is
	// known): title, legend, crop note, then the top row of switches.
	var top []placedText
	y := -margin / 2
	title := textStyle(titleSize, color.Black)
	title.YAlign = draw.YTop
	if o.Title != "" {
		for _, line := range strings.Split(o.Title, "\n") {
			top = append(top, placedText{title, vg.Point{X: margin / 2, Y: y}, line})
			y -= titleSize * lineGap
		}
	}
	caption := small
	caption.YAlign = draw.YTop
	for _, line := range o.Notes {
		top = append(top, placedText{caption, vg.Point{X: margin / 2, Y: y}, line})
		y -= smallSize * lineGap
	}
	y -= vg.Millimeter
	top = append(top, placedText{caption, vg.Point{X: g.left, Y: y}, legendCaption(o.Direction)})
	y -= smallSize*lineGap + vg.Millimeter
	legend := vg.Point{X: g.left, Y: y}
	for k := 1; k <= swatches; k++ {
		ts := caption
		ts.XAlign = draw.XCenter
		top = append(top, placedText{ts, vg.Point{X: g.left + vg.Length(k-1)*swatchGap + swatchW/2, Y: y - 2*nodeH - 1.5*vg.Millimeter},
			fmt.Sprintf("%.1f", float64(k)/swatches)})
	}
	y -= 2*nodeH + 1.5*vg.Millimeter + smallSize*lineGap + vg.Millimeter
	if g.cropped {
		top = append(top, placedText{caption, vg.Point{X: margin / 2, Y: y},
			fmt.Sprintf("cropped: the left-most %d of %d leaves and the switches linked to them; links to switches outside the picture are not drawn", len(leaves), nl)})
		y -= smallSize*lineGap + vg.Millimeter
	}
	g.height = g.y[g.rows[t.Levels-1][0]] + switchR + 4*vg.Millimeter - y
	for _, p := range top {
		p.at.Y += g.height
		g.texts = append(g.texts, p)
	}
	g.legend = vg.Point{X: legend.X, Y: legend.Y + g.height}

	// Wide enough for the rows, the legend and every line of text.
	g.width = g.left + max(treeW, vg.Length(swatches)*swatchGap) + margin
	for _, p := range g.texts {
		g.width = max(g.width, p.box().Max.X+margin/2)
	}
	return g
}

// legendCaption says what the legend's swatches stand for.
func legendCaption(d Direction) string {
	s := "congested fraction of each link drawn (line)"
	if d != Up {
		s += " and of the leaf's link to each node (box)"
	}
	return s + fmt.Sprintf("; %.2f or less: not drawn", minShown)
}

// Size returns the plot's width and height.
func Size(t *topo.Topology, o Options) (vg.Length, vg.Length) {
	g := layout(t, o)
	return g.width, g.height
}

// Draw draws the plot on c, whose size should be Size's. Up-direction links
// take the fraction of the lower switch's up port, down-direction links that
// of the upper switch's down port; Both averages the two where both exist.
func Draw(c vg.Canvas, t *topo.Topology, f Fractions, o Options) {
	g := layout(t, o)
	dc := draw.NewCanvas(c, g.width, g.height)
	dc.SetColor(color.White)
	var bg vg.Path
	bg.Move(vg.Point{})
	bg.Line(vg.Point{X: g.width})
	bg.Line(vg.Point{X: g.width, Y: g.height})
	bg.Line(vg.Point{Y: g.height})
	bg.Close()
	dc.Fill(bg)

	value := func(up, down topo.Link) (float64, bool) {
		fu, okU := f(up)
		fd, okD := f(down)
		switch o.Direction {
		case Up:
			return fu, okU
		case Down:
			return fd, okD
		}
		switch {
		case okU && okD:
			return (fu + fd) / 2, true
		case okU:
			return fu, true
		}
		return fd, okD
	}
	// Links between shown switches, lightest first so dark links stay on top.
	type seg struct {
		a, b vg.Point
		f    float64
	}
	var segs []seg
	for i := range t.Switches {
		sw := &t.Switches[i]
		if !g.shown[sw.ID] {
			continue
		}
		for p, pt := range sw.Ports {
			if pt.Kind != topo.ToSwitch || !pt.Up || !g.shown[pt.Peer] {
				continue
			}
			up := topo.Link{Switch: sw.ID, Port: uint8(p + 1)}
			down := topo.Link{Switch: uint16(pt.Peer), Port: pt.PeerPort}
			v, ok := value(up, down)
			if !ok || v <= minShown {
				continue
			}
			segs = append(segs, seg{vg.Point{X: g.x[sw.ID], Y: g.y[sw.ID]}, vg.Point{X: g.x[pt.Peer], Y: g.y[pt.Peer]}, v})
		}
	}
	for k := 1; k < len(segs); k++ { // insertion sort by fraction: deterministic, stable
		for j := k; j > 0 && segs[j].f < segs[j-1].f; j-- {
			segs[j], segs[j-1] = segs[j-1], segs[j]
		}
	}
	for _, s := range segs {
		col, w := shade(s.f)
		dc.StrokeLine2(draw.LineStyle{Color: col, Width: w}, s.a.X, s.a.Y, s.b.X, s.b.Y)
	}
	// Switches, then the compute nodes.
	for _, r := range g.rows {
		for _, id := range r {
			var p vg.Path
			p.Move(vg.Point{X: g.x[id] + switchR, Y: g.y[id]})
			p.Arc(vg.Point{X: g.x[id], Y: g.y[id]}, switchR, 0, 2*math.Pi)
			p.Close()
			dc.SetColor(switchFill)
			dc.Fill(p)
		}
	}
	for _, nd := range g.nodes {
		// The node's own link toward the leaf is not a switch port: the
		// schemes see nothing there (Fig. 4.3's link A), so a node shows
		// the leaf-to-node direction, except in the up panel.
		var v float64
		if o.Direction != Up {
			if fv, ok := f(nd.link); ok {
				v = fv
			}
		}
		nodeBox(dc, nd.x, nd.y, v)
	}
	// The legend: a line and a node box per swatch.
	for k := 1; k <= swatches; k++ {
		v := float64(k) / swatches
		x := g.legend.X + vg.Length(k-1)*swatchGap
		col, w := shade(v)
		dc.StrokeLine2(draw.LineStyle{Color: col, Width: w}, x, g.legend.Y-nodeH/2, x+swatchW, g.legend.Y-nodeH/2)
		if o.Direction != Up {
			nodeBox(dc, x+swatchW/2-nodeW/2, g.legend.Y-2*nodeH-vg.Millimeter/2, v)
		}
	}
	for _, p := range g.texts {
		dc.FillText(p.style, p.at, p.s)
	}
}

// nodeBox draws one compute node at (x, y), filled with the shade of v when
// v is above minShown.
func nodeBox(dc draw.Canvas, x, y vg.Length, v float64) {
	var r vg.Path
	r.Move(vg.Point{X: x, Y: y})
	r.Line(vg.Point{X: x + nodeW, Y: y})
	r.Line(vg.Point{X: x + nodeW, Y: y + nodeH*0.85})
	r.Line(vg.Point{X: x, Y: y + nodeH*0.85})
	r.Close()
	if v > minShown {
		col, _ := shade(v)
		dc.SetColor(col)
		dc.Fill(r)
	}
	dc.SetLineStyle(draw.LineStyle{Color: nodeLine, Width: 0.3})
	dc.Stroke(r)
}

// Write draws the plot into path, as SVG or PNG by the file's extension.
func Write(path string, t *topo.Topology, f Fractions, o Options) error {
	w, h := Size(t, o)
	var fill func(io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		c := vgsvg.New(w, h)
		Draw(c, t, f, o)
		fill = func(out io.Writer) error { _, err := c.WriteTo(out); return err }
	case ".png":
		dpi := o.PNGDPI
		if dpi == 0 {
			dpi = 96
		}
		c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
		Draw(c, t, f, o)
		fill = func(out io.Writer) error { _, err := c.WriteTo(out); return err }
	default:
		return fmt.Errorf("plot %s: unknown format %q; use .svg or .png", path, filepath.Ext(path))
	}
	return atomicfile.Write(path, fill)
}
