// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"ibreservoir/header"
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

// Set kinds: the directory under the output root each kind of set lives in.
const (
	KindStage = "stage" // switch-stage vectors in every format
	KindPath  = "path"  // whole-path vectors
	KindBulk  = "bulk"  // switch-stage vectors in the binary format only (vectors --bulk)
)

// Manifest describes a written vector set. Everything but Version (the
// build's, package version), CPU and GoVersion depends on the set's
// configuration alone.
type Manifest struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Kind    string `json:"kind"` // KindStage, KindPath or KindBulk
	Name    string `json:"name"`
	Seed    uint64 `json:"seed"`
	// Config is the model configuration (refmodel.Config's JSON form). A
	// switch-stage set holds local and global packets through one stage, so
	// its "lnh" lists the LNHs its packets carry, [0, 1, 2, 3] (raw, raw
	// IPv6, local, global), where a path set's is the one LNH of its packets.
	Config       json.RawMessage `json:"config"`
	ConfigDigest string          `json:"config_digest,omitempty"` // switch-stage sets: ConfigDigest, 16 hex digits
	RTL          string          `json:"rtl_module,omitempty"`    // switch-stage sets: the verilog wrapper the vectors are for
	Counts       map[string]int  `json:"counts"`
	Edges        *EdgeCoverage   `json:"edges,omitempty"` // switch-stage sets: comparator-edge coverage
	// Replay is set on a set of given packets (StageConfig.Replay), which
	// makes no claim to cover the bins and edges the generated sets cover.
	Replay    bool           `json:"replay,omitempty"`
	Files     []FileHash     `json:"files"`
	CPU       cpu.Provenance `json:"cpu"`
	GoVersion string         `json:"go_version"`
}

// ModelConfig returns the manifest's model configuration (LNH 0 for a
// switch-stage set, which holds both).
func (m *Manifest) ModelConfig() (refmodel.Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(m.Config, &raw); err != nil {
		return refmodel.Config{}, fmt.Errorf("manifest of %s/%s: config: %w", m.Kind, m.Name, err)
	}
	if m.Kind != KindPath {
		delete(raw, "lnh")
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return refmodel.Config{}, err
	}
	var c refmodel.Config
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("manifest of %s/%s: %w", m.Kind, m.Name, err)
	}
	return c, nil
}

// RTLConfig returns the RTL configuration of a switch-stage set's manifest
// (pipeline depth 2: the vectors do not depend on it), checked against the
// manifest's configuration digest.
func (m *Manifest) RTLConfig() (verilog.Config, error) {
	if m.Kind != KindStage && m.Kind != KindBulk {
		return verilog.Config{}, fmt.Errorf("manifest of %s/%s: a %s set has no RTL configuration", m.Kind, m.Name, m.Kind)
	}
	mc, err := m.ModelConfig()
	if err != nil {
		return verilog.Config{}, err
	}
	c := verilog.DefaultConfig()
	c.Hash, c.Generator, c.CountBits, c.SenderL, c.ID, c.Link = mc.Hash, mc.Generator, mc.Telemetry.CountBits, mc.Telemetry.SenderL, mc.ID, mc.Link
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("manifest of %s/%s: %w", m.Kind, m.Name, err)
	}
	if d := DigestString(ConfigDigest(c.ModelConfig(0, 0))); d != m.ConfigDigest {
		return c, fmt.Errorf("manifest of %s/%s: config_digest %s, but its configuration's digest is %s", m.Kind, m.Name, m.ConfigDigest, d)
	}
	return c, nil
}

// DigestString is a configuration digest as manifests write it.
func DigestString(d uint64) string { return fmt.Sprintf("%016x", d) }

// A SetSpec is one vector set to write.
type SetSpec struct {
	Kind  string // KindStage, KindPath or KindBulk
	Name  string // directory name under the kind
	Stage StageConfig
	Path  PathConfig
	RTL   verilog.Config // switch-stage and bulk sets
}

// StageSetSpec is the switch-stage set of RTL configuration c: all its
// formats (KindStage), or the binary form alone (KindBulk).
func StageSetSpec(kind string, c verilog.Config, seed uint64, random int) SetSpec {
	return SetSpec{Kind: kind, Name: c.Name(), RTL: c,
		Stage: StageConfig{Model: c.ModelConfig(header.LNHLocal, seed), Seed: seed, Random: random}}
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
		ss = append(ss, StageSetSpec(KindStage, c, seed, random))
	}
	for _, m := range PathModels() {
		m.Seed = seed
		ss = append(ss, SetSpec{Kind: KindPath, Name: pathName(m), Path: PathConfig{Model: m, Seed: seed, Random: paths}})
	}
	return ss
}
