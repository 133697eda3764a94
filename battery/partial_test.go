// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// shardOf runs a small battery (one hash, the ideal generator) as shard 0
// of 1.
func shardOf(t *testing.T) (*Battery, *Partial) {
	t.Helper()
	return wholeShard(t, smallConfig([]string{"mult0"}, []string{"ideal"}))
}

// wholeShard runs c as shard 0 of 1.
func wholeShard(t *testing.T, c Config) (*Battery, *Partial) {
	t.Helper()
	b, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.RunShard(context.Background(), 0, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b, p
}

// rewrite writes p with a fresh checksum and reads it back, as the command's
// files go: what a test changed in p becomes corrupt but valid JSON that
// passes the file checks.
func rewrite(t *testing.T, p *Partial) *Partial {
	t.Helper()
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPartial(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func itemOf(t *testing.T, p *Partial, prefix string) *PartialItem {
	t.Helper()
	for i := range p.Items {
		if strings.HasPrefix(p.Items[i].Test, prefix) {
			return &p.Items[i]
		}
	}
	t.Fatalf("no item %s", prefix)
	return nil
}

// A partial whose counts leave their domains is refused at merge, each with
// a reason: more ones than values counted, a count of 2^64-1, a chunk that
// says it counted something else than the plan, and a hop held more often
// than the packets sent. Junk after the JSON object and a checksum that no
// longer matches are refused when the file is read.
func TestMergeRefusesCorruptPartials(t *testing.T) {
	b, p := shardOf(t)
	if _, err := b.Finalize(rewrite(t, p)); err != nil {
		t.Fatalf("the untouched partial: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(p *Partial)
		want string
	}{
		{"ones beyond the values", func(p *Partial) {
			it := itemOf(t, p, "generator/binomial|generator=ideal l=2")
			it.Counts[0] = it.N + 1
		}, "more than the"},
		{"a count of 2^64-1", func(p *Partial) {
			itemOf(t, p, "hash/bias-over-links").Counts[1] = math.MaxUint64
		}, "more than the"},
		{"what it counted", func(p *Partial) {
			itemOf(t, p, "hash/bias-over-links").N *= 2
		}, "it says it counted"},
		{"a P0 that is no probability", func(p *Partial) {
			it := itemOf(t, p, "generator/p0-exact|generator=ideal l=2")
			it.Counts[0], it.Counts[1], it.Counts[2] = 1, 3, 2
		}, "not a probability"},
	} {
		q := rewrite(t, p)
		tc.edit(q)
		if _, err := b.Finalize(rewrite(t, q)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}

	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := ReadPartial(bytes.NewReader(append(append([]byte{}, good...), []byte(`{"format":"x"}`)...))); err == nil || !strings.Contains(err.Error(), "after the JSON object") {
		t.Errorf("junk after the object: err = %v", err)
	}
	if _, err := ReadPartial(bytes.NewReader(append(append([]byte{}, good...), "\n \n"...))); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(good, &raw); err != nil {
		t.Fatal(err)
	}
	raw["of"] = 1.0
	raw["shards"] = []any{0.0}
	items := raw["items"].([]any)
	items[0].(map[string]any)["counts"].([]any)[0] = 7.0 // changed without a new checksum
	edited, _ := json.Marshal(raw)
	if _, err := ReadPartial(bytes.NewReader(edited)); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("an edited count: err = %v, want a checksum mismatch", err)
	}
}

// A decode summary whose float words are not numbers, or whose link indices
// run past the candidate set, is refused.
func TestMergeRefusesCorruptDecode(t *testing.T) {
	c := decodeConfig([]string{"mult0"}, []string{"ideal"})
	c.IDs, c.CountBits, c.Lockstep = []string{"psn-slid"}, []int{3}, false
	b, p := wholeShard(t, c)
	for _, tc := range []struct {
		prefix string
		word   int
		value  uint64
		want   string
	}{
		{"decode/hash", 3, 1 << 40, "beyond the 401 candidate links"},
		{"decode/hash", 4, math.Float64bits(math.NaN()), "statistic NaN"},
		{"decode/generator", 0, 1 << 40, "held"},
	} {
		q := rewrite(t, p)
		itemOf(t, q, tc.prefix).Counts[tc.word] = tc.value
		if _, err := b.Finalize(rewrite(t, q)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s word %d: err = %v, want it to mention %q", tc.prefix, tc.word, err, tc.want)
		}
	}
}
