// SPDX-License-Identifier: Apache-2.0

package topo

import (
	"fmt"
	"strings"
)

// builder collects switches and links; finish computes the routing tables.
type builder struct {
	t *Topology
}

func newBuilder(name string, radix, levels int) *builder {
	return &builder{t: &Topology{Name: name, Radix: radix, Levels: levels, byLevel: make([][]uint16, levels)}}
}

func (b *builder) addSwitch(level, pod int) uint16 {
	id := uint16(len(b.t.Switches))
	b.t.Switches = append(b.t.Switches, Switch{ID: id, Level: level, Pod: pod, Index: len(b.t.byLevel[level])})
	b.t.byLevel[level] = append(b.t.byLevel[level], id)
	return id
}

// nextPort returns the next free port of s.
func (b *builder) nextPort(s uint16) (uint8, error) {
	sw := &b.t.Switches[s]
	if len(sw.Ports) >= b.t.Radix {
		return 0, fmt.Errorf("%s: switch %d (level %d) needs more than its %d ports", b.t.Name, s, sw.Level, b.t.Radix)
	}
	sw.Ports = append(sw.Ports, Port{})
	return uint8(len(sw.Ports)), nil
}

// attach hangs a new node off the next free port of leaf s.
func (b *builder) attach(s uint16) error {
	p, err := b.nextPort(s)
	if err != nil {
		return err
	}
	n := len(b.t.NodeLeaf)
	b.t.Switches[s].Ports[p-1] = Port{Kind: ToNode, Peer: n}
	b.t.NodeLeaf = append(b.t.NodeLeaf, b.t.Switches[s].Index)
	b.t.NodePort = append(b.t.NodePort, p)
	return nil
}

// connect links lower switch lo (its next free port, an up port) to upper
// switch hi (its next free port, a down port).
func (b *builder) connect(lo, hi uint16) error {
	pl, err := b.nextPort(lo)
	if err != nil {
		return err
	}
	ph, err := b.nextPort(hi)
	if err != nil {
		return err
	}
	b.t.Switches[lo].Ports[pl-1] = Port{Kind: ToSwitch, Up: true, Peer: int(hi), PeerPort: ph}
	b.t.Switches[hi].Ports[ph-1] = Port{Kind: ToSwitch, Peer: int(lo), PeerPort: pl}
	return nil
}

// finish computes each switch's up ports and down tables, bottom up, and
// checks the tree.
func (b *builder) finish() (*Topology, error) {
	t := b.t
	t.Leaves = t.byLevel[0]
	t.leafIndex = make([]int, len(t.Switches))
	for i := range t.leafIndex {
		t.leafIndex[i] = -1
	}
	for i, s := range t.Leaves {
		t.leafIndex[s] = i
	}
	nl := len(t.Leaves)
	for lvl := 0; lvl < t.Levels; lvl++ {
		for _, id := range t.byLevel[lvl] {
			sw := &t.Switches[id]
			if lvl > 0 {
				sw.down = make([][]uint8, nl)
			}
			for p, pt := range sw.Ports {
				if pt.Kind != ToSwitch {
					continue
				}
				if pt.Up {
					sw.up = append(sw.up, uint8(p+1))
					continue
				}
				child := &t.Switches[pt.Peer]
				if child.Level != lvl-1 {
					return nil, fmt.Errorf("%s: switch %d (level %d) port %d leads down to switch %d at level %d", t.Name, id, lvl, p+1, child.ID, child.Level)
				}
				if child.Level == 0 {
					li := t.leafIndex[child.ID]
					sw.down[li] = append(sw.down[li], uint8(p+1))
					continue
				}
				for li := range nl {
					if child.down[li] != nil {
						sw.down[li] = append(sw.down[li], uint8(p+1))
					}
				}
			}
		}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate checks the properties routing and the candidate sets rely on:
// links are symmetric; every up port leads one level up; below the top level
// every switch has an up port; the top level covers every leaf; and, from every
// leaf toward every other, all the switches a packet can reach at the level
// where it first meets a switch covering the destination do cover it (so
// "go up until covered" is minimal whichever up ports adaptive routing takes).
func (t *Topology) Validate() error {
	var errs []string
	for i := range t.Switches {
		sw := &t.Switches[i]
		for p, pt := range sw.Ports {
			if pt.Kind != ToSwitch {
				continue
			}
			back := t.Switches[pt.Peer].Ports[pt.PeerPort-1]
			if back.Kind != ToSwitch || back.Peer != i || back.PeerPort != uint8(p+1) || back.Up == pt.Up {
				errs = append(errs, fmt.Sprintf("switch %d port %d: link to switch %d port %d is not symmetric", i, p+1, pt.Peer, pt.PeerPort))
			}
		}
		if sw.Level < t.Levels-1 && len(sw.up) == 0 {
			errs = append(errs, fmt.Sprintf("switch %d (level %d) has no up port", i, sw.Level))
		}
		if sw.Level == t.Levels-1 && sw.Level > 0 {
			for li, d := range sw.down {
				if d == nil {
					errs = append(errs, fmt.Sprintf("top switch %d does not reach leaf %d", i, li))
					break
				}
			}
		}
	}
	if len(errs) == 0 {
		// Minimality: level sets reached from each leaf.
		for li := range t.Leaves {
			layer := []uint16{t.Leaves[li]}
			for lvl := 0; lvl < t.Levels-1; lvl++ {
				seen := map[uint16]bool{}
				var next []uint16
				for _, s := range layer {
					for _, p := range t.Switches[s].up {
						pe := uint16(t.Switches[s].Ports[p-1].Peer)
						if !seen[pe] {
							seen[pe] = true
							next = append(next, pe)
						}
					}
				}
				for dl := range t.Leaves {
					first := t.Switches[next[0]].down[dl] != nil
					for _, s := range next[1:] {
						if (t.Switches[s].down[dl] != nil) != first {
							errs = append(errs, fmt.Sprintf("from leaf %d, level %d: switches %d and %d disagree on reaching leaf %d (routing would not be minimal)", li, lvl+1, next[0], s, dl))
							break
						}
					}
				}
				layer = next
			}
			if len(errs) > 8 {
				break
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %s", t.Name, strings.Join(errs, "; "))
	}
	return nil
}
