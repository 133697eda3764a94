// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/battery"
)

func quickStats(t *testing.T) *statsOptions {
	t.Helper()
	c := battery.DefaultConfig()
	c.Hashes, c.IDs, c.Links = []string{"mult0"}, []string{"psn-slid"}, []string{"thesis"}
	c.Generators, c.CountBits = []string{"ideal"}, []int{2}
	c.Size = battery.QuickSize()
	c.Size.SweepBits, c.Size.ChunkValues = 18, 1<<16
	c.Size.LCBlocks, c.Size.Sequences = 128, 4
	return &statsOptions{cfg: c, jobs: 2, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
}

// The command's shards, merged, write the unsharded run's JSON byte for byte.
func TestStatsShardMerge(t *testing.T) {
	dir := t.TempDir()
	o := quickStats(t)
	o.jsonPath = filepath.Join(dir, "whole.json")
	if err := runStats(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		o := quickStats(t)
		o.shard = s
		o.out = filepath.Join(dir, "part-"+s[:1]+".json")
		if err := runStats(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, o.out)
	}
	m := &statsOptions{jsonPath: filepath.Join(dir, "merged.json"), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	if err := runStatsMerge(m, parts); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(o.jsonPath)
	merged, _ := os.ReadFile(m.jsonPath)
	if len(whole) == 0 || !bytes.Equal(whole, merged) {
		t.Fatalf("merged report (%d bytes) differs from the unsharded one (%d bytes)", len(merged), len(whole))
	}
	if !strings.Contains(m.stdout.(*bytes.Buffer).String(), "combinations are sound") {
		t.Errorf("merge printed no text report")
	}
	// Two shards of three cannot be finished.
	err := runStatsMerge(&statsOptions{stdout: &bytes.Buffer{}}, parts[:2])
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("merge of 2 of 3 shards: err = %v, want it to name the missing shard", err)
	}
}

func TestStatsArgumentErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*statsOptions)
		want string
	}{
		{func(o *statsOptions) { o.shard = "3/3"; o.out = "x" }, "0 <= i < n"},
		{func(o *statsOptions) { o.shard = "a" }, "want i/n"},
		{func(o *statsOptions) { o.shard = "0/2" }, "--shard needs --out"},
		{func(o *statsOptions) { o.out = "x" }, "use it with --shard"},
		{func(o *statsOptions) { o.shard, o.out, o.jsonPath = "0/2", "x", "y" }, "give them to 'ibreservoir stats merge'"},
		{func(o *statsOptions) { o.cfg.Hashes = []string{"md5"} }, `unknown hash "md5"`},
	} {
		o := quickStats(t)
		tc.edit(o)
		err := runStats(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want it to mention %q", err, tc.want)
		}
	}
}

// --strict turns an unsound combination into exit status 2.
func TestStatsStrict(t *testing.T) {
	o := quickStats(t)
	o.strict = true
	err := runStats(context.Background(), o)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 2 {
		t.Fatalf("err = %v, want exit status 2 (mult0 fails the sequence tests)", err)
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "1/0", "a/b", "", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := parseShard(s)
		if err == nil && (n < 1 || i < 0 || i >= n) {
			t.Errorf("parseShard(%q) = %d, %d with no error", s, i, n)
		}
	})
}

// Output paths are checked before the battery runs: a directory where a
// file is wanted, a file where a directory is wanted, and a path under a
// file fail at once, naming the flag.
func TestStatsOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	afile := filepath.Join(dir, "afile")
	if err := os.WriteFile(afile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*statsOptions)
		want string
	}{
		{func(o *statsOptions) { o.jsonPath = dir }, "--json " + dir + ": is a directory"},
		{func(o *statsOptions) { o.jsonPath = filepath.Join(afile, "x.json") }, "is a file, not a directory"},
		{func(o *statsOptions) { o.report = afile }, "--report " + afile + ": a file is in the way"},
		{func(o *statsOptions) { o.report = filepath.Join(afile, "rep") }, "is a file, not a directory"},
		{func(o *statsOptions) { o.shard, o.out = "0/2", dir }, "--out " + dir + ": is a directory"},
	} {
		o := quickStats(t)
		tc.edit(o)
		// A run whose context is already cancelled: had the work come
		// first, it would end with the cancellation, not the path's error.
		// (No clock: a loaded machine takes any time.)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := runStats(ctx, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want it to mention %q (the check must come before the work)", err, tc.want)
		}
	}
	// A report directory that does not exist yet is made.
	o := quickStats(t)
	o.cfg.Decode.Enabled = false
	o.report = filepath.Join(dir, "new", "report")
	if err := runStats(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(o.report, "report.md")); err != nil {
		t.Error(err)
	}
}

