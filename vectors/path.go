// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// Seed tags of the path vectors' streams.
const seedTagPath uint64 = 0x7061746876656374

// PathConfig says which whole-path vectors to make: a packet from the sender
// NIC (refmodel Send) through a path of switches (Stage at each) to the
// receiver (Receive), for any scheme and layout of the model.
type PathConfig struct {
	Model   refmodel.Config // its LNH says whether the packets are local or global
	Seed    uint64
	Random  int // random paths after the directed ones
	MaxHops int // longest random path; 0: two more than the count saturates at
}

// A PathHop is one switch of a path.
type PathHop struct {
	Switch    uint16
	Port      uint8
	Congested bool
	StateIn   rng.State // nil with sender draws
	StateOut  rng.State
	Result    refmodel.StageResult
	Out       []byte // the packet after this switch
}

// A PathVector is one packet's whole path.
type PathVector struct {
	Index  int
	Case   string
	Built  []byte // the packet as the sender's transport built it, telemetry fields arbitrary
	Sent   []byte // after the sender NIC (Alg. 2, 5)
	Hops   []PathHop
	Sample refmodel.Sample // the receiver's read (input of Alg. 4, 7, 9)
}

// PathSet is a generated set of whole-path vectors.
type PathSet struct {
	Config   PathConfig
	Vectors  []PathVector // GeneratePaths only; StreamPaths keeps none
	Directed int
	model    *refmodel.Model
	stateW   int // the port generators' state width (0 with sender draws)
	paths    int // paths made so far
	hops     int
}

