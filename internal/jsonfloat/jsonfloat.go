// SPDX-License-Identifier: Apache-2.0

// Package jsonfloat is the project's one JSON form of a float64 that may not
// be finite: NaN is null, the infinities are the strings "+Inf" and "-Inf",
// and a finite value is a JSON number.
package jsonfloat

import (
	"fmt"
	"math"
	"strconv"
)

// Marshal writes v with prec significant digits (-1: the shortest form that
// reads back to the same value).
func Marshal(v float64, prec int) []byte {
	switch {
	case math.IsNaN(v):
		return []byte("null")
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`)
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`)
	}
	return []byte(strconv.FormatFloat(v, 'g', prec, 64))
}

// Unmarshal reads what Marshal writes.
func Unmarshal(b []byte) (float64, error) {
	switch s := string(b); s {
	case "null":
		return math.NaN(), nil
	case `"+Inf"`:
		return math.Inf(1), nil
	case `"-Inf"`:
		return math.Inf(-1), nil
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("%s is not a number, null, \"+Inf\" or \"-Inf\"", s)
		}
		return v, nil
	}
}
