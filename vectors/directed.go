// SPDX-License-Identifier: Apache-2.0

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

// all makes every directed case: first the reset chain (resetCases), then,
// for local then global packets:
//
//	count/<n>/<replace|keep>/<cong|idle>   every hop count 0..2^b-1 (the last
//	                                       saturates), both decisions, both congested bits
//	rand/<v>/<cong|idle>                   sender draws: every hop_rand (spent included; 0 is
//	                                       malformed: forwarded unchanged, docs/spec.md section 5)
//	malformed/corrupt/<kind>               sender draws: a hop_rand of 0 in a corrupt frame, stomped
//	psn/<0|ffffff|1>                       PSN 0 (id 0 under psn), its wrap value, and 1
//	link/<switch>:<port>                   the largest switch ID and port, and 0
//	bits/fecn-becn-spare                   FECN, BECN and any spare Resv6 bit pass untouched
//	reject/l<l>/x<k>                       ideal generator: k rejected outputs before the draw
//	len/..., corrupt/...                   every length class and corruption (trafficCases)
//
// and then, for local packets, one case on every comparator edge of the
// generator (edges.go):
//
//	edge/<edge>                            e.g. edge/l3/z-1, edge/l5/t+1, edge/l4/pos-last, edge/spent
//
// and last the raw packets (rawCases).
func (d *directed) all() error {
	d.src = rng.NewIdeal(seed.Derive(d.set.Config.Seed, seedTagDirect, d.set.Digest), 1<<16)
	mc := d.set.Config.Model
	w := d.set.FieldBits
	if err := d.resetCases(); err != nil {
		return err
	}
	for _, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
		ln := "local"
		if lnh == header.LNHGlobal {
			ln = "global"
		}
		if mc.SenderMode() {
			for v := uint64(0); v < 1<<w; v++ {
				for _, c := range []bool{false, true} {
					if err := d.one(fmt.Sprintf("%s/rand/%0*b/%s", ln, w, v, congWord(c)), lnh, v, c, nil); err != nil {
						return err
					}
				}
			}
			for c := corruptVCRC; c < numCorruptions; c++ {
				pkt, _, err := d.set.buildPacket(nil, d.packet(lnh), new(uint64))
				if err != nil {
					return err
				}
				corrupt(pkt, c, d.src)
				if err := d.stageAtRandomLink(fmt.Sprintf("%s/malformed/corrupt/%s", ln, corruptionNames[c]), pkt); err != nil {
					return err
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
						if err := d.one(name, lnh, n, c, answers(int(n)+1, z)); err != nil {
							return err
						}
					}
				}
			}
		}
		for _, psn := range []uint32{0, 0xFFFFFF, 1} {
			p := d.packet(lnh)
			p.psn = psn
			if err := d.with(fmt.Sprintf("%s/psn/%x", ln, psn), p, nil, d.src.Next()%2 == 1, nil, nil); err != nil {
				return err
			}
		}
		for _, l := range [][2]int{{mc.MaxSwitch, mc.MaxPort}, {mc.MaxSwitch, 0}, {0, mc.MaxPort}, {0, 0}} {
			lk := refmodel.Link{Switch: uint16(l[0]), Port: uint8(l[1])}
			if err := d.with(fmt.Sprintf("%s/link/%s", ln, lk), d.packet(lnh), nil, true, &lk, nil); err != nil {
				return err
			}
		}
		// Every Resv6 bit set, then the telemetry fields drawn afresh: the
		// bits no field uses stay set and must pass untouched.
		p := d.packet(lnh)
		p.fecn, p.becn, p.resv6 = true, true, 0x3F
		if err := d.with(ln+"/bits/fecn-becn-spare", p, d.anyFields(), true, nil, nil); err != nil {
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
					if err := d.one(fmt.Sprintf("%s/reject/l%d/x%d", ln, l, k), lnh, uint64(l-1), d.src.Next()%2 == 1, setState(st)); err != nil {
						return err
					}
				}
			}
		}
		if err := d.trafficCases(ln, lnh); err != nil {
			return err
		}
		if lnh == header.LNHLocal {
			if err := d.edgeCases(ln); err != nil {
				return err
			}
		}
	}
	return d.rawCases()
}

