// SPDX-License-Identifier: Apache-2.0

// With the hostile suite's helpers: Linux only.

//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The hostile cases of the layers under the command line: the C library
// (libibreservoir), its DPI-C adapter and the Python package. Each case runs
// one small program (a C driver, the adapter linked into a C++ driver, a
// Python snippet) that does one bad thing and prints the outcome as
// "status=S message=M"; the case holds the exact status and the message's
// words. Every case must also end within its timeout (a hang is a failure).
// Run with scripts/hostile.sh (IBRESERVOIR_HOSTILE=1).

// A layerCase is one bad call and its one right outcome.
type layerCase struct {
	name   string
	layer  string // "c", "dpi" or "python": the driver that runs it
	status string // the exact status: an ibr_status, or a Python exception's name
	// message must match the driver's message.
	message string
}

func layerCases() []layerCase {
	return []layerCase{
		// Strings are read whole or refused, never cut at 64 KiB.
		{"configuration of 65,528 spaces then seed=123456", "c", "1", `^configuration: longer than 65536 bytes`},
		{"count-bits=4 after 200,000 spaces", "c", "1", `^configuration: longer than 65536 bytes`},
		// fork: every call in the child fails at once, saying why.
		{"20 forked children call the library", "c", "8", `^20 of 20 children: ibr_stage 8, ibr_model_new 8 \(then 20000 of 20000 refused\): libibreservoir: called in the child of a fork\(\).*"spawn" or "forkserver"`},
		{"a 1 MiB output buffer", "c", "0", `^a 66-byte packet$`},
		{"a sample's hop count of 2^31-1", "c", "1", `^ibr_decoder_add_sample: .*hop_count 2147483647 .*counts 0 to the model's count_max 7$`},
		{"a zeroed ibr_packet_spec", "c", "1", `^ibr_packet_build: the spec was not started by ibr_packet_spec_init .*call ibr_packet_spec_init first, which sets OpCode 0x04 \(SEND Only\) and P_Key 0xFFFF$`},
		{"ibr_send with a LID not the packet's SLID", "c", "1", `^ibr_send: the packet's SLID is 0x0001, the NIC's LID 0x0002: a NIC sends its own packets$`},
		{"a batch whose packet 1 overlaps packet 0", "c", "1", `^ibr_stage_batch: packet 1: at byte 4, before the end of packet 0 \(byte 66\)`},
		{"a batch with a corrupt packet 2", "c", "3", `^packet 2 of 4: .*VCRC .*\(1 of 4 packets failed; the others were processed\) statuses 0,0,3,0$`},
		// Cut-through stages take corrupt frames, never a buffer that is not one.
		{"ibr_stage_frame on a frame of 4k+1 bytes", "c", "3", `^switch 7 port 3: a 65-byte frame: the link delivers 4k\+2-byte frames$`},
		{"ibr_frame_seal on a 22-byte frame", "c", "3", `^ibr_frame_seal: a 22-byte frame does not reach the end of its headers and ICRC \(26 bytes\)$`},
		{"ibr_stage_frame on a frame whose PktLen is 2047", "c", "0", `^corrupt 6, its VCRC the complement of the valid one$`},
		{"a frame batch with a frame of 4k bytes", "c", "3", `^packet 1 of 4: .*4k\+2-byte frames \(1 of 4 packets failed; the others were processed\) statuses 0,3,0,0 corrupt 1,9,0,0$`},
		{"ibr_dpi_stage_frame of 9000 bytes", "dpi", "1", `^ibr_dpi: packet length outside 0\.\.max_bytes \(9000, 8192\)$`},
		{"stage_frame on bytes", "python", "TypeError", `^a packet is a bytearray \(changed in place\), not bytes$`},
		{"ibr_dpi_stage on a null chandle", "dpi", "5", `^ibr_dpi: ibr_dpi_stage: the model chandle is null \(ibr_dpi_model_new failed or was not called\)$`},
		{"stage(pkt, 65537, 257)", "python", "ValueError", `^switch is 65537: want 0\.\.65535$`},
		{"a PSN of 2^32+5", "python", "ValueError", `^psn is 4294967301: want 0\.\.16777215$`},
		{"send(pkt, 70000)", "python", "ValueError", `^lid is 70000: want 0\.\.65535$`},
		{"a state word of 2^32+1", "python", "ValueError", `^state\[0\] is 4294967297: want 0\.\.4294967295$`},
		{"decoder(2**40, ...)", "python", "ValueError", `^path_len is 1099511627776: want 1\.\.2147483647$`},
		{"a configuration with a NUL inside", "python", "ValueError", `^config has a NUL character at 6: C would read only what comes before it$`},
		{"a multiprocessing worker started by fork", "python", "8", `^libibreservoir: called in the child of a fork\(\)`},
		{"a multiprocessing worker started by spawn", "python", "0", `^hop_l 1$`},
	}
}

