// SPDX-License-Identifier: Apache-2.0

//go:build unix

package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalContext: SIGTERM cancels the context with an *Interrupt whose
// exit code is 143.
func TestSignalContext(t *testing.T) {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	in := Interrupted(ctx)
	if in == nil || in.ExitCode() != 143 || !strings.Contains(in.Error(), "SIGTERM") {
		t.Errorf("cause %v", context.Cause(ctx))
	}
	_, err := Await(ctx, func() int { time.Sleep(time.Hour); return 1 })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Await after the interrupt: %v", err)
	}
	ctx2, stop2 := SignalContext(context.Background())
	stop2()
	if Interrupted(ctx2) != nil {
		t.Error("stop is reported as an interrupt")
	}
	if v, err := Await(context.Background(), func() int { return 7 }); v != 7 || err != nil {
		t.Errorf("Await: %d %v", v, err)
	}
}
