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
