package vectors

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

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
	Vectors  []PathVector
	Directed int
	model    *refmodel.Model
}

// GeneratePaths makes the directed paths (every path length from 0 to two
// past saturation or 16, with no hop, every hop, and alternate hops congested),
// then cfg.Random random ones.
func GeneratePaths(cfg PathConfig) (*PathSet, error) {
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
	r := rng.NewIdeal(seed.Derive(cfg.Seed, seedTagPath), 1<<16)
	for hops := 0; hops <= longest; hops++ {
		for _, pat := range []string{"idle", "cong", "alternate"} {
			if hops == 0 && pat != "idle" {
				continue
			}
			v, err := ps.path(len(ps.Vectors), fmt.Sprintf("hops/%d/%s", hops, pat), r, hops, func(h int) bool {
				return pat == "cong" || pat == "alternate" && h%2 == 0
			})
			if err != nil {
				return nil, err
			}
			ps.Vectors = append(ps.Vectors, v)
		}
	}
	ps.Directed = len(ps.Vectors)
	for i := range cfg.Random {
		hops := int(1 + r.Next()%uint32(cfg.MaxHops))
		v, err := ps.path(len(ps.Vectors), "random", r, hops, func(int) bool { return r.Next()%2 == 1 })
		if err != nil {
			return nil, fmt.Errorf("random path %d: %w", i, err)
		}
		ps.Vectors = append(ps.Vectors, v)
	}
	return ps, nil
}

// path builds one packet and carries it through hops switches, each a
// distinct output port with its own generator (seeded, as every port's is,
// from the run seed, switch and port: docs/spec.md section 6).
func (ps *PathSet) path(index int, name string, r *rng.Ideal, hops int, congested func(h int) bool) (PathVector, error) {
	mc := ps.Config.Model
	pc := mc
	pc.Seed = seedForPath(ps.Config.Seed, index)
	p := packetSpec{
		lnh: mc.LNH, slid: uint16(r.Next()), dlid: uint16(r.Next()), destQP: r.Next() % (1 << 24), psn: r.Next() % (1 << 24),
		resv6: uint8(r.Next() % 64), vl: uint16(r.Next() % 16), sl: uint16(r.Next() % 16), pkey: uint16(r.Next()),
		opcode: uint8(r.Next()), payloadByte: byte(r.Next()), flowLabel: r.Next() % (1 << 20), tclass: uint8(r.Next()),
		hoplm: uint8(r.Next()), payload: int(r.Next() % 33), footer: ps.model.Layout().FooterBytes,
	}
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

// seedForPath is the run seed of path index's generators (its ports' and its
// sender NIC's, derived from it as the model derives them).
func seedForPath(s uint64, index int) uint64 { return seed.Derive(s, seedTagPath, uint64(index)) }

// JSONPathHop and JSONPath are the JSON Lines form of a path vector.
type JSONPathHop struct {
	Switch    uint16 `json:"switch"`
	Port      uint8  `json:"port"`
	Congested bool   `json:"congested"`
	StateIn   string `json:"state_in,omitempty"`
	StateOut  string `json:"state_out,omitempty"`
	L         int    `json:"l"`
	Hash      uint8  `json:"hash"`
	Replace   bool   `json:"replace"`
	CongDrew  bool   `json:"cong_drew"`
	CongRepl  bool   `json:"cong_replace"`
	Out       string `json:"out"`
}

type JSONSample struct {
	SLID      uint16 `json:"slid"`
	DLID      uint16 `json:"dlid"`
	ID        uint32 `json:"id"`
	HopBit    uint8  `json:"hop_bit"`
	CongBit   uint8  `json:"cong_bit"`
	HopCount  int    `json:"hop_count"`
	CongCount int    `json:"cong_count"`
	HopLink   string `json:"hop_link,omitempty"`
	CongLink  string `json:"cong_link,omitempty"`
}

type JSONPath struct {
	Index  int           `json:"index"`
	Case   string        `json:"case"`
	Built  string        `json:"built"`
	Sent   string        `json:"sent"`
	Hops   []JSONPathHop `json:"hops"`
	Sample JSONSample    `json:"sample"`
}

// JSON returns the path's JSON Lines form.
func (v *PathVector) JSON(stateBits int) JSONPath {
	j := JSONPath{Index: v.Index, Case: v.Case, Built: hex.EncodeToString(v.Built), Sent: hex.EncodeToString(v.Sent), Hops: []JSONPathHop{}}
	for _, h := range v.Hops {
		jh := JSONPathHop{Switch: h.Switch, Port: h.Port, Congested: h.Congested, L: h.Result.HopL, Hash: h.Result.HashBit,
			Replace: h.Result.HopReplaced, CongDrew: h.Result.CongDrew, CongRepl: h.Result.CongReplaced, Out: hex.EncodeToString(h.Out)}
		if h.StateIn != nil {
			jh.StateIn, jh.StateOut = h.StateIn.Hex(stateBits), h.StateOut.Hex(stateBits)
		}
		j.Hops = append(j.Hops, jh)
	}
	s := v.Sample
	j.Sample = JSONSample{SLID: s.SLID, DLID: s.DLID, ID: s.ID, HopBit: s.HopBit, CongBit: s.CongBit, HopCount: s.HopCount, CongCount: s.CongCount}
	if len(v.Hops) > 0 || s.HopLink != (refmodel.Link{}) {
		j.Sample.HopLink, j.Sample.CongLink = s.HopLink.String(), s.CongLink.String()
	}
	return j
}

// StateBits is the width of the port generators' state (0 with sender draws).
func (ps *PathSet) StateBits() int {
	pc := ps.Config.Model
	g, err := pc.NewPortGenerator(0, 1)
	if err != nil || g == nil {
		return 0
	}
	return g.StateBits()
}

// WriteJSONL writes the paths in JSON Lines form.
func (ps *PathSet) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	sb := ps.StateBits()
	for i := range ps.Vectors {
		if err := enc.Encode(ps.Vectors[i].JSON(sb)); err != nil {
			return err
		}
	}
	return nil
}

// Packets returns every packet of the set in order: for each path, the
// packet as sent, then after each hop.
func (ps *PathSet) Packets() [][]byte {
	var out [][]byte
	for _, v := range ps.Vectors {
		out = append(out, v.Sent)
		for _, h := range v.Hops {
			out = append(out, h.Out)
		}
	}
	return out
}
