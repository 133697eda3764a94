package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"ibreservoir/battery"
	"ibreservoir/vectors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
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
	// binary to make previous outputs; it returns the files whose bytes the
	// run must leave as they were.
	setup func(t *testing.T, dir, bin string) (unchanged []string)
	args  []string
	// sig, when set, is sent after the given delay: the run must stop
	// within stopWithin of it, with exit status 128+sig.
	sig   syscall.Signal
	after time.Duration
	// exit is the exit status that is right: 0 (a correct result), 1 (a
	// clear error), 2 (a failed verdict), 130/143 (interrupted).
	exit int
	// stderr, when the run fails, must match this (the clear error); stdout,
	// when set, must match too.
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
		stderr: `packets failed the check|could not be read`, stdout: `(?s)file is 0 bytes.*the file ends.*packets: \d+ good, \d+ bad`})
	add(hostileCase{name: "capture: caplen of 4 GB", setup: withFile("big.pcap", crafted(0xFFFFFFF0)),
		args: []string{"packet", "check", "big.pcap"}, exit: 1, stdout: `record 1, byte 32: captured length 4294967280 exceeds`})
	add(hostileCase{name: "capture: ERF rlen shorter than its header", setup: withFile("rlen.pcap", erfCapture(read(nil, hca), func(r []byte) { binary.BigEndian.PutUint16(r[10:], 4) })),
		args: []string{"packet", "check", "rlen.pcap"}, exit: 1, stdout: `ERF rlen 4 is shorter than the record's headers`})
	add(hostileCase{name: "capture: ERF receive-error flag", setup: withFile("rx.pcap", erfCapture(read(nil, hca), func(r []byte) { r[9] |= 0x10 })),
		args: []string{"packet", "check", "rx.pcap"}, exit: 1, stdout: `(?s)ERF flags 0x1[45]: receive error.*1 packets: 0 good, 1 bad`})
	add(hostileCase{name: "capture: ERF truncation flag", setup: withFile("tr.pcap", erfCapture(read(nil, hca), func(r []byte) { r[9] |= 0x08 })),
		args: []string{"packet", "check", "--format", "json", "tr.pcap"}, exit: 1, stdout: `"error": "ERF flags 0x0[cd]: truncated`})
	add(hostileCase{name: "capture: a directory", setup: func(t *testing.T, dir, _ string) []string { os.Mkdir(filepath.Join(dir, "d.pcap"), 0o755); return nil },
		args: []string{"packet", "check", "d.pcap"}, exit: 1, stderr: `1 of 1 files could not be read`, stdout: `d.pcap: FAIL: is a directory`})
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
	for _, b := range []struct {
		args []string
		flag string
	}{
		{[]string{"model", "threshold", "--p", "NaN"}, "--p"},
		{[]string{"model", "threshold", "--p", "-Inf"}, "--p"},
		{[]string{"model", "threshold", "--links", "-1"}, "--links"},
		{[]string{"model", "threshold", "--packets", "9223372036854775808"}, "--packets"},
		{[]string{"model", "saturation", "--hops", "1e12"}, "--hops"},
		{[]string{"model", "saturation", "--count-bits", "99"}, "--count-bits"},
		{[]string{"rng", "stream", "--draws", "-5"}, "--draws"},
		{[]string{"rng", "p0", "--max-l", "99999999999"}, "--max-l"},
		{[]string{"spec", "--count-bits", "-3"}, "--count-bits"},
		{[]string{"sim", "--preset", "reduction-small", "--p", "NaN"}, "--p"},
		{[]string{"sim", "--preset", "reduction-small", "--windows", "1000"}, "--windows"},
		{[]string{"sim", "--preset", "reduction-small", "--input-buffer", "-1"}, "--input-buffer"},
		{[]string{"hash", "sweep", "--ones", "2^33"}, "--ones"},
		{[]string{"packet", "check", "--count-bits", "99", hca}, "--count-bits"},
		{[]string{"stats", "--alpha", "NaN"}, "--alpha"},
		{[]string{"stats", "--jobs", "-1"}, "--jobs"},
		{[]string{"model", "moments", "--congested", "5000000000000000000"}, "--congested"},
		{[]string{"model", "moments", "--packets", "9000000000000000000", "--through", "9000000000000000000"}, "--packets"},
		{[]string{"vectors", "--random", "-1"}, "--random"},
		{[]string{"verify", "--lanes", "0"}, "--lanes"},
		{[]string{"verify", "--max-fail", "-1", "--configs", "mult0_ideal_c3", "--icarus", "none", "--work", "{cache}"}, "--max-fail"},
	} {
		add(hostileCase{name: strings.Join(b.args, " "), args: b.args, exit: 1,
			stderr: regexp.QuoteMeta(b.flag), timeout: 10 * time.Second})
	}
	add(hostileCase{name: "model threshold: a billion links", args: []string{"model", "threshold", "--links", "1000000000"}, exit: 1,
		stderr: `more than 2\^53`})
	add(hostileCase{name: "verify --stall 1 (ready always low)",
		args: []string{"verify", "--configs", "mult0_ideal_c3", "--icarus", "none", "--random", "100", "--stall", "1", "--work", "{cache}"},
		exit: 1, stderr: `--stall`, needs: []string{"verilator"}, timeout: 3 * time.Minute})
	add(hostileCase{name: "vectors --bulk 10^12 (86 TB)", args: []string{"vectors", "--bulk", "1000000000000"}, exit: 1,
		stderr: `disk|space|--bulk`, timeout: 3 * time.Second})
	add(hostileCase{name: "packet check --count-bits without --telemetry", args: []string{"packet", "check", "--count-bits", "4", hca}, exit: 1,
		stderr: `--count-bits has no effect without --telemetry`})
	add(hostileCase{name: "mistyped subcommand", args: []string{"model", "satur"}, exit: 1,
		stderr: `unknown command "satur" for "ibreservoir model"\n\nDid you mean this\?\n\tsaturation`})
	add(hostileCase{name: "mistyped flag", args: []string{"model", "saturation", "--bits", "2"}, exit: 1,
		stderr: `unknown flag: --bits\nDid you mean this\?\n\t--count-bits`})

	// ---- outputs checked before any work.
	add(hostileCase{name: "sim --out through a file", setup: withFile("afile", []byte("x")),
		args: []string{"sim", "--preset", "reduction-tapered", "--out", "afile/sim"}, exit: 1, stderr: `afile is a file`, timeout: 5 * time.Second})
	add(hostileCase{name: "stats --json through a file", setup: withFile("afile", []byte("x")),
		args: []string{"stats", "--json", "afile/s.json"}, exit: 1, stderr: `afile`, timeout: 5 * time.Second})
	add(hostileCase{name: "verify --vectors with --synth-table", needs: []string{"verilator"},
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--bulk", "1000", "--out", ".")
			return nil
		},
		args: []string{"verify", "--vectors", "bulk/mult0_ideal_c3/stage.bin", "--synth", "--synth-table", "t.md", "--work", "{cache}"}, exit: 1, stderr: `--synth`, timeout: 3 * time.Minute})

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
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `checksum .* does not match its contents`})
	add(hostileCase{name: "stats merge: a count beyond its domain, checksum recomputed",
		setup: func(t *testing.T, dir, bin string) []string {
			p := statsPartial(t, dir, bin)
			write(t, p, rechecksum(t, overCount(read(t, p))))
			return nil
		},
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `count 0 is 2000000, more than the 1048576 values it counted`})
	add(hostileCase{name: "stats merge: junk after the JSON",
		setup: func(t *testing.T, dir, bin string) []string {
			p := statsPartial(t, dir, bin)
			write(t, p, append(read(t, p), []byte("{junk")...))
			return nil
		},
		args: []string{"stats", "merge", "part.json"}, exit: 1, stderr: `junk|after|trailing`})
	// The manifest's SHA-256 refuses the edited file before its count is read;
	// vectors' and cosim's tests reach the count check itself.
	add(hostileCase{name: "verify --vectors: header count 0", needs: []string{"verilator"},
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--bulk", "1000", "--out", ".")
			p := filepath.Join(dir, "bulk", "mult0_ideal_c3", "stage.bin")
			b := read(t, p)
			binary.LittleEndian.PutUint64(b[vectors.BinPosCount:], 0)
			write(t, p, b)
			return nil
		},
		args: []string{"verify", "--vectors", "bulk/mult0_ideal_c3/stage.bin", "--work", "{cache}"}, exit: 1, stderr: `count|header|SHA-256`, timeout: 3 * time.Minute})

	// ---- interrupts: SIGINT and SIGTERM mid-run.
	add(hostileCase{name: "hash sweep siphash, SIGINT", args: []string{"hash", "sweep", "--hash", "siphash"},
		sig: syscall.SIGINT, after: time.Second, exit: 130, stderr: `interrupted by SIGINT`})
	add(hostileCase{name: "packet check 30 MB, SIGTERM",
		setup: func(t *testing.T, dir, _ string) []string {
			repeatCapture(t, filepath.Join(dir, "huge.pcap"), hca, 30<<20)
			return nil
		},
		args: []string{"packet", "check", "huge.pcap"}, sig: syscall.SIGTERM, after: 300 * time.Millisecond, exit: 143, stderr: `interrupted by SIGTERM`})
	add(hostileCase{name: "rng stream of 10^12 draws, SIGTERM", args: []string{"rng", "stream", "--draws", "1000000000000"},
		sig: syscall.SIGTERM, after: time.Second, exit: 143, stderr: `interrupted by SIGTERM`})
	add(hostileCase{name: "sim over a previous output, SIGINT",
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "sim", "--preset", "reduction-small", "--plots=false", "--progress=false", "--out", "simout")
			return []string{"simout/result.json"}
		},
		args: []string{"sim", "--preset", "reduction-tapered", "--progress=false", "--out", "simout"}, sig: syscall.SIGINT, after: 2 * time.Second,
		exit: 130, stderr: `interrupted by SIGINT`})
	add(hostileCase{name: "stats, SIGTERM", args: []string{"stats", "--json", "s.json"},
		sig: syscall.SIGTERM, after: time.Second, exit: 143, stderr: `interrupted by SIGTERM`})
	add(hostileCase{name: "vectors over a previous output, SIGINT",
		setup: func(t *testing.T, dir, bin string) []string {
			mustRun(t, dir, bin, "vectors", "--only", "stage/mult0_ideal_c3", "--out", "vout")
			return []string{"vout/index.json", "vout/stage/mult0_ideal_c3/manifest.json", "vout/stage/mult0_ideal_c3/stage.bin"}
		},
		args: []string{"vectors", "--out", "vout", "--seed", "2"}, sig: syscall.SIGINT, after: 500 * time.Millisecond, exit: 130, stderr: `interrupt`})
	add(hostileCase{name: "vectors --bulk, SIGTERM", args: []string{"vectors", "--bulk", "20000000", "--out", "bout"},
		sig: syscall.SIGTERM, after: time.Second, exit: 143, stderr: `interrupt`,
		timeout: time.Second + stopWithin + time.Second})
	return cs
}

