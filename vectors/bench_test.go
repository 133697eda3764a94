// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"context"
	"path/filepath"
	"testing"

	"ibreservoir/verilog"
)

// BenchmarkStageVectors generates b.N seeded random switch-stage vectors of
// the default configuration and encodes them in the binary co-simulation
// format: the work of `ibreservoir vectors` per vector. It reports
// vectors/s; the target is 10 million in under 5 seconds.
func BenchmarkStageVectors(b *testing.B) {
	set, err := NewStageSet(StageConfig{Model: verilog.DefaultConfig().ModelConfig(2, 0), Seed: 1, Random: b.N})
	if err != nil {
		b.Fatal(err)
	}
	set.Reuse = true
	sb := set.StateBytes()
	var n, bytes int
	b.ResetTimer()
	err = set.StreamEncoded(context.Background(), func(vs []StageVector, dst []byte) []byte {
		for i := range vs {
			dst = vs[i].AppendBinary(dst, sb)
		}
		return dst
	}, func(p []byte) error {
		bytes += len(p)
		n++
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	total := set.Directed + b.N
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "vectors/s")
	b.ReportMetric(float64(bytes)/float64(total), "bytes/vector")
}

// BenchmarkRecheck checks a bulk set of b.N random vectors whole, as
// `verify --vectors` does before it simulates: its files and manifest
// against index.json (CheckSet), then the set made again by the model
// (RecheckStage). It reports vectors/s; writing the set is not timed.
func BenchmarkRecheck(b *testing.B) {
	root := filepath.Join(b.TempDir(), "v")
	spec := StageSetSpec(KindBulk, verilog.DefaultConfig(), 1, b.N)
	if _, err := WriteAll(context.Background(), root, "bench", []SetSpec{spec}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	m, err := CheckSet(spec.Dir(root))
	if err == nil {
		_, err = RecheckStage(context.Background(), spec.Dir(root), m)
	}
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(m.Counts["vectors"])/b.Elapsed().Seconds(), "vectors/s")
}
