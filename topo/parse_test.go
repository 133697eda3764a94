// SPDX-License-Identifier: Apache-2.0

package topo

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec  string
		nodes int
		err   string
	}{
		{"tapered", 4608, ""},
		{"small-tapered", 128, ""},
		{"kary:k=4,n=3", 64, ""},
		{"clos3:radix=12,h=8,pods=4,leaves=4,aggs=4,groups=2,cores=4", 128, ""},
		{"clos3:radix=12,h=8,pods=3,leaves=4,aggs=4,groups=2,cores=2,parallel=2", 96, ""},
		{"fat", 0, "want one of"},
		{"kary:k=4", 0, "k=4 n=0"},
		{"kary:k=4,n=3,x=1", 0, `unknown parameter "x"`},
		{"kary:k=4,k=5", 0, "k given twice"},
		{"kary:k=four,n=3", 0, "is not a count"},
		{"kary:k=4;n=3", 0, "is not a count"},
		{"kary:k", 0, "not key=value"},
		{"clos3:radix=8,h=8,pods=4,leaves=4,aggs=4,groups=2,cores=4", 0, "more than its 8 ports"},
		{"kary:k=7,n=5", 0, "routing-table entries"}, // 12005 switches, 2401 leaves
	} {
		tp, err := Parse(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, want an error containing %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		if tp.Nodes() != c.nodes {
			t.Errorf("Parse(%q): %d nodes, want %d", c.spec, tp.Nodes(), c.nodes)
		}
	}
}

// FuzzParse: any specification either fails with an error or builds a tree
// that passes Validate and whose candidate sets are valid.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"small-tapered", // a preset
		"kary:k=2,n=3",  // a k-ary n-tree
		"kary:k=3,n=1",  // one level: a single switch layer
		"clos3:radix=6,h=2,pods=2,leaves=2,aggs=2,groups=1,cores=2,parallel=1",  // the smallest Clos
		"clos3:radix=12,h=1,pods=1,leaves=1,aggs=4,groups=4,cores=1,parallel=3", // parallel links
		"kary:k=0,n=0", "clos3:", ":", "kary:k=99999999999,n=2", // malformed
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "full") || strings.HasPrefix(spec, "tapered") {
			return // the large presets are tested on their own
		}
		tp, err := Parse(spec)
		if err != nil {
			return
		}
		if tp.Nodes() > 2048 {
			return
		}
		if err := tp.Validate(); err != nil {
			t.Fatalf("Parse(%q) built an invalid tree: %v", spec, err)
		}
		if tp.Nodes() >= 2 {
			cs, err := tp.Candidates(tp.LID(0), tp.LID(tp.Nodes()-1))
			if err != nil {
				t.Fatal(err)
			}
			if err := cs.Validate(); err != nil {
				t.Fatalf("Parse(%q): candidate set: %v", spec, err)
			}
		}
	})
}
