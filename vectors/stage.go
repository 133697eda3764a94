// SPDX-License-Identifier: Apache-2.0

// Package vectors generates golden test vectors from the reference model
// (package refmodel), reproducible byte for byte from a seed:
//
//   - switch-stage vectors: one packet through one switch stage (Alg. 8, the
//     one-reservoir scheme the RTL of package verilog implements): the input
//     packet, switch ID, output port, congested bit and generator state in; the
//     output packet, generator state out and what the stage decided. Directed
//     cases cover every hop count including saturation, every overwrite/keep
//     decision, congested and not, PSN 0 and its wrap, the largest switch IDs
//     and ports, the ideal generator's rejection path, and every comparator
//     edge of the generator (edges.go); seeded random cases follow, in chains
//     of their own for each configuration.
//   - whole-path vectors: a packet from the sender NIC through l switches to
//     the receiver's decoded sample, for every scheme (full-ID, two-reservoir,
//     one-reservoir).
//
// Every vector comes from refmodel's Stage, Send, Receive; nothing here
// re-implements the scheme. The packets are valid IBA transport packets
// (packet.go). The formats ($readmemh hex, JSON Lines, a compact binary form
// for co-simulation, ERF pcap) are documented in format.go and docs/rtl.md;
// sets are streamed to disk in bounded memory and a vector directory is
// rewritten as a unit (write.go, outdir.go).
package vectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// MaxPacket is the largest packet (LRH byte 0 through the VCRC) of a
// switch-stage vector: the most the 11-bit PktLen describes, 2047 words and
// the VCRC. Packets beyond MaxLegalPacket are corrupt (the stage stomps them).
const MaxPacket = 4*header.MaxPktLen + header.VCRCLen

// MaxLegalPacket is the longest legal packet with its VCRC: a 4096-byte
// payload behind the largest header set (refmodel.MaxLegalPktLen), 4194 bytes.
const MaxLegalPacket = 4*refmodel.MaxLegalPktLen + header.VCRCLen

// MinPacket is the shortest packet a vector can hold: a local packet's
// headers, ICRC and VCRC with no payload.
const MinPacket = header.LRHLen + header.BTHLen + header.ICRCLen + header.VCRCLen

// MaxPayload is the largest payload of a short packet (the directed cases'
// and most random ones): enough for every pad count and for packets of 4 to 7
// words (local) or 9 to 12 (global) on the RTL's 64-bit datapath, so that the
// VCRC lands in either lane.
const MaxPayload = 28

// MaxLegalPayload is the bytes after the BTH of the longest legal packet: a
// global packet of MaxLegalPacket bytes less its LRH, GRH, BTH, ICRC and VCRC.
const MaxLegalPayload = MaxLegalPacket - header.LRHLen - header.GRHLen - header.BTHLen - header.ICRCLen - header.VCRCLen

// Seed tags (seed.Derive) of the vector generator's own streams. Each stream
// also takes the configuration's digest (ConfigDigest), so that every
// configuration, each hash included, has its own packets, links and
// generator chains.
const (
	seedTagChain  uint64 = 0x7665637463686e // random chain k: packets, links, generator
	seedTagDirect uint64 = 0x7665636469726374
)

