// SPDX-License-Identifier: Apache-2.0

// Package include holds ibreservoir.h, the C interface of libibreservoir
// (the reference model built as a C library from ./capi), for the programs
// that write it beside their builds: the DPI scoreboard's (package dpi).
// C programs include it from this directory (-I capi/include).
package include

import _ "embed"

// Header is ibreservoir.h.
//
//go:embed ibreservoir.h
var Header []byte

// HeaderName is its file name.
const HeaderName = "ibreservoir.h"