// TestHostileLayers runs every layer case and prints the table of outcomes.
func TestHostileLayers(t *testing.T) {
	if os.Getenv("IBRESERVOIR_HOSTILE") == "" {
		t.Skip("the hostile-input suite runs from scripts/hostile.sh (IBRESERVOIR_HOSTILE=1)")
	}
	if !needTools(t, "go", "cc", "c++", "python3") {
		return
	}
	root := repoRoot(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libibreservoir.so")
	mustExec(t, root, "go", "build", "-buildmode=c-shared", "-o", lib, "./capi")
	drivers := map[string][]string{}
	cDriver := filepath.Join(dir, "hostile_c")
	write(t, cDriver+".c", []byte(hostileC))
	mustExec(t, dir, "cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L", "-I", filepath.Join(root, "capi", "include"),
		"-o", cDriver, cDriver+".c", "-L", dir, "-libreservoir", "-Wl,-rpath,"+dir)
	drivers["c"] = []string{cDriver}
	if vroot, err := exec.Command("verilator", "--getenv", "VERILATOR_ROOT").Output(); err == nil {
		dpiDriver := filepath.Join(dir, "hostile_dpi")
		write(t, dpiDriver+".cc", []byte(hostileDPI))
		mustExec(t, dir, "c++", "-std=c++17", "-Wall", "-I", filepath.Join(root, "capi", "include"),
			"-I", filepath.Join(strings.TrimSpace(string(vroot)), "include", "vltstd"), "-o", dpiDriver, dpiDriver+".cc",
			filepath.Join(root, "dpi", "src", "ibr_dpi.cc"), "-L", dir, "-libreservoir", "-Wl,-rpath,"+dir)
		drivers["dpi"] = []string{dpiDriver}
	}
	pyDriver := filepath.Join(dir, "hostile.py")
	write(t, pyDriver, []byte(hostilePython))
	drivers["python"] = []string{"python3", pyDriver}
	env := append(os.Environ(), "IBRESERVOIR_LIB="+lib, "PYTHONPATH="+filepath.Join(root, "python"))

	re := regexp.MustCompile(`(?s)^status=(\S+) message=(.*)$`)
	var table []string
	for _, c := range layerCases() {
		outcome := "PASS"
		ok := t.Run(c.name, func(t *testing.T) {
			argv, have := drivers[c.layer]
			if !have {
				outcome = "SKIP"
				needTools(t, "verilator")
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], c.name)...)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				outcome = "FAIL"
				t.Fatalf("hung: still running after 2 minutes, killed\n%s", out)
			}
			m := re.FindStringSubmatch(strings.TrimSpace(string(out)))
			if err != nil || m == nil {
				outcome = "FAIL"
				t.Fatalf("the driver failed (%v) or printed no outcome:\n%s", err, out)
			}
			if m[1] != c.status || !regexp.MustCompile(c.message).MatchString(m[2]) {
				outcome = "FAIL"
				t.Errorf("status %s, message %q; want status %s, message matching %q", m[1], m[2], c.status, c.message)
			}
		})
		if !ok && outcome == "PASS" {
			outcome = "FAIL"
		}
		table = append(table, fmt.Sprintf("%-7s %-7s %s", outcome, c.layer, c.name))
	}
	t.Logf("outcome layer   case\n%s", strings.Join(table, "\n"))
}

