// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"ibreservoir/capture"
	"ibreservoir/header"
	"ibreservoir/internal/cpu"
	"ibreservoir/verilog"
)

// Writing sets. Every file is written as its vectors are made, through a
// buffer that also takes its SHA-256, so the memory a set needs does not grow
// with its number of vectors or paths. The sets of a run go into the staging
// directory of an OutDir, which swaps them in whole (outdir.go).

// stageTally counts a switch-stage set's vectors for its manifest.
type stageTally struct {
	vectors, global, replace, congested, saturated int
	raw                                            [2]int // LNH 0 and 1 (no BTH)
	edges                                          [64]int
}

func (t *stageTally) addAll(vs []StageVector) {
	for i := range vs {
		v := &vs[i]
		t.vectors++
		switch lnh := v.LNH(); {
		case lnh == header.LNHGlobal:
			t.global++
		case lnh < header.LNHLocal:
			t.raw[lnh]++
		}
		if v.Result.HopReplaced {
			t.replace++
		}
		if v.Congested {
			t.congested++
		}
		if v.Result.HopSaturated {
			t.saturated++
		}
		addEdges(&t.edges, v.Edges)
	}
}

func (t *stageTally) merge(o *stageTally) {
	t.vectors += o.vectors
	t.global += o.global
	t.raw[0] += o.raw[0]
	t.raw[1] += o.raw[1]
	t.replace += o.replace
	t.congested += o.congested
	t.saturated += o.saturated
	for i := range t.edges {
		t.edges[i] += o.edges[i]
	}
}

// Counts summarizes the vectors streamed so far (all of them, after Stream or
// GenerateStage) for the manifest.
func (s *StageSet) Counts() map[string]int {
	t := &s.tally
	return map[string]int{
		"vectors": t.vectors, "directed": s.Directed, "random": t.vectors - s.Directed,
		"local": t.vectors - t.global - t.raw[0] - t.raw[1], "global": t.global, "raw": t.raw[0] + t.raw[1],
		"replace": t.replace, "keep": t.vectors - t.replace - t.raw[0] - t.raw[1],
		"congested": t.congested, "saturated": t.saturated,
	}
}

// EdgeCoverage is the comparator-edge coverage of the vectors streamed so far.
func (s *StageSet) EdgeCoverage() EdgeCoverage { return s.edges.coverage(s.tally.edges) }

// EdgeList is the configuration's comparator edges; bit i of a vector's Edges
// is EdgeList()[i].
func (s *StageSet) EdgeList() []Edge { return append([]Edge(nil), s.edges.list...) }

// Layout is the telemetry layout of the stage's packets.
func (s *StageSet) Layout() *header.Layout { return s.models[0].Layout() }

// An outFile is a file of a set being written: buffered, hashed, counted.
type outFile struct {
	name string
	f    *os.File
	w    *bufio.Writer
	h    hash.Hash
	n    int
}

func createOut(dir, name string) (*outFile, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &outFile{name: name, f: f, w: bufio.NewWriterSize(f, 1<<20), h: sha256.New()}, nil
}

func (o *outFile) Write(p []byte) (int, error) {
	o.h.Write(p)
	o.n += len(p)
	return o.w.Write(p)
}

// finish flushes, syncs and closes the file and returns its hash.
func (o *outFile) finish() (FileHash, error) {
	err := o.w.Flush()
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return FileHash{}, fmt.Errorf("write %s: %w", o.f.Name(), err)
	}
	return FileHash{Name: o.name, Bytes: o.n, SHA256: hex.EncodeToString(o.h.Sum(nil))}, nil
}

// outFiles opens the named files in dir; close closes any still open (after
// an error: the staging directory is discarded anyway).
type outFiles []*outFile

