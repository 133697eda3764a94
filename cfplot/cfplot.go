// Package cfplot draws congested-fraction plots in the style of the thesis's
// Figure 3.1 (section 3.4): switch stages in rows (cores at the top, leaves at
// the bottom), switches as light blue circles, every link between switches
// shaded and thickened by its congested fraction (thin and light gray when
// low, thick and dark when high, absent at zero), and the compute nodes as
// small rectangles in a column under their leaf, shaded as the link between
// leaf and node. Links are full duplex: a plot shows the up direction (toward
// the cores), the down direction (toward the nodes), or the average of both.
// Wide networks are cropped to their left-most part, as the thesis's plots
// are.
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
	Title     string
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
	leafGap   = 14 * vg.Millimeter / 4 // between leaves
	rowGap    = 34 * vg.Millimeter
	margin    = 8 * vg.Millimeter
	nodeH     = 1.6 * vg.Millimeter
	nodeW     = 2.4 * vg.Millimeter
	switchR   = 1.3 * vg.Millimeter
	titleSize = 10
)

var (
	switchFill = color.RGBA{R: 0xa6, G: 0xce, B: 0xe3, A: 0xff} // light blue
	nodeLine   = color.RGBA{R: 0x8f, G: 0xbc, B: 0xd6, A: 0xff}
)

// shade maps a fraction to the thesis's shading: light gray and thin at low
// fractions, black and thick at 1. Fractions outside [0, 1] (sampling can give
// them) are clamped for display.
func shade(f float64) (color.Color, vg.Length) {
	f = math.Max(0, math.Min(1, f))
	g := uint8(math.Round(215 * (1 - f)))
	return color.RGBA{R: g, G: g, B: g, A: 0xff}, vg.Length(0.4 + 2.6*f)
}

// geometry places every switch and node.
type geometry struct {
	t             *topo.Topology
	x             []vg.Length // by switch ID
	y             []vg.Length
	width, height vg.Length
	cropW         vg.Length
	nodeTop       vg.Length
	perLeaf       int
}

func layout(t *topo.Topology, maxLeaves int) geometry {
	g := geometry{t: t, x: make([]vg.Length, len(t.Switches)), y: make([]vg.Length, len(t.Switches))}
	nl := len(t.Leaves)
	g.width = vg.Length(nl) * leafGap
	g.perLeaf = (t.Nodes() + nl - 1) / nl
	g.nodeTop = margin + vg.Length(g.perLeaf)*nodeH + 2*vg.Millimeter
	for l := range t.Levels {
		ids := t.Level(l)
		span := g.width / vg.Length(len(ids))
		for i, id := range ids {
			g.x[id] = margin + (vg.Length(i)+0.5)*span
			g.y[id] = g.nodeTop + 6*vg.Millimeter + vg.Length(l)*rowGap
		}
	}
	g.height = g.nodeTop + 6*vg.Millimeter + vg.Length(t.Levels-1)*rowGap + margin + 3*titleSize
	g.cropW = 2*margin + g.width
	if maxLeaves > 0 && maxLeaves < nl {
		g.cropW = 2*margin + vg.Length(maxLeaves)*leafGap
	}
	return g
}

// Size returns the plot's width and height.
func Size(t *topo.Topology, o Options) (vg.Length, vg.Length) {
	g := layout(t, o.MaxLeaves)
	return g.cropW, g.height
}

// Draw draws the plot on c, whose size should be Size's. Up-direction links
// take the fraction of the lower switch's up port, down-direction links that
// of the upper switch's down port; Both averages the two where both exist.
func Draw(c vg.Canvas, t *topo.Topology, f Fractions, o Options) {
	g := layout(t, o.MaxLeaves)
	dc := draw.NewCanvas(c, g.cropW, g.height)
	dc.SetColor(color.White)
	var bg vg.Path
	bg.Move(vg.Point{})
	bg.Line(vg.Point{X: g.cropW})
	bg.Line(vg.Point{X: g.cropW, Y: g.height})
	bg.Line(vg.Point{Y: g.height})
	bg.Close()
	dc.Fill(bg)

	value := func(up, down topo.Link, hasUp, hasDown bool) (float64, bool) {
		fu, okU := 0.0, false
		fd, okD := 0.0, false
		if hasUp {
			fu, okU = f(up)
		}
		if hasDown {
			fd, okD = f(down)
		}
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
	// Links between switches, lightest first so dark links stay on top.
	type seg struct {
		a, b vg.Point
		f    float64
	}
	var segs []seg
	for i := range t.Switches {
		sw := &t.Switches[i]
		for p, pt := range sw.Ports {
			if pt.Kind != topo.ToSwitch || !pt.Up {
				continue
			}
			up := topo.Link{Switch: sw.ID, Port: uint8(p + 1)}
			down := topo.Link{Switch: uint16(pt.Peer), Port: pt.PeerPort}
			if g.x[sw.ID] > g.cropW && g.x[pt.Peer] > g.cropW {
				continue // cropped away
			}
			v, ok := value(up, down, true, true)
			if !ok || v <= 0.01 {
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
	// Switches.
	for i := range t.Switches {
		if g.x[i]-switchR > g.cropW {
			continue
		}
		var p vg.Path
		p.Move(vg.Point{X: g.x[i] + switchR, Y: g.y[i]})
		p.Arc(vg.Point{X: g.x[i], Y: g.y[i]}, switchR, 0, 2*math.Pi)
		p.Close()
		dc.SetColor(switchFill)
		dc.Fill(p)
	}
	// Compute nodes: a column under each leaf, numbered top to bottom.
	for n := range t.Nodes() {
		leaf, port := t.LeafOf(n)
		if g.x[leaf]-nodeW/2 > g.cropW {
			continue
		}
		row := 0
		for _, pt := range t.Switches[leaf].Ports[:port-1] {
			if pt.Kind == topo.ToNode {
				row++
			}
		}
		x := g.x[leaf] - nodeW/2
		y := g.nodeTop - vg.Length(row+1)*nodeH
		var r vg.Path
		r.Move(vg.Point{X: x, Y: y})
		r.Line(vg.Point{X: x + nodeW, Y: y})
		r.Line(vg.Point{X: x + nodeW, Y: y + nodeH*0.85})
		r.Line(vg.Point{X: x, Y: y + nodeH*0.85})
		r.Close()
		// The node's own link toward the leaf is not a switch port: the
		// schemes see nothing there (Fig. 4.3's link A), so a node shows
		// the leaf-to-node direction, except in the up panel.
		if o.Direction != Up {
			if v, ok := f(topo.Link{Switch: leaf, Port: port}); ok && v > 0.01 {
				col, _ := shade(v)
				dc.SetColor(col)
				dc.Fill(r)
			}
		}
		dc.SetLineStyle(draw.LineStyle{Color: nodeLine, Width: 0.3})
		dc.Stroke(r)
	}
	if o.Title != "" {
		ts := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
		ts.Font.Size = titleSize
		for i, line := range strings.Split(o.Title, "\n") {
			dc.FillText(ts, vg.Point{X: margin / 2, Y: g.height - margin/2 - vg.Length(i+1)*titleSize*1.2}, line)
		}
	}
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
