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

	"ibreservoir/dpi"
	"ibreservoir/internal/lock"
	"ibreservoir/internal/testtool"
)

// TestScoreboardCommand runs `scoreboard` on the default configuration with a
// reduced packet count, and checks its refusals of bad flags.
func TestScoreboardCommand(t *testing.T) {
	for _, o := range []scoreboardOptions{{Packets: 0, Chain: 1}, {Packets: 1, Chain: 0}, {Packets: 1, Chain: 1, Stall: 96},
		{Packets: 1, Chain: 1, Gap: -1}, {Packets: 1, Chain: 1, MaxFail: -1}, {Packets: 1, Chain: 1, Configs: "nosuch"},
		{Packets: 1, Chain: 1, Width: 96}} {
		if o.Configs == "" {
			o.Configs = "flags"
		}
		o.Flags = defaultRTLFlags()
		if err := runScoreboard(context.Background(), &bytes.Buffer{}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// --segmented at 64 and 128 bits: refused as verilog and verify refuse
	// it, naming the flag, before anything is built.
	for _, w := range []int{64, 128} {
		o := scoreboardOptions{Packets: 1, Chain: 1, Configs: "flags", Width: w, Segmented: true, Flags: defaultRTLFlags(),
			Work: filepath.Join(t.TempDir(), "work")}
		err := runScoreboard(context.Background(), &bytes.Buffer{}, o)
		if want := checkSegmented(true, w); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("scoreboard --width %d --segmented: %v, want %v", w, err, want)
		}
		if _, serr := os.Stat(o.Work); serr == nil {
			t.Errorf("scoreboard --width %d --segmented: made %s", w, o.Work)
		}
	}
	// The depths a stage takes follow --width: 16 only at wide beats.
	deep := scoreboardOptions{Packets: 1, Chain: 1, Configs: "flags", Flags: defaultRTLFlags()}
	deep.Flags.depth = 16
	if err := runScoreboard(context.Background(), &bytes.Buffer{}, deep); err == nil || !strings.Contains(err.Error(), "pipeline depth 16") {
		t.Errorf("--depth 16 at 64-bit beats: %v", err)
	}
	testtool.Need(t, "verilator", "go")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	o := scoreboardOpts
	o.Work = filepath.Join(cache, "ibreservoir-test", "cmd-scoreboard")
	// The directory is shared by every run of this test: a second run at
	// once waits here for the first (the run's own lock would refuse it).
	os.MkdirAll(filepath.Dir(o.Work), 0o755)
	unlock, err := lock.File(o.Work+".wait", o.Work, true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o.Packets = 3000
	var out bytes.Buffer
	err = runScoreboard(context.Background(), &out, o)
	t.Log(out.String())
	if err != nil || !strings.Contains(out.String(), "mult0_ideal_c3") || !strings.Contains(out.String(), " 3000 packets") {
		t.Errorf("%v", err)
	}
	if errors.Is(err, dpi.ErrMismatch) {
		t.Error("the default configuration mismatches")
	}
}
