// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling thread has used (the caller
// locks itself to its thread), so that a benchmark on a shared machine can
// report a rate per second of CPU as well as per second of wall time.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
