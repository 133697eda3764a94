// SPDX-License-Identifier: Apache-2.0

// Package proc runs the HDL tools (Verilator, Icarus Verilog, Yosys, OpenSTA,
// yosys-smtbmc) so that Ctrl-C stops them whole and is reported as an
// interrupt, not as the tool failing.
package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// Command is exec.CommandContext for tools that start children of their own
// (iverilog runs ivlpp and ivl, Verilator make and the C++ compiler, Yosys
// ABC, yosys-smtbmc the solver): the tool runs in its own process group, and
// when ctx ends (Ctrl-C) the whole group is killed, so no child outlives the
// run. Where there are no process groups (Windows), the tool alone is killed
// (group_other.go).
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Stopped turns the error of a tool run that ctx ended into ctx's own error
// (context.Canceled on Ctrl-C), so that an interrupt is reported as an
// interrupt rather than as the tool failing.
func Stopped(ctx context.Context, tool string, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s stopped: %w", tool, ctx.Err())
	}
	return err
}

// Interrupted reports whether err comes from a run that was interrupted
// (its context cancelled).
func Interrupted(err error) bool {
	return errors.Is(err, context.Canceled)
}
