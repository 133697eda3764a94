// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ibreservoir/cosim/mutation"
)

// TestMutateFlags: every flag combination mutate cannot honour is refused
// before any mutant is built, and --list names the whole campaign.
func TestMutateFlags(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.md")
	os.WriteFile(plain, []byte("# no markers\n"), 0o644)
	doc := filepath.Join(dir, "doc.md")
	os.WriteFile(doc, []byte(mutation.Section.Begin+"\n"+mutation.Section.End+"\n"), 0o644)
	part := filepath.Join(dir, "part.json")
	os.WriteFile(part, []byte(`[{"id":"count-wraps","caught":true,"by":"verify","check":"stat","vectors":3,"of_vectors":10}]`), 0o644)
	for _, tc := range []struct {
		o    mutateOptions
		want string
	}{
		{mutateOptions{List: true, Only: "count-wraps"}, "give it alone"},
		{mutateOptions{Only: "nosuch"}, `no mutation "nosuch"`},
		{mutateOptions{Shard: "0/2"}, "--shard needs --out"},
		{mutateOptions{Shard: "2/2", Out: part}, "--shard"},
		{mutateOptions{Only: "count-wraps", Shard: "0/2", Out: part}, "--only and --shard"},
		{mutateOptions{Doc: plain}, "--doc"},
		{mutateOptions{Doc: doc, Only: "count-wraps"}, "whole campaign"},
		{mutateOptions{Merge: []string{part}, Only: "count-wraps"}, "--merge combines"},
		{mutateOptions{Merge: []string{part}, Doc: doc}, "no outcome for"},
		{mutateOptions{Merge: []string{part, part}}, "in two shards"},
		{mutateOptions{Lib: "x.a"}, "--lib"},
	} {
		o := tc.o
		o.Work = filepath.Join(dir, "work")
		if o.Lib == "" {
			o.Score = true
		}
		err := runMutate(context.Background(), &bytes.Buffer{}, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", tc.o, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "work")); err == nil {
		t.Error("a refused run created its work directory")
	}
	var b bytes.Buffer
	if err := runMutate(context.Background(), &b, mutateOptions{List: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(mutation.Mutations) {
		t.Errorf("--list printed %d lines for %d mutations", n, len(mutation.Mutations))
	}
}
