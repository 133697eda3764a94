// SPDX-License-Identifier: Apache-2.0

// Command genpkg writes rtl/ibr_pkg.sv, the ibr_stage library's package, from
// the Go model's packages (verilog.Package). Run it through go generate in
// package verilog; TestPackage fails while the checked-in file differs.
package main

import (
	"fmt"
	"os"

	"ibreservoir/internal/atomicfile"
	"ibreservoir/verilog"
)

func main() {
	b, err := verilog.Package()
	if err == nil {
		err = atomicfile.WriteFile("rtl/"+verilog.PackageFile, b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genpkg:", err)
		os.Exit(1)
	}
}
