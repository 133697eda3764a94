// Package version holds the tool version that manifests, the command line
// and the C library report: one place for it.
package version

// Version is the tool version; release builds set it with
// -ldflags "-X ibreservoir/internal/version.Version=...".
var Version = "0.1.0-dev"
