// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"ibreservoir/internal/proc"
	"ibreservoir/verilog"
)

// toolCommand starts a tool in its own process group, killed whole when ctx
// ends (proc.Command).
func toolCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	return proc.Command(ctx, name, args...)
}

// interrupted reports a tool run that ctx ended as ctx's error (proc.Stopped).
func interrupted(ctx context.Context, tool string, err error) error {
	return proc.Stopped(ctx, "cosim: "+tool, err)
}

// Interrupted reports whether err comes from a run that was interrupted
// (its context cancelled).
func Interrupted(err error) bool { return proc.Interrupted(err) }

// runAll runs job(0) ... job(n-1), workers at a time (each runs tool
// processes), and then done(i) for each that succeeded, one at a time, as
// they end. It stops handing out jobs when ctx ends and returns the first
// error in job order, or the interrupt.
func runAll(ctx context.Context, what string, n, workers int, job func(i int) error, done func(i int)) error {
	workers = max(1, min(workers, n))
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // handed out as ctx ended: not started
				}
				if errs[i] = job(i); errs[i] == nil && done != nil {
					mu.Lock()
					done(i)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("cosim: %s stopped: %w", what, ctx.Err())
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeSources writes files to dir and returns the paths of its sources in
// compile order (verilog.Sources).
func writeSources(dir string, files []verilog.File) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := verilog.Write(dir, files); err != nil {
		return nil, err
	}
	var srcs []string
	for _, n := range verilog.Sources(files) {
		srcs = append(srcs, filepath.Join(dir, n))
	}
	return srcs, nil
}
