// SPDX-License-Identifier: Apache-2.0

package dpi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/lock"
	"ibreservoir/internal/testtool"
	"ibreservoir/rng"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

// workDir keeps builds between test runs; a build is reused only when its
// sources, library and flags are unchanged. The directories are shared by
// every run of these tests, so a test process holds their lock
// (ibreservoir-test/dpi.lock) from its first use to its exit: a second run
// at once waits for it instead of rebuilding under it.
func workDir(name string) string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	workLock.Do(func() {
		workRoot = filepath.Join(d, "ibreservoir-test")
		err := os.MkdirAll(workRoot, 0o755)
		if err == nil {
			// Kept referenced: the garbage collector would close an
			// unreachable lock file, and drop its lock.
			workUnlock, err = lock.File(filepath.Join(workRoot, "dpi.lock"), workRoot, true)
		}
		if err != nil {
			// No shared directory to lock: a private one (nothing kept).
			workRoot, _ = os.MkdirTemp("", "ibreservoir-dpi-test-*")
		}
	})
	return filepath.Join(workRoot, "dpi", name)
}

var (
	workLock   sync.Once
	workRoot   string
	workUnlock func() // never called: the lock is held to the process's exit
)

// The library is built once per test binary and shared by every build.
var (
	libOnce sync.Once
	libPath string
	libErr  error
)

