// SPDX-License-Identifier: Apache-2.0

package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "ibreservoir", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, c := range []struct {
		name     string
		override string
		bi       *debug.BuildInfo
		want     string
	}{
		{"ldflags wins", "v9.9.9", vcs("v1.0.0"), "v9.9.9"},
		{"tagged module", "", vcs("v1.2.3"), "v1.2.3"},
		{"go build in a checkout", "", vcs("v0.0.0-20261126045319-4c324b9ab0c1+dirty", "vcs.revision", "4c324b9ab0c1ffff"), "v0.0.0-20261126045319-4c324b9ab0c1+dirty"},
		{"revision only", "", vcs("(devel)", "vcs.revision", "4c324b9ab0c1ffffffff", "vcs.modified", "false"), "devel+4c324b9ab0c1"},
		{"dirty revision", "", vcs("(devel)", "vcs.revision", "4c324b9ab0c1ffffffff", "vcs.modified", "true"), "devel+4c324b9ab0c1-dirty"},
		{"go run", "", vcs("(devel)"), "devel"},
		{"no build info", "", nil, "devel"},
	} {
		if got := fromBuild(c.override, c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if String() == "" || Current().GoVersion == "" {
		t.Errorf("String %q, Current %+v", String(), Current())
	}
}
