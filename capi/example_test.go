// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ibreservoir/internal/testtool"
	"ibreservoir/internal/version"
	"ibreservoir/refmodel"
)

// The examples of capi/example, built against the library as a user builds
// them (go build -buildmode=c-archive and c-shared), must print what the Go
// model computes for the same run.

var (
	libOnce sync.Once
	libDir  string
	libErr  error
)

// buildLibrary builds libibreservoir.a and libibreservoir.so once per test
// binary, in a temporary directory.
func buildLibrary(t *testing.T) string {
	t.Helper()
	libOnce.Do(func() {
		if libDir, libErr = os.MkdirTemp("", "ibreservoir-capi"); libErr != nil {
			return
		}
		for _, mode := range []string{"c-archive", "c-shared"} {
			ext := map[string]string{"c-archive": ".a", "c-shared": ".so"}[mode]
			// The version pinned to the test's own: a go build in a git
			// checkout records the commit, which go test does not.
			out, err := exec.Command("go", "build", "-buildmode="+mode, "-ldflags=-X ibreservoir/internal/version.Version="+version.String(),
				"-o", filepath.Join(libDir, "libibreservoir"+ext), ".").CombinedOutput()
			if err != nil {
				libErr = fmt.Errorf("go build -buildmode=%s: %v\n%s", mode, err, out)
				return
			}
		}
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if libDir != "" {
		os.RemoveAll(libDir)
	}
	os.Exit(code)
}

// exampleConfigs are the configurations the examples run with.
var exampleConfigs = []string{"", "hash=crc32 generator=lfsr-lut/b16 count-bits=4",
	"scheme=tworeservoir generator=sender sender-draws=5 global=true", "scheme=fullid count-bits=4"}

// transcript is the examples' run on the Go model.
func transcript(t *testing.T, config string) string {
	c, err := refmodel.ParseConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	m, err := refmodel.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "libibreservoir %s: %s\n", version.String(), c.Settings())
	nic := m.NIC(0x0101)
	path := []refmodel.Link{{Switch: 1, Port: 33}, {Switch: 10, Port: 1}, {Switch: 100, Port: 2}, {Switch: 21, Port: 1}, {Switch: 2, Port: 5}}
	var ports []*refmodel.Port
	for _, l := range path {
		p, err := m.Port(l)
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, p)
	}
	packet := func(psn uint32, payload []byte) []byte {
		pkt, err := nic.Packet(refmodel.PacketSpec{DLID: 0x0202, DestQP: 0x42, PSN: psn, Payload: payload})
		if err != nil {
			t.Fatal(err)
		}
		return pkt
	}
	pkt := packet(7, []byte("hello"))
	for hop, p := range ports {
		r, err := p.Stage(pkt, refmodel.Congestion(hop == 2))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "hop %d %s l=%d replaced=%d count=%d\n", hop+1, p.Link(), r.HopL, b2i(r.HopReplaced), r.HopCount)
	}
	s, err := m.Receive(pkt)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "received: id %d, hop bit %d, congested bit %d, weight %d\n", s.ID, s.HopBit, s.CongBit, s.HopCount)
	if m.Layout().Fields[0].Name == "hop_switch" {
		return b.String()
	}
	set := refmodel.NewCandidateSet(5)
	for _, x := range []struct {
		hop   int
		links []refmodel.Link
	}{{1, []refmodel.Link{{Switch: 1, Port: 33}, {Switch: 1, Port: 34}}},
		{2, []refmodel.Link{{Switch: 10, Port: 1}, {Switch: 10, Port: 2}, {Switch: 11, Port: 1}, {Switch: 11, Port: 2}}},
		{3, []refmodel.Link{{Switch: 100, Port: 1}, {Switch: 100, Port: 2}, {Switch: 101, Port: 1}, {Switch: 101, Port: 2}}},
		{4, []refmodel.Link{{Switch: 20, Port: 1}, {Switch: 21, Port: 1}}},
		{5, []refmodel.Link{{Switch: 2, Port: 5}}}} {
		if err := set.Add(x.hop, x.links...); err != nil {
			t.Fatal(err)
		}
	}
	tally, err := m.NewTally(set)
	if err != nil {
		t.Fatal(err)
	}
	for psn := range uint32(2000) {
		pkt := packet(psn, nil)
		for hop, p := range ports {
			if _, err := p.Stage(pkt, refmodel.Congestion(hop == 2)); err != nil {
				t.Fatal(err)
			}
		}
		s, err := m.Receive(pkt)
		if err != nil {
			t.Fatal(err)
		}
		tally.Add(s)
	}
	for _, e := range tally.Estimates(5, 0.99) {
		if e.Passed {
			fmt.Fprintf(&b, "hop %d %s W=%d (threshold %.0f) congested fraction %.2f\n", e.Hop, e.Link, e.W, e.Threshold, e.Fraction)
		}
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareTranscript(t *testing.T, what, config, got string) {
	t.Helper()
	if want := transcript(t, config); got != want {
		t.Errorf("%s %q printed:\n%s\nthe Go model says:\n%s", what, config, got, want)
	}
}

// TestCExample compiles capi/example/stage.c against ibreservoir.h and the
// static library, with every warning, and runs it.
func TestCExample(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := buildLibrary(t)
	bin := filepath.Join(t.TempDir(), "stage")
	out, err := exec.Command("cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", "include", "-o", bin, "example/stage.c",
		filepath.Join(dir, "libibreservoir.a"), "-lpthread").CombinedOutput()
	if err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for _, config := range exampleConfigs {
		out, err := exec.Command(bin, config).CombinedOutput()
		if err != nil {
			t.Fatalf("stage %q: %v\n%s", config, err, out)
		}
		compareTranscript(t, "stage.c", config, string(out))
	}
	out, err = exec.Command(bin, "hash=md5").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown hash "md5"`) {
		t.Errorf("a bad configuration: %v\n%s", err, out)
	}
}

// TestPythonExample runs capi/example/example.py on the shared library.
func TestPythonExample(t *testing.T) {
	testtool.Need(t, "python3")
	lib := filepath.Join(buildLibrary(t), "libibreservoir.so")
	for _, config := range exampleConfigs {
		out, err := exec.Command("python3", "example/example.py", lib, config).CombinedOutput()
		if err != nil {
			t.Fatalf("example.py %q: %v\n%s", config, err, out)
		}
		compareTranscript(t, "example.py", config, string(out))
	}
	script := `import sys; sys.path.insert(0, "../python"); import ibreservoir
lib = ibreservoir.Library(sys.argv[1])
try:
    lib.model("count-bits=99")
except ibreservoir.IbrError as e:
    print(e.status, e.message)
m = lib.model("")
try:
    m.receive(bytearray(30))
except ibreservoir.IbrError as e:
    print(e.status, e.message)
`
	out, err := exec.Command("python3", "-c", script, lib).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "2 configuration") || !strings.Contains(string(out), "3 receiver NIC") {
		t.Errorf("errors in Python: %v\n%s", err, out)
	}
}