// TestHostile runs every hostile case and prints the table of outcomes.
func TestHostile(t *testing.T) {
	if os.Getenv("IBRESERVOIR_HOSTILE") == "" {
		t.Skip("the hostile-input suite runs from scripts/hostile.sh (IBRESERVOIR_HOSTILE=1)")
	}
	bin := repoBinary(t)
	var table []string
	for _, c := range hostileCases() {
		outcome := "PASS"
		ok := t.Run(c.name, func(t *testing.T) {
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
		table = append(table, fmt.Sprintf("%-7s %-8s %s", outcome, c.args[0], c.name))
	}
	t.Logf("outcome command  case\n%s", strings.Join(table, "\n"))
}

// runHostile runs one case and returns what was wrong with it.
func runHostile(t *testing.T, bin string, c hostileCase) []string {
	dir := t.TempDir()
	var unchanged []string
	if c.setup != nil {
		unchanged = c.setup(t, dir, bin)
	}
	before := map[string][]byte{}
	for _, f := range unchanged {
		before[f] = read(t, filepath.Join(dir, f))
	}
	// {cache}: a work directory kept between runs (Verilator builds take
	// seconds to minutes), as the cosim tests keep theirs.
	cache := filepath.Join(os.TempDir(), "ibreservoir-hostile-cache")
	if d, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(d, "ibreservoir-test", "hostile")
	}
	// Globs are the shell's job; expand them as a shell would.
	var argv []string
	for _, a := range c.args {
		a = strings.ReplaceAll(a, "{cache}", cache)
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
	r := run(append([]string{bin}, argv...), runOpts{dir: dir, timeout: timeout, interrupt: c.after, sig: c.sig})
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
	if i := strings.LastIndex(r.stderr, "ibreservoir: "); i == 0 || i > 0 && r.stderr[i-1] == '\n' {
		msg = r.stderr[i:]
	}
	if c.exit != 0 && msg == "" {
		bad("no error message of the command's own on stderr:\n%s", tail(r.stderr, 8))
	}
	if c.exit != 0 && c.stderr != "" && !regexp.MustCompile(c.stderr).MatchString(msg) {
		bad("the error does not say %q:\n%s", c.stderr, tail(r.stderr, 8))
	}
	if c.stdout != "" && !regexp.MustCompile(c.stdout).MatchString(r.stdout) {
		bad("stdout does not show %q:\n%s", c.stdout, tail(r.stdout, 8))
	}
	if c.sig != 0 && r.wall > c.after+stopWithin {
		bad("took %s to stop after the signal, more than %s", (r.wall - c.after).Round(time.Millisecond), stopWithin)
	}
	limit := c.maxRSSMB
	if limit == 0 {
		limit = 400
	}
	if r.maxRSSKB > limit<<10 {
		bad("peak memory %d MB, more than %d MB", r.maxRSSKB>>10, limit)
	}
	for f, b := range before {
		if now, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Equal(now, b) {
			bad("previous output %s was changed (%v)", f, err)
		}
	}
	for _, l := range leftovers(dir) {
		bad("left behind %s", l)
	}
	t.Logf("exit %d in %s, %d MB peak", r.exit, r.wall.Round(time.Millisecond), r.maxRSSKB>>10)
	return problems
}

// leftovers lists temporary and staging files under dir.
func leftovers(dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		n := info.Name()
		if strings.Contains(n, ".tmp") || strings.HasPrefix(n, ".staging-") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// ---- inputs

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
