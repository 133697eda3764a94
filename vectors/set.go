package vectors

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"ibreservoir/capture"
	"ibreservoir/header"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cpu"
	"ibreservoir/refmodel"
	"ibreservoir/verilog"
)

// A FileHash names a file of a set, its size and its SHA-256.
type FileHash struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Manifest describes a written vector set. Everything but CPU and GoVersion
// depends on the set's configuration alone.
type Manifest struct {
	Tool      string          `json:"tool"`
	Version   string          `json:"version"`
	Kind      string          `json:"kind"` // "stage" or "path"
	Name      string          `json:"name"`
	Seed      uint64          `json:"seed"`
	Config    refmodel.Config `json:"config"`
	RTL       string          `json:"rtl_module,omitempty"` // stage sets: the verilog wrapper the vectors are for
	Counts    map[string]int  `json:"counts"`
	Files     []FileHash      `json:"files"`
	CPU       cpu.Provenance  `json:"cpu"`
	GoVersion string          `json:"go_version"`
}

// A SetSpec is one vector set to write.
type SetSpec struct {
	Kind  string // "stage" or "path"
	Name  string // directory name under the kind
	Stage StageConfig
	Path  PathConfig
	RTL   verilog.Config // stage sets
}

// Dir is the set's directory under root.
func (s SetSpec) Dir(root string) string { return filepath.Join(root, s.Kind, s.Name) }

// Defaults of `ibreservoir vectors`.
const (
	DefaultSeed   = 1
	DefaultRandom = 1000 // random switch-stage vectors per set
	DefaultPaths  = 200  // random paths per set
)

// RTLMatrix is every configuration of the RTL stage the default vectors
// cover: every hash of package hash, every generator kind of package rng
// (verilog.Generators), with a 3- and a 4-bit hop count (sender draws: L=3),
// local and global packets in each set.
func RTLMatrix() []verilog.Config { return verilog.Matrix() }

// PathModels are the model configurations of the default whole-path sets:
// every scheme of the model, in the thesis's layouts and the ones the model
// adds, with the ideal generator and with sender draws.
func PathModels() []refmodel.Config {
	base := refmodel.DefaultConfig()
	base.MaxSwitch, base.MaxPort = 1023, 48
	mk := func(t header.TelemetrySpec, gen string, lnh uint8) refmodel.Config {
		c := base
		c.Telemetry, c.Generator, c.LNH = t, gen, lnh
		return c
	}
	ts := func(s header.Scheme, b, l, sw, p int, pl header.Placement) header.TelemetrySpec {
		return header.TelemetrySpec{Scheme: s, CountBits: b, SenderL: l, SwitchBits: sw, PortBits: p, Placement: pl}
	}
	return []refmodel.Config{
		mk(ts(header.OneReservoir, 3, 0, 16, 8, header.PlaceResv6), "ideal", header.LNHLocal),
		mk(ts(header.OneReservoir, 4, 0, 16, 8, header.PlaceResv6), "ideal", header.LNHLocal),
		mk(ts(header.OneReservoir, 0, 3, 16, 8, header.PlaceResv6), refmodel.GeneratorSender, header.LNHLocal),
		mk(ts(header.OneReservoir, 3, 0, 16, 8, header.PlaceResv6), "lfsr-lut/b16", header.LNHGlobal),
		mk(ts(header.TwoReservoir, 3, 0, 16, 8, header.PlaceFooter), "ideal", header.LNHLocal),
		mk(ts(header.TwoReservoir, 3, 0, 16, 8, header.PlaceReservedGlobal), "ideal", header.LNHGlobal),
		mk(ts(header.TwoReservoir, 0, 3, 16, 8, header.PlaceFooter), refmodel.GeneratorSender, header.LNHLocal),
		mk(ts(header.FullID, 8, 0, 16, 8, header.PlaceFooter), "ideal", header.LNHLocal),
		mk(ts(header.FullID, 4, 0, 10, 6, header.PlaceFooter), "ideal", header.LNHGlobal),
	}
}

// pathName names a path set after its scheme, layout, generator and LNH.
func pathName(c refmodel.Config) string {
	l, err := c.Telemetry.Layout()
	n := c.Telemetry.Name()
	if err == nil {
		n = l.Name
	}
	lnh := "local"
	if c.LNH == header.LNHGlobal {
		lnh = "global"
	}
	return fmt.Sprintf("%s_%s_%s_%s", n, c.Hash.Kind, ident(c.Generator), lnh)
}

func ident(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '@') {
			b[i] = '_'
		}
	}
	return string(b)
}

// DefaultSets is what `ibreservoir vectors` writes with its defaults: a
// switch-stage set for every configuration of RTLMatrix and a whole-path set
// for every one of PathModels.
func DefaultSets(seed uint64, random, paths int) []SetSpec {
	var ss []SetSpec
	for _, c := range RTLMatrix() {
		ss = append(ss, SetSpec{Kind: "stage", Name: c.Name(), RTL: c,
			Stage: StageConfig{Model: c.ModelConfig(header.LNHLocal, seed), Seed: seed, Random: random}})
	}
	for _, m := range PathModels() {
		m.Seed = seed
		ss = append(ss, SetSpec{Kind: "path", Name: pathName(m), Path: PathConfig{Model: m, Seed: seed, Random: paths}})
	}
	return ss
}

