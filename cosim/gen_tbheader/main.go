// SPDX-License-Identifier: Apache-2.0

// Command gen_tbheader writes cosim/tb/ibr_vectors.h from package vectors'
// format constants (go generate ./cosim).
package main

import (
	"fmt"
	"os"

	"ibreservoir/cosim"
)

func main() {
	if err := os.WriteFile("tb/ibr_vectors.h", cosim.TBHeader(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen_tbheader:", err)
		os.Exit(1)
	}
}
