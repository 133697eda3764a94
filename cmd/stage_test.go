// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"ibreservoir/header"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// TestStageCommand writes generated vectors back through `stage` and checks
// the one-vector sets against them, and that rtlArgs names the flags that
// choose each configuration.
func TestStageCommand(t *testing.T) {
	for _, c := range []verilog.Config{verilog.DefaultConfig(), vectors.RTLMatrix()[5], vectors.RTLMatrix()[11]} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f := defaultRTLFlags()
		bindRTLFlags(fs, &f)
		if err := fs.Parse(rtlArgs(c)); err != nil {
			t.Fatal(err)
		}
		if got, err := f.config(); err != nil || got.Name() != c.Name() {
			t.Fatalf("rtlArgs %v chose %s (%v), want %s", rtlArgs(c), got.Name(), err, c.Name())
		}
		set, err := vectors.GenerateStage(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 3), Seed: 3, Random: 100})
		if err != nil {
			t.Fatal(err)
		}
		v := set.Vectors[len(set.Vectors)-1]
		o := stageOptions{Out: t.TempDir(), Packet: hex.EncodeToString(v.In), Switch: int(v.Switch), Port: int(v.Port), Congested: v.Congested, Flags: f}
		if set.StateBits > 0 {
			o.State = v.StateIn.Hex(set.StateBits)
		}
		var out bytes.Buffer
		if err := runStage(context.Background(), &out, o); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		dir := filepath.Join(o.Out, vectors.KindStage, "replay_"+c.Name())
		if !strings.Contains(out.String(), hex.EncodeToString(v.Out)) || !strings.Contains(out.String(), " verify --vectors "+filepath.Join(dir, "stage.bin")+"\n") {
			t.Errorf("%s: output\n%s", c.Name(), out.String())
		}
		// The set is whole: its manifest and index agree with its files, as
		// verify --vectors checks them, and it holds the one replayed vector.
		m, err := vectors.CheckSet(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if !m.Replay || m.Counts["vectors"] != 1 {
			t.Errorf("%s: manifest replay %t, counts %v", c.Name(), m.Replay, m.Counts)
		}
		b, err := os.ReadFile(filepath.Join(dir, "stage.bin"))
		if err != nil {
			t.Fatal(err)
		}
		h, recs, err := vectors.ReadBinary(b)
		if err != nil || len(recs) != 1 || !bytes.Equal(recs[0].In, v.In) || !bytes.Equal(recs[0].Out, v.Out) || h.StateBytes != set.StateBytes() {
			t.Fatalf("%s: stage.bin: %v %+v", c.Name(), err, recs)
		}
	}
	bad := stageOptions{Out: t.TempDir(), Packet: "zz", Flags: defaultRTLFlags()}
	for _, tc := range []struct {
		edit func(*stageOptions)
		want string
	}{
		{func(o *stageOptions) {}, "--packet"},
		{func(o *stageOptions) { o.Packet = "0102" }, "--state"},
		{func(o *stageOptions) { o.Packet, o.State = "0102", "1" }, "shorter than the 8-byte LRH"},
		{func(o *stageOptions) { o.Packet, o.State = "0102", "xyz" }, "not a hex digit"},
		{func(o *stageOptions) { o.Packet, o.State, o.Flags.generator = "0102", "1", "sender" }, "keeps no switch state"},
	} {
		o := bad
		tc.edit(&o)
		if err := runStage(context.Background(), &bytes.Buffer{}, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", o, err, tc.want)
		}
	}
}