// ConfigDigest identifies the model configuration a set of switch-stage
// vectors is for: the first 8 bytes (big-endian) of the SHA-256 of the
// configuration's JSON form (refmodel.Config.MarshalJSON) with its seed and
// LNH zeroed, the two fields a stage set does not depend on. Binary vector
// files, manifests and index.json carry it; verify checks it against the RTL
// it runs.
func ConfigDigest(mc refmodel.Config) uint64 {
	mc.Seed, mc.LNH = 0, 0
	b, err := json.Marshal(mc)
	if err != nil {
		panic(fmt.Sprintf("vectors: configuration %s does not marshal: %v", mc, err)) // every field is a plain value
	}
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// ChainLen is the number of random vectors that share one port's generator:
// each chain is one output port (switch, port) seeded afresh, and its vectors
// are consecutive packets through that port, so the state out of one vector
// is the state in of the next.
const ChainLen = 64

// StageConfig says which switch-stage vectors to make.
type StageConfig struct {
	// Model is the one-reservoir configuration in BTH Resv6 whose Stage the
	// vectors record. Its LNH is ignored: vectors hold local (LNH=2) and
	// global (LNH=3) packets, both through the same stage, as a switch sees
	// them. Its Seed is ignored; Seed below is the set's seed.
	Model  refmodel.Config
	Seed   uint64
	Random int // seeded random vectors after the directed ones
	// Replay, when set, makes the set of these packets alone, in order (no
	// directed or random vectors): packets a testbench reported, replayed
	// through the model as vectors (ibreservoir stage).
	Replay []Replay
}

// A Replay is one given packet through one switch stage: the packet's bytes,
// the switch and output port it leaves by, the port's congested bit, and the
// port's generator state before it (empty with sender draws).
type Replay struct {
	Name      string
	In        []byte
	Switch    uint16
	Port      uint8
	Congested bool
	State     rng.State
}

// A StageVector is one packet through one switch stage.
type StageVector struct {
	Index     int
	Case      string // "random", or the directed case's name
	Switch    uint16
	Port      uint8
	Congested bool
	// Load says the stage's generator is loaded with StateIn before this
	// packet; otherwise StateIn is the previous vector's StateOut.
	Load     bool
	StateIn  rng.State // nil with sender draws
	StateOut rng.State
	In, Out  []byte // the packet before and after the stage, LRH byte 0 through the VCRC
	Result   refmodel.StageResult
	FieldIn  uint64 // hop_count or hop_rand before the stage
	FieldOut uint64 // and after
	Edges    uint64 // the comparator edges the draw sits on (bit i: the set's EdgeList()[i])
	// Corrupt says why the stage stomped the packet's VCRC (0: it did not):
	// refmodel.StageCutThrough's verdict.
	Corrupt refmodel.Corruption
}

// LNH returns the packet's LNH.
func (v *StageVector) LNH() uint8 { return lnhOf(v.In) }

// lnhOf reads a packet's LNH: LRH byte 1 (header.LRHPosSL) bits 1..0.
func lnhOf(pkt []byte) uint8 { return pkt[header.LRHPosSL] & 3 }

// modelOf is the index of the model (local, global) a packet goes through; a
// raw packet goes through the local one, which forwards it untouched.
func modelOf(pkt []byte) int { return b2i(lnhOf(pkt) == header.LNHGlobal) }

// StageSet is a generated set of switch-stage vectors.
type StageSet struct {
	Config    StageConfig
	Vectors   []StageVector
	StateBits int    // generator state width (0 with sender draws)
	Directed  int    // the first Directed vectors are the directed cases
	FieldBits int    // width of hop_count or hop_rand
	Digest    uint64 // ConfigDigest of the configuration
	models    [2]*refmodel.Model
	refs      [2]stageRefs // per model
	edges     *edgeSet
	tally     stageTally // of the vectors delivered so far
	// Reuse lets Stream recycle the memory of the vectors it has emitted:
	// emit must then not keep them (or their packets) after it returns.
	Reuse bool
}

// stageRefs are the telemetry fields a switch stage reads and writes, placed
// by the layout (package header owns the bit positions).
type stageRefs struct {
	field, hopBit, congBit *header.FieldRef // field: hop_count or hop_rand
}

// stageModels validates cfg and returns the models for local and global packets.
func stageModels(cfg StageConfig) ([2]*refmodel.Model, error) {
	var ms [2]*refmodel.Model
	t := cfg.Model.Telemetry
	if t.Scheme != header.OneReservoir {
		return ms, fmt.Errorf("switch-stage vectors: scheme %s: the RTL stage is the one-reservoir scheme (Alg. 8); use path vectors for the others", t.Scheme)
	}
	for i, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
		mc := cfg.Model
		mc.LNH = lnh
		m, err := refmodel.New(mc)
		if err != nil {
			return ms, fmt.Errorf("switch-stage vectors: %w", err)
		}
		l := m.Layout()
		if l.FooterBytes != 0 || len(l.Fields) != 3 {
			return ms, fmt.Errorf("switch-stage vectors: layout %s: the RTL stage keeps its fields in BTH Resv6", l)
		}
		for _, f := range l.Fields {
			for _, s := range f.Segments {
				if s.Region != header.BTHResv6 {
					return ms, fmt.Errorf("switch-stage vectors: layout %s puts %s in %s; the RTL stage keeps its fields in BTH Resv6", l, f.Name, s.Region)
				}
			}
		}
		ms[i] = m
	}
	if cfg.Random < 0 {
		return ms, fmt.Errorf("switch-stage vectors: %d random vectors", cfg.Random)
	}
	if len(cfg.Replay) > 0 && cfg.Random > 0 {
		return ms, fmt.Errorf("switch-stage vectors: a replay set holds its given packets alone, not %d random vectors", cfg.Random)
	}
	return ms, nil
}

