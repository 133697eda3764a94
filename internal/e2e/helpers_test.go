// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"errors"
	"fmt"
	"ibreservoir/internal/testtool"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the repository the tests run from (two levels up).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// needTools skips (or under CI fails) unless every program is installed, and
// returns the missing ones' names for a log.
func needTools(t *testing.T, tools ...string) bool {
	t.Helper()
	missing := testtool.Missing(tools...)
	if len(missing) == 0 {
		return true
	}
	if testtool.InCI() {
		t.Errorf("%s not installed (scripts/setup.sh installs it)", strings.Join(missing, ", "))
	} else {
		t.Logf("skipped: %s not installed (scripts/setup.sh installs it)", strings.Join(missing, ", "))
	}
	return false
}

// freshClone clones the repository into a temporary directory and checks out
// what is being tested: HEAD, with the working tree's uncommitted changes to
// tracked files (git stash create records them without touching the tree).
// Untracked files are not in the clone, as they would not be in anyone's.
func freshClone(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	rev := git(root, "stash", "create")
	if rev == "" {
		rev = git(root, "rev-parse", "HEAD")
	} else {
		t.Logf("the clone has the working tree's uncommitted changes (stash commit %s)", rev[:12])
	}
	if untracked := git(root, "ls-files", "--others", "--exclude-standard", "--", "*.go", "*.md", "*.sh"); untracked != "" {
		t.Logf("untracked files are not in the clone:\n%s", untracked)
	}
	dir := filepath.Join(t.TempDir(), "clone")
	git(root, "clone", "--quiet", "--shared", "--no-checkout", root, dir)
	git(dir, "checkout", "--quiet", "--detach", rev)
	return dir
}

var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// TestMain removes the binary repoBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// buildBinary builds the ibreservoir command of the module at dir into a
// directory of its own and returns that directory (for PATH).
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "ibreservoir"), ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", dir, err, out)
	}
	return bin
}

// repoBinary builds the repository's command once per test process and
// returns its path.
func repoBinary(t *testing.T) string {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ibreservoir-e2e-*")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "ibreservoir")
		cmd := exec.Command("go", "build", "-o", builtBin, ".")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return builtBin
}

// A result is what one run of a process did.
type result struct {
	exit     int           // exit status; -1 if killed by a signal
	signaled bool          // ended by a signal (a crash, or the timeout's kill)
	timedOut bool          // still running at the timeout, then killed
	stdout   string        // its standard output
	stderr   string        // its standard error
	maxRSSKB int64         // peak resident memory, from the kernel's accounting
	wall     time.Duration // wall time
	// sentAfter is when runOpts.when held and the signal was sent (0: it
	// never held).
	sentAfter time.Duration
}

// run runs argv in dir with the extra environment env (NAME=value) and kills
// its whole process group at timeout. With interrupt > 0 it sends sig that
// long after the start (the command under test must stop cleanly).
type runOpts struct {
	dir       string
	env       []string
	stdin     string
	timeout   time.Duration
	interrupt time.Duration
	sig       syscall.Signal
	// when, if set, sends sig once it holds (polled), instead of after
	// interrupt: a run is interrupted on a condition (its output started,
	// a progress line), not after a time whose work depends on the load.
	when func(pid int, stdout, stderr string) bool
}

func run(argv []string, o runOpts) result {
	if o.timeout == 0 {
		o.timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = o.dir
	cmd.Env = append(os.Environ(), o.env...)
	cmd.Stdin = strings.NewReader(o.stdin)
	out, errb := &headTail{}, &headTail{}
	cmd.Stdout, cmd.Stderr = out, errb
	ownGroup(cmd) // the command and its children are killed together
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{exit: -1, stderr: err.Error()}
	}
	if o.interrupt > 0 && o.when == nil {
		timer := time.AfterFunc(o.interrupt, func() { cmd.Process.Signal(o.sig) })
		defer timer.Stop()
	}
	var sentAt atomic.Int64 // ns after start; 0: not sent
	done := make(chan struct{})
	defer close(done)
	if o.when != nil {
		go func() {
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				if o.when(cmd.Process.Pid, out.String(), errb.String()) {
					sentAt.Store(max(1, int64(time.Since(start))))
					cmd.Process.Signal(o.sig)
					return
				}
			}
		}()
	}
	err := cmd.Wait()
	r := result{stdout: out.String(), stderr: errb.String(), wall: time.Since(start), timedOut: ctx.Err() != nil}
	if o.when != nil {
		r.sentAfter = time.Duration(sentAt.Load())
	}
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		r.exit = st.ExitStatus()
		r.signaled = st.Signaled()
	}
	r.maxRSSKB = peakRSSKB(cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !r.timedOut {
		r.exit, r.stderr = -1, r.stderr+"\n"+err.Error()
	}
	return r
}

// headTail keeps the first and the last headTailKeep bytes written to it, so
// that a command printing hundreds of megabytes does not grow the test
// process (whose peak memory a child inherits in the kernel's accounting).
type headTail struct {
	mu      sync.Mutex // runOpts.when reads it while the process writes
	head    []byte
	tail    []byte
	dropped int64
}

const headTailKeep = 256 << 10

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := headTailKeep - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if over := len(h.tail) - headTailKeep; over > 0 {
		h.dropped += int64(over)
		h.tail = append(h.tail[:0], h.tail[over:]...)
	}
	return n, nil
}

func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped == 0 {
		return string(h.head) + string(h.tail)
	}
	return fmt.Sprintf("%s\n... (%d bytes not kept) ...\n%s", h.head, h.dropped, h.tail)
}

// tail returns the last n lines of s, for failure messages.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
