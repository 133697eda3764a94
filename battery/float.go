// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"ibreservoir/internal/jsonfloat"
	"math"
	"strconv"
)

// MarshalJSON writes f with 6 significant digits; NaN is null, infinities are
// the strings "+Inf" and "-Inf" (package jsonfloat).
func (f Float) MarshalJSON() ([]byte, error) { return jsonfloat.Marshal(float64(f), 6), nil }

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	v, err := jsonfloat.Unmarshal(b)
	if err != nil {
		return fmt.Errorf("battery: %w", err)
	}
	*f = Float(v)
	return nil
}

// String is the form the text table uses.
func (f Float) String() string {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+Inf"
	case v != 0 && (math.Abs(v) < 1e-3 || math.Abs(v) >= 1e6):
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