func library(t testing.TB) string {
	t.Helper()
	libOnce.Do(func() {
		libPath = filepath.Join(workDir("lib"), "libibreservoir.a")
		if libErr = os.MkdirAll(filepath.Dir(libPath), 0o755); libErr == nil {
			libErr = BuildLibrary(context.Background(), libPath)
		}
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libPath
}

// testConfigs are the default configuration and two more: a hardware
// generator with a 4-bit count, and sender draws (whose packets with a hop
// field of 0 the RTL must flag as malformed).
func testConfigs() []verilog.Config {
	d := verilog.DefaultConfig()
	lfsr := d
	lfsr.Hash, lfsr.Generator, lfsr.CountBits = hash.New(hash.CRC32), "lfsr-lut/b16", 4
	sender := d
	sender.Hash, sender.Generator, sender.CountBits, sender.SenderL = hash.New(hash.SipHash), "sender", 0, 3
	return []verilog.Config{d, lfsr, sender}
}

func repro(c verilog.Config) string { return "ibreservoir stage --configuration " + c.Name() }

// TestScoreboard runs the DPI scoreboard on the RTL of three configurations
// under random stalls and gaps: every packet, status and state must match.
func TestScoreboard(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	cfgs := testConfigs()
	b, err := Build(context.Background(), workDir("scoreboard"), cfgs, library(t))
	if err != nil {
		t.Fatal(err)
	}
	for sel, c := range cfgs {
		r, err := b.Run(context.Background(), sel, RunOptions{Packets: 3000, Seed: uint64(7 + sel), Chain: 50, Stall: 20, Gap: 10, Repro: repro})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		r.Print(&out)
		t.Log(strings.TrimSpace(out.String()))
		if r.Mismatches != 0 || r.Packets != 3000 {
			t.Errorf("%s:\n%s", c.Name(), out.String())
		}
		if want := c.ModelConfig(header.LNHLocal, uint64(7+sel)).Settings(); !strings.Contains(r.Model, want) {
			t.Errorf("%s: the testbench's model is %q, want %q", c.Name(), r.Model, want)
		}
		if (r.Malformed > 0) != (c.Generator == "sender") {
			t.Errorf("%s: %d malformed packets", c.Name(), r.Malformed)
		}
		// One packet in eight corrupt, of every kind; all but the icrc ones
		// (sound to a switch) stomped.
		if n := r.CorruptTotal(); n < r.Packets/10 || n > r.Packets/6 || r.Stomped != n-r.Corrupt["icrc"] {
			t.Errorf("%s: %d corrupt packets of %d, %d stomped: %v", c.Name(), n, r.Packets, r.Stomped, r.Corrupt)
		}
		for _, k := range CorruptKinds {
			if r.Corrupt[k] == 0 {
				t.Errorf("%s: no %s packet: %v", c.Name(), k, r.Corrupt)
			}
		}
	}
	if _, err := b.Run(context.Background(), 3, RunOptions{Packets: 1, Chain: 1}); err == nil {
		t.Error("configuration 3 of a build of 3 ran")
	}
	for _, o := range []RunOptions{{Packets: 1, Chain: 1, Stall: 100}, {Packets: 1}, {Chain: 1}} {
		if _, err := b.Run(context.Background(), 0, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

var reField = regexp.MustCompile(`--(switch|port|state|packet) (\S+)`)

// TestPlantedBug corrupts the RTL's Hmult0 constant: the scoreboard must
// report mismatches, each naming its packet with the packet's bytes, the
// field diff and a command whose inputs, run through the model, give the
// packet the scoreboard wanted.
func TestPlantedBug(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := verilog.DefaultConfig()
	files, err := Sources([]verilog.Config{c})
	if err != nil {
		t.Fatal(err)
	}
	edited := 0
	for i, f := range files {
		if f.Name == "ibr_pkg.sv" { // ibr_pkg::Mult0Const
			files[i].Data = bytes.Replace(f.Data, []byte("32'd1846571429"), []byte("32'd1846571428"), 1)
			if !bytes.Equal(files[i].Data, f.Data) {
				edited++
			}
		}
	}
	if edited != 1 {
		t.Fatal("the mult0 constant is not in ibr_pkg.sv")
	}
	b, err := BuildSources(context.Background(), workDir("planted"), files, []verilog.Config{c}, library(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Run(context.Background(), 0, RunOptions{Packets: 500, Seed: 3, Chain: 64, Stall: 10, Gap: 5, MaxFail: 10, Repro: repro})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mismatches == 0 || len(r.First) != 10 {
		t.Fatalf("a corrupted RTL passed: %d mismatches, %d reported", r.Mismatches, len(r.First))
	}
	// A wrong hash bit shows in every status, and in the packet when the
	// reservoir takes the hop.
	// The first packet mismatch of a packet with the model's LNH, whose
	// telemetry fields the diff names (which packets come first depends on
	// the RTL's ready timing).
	var m Mismatch
	for _, x := range r.First {
		if x.What == "packet" && (m.What == "" || !strings.Contains(m.Report, "telemetry ") && strings.Contains(x.Report, "telemetry ")) {
			m = x
		}
	}
	if m.What == "" {
		t.Fatalf("no packet mismatch among the first 10:\n%s", r.First[0].Report)
	}
	t.Logf("%d mismatches; the first packet's:\n%s", r.Mismatches, m.Report)
	for _, want := range []string{"MISMATCH packet=" + strconv.Itoa(m.Packet) + " what=", "  in   ", "  got  ", "  want ",
		"  diff:", "hop_bit", "  reproduce: " + repro(c) + " --switch "} {
		if !strings.Contains(m.Report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// The reproducing command's inputs, through the model, give the packet
	// the scoreboard wanted.
	args := map[string]string{}
	for _, f := range reField.FindAllStringSubmatch(m.Report[strings.Index(m.Report, "reproduce:"):], -1) {
		args[f[1]] = f[2]
	}
	in, err1 := hex.DecodeString(args["packet"])
	sw, err2 := strconv.ParseUint(args["switch"], 10, 16)
	port, err3 := strconv.ParseUint(args["port"], 10, 8)
	set, err4 := vectors.NewStageSet(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 0)})
	if err := firstErr(err1, err2, err3, err4); err != nil {
		t.Fatalf("reproduce line: %v (%v)", err, args)
	}
	st, err := rng.ParseState(args["state"], set.StateBits)
	if err != nil {
		t.Fatal(err)
	}
	v, err := set.Append("reported", in, uint16(sw), uint8(port), strings.Contains(m.Report, "--congested"), st)
	if err != nil {
		t.Fatal(err)
	}
	if m.What == "packet" && !strings.Contains(m.Report, "  want "+hex.EncodeToString(v.Out)+"\n") {
		t.Errorf("the model, rerun on the reported inputs, gives %x, not the reported want", v.Out)
	}
}

// corruptPlants are the bugs the scoreboard's corrupt packets exist for:
// a stage that launders a corrupt packet, and one that does not stomp a
// PktLen shorter than its frame. Each is one line of ibr_switch_stage.sv
// changed in a copy; report is the corrupt kind every mismatch must be of
// ("" : any but icrc, which is sound to a switch).
var corruptPlants = []struct {
	name, old, bug, report string
}{
	{"a corrupt packet laundered: it leaves with a fresh valid VCRC",
		"(head_bad ? 16'h0000 : 16'hffff)", "(head_bad ? 16'hffff : 16'hffff)", ""},
	{"a PktLen shorter than the frame not stomped",
		"assign len_bad_in = widx != {1'b0, pktlen[10:1]} || iw_empty != (pktlen[0] ? 3'd2 : 3'd6) ||",
		"assign len_bad_in = widx < {1'b0, pktlen[10:1]} ||\n                      widx == {1'b0, pktlen[10:1]} && iw_empty != (pktlen[0] ? 3'd2 : 3'd6) ||",
		"pktlen-shorter"},
}

// TestPlantedCorrupt plants each of corruptPlants in a copy of the default
// configuration's RTL: the scoreboard must fail it by comparison with the
// model (mismatches, every one a corrupt packet of the plant's kind), not by
// an assertion inside the RTL. The unchanged RTL passes the same traffic in
// TestScoreboard.
func TestPlantedCorrupt(t *testing.T) {
	testtool.Need(t, "verilator", "go")
	c := verilog.DefaultConfig()
	for i, p := range corruptPlants {
		files, err := Sources([]verilog.Config{c})
		if err != nil {
			t.Fatal(err)
		}
		if files, err = verilog.Patch(files, "ibr_switch_stage.sv", p.old, p.bug); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		b, err := BuildSources(context.Background(), workDir(fmt.Sprintf("planted-corrupt-%d", i)), files, []verilog.Config{c}, library(t))
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.Run(context.Background(), 0, RunOptions{Packets: 2000, Seed: 5, Chain: 64, Stall: 10, Gap: 5, MaxFail: 20, Repro: repro})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		var out bytes.Buffer
		r.Print(&out)
		t.Logf("%s:\n%s", p.name, firstLines(out.String(), 12))
		if r.Mismatches == 0 || r.Assertions != 0 {
			t.Errorf("%s: %d mismatches, %d RTL assertion errors; want mismatches found by the comparison alone", p.name, r.Mismatches, r.Assertions)
		}
		for _, m := range r.First {
			kind := regexp.MustCompile(`\n  corrupt (\S+):`).FindStringSubmatch(m.Report)
			if m.What != "packet" || kind == nil || kind[1] == "icrc" || p.report != "" && kind[1] != p.report {
				t.Errorf("%s: a mismatch that is not a %s packet's:\n%s", p.name, cmp.Or(p.report, "corrupt"), m.Report)
			}
		}
	}
}

// firstLines is the first n lines of s, each cut to 160 characters.
func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > 160 {
			lines[i] = l[:157] + "..."
		}
	}
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestParse reads a testbench's output, and refuses one without its
// result, or with lines it does not know.
func TestParse(t *testing.T) {
	out := "MODEL 0.1 hash=mult0\nMISMATCH packet=4 what=packet configuration=x\n  in   00\n  diff:\n    byte 3\n" +
		"- f.sv:3: Verilog $finish\nCORRUPT vcrc=1 icrc=0 pktlen-longer=2 pktlen-shorter=0 oversize=0 stomped=3\nRESULT packets=9 mismatches=1 malformed=2 cycles=90\nSECONDS 0.5 CPU 0.25\n"
	r, err := parse([]byte(out))
	if err != nil || r.Packets != 9 || r.Mismatches != 1 || r.Malformed != 2 || r.Cycles != 90 || len(r.First) != 1 ||
		r.First[0].Packet != 4 || !strings.HasSuffix(r.First[0].Report, "    byte 3") || r.Rate() != 18 ||
		r.Corrupt["pktlen-longer"] != 2 || r.CorruptTotal() != 3 || r.Stomped != 3 || r.CPURate() != 36 {
		t.Errorf("%+v %v", r, err)
	}
	for _, bad := range []string{"SECONDS 1 CPU 0.25\n", "CORRUPT vcrc=1 icrc=0 pktlen-longer=2 pktlen-shorter=0 oversize=0 stomped=3\nRESULT packets=1 mismatches=0 malformed=0 cycles=1\n",
		"ERROR build: x\nCORRUPT vcrc=1 icrc=0 pktlen-longer=2 pktlen-shorter=0 oversize=0 stomped=3\nRESULT packets=1 mismatches=0 malformed=0 cycles=1\nSECONDS 1 CPU 0.25\n",
		"RESULT packets=1 mismatches=0 malformed=0 cycles=1\nSECONDS 1 CPU 0.25\n", // no CORRUPT line
		"CORRUPT vcrc=1 icrc=0 pktlen-longer=2 oversize=0 stomped=3\nRESULT packets=1 mismatches=0 malformed=0 cycles=1\nSECONDS 1 CPU 0.25\n"} {
		if _, err := parse([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
