// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/verilog"
)

// TestManifestTampering: every claim a manifest makes of its vectors is
// checked. An edited manifest is refused by index.json's SHA-256 of it
// (CheckSet); a manifest edited with index.json made to agree (as a writer
// with a bug would leave them) is refused by RecheckStage, which makes the
// set again with the model; a deleted index.json is refused; a header
// count the file cannot hold is refused before anything is sized by it.
func TestManifestTampering(t *testing.T) {
	mult0, crc := verilog.DefaultConfig(), verilog.DefaultConfig()
	crc.Hash = hash.New(hash.CRC32)
	src := filepath.Join(t.TempDir(), "v")
	d, err := GenerateStage(StageConfig{Model: mult0.ModelConfig(2, 5), Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	v := d.Vectors[3]
	replay := SetSpec{Kind: KindStage, Name: "replay_" + mult0.Name(), RTL: mult0, Stage: StageConfig{Model: d.Config.Model,
		Replay: []Replay{{Name: "given", In: v.In, Switch: v.Switch, Port: v.Port, Congested: v.Congested, State: v.StateIn}}}}
	if _, err := WriteAll(context.Background(), src, "test", []SetSpec{
		StageSetSpec(KindStage, mult0, 5, 40), StageSetSpec(KindBulk, mult0, 5, 40), StageSetSpec(KindBulk, crc, 5, 40), replay,
	}); err != nil {
		t.Fatal(err)
	}
	bulk := filepath.Join(KindBulk, mult0.Name())
	// Untouched, every set passes, and RecheckStage gives back the manifest.
	for _, d := range []string{filepath.Join(KindStage, mult0.Name()), bulk, filepath.Join(KindBulk, crc.Name()), filepath.Join(KindStage, replay.Name)} {
		m, err := CheckSet(filepath.Join(src, d))
		if err != nil {
			t.Fatal(err)
		}
		got, err := RecheckStage(context.Background(), filepath.Join(src, d), m)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if a, b := mustJSON(t, got), mustJSON(t, m); a != b {
			t.Errorf("%s: recomputed manifest\n%s\nwant\n%s", d, a, b)
		}
	}
	edit := func(field string, v any) func(map[string]any) {
		return func(m map[string]any) { m[field] = v }
	}
	editConfig := func(field string, v any) func(map[string]any) {
		return func(m map[string]any) { m["config"].(map[string]any)[field] = v }
	}
	for _, c := range []struct {
		name   string
		set    string
		edit   func(map[string]any)
		rename string // move the set to this name (kind/name)
		want   string
	}{
		{"replay on a generated set", bulk, edit("replay", true), "", "does not load its port's state, as every given packet does: it is not a replay set"},
		{"edge coverage", bulk, func(m map[string]any) {
			e := m["edges"].(map[string]any)
			e["hit"], e["total"] = 99, 99
		}, "", "edges is "},
		{"lnh of local packets only", bulk, editConfig("lnh", []int{2}), "", "config is "},
		{"max_switch", bulk, editConfig("max_switch", 7), "", "is not the set the model makes from its manifest's configuration"},
		{"seed", bulk, edit("seed", 6), "", "is not the set the model makes from its manifest's configuration mult0_ideal_c3, seed 6"},
		{"counts", bulk, func(m map[string]any) { m["counts"].(map[string]any)["replace"] = 0 }, "", "counts is "},
		{"crc32 set renamed as mult0", filepath.Join(KindBulk, crc.Name()), edit("name", mult0.Name()), bulk,
			"names the set mult0_ideal_c3, but its vectors are of configuration crc32_ideal_c3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "v")
			copyTree(t, src, root)
			dir := filepath.Join(root, c.set)
			var m map[string]any
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, ManifestName)), &m); err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			b, _ := json.MarshalIndent(m, "", "  ")
			os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644)
			if c.rename != "" {
				os.RemoveAll(filepath.Join(root, c.rename))
				if err := os.Rename(dir, filepath.Join(root, c.rename)); err != nil {
					t.Fatal(err)
				}
				dir = filepath.Join(root, c.rename)
			}
			// The manifest alone edited: index.json refuses it.
			if _, err := CheckSet(dir); err == nil || !strings.Contains(err.Error(), "the manifest was changed after the directory was written") &&
				!strings.Contains(err.Error(), "does not list set") {
				t.Fatalf("an edited manifest: %v", err)
			}
			// index.json made to agree: the vectors refuse it.
			idx, err := buildIndex(root, "test")
			if err != nil {
				t.Fatal(err)
			}
			ib, _ := json.MarshalIndent(idx, "", "  ")
			os.WriteFile(filepath.Join(root, IndexName), ib, 0o644)
			mf, err := CheckSet(dir)
			if err != nil {
				t.Fatalf("with index.json made to agree: %v", err)
			}
			if _, err := RecheckStage(context.Background(), dir, mf); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	t.Run("index.json deleted", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "v")
		copyTree(t, src, root)
		os.Remove(filepath.Join(root, IndexName))
		if _, err := CheckSet(filepath.Join(root, bulk)); err == nil || !strings.Contains(err.Error(), "no index.json in") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("index.json of an older version", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "v")
		copyTree(t, src, root)
		p := filepath.Join(root, IndexName)
		var raw map[string]any
		json.Unmarshal(readFile(t, p), &raw)
		for _, s := range raw["sets"].([]any) {
			delete(s.(map[string]any), "manifest")
		}
		b, _ := json.Marshal(raw)
		os.WriteFile(p, b, 0o644)
		if _, err := CheckSet(filepath.Join(root, bulk)); err == nil || !strings.Contains(err.Error(), "written by an older ibreservoir") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("header count 2^40", func(t *testing.T) {
		b := readFile(t, filepath.Join(src, bulk, "stage.bin"))
		binary.LittleEndian.PutUint64(b[BinPosCount:], 1<<40)
		h, err := ReadBinaryHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckCount(h, int64(len(b))); err == nil || !strings.Contains(err.Error(), "the header counts 1099511627776 vectors, but the file's") {
			t.Errorf("got %v", err)
		}
		binary.LittleEndian.PutUint64(b[BinPosCount:], 0)
		h, _ = ReadBinaryHeader(b)
		if err := CheckCount(h, int64(len(b))); err != nil {
			t.Errorf("count 0 (refused elsewhere, as no check): %v", err)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readFile(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), bytes.Clone(b), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