// mustExec runs a build step.
func mustExec(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// hostileC is the C driver: argv[1] names the case.
const hostileC = `#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ibreservoir.h"

static ibr_model m;
static char msg[4096];

static int out(ibr_status st, uintptr_t h) {
  ibr_last_error(h, msg, sizeof msg);
  printf("status=%d message=%s\n", st, msg);
  return 0;
}

static size_t packet(uint8_t *buf, size_t cap, uint16_t slid) {
  ibr_packet_spec spec;
  ibr_packet_spec_init(&spec);
  spec.slid = slid;
  spec.dlid = 2;
  uint8_t payload[38] = {0};
  spec.payload = payload;
  spec.payload_len = sizeof payload;
  size_t len = 0;
  if (ibr_packet_build(m, &spec, buf, cap, &len) != IBR_OK || ibr_send(m, buf, len, slid) != IBR_OK) {
    out(IBR_ERR_INTERNAL, m);
    exit(1);
  }
  return len;
}

static int spaces_then(size_t n, const char *setting) {
  char *cfg = malloc(n + strlen(setting) + 1);
  memset(cfg, ' ', n);
  strcpy(cfg + n, setting);
  ibr_model h;
  ibr_status st = ibr_model_new(cfg, &h, msg, sizeof msg);
  if (st == IBR_OK) {
    ibr_model_config(h, msg, sizeof msg); /* what was read */
  }
  printf("status=%d message=%s\n", st, msg);
  free(cfg);
  return 0;
}

/* forks 20 children that call the library; each must be done within 10 s */
static int forks(void) {
  uint8_t pkt[256];
  size_t len = packet(pkt, sizeof pkt, 1);
  ibr_stage(m, pkt, len, 7, 3, 0, NULL, 0, NULL); /* the runtime is busy in the parent */
  int good = 0;
  char first[4096] = "";
  for (int i = 0; i < 20; i++) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      ibr_status a = ibr_stage(m, pkt, len, 7, 3, 0, NULL, 0, NULL);
      ibr_model h;
      char err[1024];
      ibr_status b = ibr_model_new("", &h, err, sizeof err);
      /* enough work for the Go runtime to collect garbage, which waits for
         threads the child does not have: without the check, this hangs */
      int refused = 0;
      for (int k = 0; k < 20000; k++) {
        ibr_model x;
        if (ibr_model_new("hash=crc32", &x, NULL, 0) == IBR_ERR_FORK) {
          refused++;
        } else {
          ibr_free(x);
        }
      }
      char line[4096];
      int n = snprintf(line, sizeof line, "ibr_stage %d, ibr_model_new %d (then %d of 20000 refused): %s", a, b, refused, err);
      if (write(fd[1], line, (size_t)n) != n) _exit(3);
      _exit(a == IBR_ERR_FORK && b == IBR_ERR_FORK && refused == 20000 ? 0 : 2);
    }
    close(fd[1]);
    char line[4096] = "";
    struct pollfd pfd = {fd[0], POLLIN, 0};
    if (poll(&pfd, 1, 10000) <= 0) { /* the Go runtime's handler keeps SIGALRM from ending it */
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      snprintf(first, sizeof first, "child %d hung in the library for 10 s, killed", i);
      break;
    }
    ssize_t n = read(fd[0], line, sizeof line - 1);
    if (n > 0) line[n] = 0;
    close(fd[0]);
    int ws;
    waitpid(pid, &ws, 0);
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) good++;
    if (i == 0) snprintf(first, sizeof first, "%s", line);
  }
  printf("status=%d message=%d of 20 children: %s\n", good == 20 ? IBR_ERR_FORK : -1, good, first);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const char *c = argv[1];
  char err[512];
  if (ibr_model_new("", &m, err, sizeof err) != IBR_OK) return 1;
  uint8_t buf[1024];
  if (!strcmp(c, "configuration of 65,528 spaces then seed=123456")) return spaces_then(65528, "seed=123456");
  if (!strcmp(c, "count-bits=4 after 200,000 spaces")) return spaces_then(200000, "count-bits=4");
  if (!strcmp(c, "20 forked children call the library")) return forks();
  if (!strcmp(c, "a 1 MiB output buffer")) {
    ibr_packet_spec spec;
    ibr_packet_spec_init(&spec);
    uint8_t payload[38] = {0};
    spec.payload = payload;
    spec.payload_len = sizeof payload;
    size_t cap = 1 << 20, len = 0;
    uint8_t *big = malloc(cap);
    ibr_status st = ibr_packet_build(m, &spec, big, cap, &len);
    if (st != IBR_OK) return out(st, m);
    printf("status=%d message=a %zu-byte packet\n", st, len);
    return 0;
  }
  if (!strcmp(c, "a sample's hop count of 2^31-1")) {
    ibr_link l = {1, 1};
    int32_t hop = 1;
    ibr_decoder d;
    if (ibr_decoder_new(m, 1, &l, &hop, 1, &d) != IBR_OK) return 1;
    ibr_sample s;
    memset(&s, 0, sizeof s);
    s.hop_count = 2147483647;
    return out(ibr_decoder_add_sample(d, &s), d);
  }
  if (!strcmp(c, "a zeroed ibr_packet_spec")) {
    ibr_packet_spec spec;
    memset(&spec, 0, sizeof spec);
    size_t len;
    return out(ibr_packet_build(m, &spec, buf, sizeof buf, &len), m);
  }
  if (!strcmp(c, "ibr_send with a LID not the packet's SLID")) {
    size_t len = packet(buf, sizeof buf, 1);
    return out(ibr_send(m, buf, len, 2), m);
  }
  size_t off[4], lens[4];
  ibr_status sts[4] = {99, 99, 99, 99}; /* a status the call does not write stays 99 */
  for (int i = 0; i < 4; i++) {
    off[i] = (size_t)i * 66;
    lens[i] = packet(buf + off[i], 66, 1);
  }
  if (!strcmp(c, "a batch whose packet 1 overlaps packet 0")) {
    off[1] = 4;
    return out(ibr_stage_batch(m, buf, 4 * 66, off, lens, 4, 7, 3, NULL, NULL, 0, NULL, sts), m);
  }
  if (!strcmp(c, "ibr_stage_frame on a frame of 4k+1 bytes")) {
    return out(ibr_stage_frame(m, buf, lens[0] - 1, 7, 3, 0, NULL, 0, NULL, NULL), m);
  }
  if (!strcmp(c, "ibr_frame_seal on a 22-byte frame")) return out(ibr_frame_seal(m, buf, 22), m);
  if (!strcmp(c, "ibr_stage_frame on a frame whose PktLen is 2047")) {
    buf[4] |= 0x07; /* LRH bytes 4-5: PktLen 2047, the frame 66 bytes */
    buf[5] = 0xFF;
    ibr_frame_seal(m, buf, lens[0]);
    uint32_t why = 0;
    ibr_status st = ibr_stage_frame(m, buf, lens[0], 7, 3, 0, NULL, 0, NULL, &why);
    if (st != IBR_OK) return out(st, m);
    uint8_t valid[66];
    memcpy(valid, buf, sizeof valid);
    ibr_frame_seal(m, valid, sizeof valid);
    int stomped = (valid[64] ^ buf[64]) == 0xFF && (valid[65] ^ buf[65]) == 0xFF;
    printf("status=%d message=corrupt %u, its VCRC %s\n", st, why, stomped ? "the complement of the valid one" : "not stomped");
    return 0;
  }
  if (!strcmp(c, "a frame batch with a frame of 4k bytes")) {
    uint32_t why[4] = {9, 9, 9, 9};
    buf[off[0] + 65] ^= 1; /* frame 0: a bad VCRC */
    lens[1] = 64;
    ibr_status st = ibr_stage_frame_batch(m, buf, 4 * 66, off, lens, 4, 7, 3, NULL, NULL, 0, NULL, why, sts);
    ibr_last_error(m, msg, sizeof msg);
    printf("status=%d message=%s statuses %d,%d,%d,%d corrupt %u,%u,%u,%u\n", st, msg, sts[0], sts[1], sts[2], sts[3],
           why[0], why[1], why[2], why[3]); /* a frame that failed keeps its entry (9) */
    return 0;
  }
  if (!strcmp(c, "a batch with a corrupt packet 2")) {
    buf[off[2] + 65] ^= 1;
    ibr_status st = ibr_stage_batch(m, buf, 4 * 66, off, lens, 4, 7, 3, NULL, NULL, 0, NULL, sts);
    ibr_last_error(m, msg, sizeof msg);
    printf("status=%d message=%s statuses %d,%d,%d,%d\n", st, msg, sts[0], sts[1], sts[2], sts[3]);
    return 0;
  }
  return 2;
}
`

// hostileDPI is the DPI adapter's driver, without a simulator: the adapter's
// functions called as a simulator calls them.
const hostileDPI = `#include <cstdio>
#include <cstring>

#include "svdpi.h"

extern "C" {
int ibr_dpi_stage(void *model, svBitVecVal *pkt, int len, unsigned short switch_id, unsigned char port, svBit congested,
                  svBitVecVal *state, int *hop_l, svBit *hash_bit, svBit *replaced, svBit *saturated, int *hop_field,
                  int max_bytes, int state_bits);
const char *ibr_dpi_error(void *model);
int ibr_dpi_model_new(const char *cfg, void **model);
int ibr_dpi_stage_frame(void *model, svBitVecVal *pkt, int len, unsigned short switch_id, unsigned char port,
                        svBit congested, svBitVecVal *state, int *hop_l, svBit *hash_bit, svBit *replaced,
                        svBit *saturated, int *hop_field, int *corrupt, int max_bytes, int state_bits);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  static svBitVecVal pkt[2048];
  svBitVecVal state[8] = {0};
  int l = 0, field = 0, corrupt = 0;
  svBit hash = 0, rep = 0, sat = 0;
  if (std::strcmp(argv[1], "ibr_dpi_stage on a null chandle") == 0) {
    int st = ibr_dpi_stage(nullptr, pkt, 30, 7, 3, 0, state, &l, &hash, &rep, &sat, &field, 256, 256);
    std::printf("status=%d message=%s\n", st, ibr_dpi_error(nullptr));
    return 0;
  }
  if (std::strcmp(argv[1], "ibr_dpi_stage_frame of 9000 bytes") == 0) {
    void *m = nullptr;
    if (ibr_dpi_model_new("", &m) != 0) return 1;
    int st = ibr_dpi_stage_frame(m, pkt, 9000, 7, 3, 0, state, &l, &hash, &rep, &sat, &field, &corrupt, 8192, 256);
    std::printf("status=%d message=%s\n", st, ibr_dpi_error(m));
    return 0;
  }
  return 2;
}
`

// hostilePython is the Python driver: sys.argv[1] names the case.
const hostilePython = `import multiprocessing
import sys

import ibreservoir as I

LIB = I.Library()
M = LIB.model("")


def worker():
    try:
        pkt = M.packet(slid=1, dlid=2)
        M.send(pkt, 1)
        return (0, "hop_l %d" % M.stage(pkt, 7, 3).hop_l)
    except I.IbrError as e:
        return (e.status, e.message)


def main():
    case = sys.argv[1]
    pkt = M.packet(slid=1, dlid=2)
    M.send(pkt, 1)
    calls = {
        "stage(pkt, 65537, 257)": lambda: M.stage(pkt, 65537, 257),
        "a PSN of 2^32+5": lambda: M.packet(psn=2**32 + 5),
        "send(pkt, 70000)": lambda: M.send(pkt, 70000),
        "a state word of 2^32+1": lambda: M.stage(pkt, 7, 3, state=[2**32 + 1, 0, 0, 0]),
        "decoder(2**40, ...)": lambda: M.decoder(2**40, [(1, 1, 1)]),
        "a configuration with a NUL inside": lambda: LIB.model("seed=5\0count-bits=4"),
        "stage_frame on bytes": lambda: M.stage_frame(bytes(pkt), 7, 3),
    }
    if case in calls:
        try:
            calls[case]()
            print("status=0 message=accepted")
        except (ValueError, TypeError, I.IbrError) as e:
            print("status=%s message=%s" % (getattr(e, "status", type(e).__name__), getattr(e, "message", e)))
        return
    method = {"a multiprocessing worker started by fork": "fork",
              "a multiprocessing worker started by spawn": "spawn"}[case]
    with multiprocessing.get_context(method).Pool(1) as pool:
        st, msg = pool.apply_async(worker).get(timeout=60)
    print("status=%d message=%s" % (st, msg))


if __name__ == "__main__":
    main()
`
