// SPDX-License-Identifier: Apache-2.0

// The hostile suite reads /proc and makes itself the child subreaper: Linux
// only, as CI.

//go:build linux

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ibreservoir/battery"
	"ibreservoir/internal/lock"
	"ibreservoir/vectors"
)

// The hostile-input suite: every class of bad input, each case a command
// line with its setup and the one outcome that is right for it. Run it with
// scripts/hostile.sh (IBRESERVOIR_HOSTILE=1 go test -run TestHostile
// ./internal/e2e); CI does, in about a minute.
//
// Every case, whatever it expects, also must not: panic or crash, hang past
// its timeout, leave temporary or staging files behind, change a file it
// lists as previous output, or use more memory than its bound.

// A hostileCase is one command line against bad input.
type hostileCase struct {
	name string
	// setup prepares the working directory (the case's cwd) and may run the
	// binary to make previous outputs; it returns the files, or whole
	// directories, whose bytes the run must leave as they were.
	setup func(t *testing.T, dir, bin string) (unchanged []string)
	args  []string
	// sig, when set, is sent once when holds (polled; it sees the case's
	// directory and the output so far), or, for a run with no condition to
	// wait for, after the given delay: the run must stop within
	// stopWithin of it, with exit status 128+sig, and leave no process of
	// its own running.
	sig  syscall.Signal
	when func(dir, stdout, stderr string) bool
	// whenRead and whenCPU, instead, send sig once the process has read
	// this many bytes, or used this much CPU time (for a command that
	// prints nothing before it finishes).
	whenRead int64
	whenCPU  time.Duration
	after    time.Duration
	// exit is the exit status that is right: 0 (a correct result), 1 (a
	// clear error), 2 (a failed verdict), 130/143 (interrupted).
	exit int
	// stderr, when the run fails, must match this (the clear error: the
	// command's own last message, from "ibreservoir: " to the end, is
	// matched whole, anchored at both ends); stdout, when set, must match
	// too (anywhere in it).
	stderr, stdout string
	maxRSSMB       int64         // peak memory bound; 0: 400 MB
	timeout        time.Duration // 0: 60 s
	needs          []string      // programs the case needs
}

// stopWithin is how promptly a signalled command must exit.
const stopWithin = 5 * time.Second

