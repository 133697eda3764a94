package battery

import (
	"fmt"
	"math"
	"strconv"
)

// MarshalJSON writes f with 6 significant digits; NaN is null, infinities are
// the strings "+Inf" and "-Inf".
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte("null"), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', 6, 64)), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*f = Float(math.NaN())
	case `"+Inf"`:
		*f = Float(math.Inf(1))
	case `"-Inf"`:
		*f = Float(math.Inf(-1))
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("battery: %s is not a number, null, \"+Inf\" or \"-Inf\"", s)
		}
		*f = Float(v)
	}
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