// --hashes none and --generators none, as documented, run the other half.
func TestStatsNone(t *testing.T) {
	o := quickStats(t)
	o.cfg.Hashes = []string{"none"}
	o.cfg.Decode.Enabled = false
	if err := runStats(context.Background(), o); err != nil {
		t.Fatalf("--hashes none: %v", err)
	}
	if !strings.Contains(o.stdout.(*bytes.Buffer).String(), "GENERATOR") {
		t.Error("--hashes none tested no generator")
	}
	o = quickStats(t)
	o.cfg.Hashes = []string{"none", "mult0"}
	if err := runStats(context.Background(), o); err == nil || !strings.Contains(err.Error(), "none cannot be listed with others") {
		t.Errorf("--hashes none,mult0: %v", err)
	}
}

// A quick run says so, in the text, the JSON and the Markdown.
func TestStatsQuickSaysSo(t *testing.T) {
	dir := t.TempDir()
	o := quickStats(t)
	o.quick = true
	o.cfg.Hashes, o.cfg.Generators = []string{"mult0"}, []string{"ideal"}
	o.cfg.IDs, o.cfg.Links, o.cfg.CountBits = []string{"psn-slid"}, []string{"thesis"}, []int{3}
	o.cfg.Decode.Topologies, o.cfg.Decode.Numberings, o.cfg.Decode.Flows = []string{"tapered-5.3"}, []string{"topo"}, []int{1}
	o.jsonPath, o.report, o.record = filepath.Join(dir, "s.json"), filepath.Join(dir, "rep"), filepath.Join(dir, "decode.json")
	if err := runStats(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	js, _ := os.ReadFile(o.jsonPath)
	md, _ := os.ReadFile(filepath.Join(o.report, "report.md"))
	rec, _ := os.ReadFile(o.record)
	for name, out := range map[string]string{"text": o.stdout.(*bytes.Buffer).String(), "json": string(js), "markdown": string(md), "decode record": string(rec)} {
		if !strings.Contains(out, "QUICK RUN") || !strings.Contains(out, "not evidence") {
			t.Errorf("the %s output does not say it is quick and what it cannot be trusted for", name)
		}
	}
}

// Flags of the decode family with the family turned off are an error.
func TestStatsDecodeFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--decode=false --decode-flows 1", "--decode-flows has no effect with --decode=false"},
		{"--decode=false --decode-slow-bits 20 --decode-topologies full", "--decode-topologies and --decode-slow-bits have no effect with --decode=false"},
		{"--decode-slow-bits 23", "--decode-slow-bits"},
	} {
		c := newStatsCmd() // a fresh command: flags unset
		var out bytes.Buffer
		c.SetOut(&out)
		c.SetErr(&out)
		c.SetArgs(strings.Fields(tc.args))
		err := c.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// The "which configuration to choose" tables in README.md and
// docs/battery.md are what 'stats choose' makes of the checked-in decode
// record (docs/decode.json) and synthesis costs (docs/synthesis.json).
func TestChooseTablesCurrent(t *testing.T) {
	rec, synth := filepath.Join("..", "docs", "decode.json"), filepath.Join("..", "docs", "synthesis.json")
	table, err := chooseTable(rec, synth)
	if err != nil {
		t.Fatal(err)
	}
	// The table names its inputs as the command run from the root sees them.
	table = strings.ReplaceAll(table, rec, "docs/decode.json")
	table = strings.ReplaceAll(table, synth, "docs/synthesis.json")
	for _, p := range []string{filepath.Join("..", "README.md"), filepath.Join("..", "docs", "battery.md")} {
		doc, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := replaceMarked(doc, chooseBegin, chooseEnd, []byte(table))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(doc, want) {
			t.Errorf("%s: the table differs from docs/decode.json and docs/synthesis.json; run go run . stats choose --readme README.md --doc docs/battery.md", p)
		}
	}
}

// stats choose refuses a file without the markers before it reads anything
// else, and prints the table without --readme.
func TestStatsChoose(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "bare.md")
	if err := os.WriteFile(bare, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runStatsChoose(&bytes.Buffer{}, &statsChooseOptions{record: "missing.json", synthesis: "missing.json", readme: bare})
	if err == nil || !strings.Contains(err.Error(), "no markers") {
		t.Errorf("err = %v, want the missing markers named first", err)
	}
	var out bytes.Buffer
	if err := runStatsChoose(&out, &statsChooseOptions{record: filepath.Join("..", "docs", "decode.json"), synthesis: filepath.Join("..", "docs", "synthesis.json")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "cheapest configuration sound for decoding") {
		t.Errorf("output:\n%s", out.String())
	}
}
