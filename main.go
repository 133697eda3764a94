// SPDX-License-Identifier: Apache-2.0

// Command ibreservoir is the bit-exact reference model and RTL test-vector
// generator for in-band reservoir-sampling telemetry in InfiniBand switches.
package main

import (
	"os"

	"ibreservoir/cmd"
)

func main() { os.Exit(cmd.Execute()) }
