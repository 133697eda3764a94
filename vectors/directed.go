package vectors

import (
	"fmt"

	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// directed builds the directed switch-stage cases, in a fixed order.
type directed struct {
	set   *StageSet
	src   *rng.Ideal // header fields and the state words the cases leave free
	out   []StageVector
	tries uint64
}

// all makes every directed case, for local then global packets:
//
//	count/<n>/<replace|keep>/<cong|idle>   every hop count 0..2^b-1 (the last
//	                                       saturates), both decisions, both congested bits
//	rand/<v>/<cong|idle>                   sender draws: every nonzero hop_rand (spent included)
//	psn/<0|ffffff|1>                       PSN 0 (id 0 under psn), its wrap value, and 1
//	link/<switch>:<port>                   the largest switch ID and port, and 0
//	bits/fecn-becn-spare                   FECN, BECN and any spare Resv6 bit pass untouched
//	reject/l<l>/x<k>                       ideal generator: k rejected outputs before the draw
func (d *directed) all() error {
	d.src = rng.NewIdeal(seed.Derive(d.set.Config.Seed, seedTagDirect), 1<<16)
	mc := d.set.Config.Model
	w := d.set.FieldBits
	for _, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
		ln := "local"
		if lnh == header.LNHGlobal {
			ln = "global"
		}
		if mc.SenderMode() {
			for v := uint64(1); v < 1<<w; v++ {
				for _, c := range []bool{false, true} {
					if err := d.one(fmt.Sprintf("%s/rand/%0*b/%s", ln, w, v, congWord(c)), lnh, v, c, nil, nil); err != nil {
						return err
					}
				}
			}
		} else {
			for n := uint64(0); n < 1<<w; n++ {
				for _, z := range []bool{true, false} {
					if !z && n == 0 {
						continue // l = 1: the draw is always 0
					}
					for _, c := range []bool{false, true} {
						name := fmt.Sprintf("%s/count/%d/%s/%s", ln, n, decisionWord(z), congWord(c))
						if err := d.one(name, lnh, n, c, &z, nil); err != nil {
							return err
						}
					}
				}
			}
		}
		for _, psn := range []uint32{0, 0xFFFFFF, 1} {
			p := d.packet(lnh, d.anyField())
			p.psn = psn
			if err := d.with(fmt.Sprintf("%s/psn/%x", ln, psn), p, d.src.Next()%2 == 1, nil, nil); err != nil {
				return err
			}
		}
		for _, l := range [][2]int{{mc.MaxSwitch, mc.MaxPort}, {mc.MaxSwitch, 0}, {0, mc.MaxPort}, {0, 0}} {
			p := d.packet(lnh, d.anyField())
			lk := refmodel.Link{Switch: uint16(l[0]), Port: uint8(l[1])}
			if err := d.with(fmt.Sprintf("%s/link/%s", ln, lk), p, true, &lk, nil); err != nil {
				return err
			}
		}
		p := d.packet(lnh, d.anyField())
		p.fecn, p.becn = true, true
		p.resv6 |= ^uint8(1<<(w+2)-1) & 0x3F
		if err := d.with(ln+"/bits/fecn-becn-spare", p, true, nil, nil); err != nil {
			return err
		}
		if mc.Generator == "ideal" {
			for l := 3; l <= mc.MaxL(); l++ {
				if l&(l-1) == 0 {
					continue // A(l) = 2^32: no output is rejected
				}
				for k := 1; k <= 3; k++ {
					st := idealStateFor(0xFFFFFFFF, k, d.src)
					if got := idealRejections(st, l); got != k {
						return fmt.Errorf("directed reject/l%d/x%d: the constructed state %s rejects %d outputs", l, k, st.Hex(128), got)
					}
					if err := d.one(fmt.Sprintf("%s/reject/l%d/x%d", ln, l, k), lnh, uint64(l-1), d.src.Next()%2 == 1, nil, st); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func congWord(c bool) string {
	if c {
		return "cong"
	}
	return "idle"
}

func decisionWord(z bool) string {
	if z {
		return "replace"
	}
	return "keep"
}

// idealRejections counts the outputs the ideal generator in state st rejects
// before its draw for l accepts one.
func idealRejections(st rng.State, l int) int {
	g := rng.NewIdeal(1, 16)
	if err := g.SetState(st); err != nil {
		return -1
	}
	a, _ := rng.IdealBounds(l)
	k := 0
	for uint64(g.Next()) >= a {
		k++
	}
	return k
}

// anyField is a random well-formed incoming field value.
func (d *directed) anyField() uint64 {
	w := d.set.FieldBits
	v := uint64(d.src.Next()) & (1<<w - 1)
	if d.set.Config.Model.SenderMode() && v == 0 {
		v = 1
	}
	return v
}

// packet is a random packet whose hop field is field and whose hop_bit and
// cong_bit are random.
func (d *directed) packet(lnh uint8, field uint64) packetSpec {
	p := d.set.randomPacket(d.src, lnh)
	w := d.set.FieldBits
	p.resv6 = p.resv6&^uint8(1<<w-1) | uint8(field)
	return p
}

// one makes a case with hop field `field`: if want is set, the generator
// state is chosen so the draw answers *want; if st is set, it is the state.
// hop_bit and cong_bit come in as the complement of what a replacement
// writes, so a replacement is visible in the bytes.
func (d *directed) one(name string, lnh uint8, field uint64, cong bool, want *bool, st rng.State) error {
	p := d.packet(lnh, field)
	mc := d.set.Config.Model
	sw := uint16(d.src.Next() % uint32(mc.MaxSwitch+1))
	port := uint8(1 + d.src.Next()%uint32(mc.MaxPort))
	id := mc.ID.ID(p.slid, p.destQP, p.psn)
	dd, err := mc.Link.Encode(sw, port)
	if err != nil {
		return err
	}
	h := uint8(mc.Hash.Bit(id, dd))
	w := uint(d.set.FieldBits)
	p.resv6 = p.resv6&^(3<<w) | (h^1)<<(w+1) | uint8(b2i(!cong))<<w
	lk := refmodel.Link{Switch: sw, Port: port}
	if want != nil {
		return d.with(name, p, cong, &lk, func(g rng.Generator) bool { return g.Clone().Draw(int(field)+1) == *want })
	}
	if st != nil {
		return d.with(name, p, cong, &lk, func(g rng.Generator) bool { return g.SetState(st) == nil })
	}
	return d.with(name, p, cong, &lk, nil)
}

// with stages packet p at link lk (random if nil) with a fresh port generator;
// accept, if set, must accept the generator (it may also change its state),
// and fresh seeds are tried until it does.
func (d *directed) with(name string, p packetSpec, cong bool, lk *refmodel.Link, accept func(rng.Generator) bool) error {
	mc := d.set.Config.Model
	var l refmodel.Link
	if lk != nil {
		l = *lk
	} else {
		l = refmodel.Link{Switch: uint16(d.src.Next() % uint32(mc.MaxSwitch+1)), Port: uint8(1 + d.src.Next()%uint32(mc.MaxPort))}
	}
	var g rng.Generator
	if !mc.SenderMode() {
		for try := 0; ; try++ {
			if try == 10000 {
				return fmt.Errorf("directed case %s: no generator seed gives the decision", name)
			}
			pc := mc
			d.tries++
			pc.Seed = seed.Derive(d.set.Config.Seed, seedTagDirect, d.tries)
			var err error
			if g, err = pc.NewPortGenerator(l.Switch, l.Port); err != nil {
				return err
			}
			if accept == nil || accept(g) {
				break
			}
		}
	} else if accept != nil {
		return fmt.Errorf("directed case %s: sender draws have no generator to choose", name)
	}
	pkt, err := p.build(nil)
	if err != nil {
		return fmt.Errorf("directed case %s: %w", name, err)
	}
	v, err := d.set.stage(name, pkt, nil, l.Switch, l.Port, cong, g, true)
	if err != nil {
		return err
	}
	d.out = append(d.out, v)
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
