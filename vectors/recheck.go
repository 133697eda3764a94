// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"

	"ibreservoir/header"
	"ibreservoir/rng"
)

// MaxReplay bounds the vectors of a replay set RecheckStage accepts: a
// replay set holds given packets (ibreservoir stage writes one), and its
// check reads them all into memory.
const MaxReplay = 1 << 16

// RecheckStage checks what the manifest m of the switch-stage or bulk set
// in dir (whose files CheckSet has checked against m) says of its vectors
// against the vectors themselves: it makes the set again with the model,
// from the manifest's configuration and seed and the file's vector count
// (or, for a replay set, from the packets, ports and states the file's
// records hold), requires stage.bin to be those bytes, and requires every
// claim of the manifest (kind and name, seed, configuration and its digest,
// RTL module, counts, comparator-edge coverage, replay) to be the one the
// model's set gives. It returns the manifest as the model's set gives it
// (with m's files), in time and memory bounded as writing the set is.
func RecheckStage(ctx context.Context, dir string, m *Manifest) (*Manifest, error) {
	if m.Kind != KindStage && m.Kind != KindBulk {
		return nil, fmt.Errorf("set %s/%s: a %s set holds no switch-stage vectors", m.Kind, m.Name, m.Kind)
	}
	rtl, err := m.RTLConfig()
	if err != nil {
		return nil, err
	}
	mc, err := m.ModelConfig()
	if err != nil {
		return nil, err
	}
	mc.LNH = header.LNHLocal // the set holds both; StageSetSpec's choice
	bin := filepath.Join(dir, "stage.bin")
	f, err := os.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, BinaryHeaderLen)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	h, err := ReadBinaryHeader(head)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := CheckCount(h, st.Size()); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	cfg := StageConfig{Model: mc, Seed: m.Seed}
	name := rtl.Name()
	if m.Replay {
		name = "replay_" + name
		if cfg.Replay, err = replays(f, h, st.Size()); err != nil {
			return nil, fmt.Errorf("%s: %w", bin, err)
		}
	} else {
		d, err := GenerateStage(cfg)
		if err != nil {
			return nil, err
		}
		if h.Count < uint64(len(d.Vectors)) {
			return nil, fmt.Errorf("%s holds %d vectors, fewer than the %d directed ones of its configuration: it is not a set the model makes", bin, h.Count, len(d.Vectors))
		}
		cfg.Random = int(h.Count) - len(d.Vectors)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	fileSum := sha256.New()
	if _, err := io.Copy(fileSum, f); err != nil {
		return nil, err
	}
	modelSum := sha256.New()
	set, err := WriteStageBinary(ctx, modelSum, cfg)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(fileSum.Sum(nil), modelSum.Sum(nil)) {
		what := fmt.Sprintf("configuration %s, seed %d and %d vectors", name, m.Seed, h.Count)
		if m.Replay {
			what = fmt.Sprintf("configuration %s and the %d packets of its records", name, h.Count)
		}
		return nil, fmt.Errorf("%s is not the set the model makes from its manifest's %s (SHA-256 %s, the model's %s): the file or the manifest was changed",
			bin, what, hex.EncodeToString(fileSum.Sum(nil)), hex.EncodeToString(modelSum.Sum(nil)))
	}
	if m.Name != name {
		return nil, fmt.Errorf("%s: the manifest names the set %s, but its vectors are of configuration %s: a set is named after its configuration", filepath.Join(dir, ManifestName), m.Name, name)
	}
	want := &Manifest{Tool: m.Tool, Version: m.Version, Kind: m.Kind, Name: name, Files: m.Files, CPU: m.CPU, GoVersion: m.GoVersion}
	if err := set.describe(want, rtl); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field     string
		got, want any
		equal     bool
	}{
		{"seed", m.Seed, want.Seed, m.Seed == want.Seed},
		{"config", compact(m.Config), compact(want.Config), jsonEqual(m.Config, want.Config)},
		{"config_digest", m.ConfigDigest, want.ConfigDigest, m.ConfigDigest == want.ConfigDigest},
		{"rtl_module", m.RTL, want.RTL, m.RTL == want.RTL},
		{"counts", m.Counts, want.Counts, maps.Equal(m.Counts, want.Counts)},
		{"edges", edgesJSON(m.Edges), edgesJSON(want.Edges), edgesJSON(m.Edges) == edgesJSON(want.Edges)},
		{"replay", m.Replay, want.Replay, m.Replay == want.Replay},
	} {
		if !c.equal {
			return nil, fmt.Errorf("%s: %s is %v, but its vectors give %v: the manifest was changed", filepath.Join(dir, ManifestName), c.field, c.got, c.want)
		}
	}
	return want, nil
}

// CheckCount refuses a header whose vector count the file of size bytes
// cannot hold (every record takes at least minRecord bytes), before
// anything sizes itself by the count.
func CheckCount(h BinaryFileHeader, size int64) error {
	most := uint64(max(0, size-BinaryHeaderLen)) / MinRecord
	if h.Count > most {
		return fmt.Errorf("the header counts %d vectors, but the file's %d bytes hold at most %d (a record takes at least %d bytes): the count is wrong", h.Count, size, most, MinRecord)
	}
	return nil
}

// MinRecord is the smallest binary record: the head and the shortest
// packet, padded (no state, no diffs).
const MinRecord = (RecHeadLen + MinPacket + RecAlign - 1) / RecAlign * RecAlign

// replays are the given packets of a replay set's records: each loads its
// port's state (or, with sender draws, has none).
func replays(r io.ReaderAt, h BinaryFileHeader, size int64) ([]Replay, error) {
	if h.Count > MaxReplay {
		return nil, fmt.Errorf("its manifest says it is a replay set of given packets, but it holds %d vectors (a replay set holds at most %d)", h.Count, MaxReplay)
	}
	b := make([]byte, size)
	if _, err := r.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	_, recs, err := ReadBinary(b)
	if err != nil {
		return nil, err
	}
	out := make([]Replay, len(recs))
	for i, rec := range recs {
		if h.StateBytes > 0 && rec.Flags&FlagLoad == 0 {
			return nil, fmt.Errorf("record %d does not load its port's state, as every given packet does: it is not a replay set", i)
		}
		var st rng.State
		for j := 0; j+8 <= len(rec.StateIn); j += 8 {
			st = append(st, binary.LittleEndian.Uint64(rec.StateIn[j:]))
		}
		out[i] = Replay{Name: "given", In: rec.In, Switch: rec.Switch, Port: rec.Port, Congested: rec.Flags&FlagCongested != 0, State: st}
	}
	return out, nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// edgesJSON is e as a manifest holds it, read back (an empty list and none
// read alike).
func edgesJSON(e *EdgeCoverage) string {
	b, _ := json.Marshal(e)
	var back *EdgeCoverage
	json.Unmarshal(b, &back)
	b, _ = json.Marshal(back)
	return string(b)
}

// compact is a JSON value on one line, for a message.
func compact(b json.RawMessage) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}
