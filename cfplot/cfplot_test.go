package cfplot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

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
		o := Options{Title: "4-ary 3-tree, naive reduction (" + d.String() + ")", Direction: d}
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
	if bytes.Count(down, []byte("<path")) <= bytes.Count(up, []byte("<path")) {
		t.Error("the down panel draws no more than the up panel")
	}
}

func TestPNGAndCrop(t *testing.T) {
	tp, err := topo.Tapered.Build()
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Size(tp, Options{})
	crop, _ := Size(tp, Options{MaxLeaves: 24})
	if crop >= full/4 {
		t.Errorf("cropped to 24 of 144 leaves the plot is %v wide, the whole %v", crop, full)
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
