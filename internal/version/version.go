// SPDX-License-Identifier: Apache-2.0

// Package version holds the tool version that manifests, the command line
// and the C library report: one place for it.
package version

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Version overrides the version the build records, for packagers:
// go build -ldflags "-X ibreservoir/internal/version.Version=v1.2.3".
// Empty (the default), String reads the build's own record.
var Version = ""

// String is the tool version:
//
//   - Version, when the build set it with -ldflags;
//   - else the main module's version as the go command recorded it: the tag
//     (v1.2.3) when built from a tagged commit or by go install
//     ibreservoir@v1.2.3, or a pseudo-version naming the commit
//     (v0.0.0-20261126045319-4c324b9ab0c1, "+dirty" when the checkout had
//     uncommitted changes) for a go build in a git checkout;
//   - else "devel", with the VCS revision when the build recorded one
//     (devel+4c324b9ab0c1, devel+4c324b9ab0c1-dirty). go run and go test
//     record neither, so they report plain "devel".
func String() string {
	once.Do(func() { str = fromBuild(Version, readBuildInfo()) })
	return str
}

var (
	once sync.Once
	str  string
)

func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// fromBuild is String's rule, for a given override and build record.
func fromBuild(override string, bi *debug.BuildInfo) string {
	if override != "" {
		return override
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := Revision(bi)
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// Revision returns the VCS revision the build recorded (vcs.revision) and
// whether the checkout was modified (vcs.modified); "" when none was
// recorded.
func Revision(bi *debug.BuildInfo) (rev string, dirty bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}

// Build describes the running binary: its version, the Go toolchain that
// built it, and the VCS revision and time the build recorded.
type Build struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`           // GOOS/GOARCH
	Revision  string `json:"revision,omitempty"` // vcs.revision
	Modified  bool   `json:"modified,omitempty"` // vcs.modified
	Time      string `json:"time,omitempty"`     // vcs.time, the commit's
}

// Current returns the running binary's Build.
func Current() Build {
	b := Build{Version: String(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi := readBuildInfo()
	b.Revision, b.Modified = Revision(bi)
	if bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				b.Time = s.Value
			}
		}
	}
	return b
}