// GeneratePaths makes the directed paths (every path length from 0 to two
// past saturation or 16, with no hop, every hop, and alternate hops congested),
// then cfg.Random random ones, in memory.
func GeneratePaths(cfg PathConfig) (*PathSet, error) {
	var vs []PathVector
	ps, err := StreamPaths(context.Background(), cfg, func(_ *PathSet, v *PathVector) error {
		vs = append(vs, *v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ps.Vectors = vs
	return ps, nil
}

// StreamPaths makes the paths of GeneratePaths and hands each to emit as it
// is made, keeping none, so memory does not grow with cfg.Random. It stops
// with ctx's error when ctx is done.
func StreamPaths(ctx context.Context, cfg PathConfig, emit func(*PathSet, *PathVector) error) (*PathSet, error) {
	m, err := refmodel.New(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("path vectors: %w", err)
	}
	if cfg.Random < 0 {
		return nil, fmt.Errorf("path vectors: %d random paths", cfg.Random)
	}
	// Paths reach two hops past saturation, up to 16 hops (wide counts, such
	// as full-ID's 8 bits, saturate beyond any real path).
	longest := min(cfg.Model.CountMax()+2, 16)
	if cfg.MaxHops == 0 {
		cfg.MaxHops = longest
	}
	if cfg.MaxHops < 1 || cfg.MaxHops > 64 {
		return nil, fmt.Errorf("path vectors: longest path %d hops, want 1..64", cfg.MaxHops)
	}
	ps := &PathSet{Config: cfg, model: m}
	if g, err := cfg.Model.NewPortGenerator(0, 1); err == nil && g != nil {
		ps.stateW = g.StateBits()
	}
	r := rng.NewIdeal(seed.Derive(cfg.Seed, seedTagPath), 1<<16)
	one := func(name string, hops int, congested func(h int) bool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, err := ps.path(ps.paths, name, r, hops, congested)
		if err != nil {
			return err
		}
		ps.paths++
		ps.hops += len(v.Hops)
		return emit(ps, &v)
	}
	for hops := 0; hops <= longest; hops++ {
		for _, pat := range []string{"idle", "cong", "alternate"} {
			if hops == 0 && pat != "idle" {
				continue
			}
			err := one(fmt.Sprintf("hops/%d/%s", hops, pat), hops, func(h int) bool {
				return pat == "cong" || pat == "alternate" && h%2 == 0
			})
			if err != nil {
				return nil, err
			}
		}
	}
	ps.Directed = ps.paths
	for i := range cfg.Random {
		hops := int(1 + r.Next()%uint32(cfg.MaxHops))
		if err := one("random", hops, func(int) bool { return r.Next()%2 == 1 }); err != nil {
			return nil, fmt.Errorf("random path %d: %w", i, err)
		}
	}
	return ps, nil
}

// Counts summarizes the paths made so far for the manifest.
func (ps *PathSet) Counts() map[string]int {
	return map[string]int{"paths": ps.paths, "directed": ps.Directed, "random": ps.paths - ps.Directed,
		"hops": ps.hops, "packets": ps.paths + ps.hops}
}

// path builds one packet and carries it through hops switches, each a
// distinct output port with its own generator (seeded, as every port's is,
// from the run seed, switch and port: docs/spec.md section 6).
func (ps *PathSet) path(index int, name string, r *rng.Ideal, hops int, congested func(h int) bool) (PathVector, error) {
	mc := ps.Config.Model
	pc := mc
	pc.Seed = seedForPath(ps.Config.Seed, index)
	p := randomPacket(r, mc.LNH, maxPathPayload)
	p.footer = ps.model.Layout().FooterBytes
	built, err := p.build(nil)
	if err != nil {
		return PathVector{}, err
	}
	v := PathVector{Index: index, Case: name, Built: built}
	pkt := append([]byte(nil), built...)
	var nic rng.Generator
	if mc.SenderMode() {
		nic = pc.NewSenderGenerator(p.slid)
	}
	if err := ps.model.Send(pkt, nic); err != nil {
		return v, err
	}
	v.Sent = append([]byte(nil), pkt...)
	used := map[refmodel.Link]bool{}
	for h := range hops {
		var l refmodel.Link
		for {
			l = refmodel.Link{Switch: uint16(r.Next() % uint32(mc.MaxSwitch+1)), Port: uint8(1 + r.Next()%uint32(mc.MaxPort))}
			if !used[l] {
				break
			}
		}
		used[l] = true
		g, err := pc.NewPortGenerator(l.Switch, l.Port)
		if err != nil {
			return v, err
		}
		hop := PathHop{Switch: l.Switch, Port: l.Port, Congested: congested(h)}
		if g != nil {
			hop.StateIn = g.State()
		}
		if hop.Result, err = ps.model.Stage(pkt, l.Switch, l.Port, hop.Congested, g); err != nil {
			return v, fmt.Errorf("path %d hop %d: %w", index, h+1, err)
		}
		if g != nil {
			hop.StateOut = g.State()
		}
		hop.Out = append([]byte(nil), pkt...)
		v.Hops = append(v.Hops, hop)
	}
	if v.Sample, err = ps.model.Receive(pkt); err != nil {
		return v, fmt.Errorf("path %d: %w", index, err)
	}
	return v, nil
}

// maxPathPayload is the largest payload (extended headers and data) of a
// path vector's packet.
const maxPathPayload = 32

// seedForPath is the run seed of path index's generators (its ports' and its
// sender NIC's, derived from it as the model derives them).
func seedForPath(s uint64, index int) uint64 { return seed.Derive(s, seedTagPath, uint64(index)) }

// JSONPathHop, JSONSample and JSONPath are the JSON Lines form of a path
// vector. Each record carries the fields of its scheme only (pointers left
// nil are omitted): hash for the one-bit schemes, the congested
// reservoir's draw for the two-reservoir and full-ID schemes, hop_bit and
// cong_bit for the one-bit schemes, cong_count for the two-reservoir and
// full-ID schemes, hop_link and cong_link for full-ID (every path, the
// 0-hop ones included). Every one-bit value is the integer 0 or 1.
type JSONPathHop struct {
	Switch    uint16 `json:"switch"`
	Port      uint8  `json:"port"`
	Congested uint8  `json:"congested"`
	StateIn   string `json:"state_in,omitempty"`
	StateOut  string `json:"state_out,omitempty"`
	L         int    `json:"l"`
	Hash      *uint8 `json:"hash,omitempty"`
	Replace   uint8  `json:"replace"`
	CongDrew  *uint8 `json:"cong_drew,omitempty"`
	CongRepl  *uint8 `json:"cong_replace,omitempty"`
	Out       string `json:"out"`
}

type JSONSample struct {
	SLID      uint16  `json:"slid"`
	DLID      uint16  `json:"dlid"`
	ID        uint32  `json:"id"`
	HopBit    *uint8  `json:"hop_bit,omitempty"`
	CongBit   *uint8  `json:"cong_bit,omitempty"`
	HopCount  int     `json:"hop_count"`
	CongCount *int    `json:"cong_count,omitempty"`
	HopLink   *string `json:"hop_link,omitempty"`
	CongLink  *string `json:"cong_link,omitempty"`
}

type JSONPath struct {
	Index  int           `json:"index"`
	Case   string        `json:"case"`
	Built  string        `json:"built"`
	Sent   string        `json:"sent"`
	Hops   []JSONPathHop `json:"hops"`
	Sample JSONSample    `json:"sample"`
}

// bit is a one-bit value as the JSON Lines forms write it.
func bit(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func ptr[T any](v T) *T { return &v }

// JSON returns the path's JSON Lines form under the set's scheme.
func (ps *PathSet) JSON(v *PathVector) JSONPath {
	scheme := ps.Config.Model.Telemetry.Scheme
	oneBit, congRes := scheme != header.FullID, scheme != header.OneReservoir
	j := JSONPath{Index: v.Index, Case: v.Case, Built: hex.EncodeToString(v.Built), Sent: hex.EncodeToString(v.Sent), Hops: []JSONPathHop{}}
	for _, h := range v.Hops {
		jh := JSONPathHop{Switch: h.Switch, Port: h.Port, Congested: bit(h.Congested), L: h.Result.HopL,
			Replace: bit(h.Result.HopReplaced), Out: hex.EncodeToString(h.Out)}
		if h.StateIn != nil {
			jh.StateIn, jh.StateOut = h.StateIn.Hex(ps.stateW), h.StateOut.Hex(ps.stateW)
		}
		if oneBit {
			jh.Hash = ptr(h.Result.HashBit)
		}
		if congRes {
			jh.CongDrew, jh.CongRepl = ptr(bit(h.Result.CongDrew)), ptr(bit(h.Result.CongReplaced))
		}
		j.Hops = append(j.Hops, jh)
	}
	s := v.Sample
	j.Sample = JSONSample{SLID: s.SLID, DLID: s.DLID, ID: s.ID, HopCount: s.HopCount}
	if oneBit {
		j.Sample.HopBit, j.Sample.CongBit = ptr(s.HopBit), ptr(s.CongBit)
	}
	if congRes {
		j.Sample.CongCount = ptr(s.CongCount)
	}
	if scheme == header.FullID {
		j.Sample.HopLink, j.Sample.CongLink = ptr(s.HopLink.String()), ptr(s.CongLink.String())
	}
	return j
}

// StateBits is the width of the port generators' state (0 with sender draws).
func (ps *PathSet) StateBits() int { return ps.stateW }

// WriteJSONL writes the paths of GeneratePaths in JSON Lines form.
func (ps *PathSet) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	for i := range ps.Vectors {
		if err := enc.Encode(ps.JSON(&ps.Vectors[i])); err != nil {
			return err
		}
	}
	return nil
}

// Packets returns the path's packets in order: as sent, then after each hop.
func (v *PathVector) Packets() [][]byte {
	out := [][]byte{v.Sent}
	for _, h := range v.Hops {
		out = append(out, h.Out)
	}
	return out
}