// resetLen is the length of the reset chain.
const resetLen = 4

// resetCases are the set's first vectors: a chain of local packets through
// one port whose generator starts in its reset state (rng.Resetter,
// docs/spec.md section 4) and is never loaded, as a stage draws after rst_ni
// before any state is loaded; the testbenches load nothing before them.
//
//	reset/<k>    k = 0..resetLen-1, hop counts spread over 0..2^b-1
//
// With sender draws there is no switch generator, and no reset chain.
func (d *directed) resetCases() error {
	mc := d.set.Config.Model
	if mc.SenderMode() {
		return nil
	}
	sw := uint16(d.src.Next() % uint32(mc.MaxSwitch+1))
	port := uint8(1 + d.src.Next()%uint32(mc.MaxPort))
	pc := mc
	d.tries++
	pc.Seed = seed.Derive(d.set.Config.Seed, seedTagDirect, d.set.Digest, d.tries)
	g, err := pc.NewPortGenerator(sw, port)
	if err != nil {
		return err
	}
	r, ok := g.(rng.Resetter)
	if !ok {
		return fmt.Errorf("directed reset cases: generator %s has no reset state", g.Name())
	}
	r.Reset()
	top := uint64(1)<<d.set.FieldBits - 1
	for k := range uint64(resetLen) {
		field := k * top / (resetLen - 1)
		pkt, _, err := d.set.buildPacket(nil, d.packet(header.LNHLocal), &field)
		if err != nil {
			return fmt.Errorf("directed case reset/%d: %w", k, err)
		}
		v, err := d.set.stage(fmt.Sprintf("reset/%d", k), pkt, nil, sw, port, d.src.Next()%2 == 1, g, false)
		if err != nil {
			return err
		}
		d.out = append(d.out, v)
	}
	return nil
}

// edgeCases makes one case on each comparator edge of the generator, and
// checks that it sits on that edge.
func (d *directed) edgeCases(ln string) error {
	e := d.set.edges
	for bit, x := range e.list {
		name := fmt.Sprintf("%s/edge/%s", ln, x)
		field := uint64(x.L - 1) // the count whose draw is for l
		var pick func(rng.Generator) bool
		switch e.gen {
		case "sender":
			spent := uint64(1) << (e.field - 1)
			field = map[string]uint64{"spent": spent, "to-spent/zero": spent >> 1, "to-spent/one": spent | spent>>1}[x.Kind]
		case "ideal":
			a, z := e.a[x.L], e.z[x.L]
			r := map[string]uint64{"z-1": z - 1, "z": z, "a-1": a - 1, "a": a}[x.Kind]
			pick = setState(idealStateFor(uint32(r), 1, d.src))
		case "lfsr-lut":
			t := uint64(e.t[x.L])
			pick = setState(rng.State{map[string]uint64{"t-1": t - 1, "t": t, "t+1": t + 1}[x.Kind]})
		case "shiftreg":
			pick = shiftTo(x, e.q)
		}
		n := len(d.out)
		if err := d.one(name, header.LNHLocal, field, d.src.Next()%2 == 1, pick); err != nil {
			return err
		}
		if d.out[n].Edges&(1<<uint(bit)) == 0 {
			return fmt.Errorf("directed case %s does not sit on its comparator edge", name)
		}
	}
	return nil
}

// shiftTo accepts a shift-register generator once drawing for x.L has moved
// it onto edge x (within Q periods of register x.L).
func shiftTo(x Edge, q uint64) func(rng.Generator) bool {
	return func(g rng.Generator) bool {
		sr := g.(*rng.ShiftReg)
		for range 2 * int(q) * x.L {
			p := sr.Position(x.L)
			switch {
			case x.Kind == "pos0" && p == 0, x.Kind == "pos1" && p == 1, x.Kind == "pos-last" && p == x.L-1,
				x.Kind == "phase-wrap" && sr.Phase() == q-1:
				return true
			}
			sr.Draw(x.L)
		}
		return false
	}
}