func createAll(dir string, names ...string) (outFiles, error) {
	var fs outFiles
	for _, n := range names {
		f, err := createOut(dir, n)
		if err != nil {
			fs.close()
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func (fs outFiles) close() {
	for _, f := range fs {
		f.f.Close()
	}
}

func (fs outFiles) finish() ([]FileHash, error) {
	var hs []FileHash
	for _, f := range fs {
		h, err := f.finish()
		if err != nil {
			fs.close()
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// pcapEpoch is the timestamp of a set's first packet; packet i is i
// microseconds later, so the files depend on nothing but the vectors.
var pcapEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func pcapTime(i int) time.Time { return pcapEpoch.Add(time.Duration(i) * time.Microsecond) }

// writeFiles generates the set into dir, an empty directory, and returns its
// files' hashes and its manifest (without the files). For a switch-stage set:
// stage.hex, stage.jsonl, stage.bin, stage_in.pcap, stage_out.pcap; for a bulk
// set stage.bin alone; for a path set path.jsonl and path.pcap.
func (s SetSpec) writeFiles(ctx context.Context, dir string) (*Manifest, []FileHash, error) {
	m := &Manifest{Tool: "ibreservoir", Kind: s.Kind, Name: s.Name}
	var err error
	var hs []FileHash
	switch s.Kind {
	case KindStage, KindBulk:
		var set *StageSet
		if s.Kind == KindStage {
			set, hs, err = writeStage(ctx, dir, s.Stage)
		} else {
			set, hs, err = writeBulk(ctx, dir, s.Stage)
		}
		if err != nil {
			return nil, nil, err
		}
		if err := set.describe(m, s.RTL); err != nil {
			return nil, nil, err
		}
	case KindPath:
		var ps *PathSet
		if ps, hs, err = writePaths(ctx, dir, s.Path); err != nil {
			return nil, nil, err
		}
		m.Seed, m.Counts = s.Path.Seed, ps.Counts()
		if m.Config, err = json.Marshal(s.Path.Model); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("vector set %s: kind %q (want %s, %s or %s)", s.Name, s.Kind, KindStage, KindPath, KindBulk)
	}
	return m, hs, nil
}

// describe fills in what a switch-stage set's manifest says of its vectors
// (all of them streamed): the seed, the configuration and its digest, the
// RTL module, the counts, the comparator-edge coverage and whether it is a
// replay. Writing a set and checking one (RecheckStage) both take it from
// here.
func (set *StageSet) describe(m *Manifest, rtl verilog.Config) error {
	m.Seed, m.RTL, m.Counts = set.Config.Seed, rtl.Module(), set.Counts()
	m.ConfigDigest = DigestString(set.Digest)
	ec := set.EdgeCoverage()
	m.Edges = &ec
	m.Replay = len(set.Config.Replay) > 0
	var err error
	m.Config, err = stageConfigJSON(set.Config, set.tally)
	return err
}

// stageConfigJSON is a switch-stage set's configuration for its manifest:
// the model's, with "lnh" the list of the LNHs its packets carry.
func stageConfigJSON(cfg StageConfig, t stageTally) (json.RawMessage, error) {
	b, err := json.Marshal(cfg.Model)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	lnh := []int{}
	for l, n := range t.raw {
		if n > 0 {
			lnh = append(lnh, l) // header.LNHRaw, header.LNHIPv6Raw
		}
	}
	if t.vectors > t.global+t.raw[0]+t.raw[1] {
		lnh = append(lnh, header.LNHLocal)
	}
	if t.global > 0 {
		lnh = append(lnh, header.LNHGlobal)
	}
	if raw["lnh"], err = json.Marshal(lnh); err != nil {
		return nil, err
	}
	// Keep refmodel's field order: re-encode through the ordered form.
	var ordered []byte
	ordered = append(ordered, '{')
	for i, k := range configKeys(b) {
		if i > 0 {
			ordered = append(ordered, ',')
		}
		kb, _ := json.Marshal(k)
		ordered = append(append(append(ordered, kb...), ':'), raw[k]...)
	}
	return append(ordered, '}'), nil
}

// configKeys lists the keys of a JSON object in their order.
func configKeys(obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	var keys []string
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// writeStage streams a switch-stage set in every format into dir.
func writeStage(ctx context.Context, dir string, cfg StageConfig) (*StageSet, []FileHash, error) {
	set, err := NewStageSet(cfg)
	if err != nil {
		return nil, nil, err
	}
	set.Reuse = true
	fs, err := createAll(dir, "stage.hex", "stage.jsonl", "stage.bin", "stage_in.pcap", "stage_out.pcap")
	if err != nil {
		return nil, nil, err
	}
	hexW, jsonW, binW := fs[0], fs[1], fs[2]
	var pin, pout *capture.Writer
	if pin, err = capture.NewWriter(fs[3]); err == nil {
		pout, err = capture.NewWriter(fs[4])
	}
	if err != nil {
		fs.close()
		return nil, nil, err
	}
	sb := set.StateBytes()
	enc := json.NewEncoder(jsonW)
	var buf []byte
	first := true
	err = set.Stream(ctx, func(vs []StageVector) error {
		if first {
			first = false
			total := set.Directed + cfg.Random
			if _, err := hexW.Write([]byte(set.HexHeader(total))); err != nil {
				return err
			}
			if _, err := binW.Write(set.BinaryHeader(total)); err != nil {
				return err
			}
		}
		for i := range vs {
			v := &vs[i]
			buf = v.AppendHex(buf[:0])
			if _, err := hexW.Write(buf); err != nil {
				return err
			}
			if err := enc.Encode(set.JSON(v)); err != nil {
				return err
			}
			buf = v.AppendBinary(buf[:0], sb)
			if _, err := binW.Write(buf); err != nil {
				return err
			}
			if err := pin.WritePacket(pcapTime(v.Index), v.In); err != nil {
				return err
			}
			if err := pout.WritePacket(pcapTime(v.Index), v.Out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		fs.close()
		return nil, nil, err
	}
	hs, err := fs.finish()
	return set, hs, err
}

// writeBulk streams a switch-stage set in the binary form alone, encoding in
// the generating goroutines.
func writeBulk(ctx context.Context, dir string, cfg StageConfig) (*StageSet, []FileHash, error) {
	fs, err := createAll(dir, "stage.bin")
	if err != nil {
		return nil, nil, err
	}
	set, err := WriteStageBinary(ctx, fs[0], cfg)
	if err != nil {
		fs.close()
		return nil, nil, err
	}
	hs, err := fs.finish()
	return set, hs, err
}

// writePaths streams a whole-path set into dir.
func writePaths(ctx context.Context, dir string, cfg PathConfig) (*PathSet, []FileHash, error) {
	fs, err := createAll(dir, "path.jsonl", "path.pcap")
	if err != nil {
		return nil, nil, err
	}
	pw, err := capture.NewWriter(fs[1])
	if err != nil {
		fs.close()
		return nil, nil, err
	}
	enc := json.NewEncoder(fs[0])
	pkts := 0
	ps, err := StreamPaths(ctx, cfg, func(ps *PathSet, v *PathVector) error {
		if err := enc.Encode(ps.JSON(v)); err != nil {
			return err
		}
		for _, p := range v.Packets() {
			if err := pw.WritePacket(pcapTime(pkts), p); err != nil {
				return err
			}
			pkts++
		}
		return nil
	})
	if err != nil {
		fs.close()
		return nil, nil, err
	}
	hs, err := fs.finish()
	return ps, hs, err
}

// write generates the set into its directory under root and writes its
// manifest.json last.
func (s SetSpec) write(ctx context.Context, root, version string) (*Manifest, error) {
	dir := filepath.Join(root, s.Kind, s.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	m, hs, err := s.writeFiles(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("vector set %s/%s: %w", s.Kind, s.Name, err)
	}
	m.Version, m.Files, m.CPU, m.GoVersion = version, hs, cpu.Describe(), runtime.Version()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	fs, err := createAll(dir, ManifestName)
	if err != nil {
		return nil, err
	}
	if _, err := fs[0].Write(append(b, '\n')); err != nil {
		fs.close()
		return nil, err
	}
	_, err = fs.finish()
	return m, err
}

// maxSetsAtOnce bounds the sets WriteAll generates at once, and with it the
// memory of their chain buffers (about 15 MB each for large sets).
const maxSetsAtOnce = 4

// ManifestName is the manifest file of every set.
const ManifestName = "manifest.json"

// WriteAll writes the sets as one unit into the vector directory root: into a
// staging directory first, several sets at once, then swapped in whole with
// index.json (OutDir). Sets already in root that the run does not rewrite
// are kept. On any error, or when ctx is done, root is left as it was. The
// output depends only on the sets, not on the order the work finished in.
func WriteAll(ctx context.Context, root, version string, sets []SetSpec) (*Result, error) {
	od, err := OpenOutDir(root)
	if err != nil {
		return nil, err
	}
	defer od.Abort()
	if err := od.CheckSpace(EstimateBytes(sets)); err != nil {
		return nil, err
	}
	ms := make([]*Manifest, len(sets))
	errs := make([]error, len(sets))
	for _, s := range sets {
		if err := od.Clear(s.Kind, s.Name); err != nil {
			return nil, err
		}
	}
	// Each set's own generation is parallel (its chains), so a few sets at
	// a time keep every core busy without holding many sets' buffers.
	parallelN(len(sets), maxSetsAtOnce, func(i int) {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			return
		}
		ms[i], errs[i] = sets[i].write(ctx, od.Staging(), version)
	})
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: %w; %s is as it was", ctx.Err(), root)
		}
		return nil, err
	}
	idx, err := od.Commit(version)
	if err != nil {
		return nil, err
	}
	return &Result{Written: ms, Index: idx, Stale: od.Stale}, nil
}

// Result is what WriteAll did.
type Result struct {
	Written []*Manifest // the sets of this run, in the order given
	Index   *Index      // every set now in the directory
	Stale   int         // temporaries of an interrupted earlier run, removed
}

// EstimateBytes is an upper bound on the bytes the sets' files take
// (math.MaxInt64 if more).
func EstimateBytes(sets []SetSpec) int64 {
	var n int64
	add := func(count, per int64) {
		if count > 0 && per > (math.MaxInt64-n)/count {
			n = math.MaxInt64
			return
		}
		n += count * per
	}
	for _, s := range sets {
		switch s.Kind {
		case KindStage, KindBulk:
			// A generous bound on the directed cases, then the random vectors.
			v := int64(s.Stage.Random) + 2048
			// meanPacketBound bounds a set's mean packet (the random mix's
			// is under 600 bytes; the directed cases are few).
			const meanPacketBound = 1024
			rec := int64(8 + 2*MaxStateBits/8 + meanPacketBound + 3*8 + 8) // binary record
			if s.Kind == KindStage {
				// hex words (2 per 8 packet bytes, 17 bytes a line), JSON line
				// (two packets and two states in hex, and the fields), two
				// pcap records (16 + 16 bytes of headers each)
				rec += 17*(HexHeadWords+2*(meanPacketBound+7)/8) + (4*meanPacketBound + 2*MaxStateBits/4 + 512) + 2*(32+meanPacketBound)
			}
			add(v, rec)
		case KindPath:
			hops := int64(s.Path.MaxHops)
			if hops == 0 {
				hops = 18
			}
			// per packet of the path: its hex twice in JSON, state hex, a pcap record
			add(int64(s.Path.Random)+64, (hops+2)*(4*(maxPathPayload+128+16)+2*MaxStateBits/4+256))
		}
		add(1, 4096) // manifest
	}
	return n
}
