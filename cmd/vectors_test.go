// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"ibreservoir/vectors"
)

// parseVectors parses args as the vectors command does, into fresh options.
func parseVectors(t *testing.T, args ...string) vectorsOptions {
	t.Helper()
	o, err := tryParseVectors(args...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// tryParseVectors parses the flags as the command does; values out of range
// are refused here, when parsed.
func tryParseVectors(args ...string) (vectorsOptions, error) {
	o := vectorsOptions{Out: "out/vectors", Seed: vectors.DefaultSeed, Random: vectors.DefaultRandom,
		Paths: vectors.DefaultPaths, Flags: defaultRTLFlags()}
	fs := pflag.NewFlagSet("vectors", pflag.ContinueOnError)
	bindVectorsFlags(fs, &o)
	err := fs.Parse(args)
	o.given = givenFlags(fs)
	return o, err
}

// parseOrRunError is the error a command line meets first: the flag parser's
// (which names the flag as "--name"), or the run's.
func parseOrRunError(parseErr error, run func() error) error {
	if parseErr != nil {
		return parseErr
	}
	return run()
}

// mentions reports whether err names what want names: the run's errors quote
// the flag and value ("--random -1"), the parser's the flag alone.
func mentions(err error, want string) bool {
	if err == nil {
		return false
	}
	if strings.Contains(err.Error(), want) {
		return true
	}
	f := strings.Fields(want)[0]
	return strings.HasPrefix(f, "--") && strings.Contains(err.Error(), `"`+f+`" flag`)
}

// TestVectorsFlagErrors: every flag out of range, unknown value, or without
// effect in the mode the flags choose is an error before any work.
func TestVectorsFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hash", "nosuch"}, "--hash"},
		{[]string{"--generator", "lfsr-lut/b99"}, "--generator"},
		{[]string{"--sender-draws", "2"}, "sender draws"},
		{[]string{"--generator", "sender", "--count-bits", "3"}, "--count-bits has no effect"},
		{[]string{"--depth", "3"}, "--depth"},
		{[]string{"--hash", "crc32", "--only", "stage"}, "--only has no effect"},
		{[]string{"--hash", "crc32", "--paths", "5"}, "--paths has no effect"},
		{[]string{"--bulk", "100", "--random", "5"}, "--random has no effect with --bulk"},
		{[]string{"--bulk", "100", "--only", "stage"}, "--only has no effect with --bulk"},
		{[]string{"--bulk", "100", "--paths", "5"}, "--paths has no effect with --bulk"},
		{[]string{"--bulk", "0"}, "--bulk 0"},
		{[]string{"--random", "-1"}, "--random -1"},
		{[]string{"--paths", "-3"}, "--paths -3"},
		{[]string{"--only", "nosuch"}, "matches no vector set"},
	} {
		o, perr := tryParseVectors(tc.args...)
		o.Out = filepath.Join(t.TempDir(), "v")
		err := parseOrRunError(perr, func() error { return runVectors(context.Background(), &bytes.Buffer{}, o) })
		if !mentions(err, tc.want) {
			t.Errorf("vectors %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if _, serr := os.Stat(o.Out); serr == nil {
			t.Errorf("vectors %s: wrote %s before refusing", strings.Join(tc.args, " "), o.Out)
		}
	}
	// An output larger than the free disk is refused before starting.
	o := parseVectors(t, "--bulk", "1000000000000")
	o.Out = filepath.Join(t.TempDir(), "v")
	if err := runVectors(context.Background(), &bytes.Buffer{}, o); err == nil || !strings.Contains(err.Error(), "free") {
		t.Errorf("vectors --bulk 10^12: %v, want the free-space error", err)
	}
}

// TestVectorsModes: RTL flags write that configuration's set in every
// format; --bulk writes the binary form with a manifest; both keep the sets
// already there, and index.json lists them all.
func TestVectorsModes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v")
	run := func(args ...string) {
		t.Helper()
		o := parseVectors(t, append(args, "--out", out)...)
		var b bytes.Buffer
		if err := runVectors(context.Background(), &b, o); err != nil {
			t.Fatalf("vectors %s: %v", strings.Join(args, " "), err)
		}
	}
	run("--hash", "siphash", "--id", "psn-slid", "--generator", "sender", "--random", "100")
	run("--bulk", "1000", "--hash", "crc32")
	want := map[string][]string{
		"stage/siphash_sender_l3_psn_slid": {"stage.hex", "stage.jsonl", "stage.bin", "stage_in.pcap", "stage_out.pcap"},
		"bulk/crc32_ideal_c3":              {"stage.bin"},
	}
	idx, err := vectors.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Sets) != len(want) {
		t.Fatalf("index.json lists %d sets, want %d", len(idx.Sets), len(want))
	}
	for _, s := range idx.Sets {
		files := want[s.Kind+"/"+s.Name]
		if len(files) != len(s.Files) {
			t.Errorf("%s/%s: files %+v, want %v", s.Kind, s.Name, s.Files, files)
			continue
		}
		for i, f := range s.Files {
			if f.Name != files[i] {
				t.Errorf("%s/%s: file %s, want %s", s.Kind, s.Name, f.Name, files[i])
			}
		}
		m, err := vectors.CheckSet(filepath.Join(out, s.Kind, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		if m.Edges == nil || m.Edges.Hit != m.Edges.Total || m.ConfigDigest == "" {
			t.Errorf("%s/%s: edges %+v, digest %q", s.Kind, s.Name, m.Edges, m.ConfigDigest)
		}
	}
}

// TestVectorsHelperProcess is the ibreservoir command in a child process,
// for TestVectorsSignal.
func TestVectorsHelperProcess(t *testing.T) {
	args := os.Getenv("IBR_HELPER_ARGS")
	if args == "" {
		t.Skip("a helper process")
	}
	rootCmd.SetArgs(strings.Split(args, "\x1f"))
	os.Exit(Execute())
}

// TestVectorsSignal: SIGINT and SIGTERM stop `vectors` and `vectors --bulk`
// promptly, with a non-zero exit, no temporaries, and the previous output
// intact.
func TestVectorsSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v")
	o := parseVectors(t, "--only", "stage/mult0_ideal_c3", "--out", out)
	if err := runVectors(context.Background(), &bytes.Buffer{}, o); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, vectors.IndexName))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"vectors", "--only", "stage/mult0_ideal_c3", "--random", "1000000", "--seed", "2", "--out", out}},
		{syscall.SIGTERM, []string{"vectors", "--bulk", "10000000", "--out", out}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVectorsHelperProcess$")
		cmd.Env = append(os.Environ(), "IBR_HELPER_ARGS="+strings.Join(tc.args, "\x1f"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once the run is writing its staging directory.
		staging := filepath.Join(filepath.Dir(out), ".v.staging-")
		deadline := time.Now().Add(30 * time.Second)
		for {
			m, _ := filepath.Glob(staging + "*")
			if len(m) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		t0 := time.Now()
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		took := time.Since(t0)
		if err == nil {
			t.Errorf("%s after %s: exit 0", tc.sig, strings.Join(tc.args, " "))
		}
		if took > 5*time.Second {
			t.Errorf("%s: stopped %.1f s after the signal", tc.sig, took.Seconds())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%s: stderr %q does not say the run was interrupted", tc.sig, stderr.String())
		}
		after, _ := os.ReadFile(filepath.Join(out, vectors.IndexName))
		if !bytes.Equal(before, after) {
			t.Errorf("%s: the previous output changed", tc.sig)
		}
		if _, err := vectors.CheckSet(filepath.Join(out, vectors.KindStage, "mult0_ideal_c3")); err != nil {
			t.Errorf("%s: the previous set: %v", tc.sig, err)
		}
		ents, _ := os.ReadDir(filepath.Dir(out))
		for _, e := range ents {
			if strings.Contains(e.Name(), "staging") || strings.Contains(e.Name(), ".old-") {
				t.Errorf("%s: temporary %s left", tc.sig, e.Name())
			}
		}
		t.Logf("%s: stopped in %.2f s: %s", tc.sig, took.Seconds(), strings.TrimSpace(stderr.String()))
	}
}
