// SPDX-License-Identifier: Apache-2.0

package synthrec

import (
	"strings"
	"testing"
)

// TestReadFormats reads a record of the first format (OSU 0.18 um only) and
// one with an ASAP7 mapping, and refuses a mapping named twice or as osu018.
func TestReadFormats(t *testing.T) {
	old := `[{"name":"mult0_ideal_c3","hash":"mult0","generator":"ideal","count_bits":3,"std_cells":6000,"area_um2":299629,"fmax_mhz":129,"library":"osu018_stdcells.lib (sha256 86f79b20)"}]`
	rs, err := Read(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := rs[0].In(OSU018); !ok || *m.AreaUM2 != 299629 || *m.FmaxMHz != 129 {
		t.Errorf("the first format's osu018 mapping: %+v, %v", m, ok)
	}
	if _, ok := rs[0].In("asap7"); ok {
		t.Errorf("the first format has an asap7 mapping")
	}
	both := `[{"name":"mult0_ideal_c3","hash":"mult0","generator":"ideal","count_bits":3,"std_cells":6000,"area_um2":299629,` +
		`"other_libraries":[{"library":"asap7","label":"ASAP7","library_file":"x","std_cells":6100,"area_um2":691.9,"width_bits":64,"line_rate_gbps":46.9}]}]`
	if rs, err = Read(strings.NewReader(both)); err != nil {
		t.Fatal(err)
	}
	if m, ok := rs[0].In("asap7"); !ok || *m.AreaUM2 != 691.9 || m.WidthBits != 64 || *m.LineRateGbps != 46.9 {
		t.Errorf("the asap7 mapping: %+v, %v", m, ok)
	}
	for _, bad := range []string{
		strings.Replace(both, `"library":"asap7"`, `"library":"osu018"`, 1),
		strings.Replace(both, `"other_libraries":[`, `"other_libraries":[{"library":"asap7"},`, 1),
		strings.Replace(both, `"library":"asap7"`, `"library":""`, 1),
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("read %s", bad)
		}
	}
}
