// SPDX-License-Identifier: Apache-2.0

// Package asap7 holds the ASAP7 7.5-track standard-cell timing libraries
// (RVT, typical corner TT, 0.7 V, 25 C; NLDM; time in ps, area in um^2) of
// the ASAP7 predictive 7 nm PDK, as the OpenROAD flow scripts ship them
// (flow/platforms/asap7/lib/NLDM, commit 8c009b0b663703fc3fe2f474eab918b12fffbaf6),
// gzipped. ASAP7 is a predictive PDK for research, not a foundry process:
// its figures estimate a 7 nm-class node. License: BSD 3-Clause (LICENSE,
// and the notice at the top of every file).
package asap7

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

//go:embed *.lib.gz
var libs embed.FS

// License is the libraries' license notice.
//
//go:embed LICENSE
var License string

// Name is the merged library's name.
const Name = "asap7sc7p5t_RVT_TT_nldm"

// Files returns the five Liberty files, decompressed, in name order (AO,
// INVBUF, OA, SEQ, SIMPLE), and their names.
func Files() ([][]byte, []string, error) {
	names, err := fs.Glob(libs, "*.lib.gz")
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		gz, err := libs.ReadFile(n)
		if err != nil {
			return nil, nil, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, nil, fmt.Errorf("asap7: %s: %w", n, err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			return nil, nil, fmt.Errorf("asap7: %s: %w", n, err)
		}
		out = append(out, b)
	}
	if len(out) != 5 {
		return nil, nil, fmt.Errorf("asap7: %d Liberty files embedded, want 5", len(out))
	}
	return out, names, nil
}