func hostileCases() []hostileCase {
	hca := filepath.Join(repoRootDir(), "capture", "testdata", "infiniband-hca-capture.pcap")
	withFile := func(name string, data []byte) func(*testing.T, string, string) []string {
		return func(t *testing.T, dir, _ string) []string {
			write(t, filepath.Join(dir, name), data)
			return nil
		}
	}
	var cs []hostileCase
	add := func(c hostileCase) { cs = append(cs, c) }

	// ---- captures: truncated at every few bytes, crafted, huge.
	add(hostileCase{name: "capture truncated at 120 lengths",
		setup: func(t *testing.T, dir, _ string) []string {
			raw := read(t, hca)
			for i, n := 0, 0; n < len(raw); i, n = i+1, n+len(raw)/120+1 {
				write(t, filepath.Join(dir, fmt.Sprintf("cut%03d.pcap", i)), raw[:n])
			}
			return nil
		},
		args: []string{"packet", "check", "cut*.pcap"}, exit: 1,
		stderr: `118 of 2608 packets failed the check, and 1 of 119 files could not be read`, stdout: `(?s)file is 0 bytes.*the file ends.*packets: \d+ good, \d+ bad`})
	add(hostileCase{name: "capture: caplen of 4 GB", setup: withFile("big.pcap", crafted(0xFFFFFFF0)),
		args: []string{"packet", "check", "big.pcap"}, exit: 1, stdout: `record 1, byte 32: captured length 4294967280 exceeds`})
	add(hostileCase{name: "capture: ERF rlen shorter than its header", setup: withFile("rlen.pcap", erfCapture(read(nil, hca), func(r []byte) { binary.BigEndian.PutUint16(r[10:], 4) })),
		args: []string{"packet", "check", "rlen.pcap"}, exit: 1, stdout: `ERF rlen 4 is shorter than the record's headers`})
	add(hostileCase{name: "capture: ERF receive-error flag", setup: withFile("rx.pcap", erfCapture(read(nil, hca), func(r []byte) { r[9] |= 0x10 })),
		args: []string{"packet", "check", "rx.pcap"}, exit: 1, stdout: `(?s)ERF flags 0x1[45]: receive error.*1 packets: 0 good, 1 bad`})
	add(hostileCase{name: "capture: ERF truncation flag", setup: withFile("tr.pcap", erfCapture(read(nil, hca), func(r []byte) { r[9] |= 0x08 })),
		args: []string{"packet", "check", "--format", "json", "tr.pcap"}, exit: 1, stdout: `"error": "ERF flags 0x0[cd]: truncated`})
	add(hostileCase{name: "capture: a directory", setup: func(t *testing.T, dir, _ string) []string { os.Mkdir(filepath.Join(dir, "d.pcap"), 0o755); return nil },
		args: []string{"packet", "check", "d.pcap"}, exit: 1, stderr: `1 of 1 files could not be read as captures`, stdout: `d.pcap: FAIL: is a directory`})
	add(hostileCase{name: "capture: empty file", setup: withFile("e.pcap", nil),
		args: []string{"packet", "check", "e.pcap"}, exit: 1, stdout: `e.pcap: FAIL: file header, byte 0: file is 0 bytes`})
	add(hostileCase{name: "capture: not a capture", setup: withFile("t.pcap", []byte("hello, world\n")),
		args: []string{"packet", "check", "t.pcap"}, exit: 1, stdout: `magic 68 65 6c 6c is neither pcap`})
	add(hostileCase{name: "capture: pcapng block length not a multiple of 4",
		setup: withFile("ng.pcapng", []byte{0x0a, 0x0d, 0x0d, 0x0a, 29, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 29, 0, 0, 0, 0}),
		args:  []string{"packet", "check", "ng.pcapng"}, exit: 1, stdout: `block total length 29`})
	add(hostileCase{name: "capture: 30 MB, JSON in bounded memory",
		setup: func(t *testing.T, dir, _ string) []string {
			repeatCapture(t, filepath.Join(dir, "huge.pcap"), hca, 30<<20)
			return nil
		},
		args: []string{"packet", "check", "--format", "json", "huge.pcap"}, exit: 0, stdout: `"bad": 0\n`, maxRSSMB: 100})

	// ---- bad numbers: NaN, infinities, negatives, overflow, out of range.
	// Each names the value, the flag and the range (the whole message).
	for _, b := range []struct {
		args []string
		want string // after `invalid argument "V" for "--F" flag: `
	}{
		{[]string{"model", "threshold", "--p", "NaN"}, "NaN is out of range: want a finite 0 < x < 1"},
		{[]string{"model", "threshold", "--p", "-Inf"}, "-Inf is out of range: want a finite 0 < x < 1"},
		{[]string{"model", "threshold", "--links", "-1"}, "-1 is out of range: want 1 or more"},
		{[]string{"model", "threshold", "--packets", "9223372036854775808"}, "9223372036854775808 is out of range: want 1 or more"},
		{[]string{"model", "saturation", "--hops", "1e12"}, `"1e12" is not an integer: want 1..255`},
		{[]string{"model", "saturation", "--count-bits", "99"}, "99 is out of range: want 1..16"},
		{[]string{"rng", "stream", "--draws", "-5"}, "-5 is out of range: want 0 or more"},
		{[]string{"rng", "p0", "--max-l", "99999999999"}, "99999999999 is out of range: want 1..4096"},
		{[]string{"spec", "--count-bits", "-3"}, "-3 is out of range: want 1..16"},
		{[]string{"sim", "--preset", "reduction-small", "--p", "NaN"}, "NaN is out of range: want a finite 0.5 < x < 1"},
		{[]string{"sim", "--preset", "reduction-small", "--windows", "1000"}, "1000 is out of range: want 0..100"},
		{[]string{"sim", "--preset", "reduction-small", "--input-buffer", "-1"}, "-1 is out of range: want 0..1073741824"},
		{[]string{"packet", "check", "--count-bits", "99", hca}, "99 is out of range: want 1..16"},
		{[]string{"stats", "--alpha", "NaN"}, "NaN is out of range: want a finite 0 < x < 1"},
		{[]string{"stats", "--jobs", "-1"}, "-1 is out of range: want 0..65536"},
		{[]string{"model", "moments", "--congested", "5000000000000000000"}, "5000000000000000000 is out of range: want 0..1099511627776"},
		{[]string{"model", "moments", "--packets", "9000000000000000000", "--through", "9000000000000000000"}, "9000000000000000000 is out of range: want 1..1099511627776"},
		{[]string{"vectors", "--random", "-1"}, "-1 is out of range: want 0 or more"},
		{[]string{"verify", "--lanes", "0"}, "0 is out of range: want 1..8"},
		{[]string{"verify", "--max-fail", "-1", "--configs", "mult0_ideal_c3", "--icarus", "none", "--work", "{cache}"}, "-1 is out of range: want 1 or more"},
		{[]string{"scoreboard", "--packets", "4294967297"}, "4294967297 is out of range: want 1..4294967295"},
		// Ready held low every cycle: no word could ever leave.
		{[]string{"verify", "--stall", "100%"}, "100% is out of range: want 0%..50%"},
		{[]string{"verify", "--stall", "1"}, `"1" has no unit: write the percentage with its sign, 1% (one in 1 is 100%)`},
	} {
		// The flag is the first one after the subcommands, its value next.
		k := slices.IndexFunc(b.args, func(a string) bool { return strings.HasPrefix(a, "--") && a != "--preset" })
		flag, val := b.args[k], b.args[k+1]
		add(hostileCase{name: strings.Join(b.args, " "), args: b.args, exit: 1, timeout: 10 * time.Second,
			stderr: regexp.QuoteMeta(fmt.Sprintf("invalid argument %q for %q flag: %s", val, flag, b.want)) + `\nSee 'ibreservoir [a-z0-9 ]+ --help'\.?\n?`})
	}
	add(hostileCase{name: "hash sweep --ones 2^33", args: []string{"hash", "sweep", "--ones", "2^33"}, exit: 1, timeout: 10 * time.Second,
		stderr: regexp.QuoteMeta(`--ones: "2^33" is not a 32-bit value (write decimal, 0x hex, 2^N or 2^N-1)`)})
	add(hostileCase{name: "model threshold: a billion links", args: []string{"model", "threshold", "--links", "1000000000"}, exit: 1,
		stderr: `per link: required packets: about 1\.35e\+20 for k=1000000000 links, L=5 hops and p=0\.99, more than 2\^53, beyond which float64 packet counts are not exact; lower --links, --hops or --p`})
	add(hostileCase{name: "vectors --bulk 10^12 (about 1 PB)", args: []string{"vectors", "--bulk", "1000000000000"}, exit: 1,
		stderr: `the run writes up to 1050531\.9 GB into .*/out/vectors, but only [\d.]+ [GM]?B(?:ytes)? are free there: write fewer vectors or choose another --out`, timeout: 3 * time.Second})
	add(hostileCase{name: "packet check --count-bits without --telemetry", args: []string{"packet", "check", "--count-bits", "4", hca}, exit: 1,
		stderr: `--count-bits has no effect without --telemetry; add --telemetry to decode the fields of that layout`})
	add(hostileCase{name: "mistyped subcommand", args: []string{"model", "satur"}, exit: 1,
		stderr: `unknown command "satur" for "ibreservoir model"\n\nDid you mean this\?\n\tsaturation\nSee 'ibreservoir model --help'`})
	add(hostileCase{name: "mistyped flag", args: []string{"model", "saturation", "--bits", "2"}, exit: 1,
		stderr: `unknown flag: --bits\nDid you mean this\?\n\t--count-bits\nSee 'ibreservoir model saturation --help'`})

	// ---- outputs checked before any work.
	add(hostileCase{name: "sim --out through a file", setup: withFile("afile", []byte("x")),
		args: []string{"sim", "--preset", "reduction-tapered", "--out", "afile/sim"}, exit: 1, stderr: `--out afile/sim: afile is a file, not a directory`, timeout: 5 * time.Second})
	add(hostileCase{name: "stats --json through a file", setup: withFile("afile", []byte("x")),
		args: []string{"stats", "--json", "afile/s.json"}, exit: 1, stderr: `--json afile/s\.json: afile is a file, not a directory`, timeout: 5 * time.Second})
	// The current directory, however named, is never a vector directory
	// to replace: the swap would take the shell's working directory with
	// it. Empty, or a vector directory already, it stays as it was.
	cwdVectors := func(t *testing.T, dir, bin string) []string {
		mustRun(t, dir, bin, "vectors", "--bulk", "10", "--out", "v")
		ents, err := os.ReadDir(filepath.Join(dir, "v"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if err := os.Rename(filepath.Join(dir, "v", e.Name()), filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(filepath.Join(dir, "v")); err != nil {
			t.Fatal(err)
		}
		return []string{"."}
	}
	cwdEmpty := func(*testing.T, string, string) []string { return []string{"."} }
	for _, c := range []struct {
		name, out string
		setup     func(*testing.T, string, string) []string
	}{
		{"vectors --out . (a vector directory)", ".", cwdVectors},
		{"vectors --out ./ (empty)", "./", cwdEmpty},
		{"vectors --out (the current directory's absolute path)", "{dir}", cwdVectors},
	} {
		add(hostileCase{name: c.name, setup: c.setup, args: []string{"vectors", "--bulk", "20", "--out", c.out}, exit: 1,
			stderr: `vector directory /\S+: is the current directory, which the run would replace whole: give a directory inside it, e\.g\. --out vectors`, timeout: 10 * time.Second})
	}
	add(hostileCase{name: "verify --vectors with --synth-table", needs: []string{"verilator"},
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--bulk", "1000", "--out", "v")
			return nil
		},
		args: []string{"verify", "--vectors", "v/bulk/mult0_ideal_c3/stage.bin", "--synth", "--synth-table", "t.md", "--work", "{cache}"}, exit: 1, stderr: `--synth has no effect with --vectors, which co-simulates the given file on its own configuration`, timeout: 3 * time.Minute})

	// ---- corrupt inputs.
	overCount := func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"counts":[524287,1048576`), []byte(`"counts":[2000000,1048576`), 1)
	}
	add(hostileCase{name: "stats merge: an edited count",
		setup: func(t *testing.T, dir, bin string) []string {
			p := statsPartial(t, dir, bin)
			write(t, p, overCount(read(t, p)))
			return nil
		},
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `merge: part\.json: read partial result: checksum "[0-9a-f]{64}" does not match its contents \([0-9a-f]{64}\): the file was changed or cut after it was written`})
	add(hostileCase{name: "stats merge: a count beyond its domain, checksum recomputed",
		setup: func(t *testing.T, dir, bin string) []string {
			p := statsPartial(t, dir, bin)
			write(t, p, rechecksum(t, overCount(read(t, p))))
			return nil
		},
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `finalize: test "hash/exhaustive-ones-over-d\|hash=mult0" chunk 0: count 0 is 2000000, more than the 1048576 values it counted; the partial is corrupt, rerun its shard`})
	add(hostileCase{name: "stats merge: junk after the JSON",
		setup: func(t *testing.T, dir, bin string) []string {
			p := statsPartial(t, dir, bin)
			write(t, p, append(read(t, p), []byte("{junk")...))
			return nil
		},
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `merge: part\.json: read partial result: data after the JSON object \(at byte \d+\); the file holds one object`})
	// ---- vector sets whose manifest, index or header lie. A writer with a
	// bug (not a damaged file) keeps every SHA-256 consistent: reindex and
	// rehash make them agree, so that the check under test is the one that
	// must refuse. None needs Verilator: the file is refused before a build.
	const bulkSet = "bulk/mult0_ideal_c3"
	bulkBin := []string{"verify", "--vectors", bulkSet + "/stage.bin", "--work", "w"}
	vecSetup := func(edit func(t *testing.T, dir string)) func(*testing.T, string, string) []string {
		return func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--bulk", "10", "--out", "v")
			mustRun(t, dir, bin, "vectors", "--bulk", "10", "--hash", "crc32", "--out", "v")
			edit(t, filepath.Join(dir, "v"))
			return []string{"v"}
		}
	}
	inV := func(args []string) []string {
		out := slices.Clone(args)
		out[2] = "v/" + out[2]
		return out
	}
	manifestEdit := func(name string, rehashIndex bool, edit func(m map[string]any), want string) {
		add(hostileCase{name: name, setup: vecSetup(func(t *testing.T, root string) {
			editManifest(t, filepath.Join(root, bulkSet), edit)
			if rehashIndex {
				reindex(t, root)
			}
		}), args: inV(bulkBin), exit: 1, stderr: want, timeout: 30 * time.Second})
	}
	manifestEdit("verify --vectors: replay added to a bulk manifest", false, func(m map[string]any) { m["replay"] = true },
		`v/bulk/mult0_ideal_c3/manifest\.json has SHA-256 [0-9a-f]{64} \(\d+ bytes\), /.*/v/index\.json says [0-9a-f]{64} \(\d+ bytes\): the manifest was changed after the directory was written`)
	manifestEdit("verify --vectors: replay added to a bulk manifest, index.json agreeing", true, func(m map[string]any) { m["replay"] = true },
		`v/bulk/mult0_ideal_c3/stage\.bin: record 0 does not load its port's state, as every given packet does: it is not a replay set`)
	manifestEdit("verify --vectors: edge counts edited, index.json agreeing", true, func(m map[string]any) {
		m["edges"].(map[string]any)["counts"].(map[string]any)["l=1 u=0"] = 999
	}, `v/bulk/mult0_ideal_c3/manifest\.json: edges is \{.*\}, but its vectors give \{.*\}: the manifest was changed`)
	manifestEdit("verify --vectors: LNH of local packets only, index.json agreeing", true, func(m map[string]any) {
		m["config"].(map[string]any)["lnh"] = []int{2}
	}, `v/bulk/mult0_ideal_c3/manifest\.json: config is \{.*"lnh":\[2\].*\}, but its vectors give \{.*"lnh":\[0,1,2,3\].*\}: the manifest was changed`)
	manifestEdit("verify --vectors: max_switch, index.json agreeing", true, func(m map[string]any) {
		m["config"].(map[string]any)["max_switch"] = 7
	}, `v/bulk/mult0_ideal_c3/stage\.bin is not the set the model makes from its manifest's configuration mult0_ideal_c3, seed 1 and 232 vectors \(SHA-256 [0-9a-f]{64}, the model's [0-9a-f]{64}\): the file or the manifest was changed`)
	manifestEdit("verify --vectors: seed, index.json agreeing", true, func(m map[string]any) { m["seed"] = 7 },
		`v/bulk/mult0_ideal_c3/stage\.bin is not the set the model makes from its manifest's configuration mult0_ideal_c3, seed 7 and 232 vectors \(SHA-256 [0-9a-f]{64}, the model's [0-9a-f]{64}\): the file or the manifest was changed`)
	add(hostileCase{name: "verify --vectors: a crc32 set renamed as mult0, index.json agreeing", setup: vecSetup(func(t *testing.T, root string) {
		os.RemoveAll(filepath.Join(root, bulkSet))
		if err := os.Rename(filepath.Join(root, "bulk/crc32_ideal_c3"), filepath.Join(root, bulkSet)); err != nil {
			t.Fatal(err)
		}
		editManifest(t, filepath.Join(root, bulkSet), func(m map[string]any) { m["name"] = "mult0_ideal_c3" })
		reindex(t, root)
	}), args: inV(bulkBin), exit: 1, timeout: 30 * time.Second,
		stderr: `v/bulk/mult0_ideal_c3/manifest\.json: the manifest names the set mult0_ideal_c3, but its vectors are of configuration crc32_ideal_c3: a set is named after its configuration`})
	add(hostileCase{name: "verify --vectors: index.json deleted", setup: vecSetup(func(t *testing.T, root string) {
		os.Remove(filepath.Join(root, "index.json"))
	}), args: inV(bulkBin), exit: 1, timeout: 30 * time.Second,
		stderr: `v/bulk/mult0_ideal_c3/?: no index.json in .*/v, so the set's manifest cannot be checked: co-simulate a set where ibreservoir vectors wrote it, or write it again`})
	countEdit := func(name string, edit func(t *testing.T, b []byte) []byte, want string) {
		add(hostileCase{name: name, setup: vecSetup(func(t *testing.T, root string) {
			set := filepath.Join(root, bulkSet)
			p := filepath.Join(set, "stage.bin")
			write(t, p, edit(t, read(t, p)))
			rehash(t, set, "stage.bin")
			reindex(t, root)
		}), args: inV(bulkBin), exit: 1, stderr: want, timeout: 30 * time.Second})
	}
	setCount := func(n uint64) func(*testing.T, []byte) []byte {
		return func(_ *testing.T, b []byte) []byte {
			binary.LittleEndian.PutUint64(b[vectors.BinPosCount:], n)
			return b
		}
	}
	countEdit("verify --vectors: header count 0, SHA-256s agreeing", setCount(0),
		`v/bulk/mult0_ideal_c3/stage\.bin holds no vectors \(header count 0, manifest 232\): a run would check nothing`)
	countEdit("verify --vectors: header count 2^40, SHA-256s agreeing", setCount(1<<40),
		`v/bulk/mult0_ideal_c3/stage\.bin: the header counts 1099511627776 vectors, but the file's \d+ bytes hold at most \d+ \(a record takes at least 40 bytes\): the count is wrong`)
	countEdit("verify --vectors: cut to 10 vectors, count and SHA-256s agreeing", func(t *testing.T, b []byte) []byte {
		b = cutRecords(t, b, 10)
		binary.LittleEndian.PutUint64(b[vectors.BinPosCount:], 10)
		return b
	}, `v/bulk/mult0_ideal_c3/stage\.bin: the header counts 10 vectors, the manifest 232: the file is not the set's`)
	add(hostileCase{name: "verify --vectors: cut to 10 vectors, manifest counts and SHA-256s agreeing", setup: vecSetup(func(t *testing.T, root string) {
		set := filepath.Join(root, bulkSet)
		p := filepath.Join(set, "stage.bin")
		b := cutRecords(t, read(t, p), 10)
		binary.LittleEndian.PutUint64(b[vectors.BinPosCount:], 10)
		write(t, p, b)
		editManifest(t, set, func(m map[string]any) { m["counts"].(map[string]any)["vectors"] = 10 })
		rehash(t, set, "stage.bin")
		reindex(t, root)
	}), args: inV(bulkBin), exit: 1, timeout: 30 * time.Second,
		stderr: `v/bulk/mult0_ideal_c3/stage\.bin holds 10 vectors, fewer than the 222 directed ones of its configuration: it is not a set the model makes`})

	// ---- two runs in one work or output directory: the second is refused
	// at once, naming the first (here the test process holds the lock).
	holding := func(hold func(t *testing.T, dir string) (func(), error), keep ...string) func(*testing.T, string, string) []string {
		return func(t *testing.T, dir, _ string) []string {
			release, err := hold(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(release)
			return keep
		}
	}
	add(hostileCase{name: "verify while another run holds its work directory",
		setup: holding(func(t *testing.T, dir string) (func(), error) { return lock.Dir(filepath.Join(dir, "w"), false) }),
		args:  []string{"verify", "--configs", "mult0_ideal_c3", "--icarus", "none", "--work", "w"}, exit: 1, timeout: 30 * time.Second,
		stderr: fmt.Sprintf(`--work: work directory w is in use by another run \(pid %d\): wait for it to finish, or give another directory`, os.Getpid())})
	add(hostileCase{name: "scoreboard while another run holds its work directory",
		setup: holding(func(t *testing.T, dir string) (func(), error) { return lock.Dir(filepath.Join(dir, "w"), false) }),
		args:  []string{"scoreboard", "--work", "w"}, exit: 1, timeout: 30 * time.Second,
		stderr: fmt.Sprintf(`--work: work directory w is in use by another run \(pid %d\): wait for it to finish, or give another directory`, os.Getpid())})
	add(hostileCase{name: "verilog --out while another run writes it",
		setup: holding(func(t *testing.T, dir string) (func(), error) {
			mustRun(t, dir, repoBinary(t), "verilog", "--out", "rtl")
			return lock.Parent(filepath.Join(dir, "rtl"), "rtl")
		}, "rtl"),
		args: []string{"verilog", "--hash", "crc32", "--out", "rtl"}, exit: 1, timeout: 30 * time.Second,
		stderr: `--out rtl is in use by another run: wait for it to finish, or give another directory`})
	add(hostileCase{name: "vectors --out while another run writes it",
		setup: holding(func(t *testing.T, dir string) (func(), error) {
			mustRun(t, dir, repoBinary(t), "vectors", "--only", "stage/mult0_ideal_c3", "--random", "10", "--out", "vout")
			return lock.Parent(dir, "vector directory "+filepath.Join(dir, "vout"))
		}, "vout"),
		args: []string{"vectors", "--only", "stage/crc32_ideal_c3", "--random", "10", "--out", "vout"}, exit: 1, timeout: 30 * time.Second,
		stderr: `vector directory .*/vout is in use by another run: wait for it to finish, or give another directory`})

	// ---- inputs: empty values, impossible outputs, files that are not what
	// a flag wants, tables that would mislead.
	for _, e := range []struct {
		args []string
		want string
	}{
		{[]string{"vectors", "--out", ""}, `--out is empty: give a value, or leave the flag out for its default, out/vectors`},
		{[]string{"verilog", "--out", ""}, `--out is empty: give a value, or leave the flag out for its default, out/rtl`},
		{[]string{"vectors", "--only", ""}, `--only is empty: give a value, or leave the flag out`},
		{[]string{"verify", "--vectors", ""}, `--vectors is empty: give a value, or leave the flag out`},
		{[]string{"verify", "--formal", "--formal-props", ""}, `--formal-props is empty: give a value, or leave the flag out`},
		{[]string{"scoreboard", "--configs", ""}, `--configs is empty: give a value, or leave the flag out for its default, flags`},
		{[]string{"vectors", "--out", "/"}, `vector directory /: a file system's root cannot be replaced: give a directory inside it`},
		{[]string{"scoreboard", "--lib", "/etc/passwd"}, `--lib /etc/passwd: not a static library \(no "!<arch>" archive header\); give libibreservoir.a \(go build -buildmode=c-archive ./capi\)`},
		{[]string{"scoreboard", "--configs", "mult0_ideal_c3,mult0_ideal_c3"}, `--configs: mult0_ideal_c3 twice in "mult0_ideal_c3,mult0_ideal_c3": name each configuration once`},
		{[]string{"verify", "--configs", "mult0_ideal_c3,crc32_ideal_c3,mult0_ideal_c3", "--icarus", "none", "--work", "w"}, `--configs: mult0_ideal_c3 twice in "mult0_ideal_c3,crc32_ideal_c3,mult0_ideal_c3": name each configuration once`},
	} {
		add(hostileCase{name: strings.Join(append(e.args[:len(e.args)-1:len(e.args)-1], fmt.Sprintf("%q", e.args[len(e.args)-1])), " "),
			args: e.args, exit: 1, stderr: e.want, timeout: 10 * time.Second})
	}
	add(hostileCase{name: "vectors --out a file (refused, no lock left beside it)", setup: withFile("afile", []byte("x")),
		args: []string{"vectors", "--only", "stage/mult0_ideal_c3", "--out", "afile"}, exit: 1, timeout: 10 * time.Second,
		stderr: `vector directory .*/afile: not a directory`})
	add(hostileCase{name: "verilog --out with a directory in a file's place (nothing written)",
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "verilog", "--out", "rtl")
			os.Remove(filepath.Join(dir, "rtl", "ibr_stage.vlt"))
			os.Mkdir(filepath.Join(dir, "rtl", "ibr_stage.vlt"), 0o755)
			return []string{"rtl"}
		},
		args: []string{"verilog", "--hash", "crc32", "--out", "rtl"}, exit: 1, timeout: 10 * time.Second,
		stderr: `--out rtl: rtl/ibr_stage\.vlt is in the way \(not a regular file\): the run writes a file there; move it away`})
	synthEdit := func(name string, edit func([]map[string]any) []map[string]any, want string) {
		add(hostileCase{name: "stats choose: " + name, setup: func(t *testing.T, dir, _ string) []string {
			var rs []map[string]any
			if err := json.Unmarshal(read(t, filepath.Join(repoRootDir(), "docs", "synthesis.json")), &rs); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(edit(rs))
			write(t, filepath.Join(dir, "s.json"), b)
			return nil
		}, args: []string{"stats", "choose", "--record", filepath.Join(repoRootDir(), "docs", "decode.json"), "--synthesis", "s.json"},
			exit: 1, stderr: `--synthesis s.json: read synthesis costs: ` + want, timeout: 10 * time.Second})
	}
	synthEdit("a negative area", func(rs []map[string]any) []map[string]any { rs[20]["area_um2"] = -1.0; return rs },
		`entry 21 \([a-z0-9_]+\): area_um2 -1: a measured cost is above zero \(leave it out when not measured\)`)
	synthEdit("a configuration missing", func(rs []map[string]any) []map[string]any { return rs[1:] },
		`no entry for 1 configurations of the RTL \(parity_ideal_c3\): the cheapest would be chosen among the rest; synthesize every one \(verify --synth --synth-table\)`)
	synthEdit("a duplicated row", func(rs []map[string]any) []map[string]any { return append(rs, rs[5]) },
		`entries 6 and 100 are both parity_shiftreg_per_draw_c4: each configuration is synthesized once`)
	synthEdit("a row contradicting its name", func(rs []map[string]any) []map[string]any { rs[0]["generator"] = "lfsr-lut/b16"; return rs },
		`entry 1: parity_ideal_c3 says hash parity, generator lfsr-lut/b16, count_bits 3, sender_l 0, but parity_ideal_c3 is hash parity, generator ideal, count_bits 3, sender_l 0`)

	// ---- interrupts: SIGINT and SIGTERM mid-run.
	// Interrupted once they show their work has begun (the sweep's note,
	// the stream's first draws, packet check's first 4 MB read, stats's first
	// half second of CPU time).
	add(hostileCase{name: "hash sweep siphash, SIGINT", args: []string{"hash", "sweep", "--hash", "siphash"},
		sig: syscall.SIGINT, when: func(_, _, stderr string) bool { return strings.Contains(stderr, "note: siphash has no vector form") }, exit: 130, stderr: `interrupted by SIGINT: stopped; outputs not finished were removed and earlier ones left as they were`})
	add(hostileCase{name: "packet check 30 MB, SIGTERM",
		setup: func(t *testing.T, dir, _ string) []string {
			repeatCapture(t, filepath.Join(dir, "huge.pcap"), hca, 30<<20)
			return nil
		},
		args: []string{"packet", "check", "huge.pcap"}, sig: syscall.SIGTERM, whenRead: 4 << 20, exit: 143, stderr: `interrupted by SIGTERM: stopped; outputs not finished were removed and earlier ones left as they were`})
	add(hostileCase{name: "rng stream of 10^12 draws, SIGTERM", args: []string{"rng", "stream", "--draws", "1000000000000"},
		sig: syscall.SIGTERM, when: func(_, stdout, _ string) bool { return strings.Contains(stdout, "\ndraws ") }, exit: 143, stderr: `interrupted by SIGTERM: stopped; outputs not finished were removed and earlier ones left as they were`})
	// The simulation is interrupted once its progress line shows packets
	// simulated: what it holds then does not depend on the machine's load.
	add(hostileCase{name: "sim over a previous output, SIGINT",
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "sim", "--preset", "reduction-small", "--plots=false", "--progress=false", "--out", "simout")
			return []string{"simout"}
		},
		args: []string{"sim", "--preset", "reduction-tapered", "--out", "simout"}, sig: syscall.SIGINT,
		when: func(_, _, stderr string) bool { return regexp.MustCompile(`\((?:[1-9]\d*)/\d+\)`).MatchString(stderr) },
		exit: 130, stderr: `interrupted by SIGINT: stopped; outputs not finished were removed and earlier ones left as they were`})
	add(hostileCase{name: "stats, SIGTERM", args: []string{"stats", "--json", "s.json"},
		sig: syscall.SIGTERM, whenCPU: 500 * time.Millisecond, exit: 143, stderr: `interrupted by SIGTERM: stopped; outputs not finished were removed and earlier ones left as they were`})
	// vectors is interrupted once a set's file has begun in its staging
	// directory; the whole previous directory must be left as it was.
	staged := func(out, file string) func(dir, _, _ string) bool {
		return func(dir, _, _ string) bool {
			m, _ := filepath.Glob(filepath.Join(dir, "."+out+".staging-*", "*", "*", file))
			for _, f := range m {
				if st, err := os.Stat(f); err == nil && st.Size() > 0 {
					return true
				}
			}
			return false
		}
	}
	add(hostileCase{name: "vectors over a previous output, SIGINT",
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--only", "stage/mult0_ideal_c3", "--out", "vout")
			return []string{"vout"}
		},
		args: []string{"vectors", "--out", "vout", "--seed", "2", "--random", "40000"}, sig: syscall.SIGINT, when: staged("vout", "stage.hex"), exit: 130,
		stderr: `interrupted by SIGINT: stopped; outputs not finished were removed and earlier ones left as they were`})
	add(hostileCase{name: "vectors --bulk, SIGTERM", args: []string{"vectors", "--bulk", "20000000", "--out", "bout"},
		sig: syscall.SIGTERM, when: staged("bout", "stage.bin"), exit: 143, stderr: `interrupted by SIGTERM: stopped; outputs not finished were removed and earlier ones left as they were`})
	// verify is interrupted while Verilator (a child, and its make and
	// compilers) builds: every process of the run must be gone with it.
	add(hostileCase{name: "verify, SIGINT while Verilator builds", needs: []string{"verilator"},
		args: []string{"verify", "--configs", "mult0_ideal_c3", "--icarus", "none", "--random", "10", "--work", "w"}, sig: syscall.SIGINT,
		when: func(dir, _, _ string) bool {
			es, _ := os.ReadDir(filepath.Join(dir, "w", "verilator", "obj"))
			return len(es) > 0 // Verilator has begun writing its C++
		},
		exit: 130, stderr: `interrupted by SIGINT: stopped; outputs not finished were removed and earlier ones left as they were`, timeout: 3 * time.Minute})
	// The synthesis campaign is interrupted while Yosys maps its first pair:
	// Yosys and ABC must be gone with it, the page it would rewrite left as
	// it was, and no partial written. Its peak is Yosys's: 314 to 413 MB
	// when the signal lands, up to 630 MB for a whole pair in the campaign's
	// shards, so its bound is 800 MB.
	add(hostileCase{name: "verify --synth --widths over a previous page, SIGINT while Yosys runs", needs: []string{"yosys", "sta"},
		setup: func(t *testing.T, dir, _ string) []string {
			if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte("<!-- Code generated by ibreservoir verify --synth --widths; DO NOT EDIT. -->\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"p.md"}
		},
		args: []string{"verify", "--synth", "--widths", "64", "--configs", "parity_lfsr_lut_b16_c3", "--out", "s.json", "--synth-table", "p.md", "--work", "w"}, sig: syscall.SIGINT,
		when: func(dir, _, _ string) bool {
			es, _ := os.ReadDir(filepath.Join(dir, "w", "campaign-0-of-1", "parity_lfsr_lut_b16_c3"))
			return len(es) > 0 // the pair's Yosys run has begun
		},
		exit: 130, stderr: `interrupted by SIGINT: stopped; outputs not finished were removed and earlier ones left as they were`, timeout: 3 * time.Minute,
		maxRSSMB: 800})
	return cs
}

// TestHostile runs every hostile case and prints the table of outcomes.
func TestHostile(t *testing.T) {
	if os.Getenv("IBRESERVOIR_HOSTILE") == "" {
		t.Skip("the hostile-input suite runs from scripts/hostile.sh (IBRESERVOIR_HOSTILE=1)")
	}
	bin := repoBinary(t)
	// Processes a run leaves behind are reparented to this process, where
	// reapOrphans finds them.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var table []string
	for _, c := range hostileCases() {
		outcome := "" // stays empty for a case -run leaves out
		ok := t.Run(c.name, func(t *testing.T) {
			outcome = "PASS"
			if len(c.needs) > 0 && !needTools(t, c.needs...) {
				outcome = "SKIP"
				return
			}
			problems := runHostile(t, bin, c)
			if len(problems) > 0 {
				outcome = "FAIL"
				t.Error(strings.Join(problems, "\n"))
			}
		})
		if !ok && outcome == "PASS" {
			outcome = "FAIL"
		}
		if outcome == "" {
			continue
		}
		table = append(table, fmt.Sprintf("%-7s %-8s %s", outcome, c.args[0], c.name))
	}
	t.Logf("outcome command  case\n%s\n%d cases in %s", strings.Join(table, "\n"), len(table), time.Since(start).Round(time.Second))
}

// runHostile runs one case and returns what was wrong with it.
func runHostile(t *testing.T, bin string, c hostileCase) []string {
	dir := t.TempDir()
	var unchanged []string
	if c.setup != nil {
		unchanged = c.setup(t, dir, bin)
	}
	before := map[string]map[string]string{}
	for _, f := range unchanged {
		before[f] = snapshot(t, filepath.Join(dir, f))
	}
	// {cache}: a work directory kept between runs (Verilator builds take
	// seconds to minutes), as the cosim tests keep theirs; {dir}: the
	// case's own directory, its cwd, by its absolute path.
	cache := hostileCache(t)
	// Globs are the shell's job; expand them as a shell would.
	var argv []string
	for _, a := range c.args {
		a = strings.ReplaceAll(strings.ReplaceAll(a, "{cache}", cache), "{dir}", dir)
		if m, _ := filepath.Glob(filepath.Join(dir, a)); strings.ContainsAny(a, "*?") && len(m) > 0 {
			for _, x := range m {
				argv = append(argv, filepath.Base(x))
			}
			continue
		}
		argv = append(argv, a)
	}
	timeout := c.timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	o := runOpts{dir: dir, timeout: timeout, interrupt: c.after, sig: c.sig}
	switch {
	case c.when != nil:
		o.when = func(_ int, stdout, stderr string) bool { return c.when(dir, stdout, stderr) }
	case c.whenRead > 0:
		o.when = func(pid int, _, _ string) bool { return bytesRead(pid) >= c.whenRead }
	case c.whenCPU > 0:
		o.when = func(pid int, _, _ string) bool { return cpuTime(pid) >= c.whenCPU }
	}
	r := run(append([]string{bin}, argv...), o)
	orphans := reapOrphans()
	var problems []string
	bad := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	if r.timedOut {
		bad("hung: still running after %s, killed", timeout)
	}
	if r.signaled {
		bad("killed by a signal (exit status %d)", r.exit)
	}
	if regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine \d+ \[)`).MatchString(r.stderr) {
		bad("crashed:\n%s", tail(r.stderr, 15))
	}
	if r.exit != c.exit {
		bad("exit status %d, want %d; stderr:\n%s", r.exit, c.exit, tail(r.stderr, 8))
	}
	// The error is the command's own message, the last "ibreservoir: ..." on
	// stderr (what a tool it ran printed before does not count).
	msg := ""
	// (A progress bar on the same line, ended by spaces or \r, may precede it.)
	if i := strings.LastIndex(r.stderr, "ibreservoir: "); i == 0 || i > 0 && strings.ContainsRune("\n\r ", rune(r.stderr[i-1])) {
		msg = r.stderr[i:]
	}
	if c.exit != 0 && msg == "" {
		bad("no error message of the command's own on stderr:\n%s", tail(r.stderr, 8))
	}
	if c.exit != 0 && c.stderr != "" && !regexp.MustCompile(`^ibreservoir: (?:`+c.stderr+`)\n?$`).MatchString(msg) {
		bad("the error is not %q:\n%s", c.stderr, tail(r.stderr, 8))
	}
	if c.stdout != "" && !regexp.MustCompile(c.stdout).MatchString(r.stdout) {
		bad("stdout does not show %q:\n%s", c.stdout, tail(r.stdout, 8))
	}
	sentAt := c.after
	if o.when != nil {
		sentAt = r.sentAfter
		if sentAt == 0 {
			bad("the interrupt's condition never held: the run ended (exit %d) before it could be interrupted", r.exit)
		}
	}
	if c.sig != 0 && r.wall > sentAt+stopWithin {
		bad("took %s to stop after the signal, more than %s", (r.wall - sentAt).Round(time.Millisecond), stopWithin)
	}
	for _, o := range orphans {
		bad("left a process running %s after it exited: %s", orphanGrace, o)
	}
	limit := c.maxRSSMB
	if limit == 0 {
		limit = 400
	}
	if r.maxRSSKB > limit<<10 {
		bad("peak memory %d MB, more than %d MB", r.maxRSSKB>>10, limit)
	}
	for f, b := range before {
		if d := diffSnapshots(b, snapshot(t, filepath.Join(dir, f))); d != "" {
			bad("previous output %s was changed: %s", f, d)
		}
	}
	for _, l := range leftovers(dir) {
		bad("left behind %s", l)
	}
	t.Logf("exit %d in %s, %d MB peak", r.exit, r.wall.Round(time.Millisecond), r.maxRSSKB>>10)
	return problems
}

// leftovers lists what a run may leave only while it runs, under dir: the
// temporaries of package atomicfile (.<name>.tmp<n>), staging directories
// (.staging-<pid>-*, and a vector directory's .<out>.staging-<pid>), a
// vector directory moved aside by a swap (.<out>.old-<pid>), and lock files
// beside an output (.<out>.lock; a work directory's own .lock is part of
// it, like its build).
func leftovers(dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		n := info.Name()
		if strings.HasPrefix(n, ".") && (strings.Contains(n, ".tmp") || strings.Contains(n, ".staging-") ||
			strings.Contains(n, ".old-") || strings.HasSuffix(n, ".lock") && n != lock.FileName) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// snapshot is every file under path (or path itself, a file) by its path
// relative to path, with its bytes' SHA-256: what "left as it was" means
// for a whole output directory, files added or removed included.
func snapshot(t *testing.T, path string) map[string]string {
	m := map[string]string{}
	err := filepath.Walk(path, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		if info.IsDir() {
			m[rel+"/"] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		m["(error)"] = err.Error()
	}
	return m
}

// diffSnapshots names the files added, removed or changed, "" if none.
func diffSnapshots(was, now map[string]string) string {
	var d []string
	for k, v := range was {
		if w, ok := now[k]; !ok {
			d = append(d, k+" removed")
		} else if w != v {
			d = append(d, k+" changed")
		}
	}
	for k := range now {
		if _, ok := was[k]; !ok {
			d = append(d, k+" added")
		}
	}
	sort.Strings(d)
	return strings.Join(d, ", ")
}

// hostileCache is the work directory the Verilator cases share between
// runs (builds take seconds to minutes). A test process holds its lock
// (ibreservoir-test/hostile.lock) to its exit, so two suites at once wait
// for each other rather than build in one directory.
func hostileCache(t *testing.T) string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	root := filepath.Join(d, "ibreservoir-test")
	cacheOnce.Do(func() {
		if cacheErr = os.MkdirAll(root, 0o755); cacheErr == nil {
			// Kept referenced: the garbage collector would close an
			// unreachable lock file, and drop its lock.
			cacheUnlock, cacheErr = lock.File(filepath.Join(root, "hostile.lock"), root, true)
		}
	})
	if cacheErr != nil {
		t.Fatal(cacheErr)
	}
	return filepath.Join(root, "hostile")
}

var (
	cacheOnce   sync.Once
	cacheErr    error
	cacheUnlock func() // never called: held to the process's exit
)

// bytesRead is what process pid has read so far (/proc/pid/io rchar), 0 if
// unknown.
func bytesRead(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// cpuTime is the CPU time process pid has used so far (/proc/pid/stat utime
// and stime), 0 if unknown.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * time.Second / 100 // clock ticks: USER_HZ is 100 on Linux
}

// reapOrphans finds the processes a run left behind: the test process is
// the child subreaper (TestHostile), so a process that outlived the
// command it came from is reparented here. One the command killed may take
// a moment to end (a compiler in disk I/O): what still runs orphanGrace
// after the command exited is left behind. It reaps the ended ones, kills
// and reaps the rest, and describes each of these.
func reapOrphans() []string {
	deadline := time.Now().Add(orphanGrace)
	for {
		running := map[int]string{}
		es, _ := os.ReadDir("/proc")
		for _, e := range es {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			i := bytes.LastIndexByte(b, ')')
			f := strings.Fields(string(b[i+1:]))
			if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
				continue
			}
			if f[0] == "Z" {
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil)
				continue
			}
			running[pid] = fmt.Sprintf("pid %d %s state %s", pid, b[:i+1], f[0])
		}
		if len(running) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var out []string
			for pid, d := range running {
				out = append(out, d)
				syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil)
			}
			sort.Strings(out)
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// orphanGrace is how long a process the command killed may take to end.
const orphanGrace = 2 * time.Second

// ---- inputs

// editManifest rewrites the manifest of the set in dir through edit.
func editManifest(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, vectors.ManifestName)
	var m map[string]any
	if err := json.Unmarshal(read(t, p), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ := json.MarshalIndent(m, "", "  ")
	write(t, p, b)
}

// rehash gives file name of the set in dir its size and SHA-256 in the
// manifest, as a writer that got the file wrong would.
func rehash(t *testing.T, dir, name string) {
	t.Helper()
	b := read(t, filepath.Join(dir, name))
	editManifest(t, dir, func(m map[string]any) {
		for _, f := range m["files"].([]any) {
			if f := f.(map[string]any); f["name"] == name {
				f["bytes"], f["sha256"] = len(b), fmt.Sprintf("%x", sha256.Sum256(b))
			}
		}
	})
}

// reindex writes root's index.json again from the manifests on disk, as a
// writer with a bug would leave it: agreeing with whatever they say.
func reindex(t *testing.T, root string) {
	t.Helper()
	idx := vectors.Index{Tool: "ibreservoir", Version: "test"}
	for _, kind := range []string{vectors.KindStage, vectors.KindPath, vectors.KindBulk} {
		sets, _ := filepath.Glob(filepath.Join(root, kind, "*"))
		for _, dir := range sets {
			mb := read(t, filepath.Join(dir, vectors.ManifestName))
			var m vectors.Manifest
			if err := json.Unmarshal(mb, &m); err != nil {
				t.Fatal(err)
			}
			idx.Sets = append(idx.Sets, vectors.IndexEntry{Kind: m.Kind, Name: m.Name, Seed: m.Seed, ConfigDigest: m.ConfigDigest, Files: m.Files,
				Manifest: vectors.FileHash{Name: vectors.ManifestName, Bytes: len(mb), SHA256: fmt.Sprintf("%x", sha256.Sum256(mb))}})
		}
	}
	b, _ := json.MarshalIndent(idx, "", "  ")
	write(t, filepath.Join(root, vectors.IndexName), b)
}

// cutRecords is the binary vector file b cut after its first n records
// (the header unchanged).
func cutRecords(t *testing.T, b []byte, n int) []byte {
	t.Helper()
	h, err := vectors.ReadBinaryHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	off := vectors.BinaryHeaderLen
	for range n {
		p := b[off:]
		states := 0
		if h.StateBytes > 0 {
			states = h.StateBytes
			if p[vectors.RecPosFlags]&vectors.FlagLoad != 0 {
				states *= 2
			}
		}
		k := vectors.RecHeadLen + states + int(binary.LittleEndian.Uint16(p[vectors.RecPosLen:])) + vectors.DiffLen*int(p[vectors.RecPosDiffs])
		off += (k + vectors.RecAlign - 1) / vectors.RecAlign * vectors.RecAlign
	}
	return bytes.Clone(b[:off])
}

func repoRootDir() string {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	return root
}

func read(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil && t != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRun(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	r := run(append([]string{bin}, args...), runOpts{dir: dir, timeout: 2 * time.Minute})
	if r.exit != 0 {
		t.Fatalf("setup: ibreservoir %s: exit %d\n%s", strings.Join(args, " "), r.exit, tail(r.stderr, 10))
	}
}

// statsPartial writes a small battery's partial result to part.json.
// rechecksum gives an edited partial the checksum of its new contents, as a
// writer with a bug (rather than a damaged file) would: merge must still
// refuse what the counts cannot be.
func rechecksum(t *testing.T, b []byte) []byte {
	var p battery.Partial
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func statsPartial(t *testing.T, dir, bin string) string {
	mustRun(t, dir, bin, "stats", "--quick", "--hashes", "mult0", "--ids", "psn-slid", "--links", "thesis", "--generators", "ideal",
		"--count-widths", "3", "--shard", "0/1", "--out", "part.json")
	return filepath.Join(dir, "part.json")
}

// pcapHeader is a little-endian pcap file header of link type 197 (ERF).
func pcapHeader() []byte {
	h := make([]byte, 24)
	binary.LittleEndian.PutUint32(h, 0xA1B2C3D4)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535)
	binary.LittleEndian.PutUint32(h[20:], 197)
	return h
}

// crafted is a pcap file whose one record claims caplen bytes.
func crafted(caplen uint32) []byte {
	b := pcapHeader()
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint32(rec[8:], caplen)
	binary.LittleEndian.PutUint32(rec[12:], caplen)
	return append(append(b, rec...), make([]byte, 64)...)
}

// erfCapture is the first record of the HCA capture (raw, the whole file)
// alone, with edit applied to its ERF header.
func erfCapture(raw []byte, edit func(erf []byte)) []byte {
	caplen := binary.LittleEndian.Uint32(raw[24+8:])
	rec := bytes.Clone(raw[24 : 24+16+int(caplen)])
	edit(rec[16:])
	return append(bytes.Clone(raw[:24]), rec...)
}

// repeatCapture writes to path the capture src with its records repeated
// until the file holds about size bytes. It writes as it goes: the test
// process must stay small, because a child started from it inherits its
// peak memory in the kernel's accounting (exec keeps the larger of the two),
// and the memory bounds are measured on the child.
func repeatCapture(t *testing.T, path, src string, size int) {
	t.Helper()
	raw := read(t, src)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(raw)
	for n := len(raw); n < size; n += len(raw) - 24 {
		if _, err := f.Write(raw[24:]); err != nil {
			t.Fatal(err)
		}
	}
}