// pcapEpoch is the timestamp of a set's first packet; packet i is i
// microseconds later, so the files depend on nothing but the vectors.
var pcapEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func pcapBytes(pkts [][]byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := capture.NewWriter(&b)
	if err != nil {
		return nil, err
	}
	for i, p := range pkts {
		if err := w.WritePacket(pcapEpoch.Add(time.Duration(i)*time.Microsecond), p); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// Files returns the set's files, generated in memory: for a stage set
// stage.hex, stage.jsonl, stage.bin, stage_in.pcap, stage_out.pcap; for a
// path set path.jsonl and path.pcap. counts summarizes the vectors.
func (s SetSpec) Files() (files []verilog.File, counts map[string]int, err error) {
	render := func(name string, f func(io.Writer) error) {
		if err != nil {
			return
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		if err = f(w); err == nil {
			err = w.Flush()
		}
		files = append(files, verilog.File{Name: name, Data: b.Bytes()})
	}
	switch s.Kind {
	case "stage":
		set, e := GenerateStage(s.Stage)
		if e != nil {
			return nil, nil, e
		}
		render("stage.hex", set.WriteHex)
		render("stage.jsonl", set.WriteJSONL)
		render("stage.bin", set.WriteBinary)
		var in, out [][]byte
		for i := range set.Vectors {
			in, out = append(in, set.Vectors[i].In), append(out, set.Vectors[i].Out)
		}
		for _, p := range []struct {
			name string
			pkts [][]byte
		}{{"stage_in.pcap", in}, {"stage_out.pcap", out}} {
			if err != nil {
				break
			}
			var b []byte
			if b, err = pcapBytes(p.pkts); err == nil {
				files = append(files, verilog.File{Name: p.name, Data: b})
			}
		}
		counts = set.Counts()
	case "path":
		ps, e := GeneratePaths(s.Path)
		if e != nil {
			return nil, nil, e
		}
		render("path.jsonl", ps.WriteJSONL)
		if err == nil {
			var b []byte
			if b, err = pcapBytes(ps.Packets()); err == nil {
				files = append(files, verilog.File{Name: "path.pcap", Data: b})
			}
		}
		counts = ps.Counts()
	default:
		return nil, nil, fmt.Errorf("vector set %s: kind %q (want stage or path)", s.Name, s.Kind)
	}
	return files, counts, err
}

// Counts summarizes a stage set for its manifest.
func (s *StageSet) Counts() map[string]int {
	c := map[string]int{"vectors": len(s.Vectors), "directed": s.Directed, "random": len(s.Vectors) - s.Directed}
	for i := range s.Vectors {
		v := &s.Vectors[i]
		if v.LNH() == header.LNHGlobal {
			c["global"]++
		} else {
			c["local"]++
		}
		if v.Result.HopReplaced {
			c["replace"]++
		} else {
			c["keep"]++
		}
		if v.Congested {
			c["congested"]++
		}
		if v.Result.HopSaturated {
			c["saturated"]++
		}
	}
	return c
}

// Counts summarizes a path set for its manifest.
func (ps *PathSet) Counts() map[string]int {
	c := map[string]int{"paths": len(ps.Vectors), "directed": ps.Directed, "random": len(ps.Vectors) - ps.Directed}
	for _, v := range ps.Vectors {
		c["hops"] += len(v.Hops)
		c["packets"] += 1 + len(v.Hops)
	}
	return c
}

// Write generates the set and writes its files and manifest.json into its
// directory under root, each file whole or not at all.
func (s SetSpec) Write(root, version string) (*Manifest, error) {
	files, counts, err := s.Files()
	if err != nil {
		return nil, fmt.Errorf("vector set %s/%s: %w", s.Kind, s.Name, err)
	}
	m := &Manifest{Tool: "ibreservoir", Version: version, Kind: s.Kind, Name: s.Name, Counts: counts,
		CPU: cpu.Describe(), GoVersion: runtime.Version()}
	if s.Kind == "stage" {
		m.Seed, m.Config, m.RTL = s.Stage.Seed, s.Stage.Model, s.RTL.Module()
	} else {
		m.Seed, m.Config = s.Path.Seed, s.Path.Model
	}
	dir := s.Dir(root)
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		m.Files = append(m.Files, FileHash{Name: f.Name, Bytes: len(f.Data), SHA256: hex.EncodeToString(sum[:])})
		if err := atomicfile.WriteFile(filepath.Join(dir, f.Name), f.Data); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	return m, nil
}

// WriteAll writes every set under root, several at once, and an index.json
// listing them with their files' SHA-256; the output depends only on the
// sets, not on the order the work finished in.
func WriteAll(root, version string, sets []SetSpec) ([]*Manifest, error) {
	ms := make([]*Manifest, len(sets))
	errs := make([]error, len(sets))
	parallel(len(sets), func(i int) { ms[i], errs[i] = sets[i].Write(root, version) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	type entry struct {
		Kind  string     `json:"kind"`
		Name  string     `json:"name"`
		Files []FileHash `json:"files"`
	}
	idx := struct {
		Tool    string  `json:"tool"`
		Version string  `json:"version"`
		Sets    []entry `json:"sets"`
	}{Tool: "ibreservoir", Version: version}
	for _, m := range ms {
		idx.Sets = append(idx.Sets, entry{m.Kind, m.Name, m.Files})
	}
	sort.SliceStable(idx.Sets, func(i, j int) bool {
		if idx.Sets[i].Kind != idx.Sets[j].Kind {
			return idx.Sets[i].Kind > idx.Sets[j].Kind // stage, then path
		}
		return false
	})
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	return ms, atomicfile.WriteFile(filepath.Join(root, "index.json"), append(b, '\n'))
}