// answers accepts a generator whose next draw for l answers z.
func answers(l int, z bool) func(rng.Generator) bool {
	return func(g rng.Generator) bool { return g.Clone().Draw(l) == z }
}

// setState accepts a generator after loading st into it.
func setState(st rng.State) func(rng.Generator) bool {
	return func(g rng.Generator) bool { return g.SetState(st) == nil }
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

// fieldValues are telemetry field values to write into a directed case's
// packet (nil: leave the field as drawn).
type fieldValues struct {
	field, hopBit, congBit *uint64
}

// anyFields draws well-formed values for every telemetry field.
func (d *directed) anyFields() *fieldValues {
	w := d.set.FieldBits
	v := uint64(d.src.Next()) & (1<<w - 1)
	if d.set.Config.Model.SenderMode() && v == 0 {
		v = 1
	}
	h, c := uint64(d.src.Next()&1), uint64(d.src.Next()&1)
	return &fieldValues{&v, &h, &c}
}

// packet is a random packet; its telemetry fields are set by with.
func (d *directed) packet(lnh uint8) packetSpec { return randomPacket(d.src, lnh, MaxPayload) }

// one makes a case with hop field `field`, staged by a random link whose
// generator pick accepts (pick may load a state; nil: any). hop_bit and
// cong_bit come in as the complement of what a replacement writes, so a
// replacement is visible in the bytes.
func (d *directed) one(name string, lnh uint8, field uint64, cong bool, pick func(rng.Generator) bool) error {
	p := d.packet(lnh)
	mc := d.set.Config.Model
	sw := uint16(d.src.Next() % uint32(mc.MaxSwitch+1))
	port := uint8(1 + d.src.Next()%uint32(mc.MaxPort))
	dd, err := mc.Link.Encode(sw, port)
	if err != nil {
		return err
	}
	h := uint64(mc.Hash.Bit(mc.ID.ID(p.slid, p.destQP, p.psn), dd)) ^ 1
	c := uint64(b2i(!cong))
	lk := refmodel.Link{Switch: sw, Port: port}
	if pick != nil && mc.SenderMode() {
		return fmt.Errorf("directed case %s: sender draws have no generator to choose", name)
	}
	return d.with(name, p, &fieldValues{&field, &h, &c}, cong, &lk, pick)
}

// with stages packet p, its telemetry fields set to f, at link lk (random if
// nil) with a fresh port generator; pick, if set, must accept the generator
// (it may also change its state), and fresh seeds are tried until it does.
func (d *directed) with(name string, p packetSpec, f *fieldValues, cong bool, lk *refmodel.Link, pick func(rng.Generator) bool) error {
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
			pc.Seed = seed.Derive(d.set.Config.Seed, seedTagDirect, d.set.Digest, d.tries)
			var err error
			if g, err = pc.NewPortGenerator(l.Switch, l.Port); err != nil {
				return err
			}
			if pick == nil || pick(g) {
				break
			}
		}
	}
	pkt, _, err := d.set.buildPacket(nil, p, nil)
	if err == nil && f != nil {
		err = d.set.setFields(pkt, f)
	}
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

// setFields writes the telemetry fields of f into a built packet through the
// layout and reseals its VCRC (the fields lie outside the ICRC).
func (s *StageSet) setFields(pkt []byte, f *fieldValues) error {
	fr, err := header.FrameOf(pkt)
	if err != nil {
		return err
	}
	r := s.refs[modelOf(pkt)]
	for _, x := range []struct {
		ref *header.FieldRef
		v   *uint64
	}{{r.field, f.field}, {r.hopBit, f.hopBit}, {r.congBit, f.congBit}} {
		if x.v != nil {
			if err := x.ref.Set(pkt, fr, *x.v); err != nil {
				return err
			}
		}
	}
	return header.RecomputeVCRC(pkt)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
