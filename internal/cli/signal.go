// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// An Interrupt is the cause of a context SignalContext cancelled: the run
// was stopped by a signal.
type Interrupt struct{ Signal os.Signal }

func (e *Interrupt) Error() string {
	return fmt.Sprintf("interrupted by %s: stopped; outputs not finished were removed and earlier ones left as they were", signalName(e.Signal))
}

// ExitCode is the shell's convention for a process ended by a signal:
// 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
func (e *Interrupt) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// StopSignals are the signals that stop a command cleanly.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// SignalContext returns a context that the first SIGINT or SIGTERM cancels
// with an *Interrupt as its cause. After that first signal the handler is
// released, so a second one ends the process at once, as an impatient user
// expects. stop releases the handler.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, StopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&Interrupt{Signal: s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		select {
		case <-done:
		default:
			close(done)
		}
		cancel(context.Canceled)
	}
}

// Interrupted returns the *Interrupt that cancelled ctx, or nil.
func Interrupted(ctx context.Context) *Interrupt {
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// Await runs f on its own goroutine and returns its result, or ctx's error as
// soon as ctx is done. It is for long computations that cannot look at a
// context themselves (an exhaustive sweep over 2^32 values): the command
// returns at once and the process exits, abandoning the computation.
func Await[T any](ctx context.Context, f func() T) (T, error) {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