// fieldName is the count (or sender-draw) field of the hop reservoir.
func fieldName(mc refmodel.Config) string {
	if mc.SenderMode() {
		return header.FieldHopRand
	}
	return header.FieldHopCount
}

// GenerateStage makes the directed vectors, then cfg.Random seeded random
// ones, all in memory (for sets of up to a few hundred thousand vectors;
// StreamStage bounds the memory of larger ones). The result depends on cfg
// alone.
func GenerateStage(cfg StageConfig) (*StageSet, error) {
	set, err := NewStageSet(cfg)
	if err != nil {
		return nil, err
	}
	err = set.Stream(context.Background(), func(vs []StageVector) error {
		set.Vectors = append(set.Vectors, vs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// NewStageSet validates cfg and returns an empty set to Stream.
func NewStageSet(cfg StageConfig) (*StageSet, error) {
	ms, err := stageModels(cfg)
	if err != nil {
		return nil, err
	}
	set := &StageSet{Config: cfg, models: ms, FieldBits: ms[0].Layout().Field(fieldName(cfg.Model)).Width(), Digest: ConfigDigest(cfg.Model)}
	for i, m := range ms {
		r := &set.refs[i]
		for _, f := range []struct {
			ref  **header.FieldRef
			name string
		}{{&r.field, fieldName(cfg.Model)}, {&r.hopBit, header.FieldHopBit}, {&r.congBit, header.FieldCongBit}} {
			if *f.ref, err = m.Layout().Ref(f.name); err != nil {
				return nil, err
			}
		}
	}
	if set.edges, err = newEdgeSet(cfg.Model, set.FieldBits); err != nil {
		return nil, err
	}
	if !cfg.Model.SenderMode() {
		g, err := cfg.Model.NewPortGenerator(0, 1)
		if err != nil {
			return nil, err
		}
		set.StateBits = g.StateBits()
	}
	return set, nil
}

// batchChains is how many random chains are generated in parallel between two
// in-order deliveries; two batches are in memory at once. (A variable for
// the memory test.)
var batchChains = 256

// Stream generates the set's vectors and hands them to emit in order: first
// the directed cases, then the random chains. Chains are generated in
// parallel, each from its own derived seed, and delivered in chain order, so
// what emit sees depends on the configuration alone, whatever GOMAXPROCS is.
// Vector indices count from 0 across the whole set. It stops with ctx's error
// when ctx is done.
func (s *StageSet) Stream(ctx context.Context, emit func([]StageVector) error) error {
	return s.stream(ctx, emit, nil, nil)
}

// StreamEncoded is Stream for writers: encode turns a run of consecutive
// vectors into bytes (appending to dst) and runs in the generating goroutines,
// and write receives the bytes in vector order. The output is the same as
// encoding what Stream emits.
func (s *StageSet) StreamEncoded(ctx context.Context, encode func(vs []StageVector, dst []byte) []byte, write func([]byte) error) error {
	return s.stream(ctx, nil, encode, write)
}

// A chainOut is one generated chain: its vectors, their encoding, their
// tally, the memory they live in (reused when the set allows), and any error.
type chainOut struct {
	arena chainArena
	vs    []StageVector
	enc   []byte
	tally stageTally
	err   error
}

func (s *StageSet) stream(ctx context.Context, emit func([]StageVector) error, encode func([]StageVector, []byte) []byte, write func([]byte) error) error {
	deliver := func(o *chainOut) error {
		s.tally.merge(&o.tally)
		if emit != nil {
			return emit(o.vs)
		}
		return write(o.enc)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.tally = stageTally{}
	if len(s.Config.Replay) > 0 {
		return s.streamReplay(deliver, encode)
	}
	d := &directed{set: s}
	if err := d.all(); err != nil {
		return err
	}
	for i := range d.out {
		d.out[i].Index = i
	}
	s.Directed = len(d.out)
	first := &chainOut{vs: d.out}
	first.tally.addAll(d.out)
	if encode != nil {
		first.enc = encode(d.out, nil)
	}
	if err := deliver(first); err != nil {
		return err
	}
	chains := (s.Config.Random + ChainLen - 1) / ChainLen
	// Two batches of chains: one generated while the other is delivered.
	var bufs [2][]chainOut
	gen := func(b int) {
		outs := bufs[b/batchChains%2]
		if outs == nil || !s.Reuse {
			outs = make([]chainOut, batchChains)
			bufs[b/batchChains%2] = outs
		}
		parallel(min(batchChains, chains-b), func(i int) {
			k := b + i
			o := &outs[i]
			o.vs, o.err = s.randomChain(k, min(ChainLen, s.Config.Random-k*ChainLen), &o.arena)
			for j := range o.vs {
				o.vs[j].Index = s.Directed + k*ChainLen + j
			}
			o.tally = stageTally{}
			o.tally.addAll(o.vs)
			if encode != nil && o.err == nil {
				o.enc = encode(o.vs, o.enc[:0])
			}
		})
	}
	if chains > 0 {
		gen(0)
	}
	for b := 0; b < chains; b += batchChains {
		if err := ctx.Err(); err != nil {
			return err
		}
		done := make(chan struct{})
		if next := b + batchChains; next < chains {
			go func() { gen(next); close(done) }()
		} else {
			close(done)
		}
		outs := bufs[b/batchChains%2]
		var err error
		for i := range min(batchChains, chains-b) {
			if err = outs[i].err; err != nil {
				break
			}
			if err = deliver(&outs[i]); err != nil {
				break
			}
		}
		<-done
		if err != nil {
			return err
		}
	}
	return nil
}

// parallel runs f(0..n-1) over GOMAXPROCS workers. Callers write results by
// index, so the order of completion never reaches an output.
func parallel(n int, f func(k int)) { parallelN(n, runtime.GOMAXPROCS(0), f) }

// parallelN is parallel over at most workers workers.
func parallelN(n, workers int, f func(k int)) {
	w := min(workers, runtime.GOMAXPROCS(0), n)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= n {
					return
				}
				f(k)
			}
		}()
	}
	wg.Wait()
}

// stage runs the model's Stage on out, a copy of in, and records the vector.
func (s *StageSet) stage(name string, in, out []byte, sw uint16, port uint8, cong bool, g rng.Generator, load bool) (StageVector, error) {
	v := StageVector{Case: name, Switch: sw, Port: port, Congested: cong, Load: load, In: in, Out: out}
	if len(in) < header.LRHLen {
		return v, fmt.Errorf("vector %q: a %d-byte packet is shorter than the %d-byte LRH", name, len(in), header.LRHLen)
	}
	k := modelOf(in)
	m, f := s.models[k], s.refs[k].field
	if err := m.CheckFrame(in); err != nil {
		return v, fmt.Errorf("vector %q: %w", name, err)
	}
	if out == nil {
		v.Out = append([]byte(nil), in...)
	}
	if g != nil {
		v.StateIn = g.State()
	}
	if refmodel.IsRaw(in) {
		// No BTH, no telemetry field, no draw: the fields and edges stay 0.
		var err error
		v.Result, v.Corrupt, err = m.StageCutThrough(v.Out, sw, port, cong, g)
		if err != nil {
			return v, fmt.Errorf("vector %q: %w", name, err)
		}
		if g != nil {
			v.StateOut = g.State()
		}
		return v, nil
	}
	// The telemetry field sits where the headers put it whatever PktLen says:
	// read it through the frame of the packet's own length.
	bth, err := header.BTHOffset(lnhOf(in))
	if err != nil {
		return v, err
	}
	fr := header.Frame{PktLen: len(in) - header.VCRCLen, BTH: bth}
	v.FieldIn = f.Get(in, fr)
	// The draw's l is count+1 (unused with sender draws).
	v.Edges = s.edges.classify(g, v.StateIn, int(v.FieldIn)+1, v.FieldIn)
	v.Result, v.Corrupt, err = m.StageCutThrough(v.Out, sw, port, cong, g)
	if err != nil {
		return v, fmt.Errorf("vector %q: %w", name, err)
	}
	v.FieldOut = f.Get(v.Out, fr)
	if g != nil {
		v.StateOut = g.State()
	}
	return v, nil
}

// buildPacket appends the bytes of packet p to dst with its incoming hop
// field set to field (nil: as drawn, but never 0 with sender draws, where 0
// is malformed), and returns them and the packet's start in dst.
func (s *StageSet) buildPacket(dst []byte, p packetSpec, field *uint64) ([]byte, int, error) {
	start := len(dst)
	dst, err := p.build(dst)
	if err != nil {
		return dst, start, err
	}
	pkt := dst[start:]
	fr, err := header.FrameOf(pkt)
	if err != nil {
		return dst, start, err
	}
	ref := s.refs[modelOf(pkt)].field
	switch {
	case field != nil:
		err = ref.Set(pkt, fr, *field)
	case s.Config.Model.SenderMode() && ref.Get(pkt, fr) == 0:
		err = ref.Set(pkt, fr, 1) // a sender-draw field is never 0 (the sentinel)
	default:
		return dst, start, nil
	}
	if err == nil {
		err = header.RecomputeVCRC(pkt)
	}
	return dst, start, err
}

// A chainArena holds a chain's vectors and packet bytes; Stream reuses it
// when the set allows.
type chainArena struct {
	vs  []StageVector
	buf []byte
}

// randomChain makes chain k: n consecutive packets through one port.
func (s *StageSet) randomChain(k, n int, a *chainArena) ([]StageVector, error) {
	r := rng.NewIdeal(seed.Derive(s.Config.Seed, seedTagChain, s.Digest, uint64(k)), 1<<16)
	mc := s.Config.Model
	sw := uint16(r.Next() % uint32(mc.MaxSwitch+1))
	port := uint8(1 + r.Next()%uint32(mc.MaxPort))
	var g rng.Generator
	if !mc.SenderMode() {
		pc := mc
		pc.Seed = seed.Derive(s.Config.Seed, seedTagChain, s.Digest, uint64(k), 1)
		var err error
		if g, err = pc.NewPortGenerator(sw, port); err != nil {
			return nil, err
		}
	}
	if cap(a.vs) < n {
		a.vs = make([]StageVector, 0, n)
		a.buf = make([]byte, 0, 2*n*MaxLegalPacket/8) // every vector's in and out packets (it grows if need be)
	}
	vs, buf := a.vs[:0], a.buf[:0]
	for i := range n {
		// A quarter global packets, one in 32 raw (LNH 0 or 1), the rest local.
		lnh := uint8(header.LNHLocal)
		switch x := r.Next() % 64; {
		case x < 16:
			lnh = header.LNHGlobal
		case x >= 62:
			lnh = uint8(x - 62) // header.LNHRaw, header.LNHIPv6Raw
		}
		start := len(buf)
		var err error
		var c corruption
		if lnh < header.LNHLocal {
			var p rawSpec
			p, c = randomRawTraffic(r, lnh)
			buf, err = p.build(buf)
		} else {
			var p packetSpec
			p, c = randomTraffic(r, lnh)
			buf, start, err = s.buildPacket(buf, p, nil)
		}
		if err != nil {
			return nil, err
		}
		corrupt(buf[start:], c, r)
		mid := len(buf)
		buf = append(buf, buf[start:mid]...)
		name := "random"
		if lnh < header.LNHLocal {
			name += "/raw/" + rawName(lnh)
		}
		if c != corruptNone {
			name += "/" + corruptionNames[c]
		}
		v, err := s.stage(name, buf[start:mid:mid], buf[mid:len(buf):len(buf)], sw, port, r.Next()%2 == 1, g, i == 0)
		if err != nil {
			return nil, fmt.Errorf("random chain %d: %w", k, err)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Diffs lists the bytes in which Out differs from In: the telemetry byte and
// the VCRC, never anything the ICRC covers.
func (v *StageVector) Diffs() []Diff {
	var d []Diff
	for i := range v.In {
		if v.In[i] != v.Out[i] {
			d = append(d, Diff{Offset: i, Value: v.Out[i]})
		}
	}
	return d
}

// A Diff is one output byte that differs from the input.
type Diff struct {
	Offset int
	Value  byte
}

// checkInvariant verifies that a vector changed only BTH byte 4 and the VCRC
// (the frame's last two bytes, wherever PktLen says they are); a raw packet,
// only the VCRC.
func (v *StageVector) checkInvariant() error {
	if refmodel.IsRaw(v.In) {
		n := len(v.In) - header.VCRCLen
		if !bytes.Equal(v.In[:n], v.Out[:n]) {
			return fmt.Errorf("vector %d (%s): a raw packet changed before its VCRC", v.Index, v.Case)
		}
		return nil
	}
	bth, err := header.BTHOffset(lnhOf(v.In))
	if err != nil {
		return err
	}
	fr := header.Frame{BTH: bth, PktLen: len(v.In) - header.VCRCLen}
	for _, d := range v.Diffs() {
		if d.Offset != fr.BTH+header.BTHPosFECN && d.Offset != fr.PktLen && d.Offset != fr.PktLen+1 {
			return fmt.Errorf("vector %d (%s): byte %d changed (%#02x -> %#02x); only BTH byte 4 and the VCRC may", v.Index, v.Case, d.Offset, v.In[d.Offset], v.Out[d.Offset])
		}
	}
	if !bytes.Equal(v.In[:fr.BTH+header.BTHPosFECN], v.Out[:fr.BTH+header.BTHPosFECN]) {
		return fmt.Errorf("vector %d: header changed", v.Index)
	}
	return nil
}

// idealStateFor returns an ideal-generator state whose next 32-bit output is
// r, and whose next `repeat` outputs are all r (repeat 1..3), with the other
// words drawn from src. xoshiro128**'s output rotl(s1*5, 7)*9 depends on s1
// alone, and 5 and 9 are invertible mod 2^32, so s1 = rotr(r*9^-1, 7)*5^-1.
// A step leaves s1' = s1^s2^s0, so s2 = s0 repeats r once more; and s3 =
// s0^s1 makes s1” = s1 too (checked by the caller against rng.Ideal).
func idealStateFor(r uint32, repeat int, src *rng.Ideal) rng.State {
	const inv5, inv9 = 0xCCCCCCCD, 0x38E38E39
	s1 := bits.RotateLeft32(r*inv9, -7) * inv5
	s0, s2, s3 := src.Next()|1, src.Next(), src.Next()
	if repeat >= 2 {
		s2 = s0
	}
	if repeat >= 3 {
		s3 = s0 ^ s1 ^ s1<<9
	}
	return rng.State{uint64(s0) | uint64(s1)<<32, uint64(s2) | uint64(s3)<<32}
}
