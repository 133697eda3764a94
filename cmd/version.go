// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"ibreservoir/internal/cli"
	"ibreservoir/internal/cpu"
	"ibreservoir/internal/version"
)

// versionReport is what ibreservoir version prints.
type versionReport struct {
	version.Build
	Kernel string `json:"kernel"` // the decode fast path this CPU runs: avx512, avx2 or generic
}

func newVersionCmd() *cobra.Command {
	format := cli.Text
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the Go toolchain, the VCS revision and the CPU kernel",
		Long: `Print the tool version (the one vector manifests and the C library record),
the Go toolchain and platform, the VCS revision the build recorded, and the
decode kernel this CPU runs (avx512, avx2 or generic; IBRESERVOIR_GENERIC=1
forces generic).

The version is the module's tag when built from a tagged commit or installed
with go install ibreservoir@v1.2.3, a pseudo-version naming the commit for a
go build in a git checkout ("+dirty" with uncommitted changes), and "devel"
under go run; go build -ldflags "-X ibreservoir/internal/version.Version=..."
overrides it.`,
		Example: `  ibreservoir version
  ibreservoir version --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(cmd.OutOrStdout(), format)
		},
	}
	cli.FormatVar(c.Flags(), &format, cli.Text, cli.JSON)
	return c
}

func runVersion(w io.Writer, f cli.Format) error {
	r := versionReport{Build: version.Current(), Kernel: cpu.Kernel()}
	if f == cli.JSON {
		return cli.WriteJSON(w, r)
	}
	rev := r.Revision
	switch {
	case rev == "":
		rev = "not recorded (go run, go test, or a build outside a git checkout)"
	case r.Modified:
		rev += " (modified)"
	}
	if r.Time != "" {
		rev += ", committed " + r.Time
	}
	_, err := fmt.Fprintf(w, "ibreservoir %s\ngo:       %s %s\nrevision: %s\nkernel:   %s\n", r.Version, r.GoVersion, r.Platform, rev, r.Kernel)
	return err
}
