package cosim

import (
	"context"
	"os/exec"

	"ibreservoir/internal/proc"
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
