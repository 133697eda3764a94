// SPDX-License-Identifier: Apache-2.0

package congestion

import (
	"fmt"
	"strconv"
	"strings"
)

// Names lists the definitions ParseDefinition knows, with their parameters.
var Names = []string{
	"queue-over-credits",
	"threshold(bytes=B,packets=N)",
	"probabilistic(min=B,max=B)",
	"ibcc(weight=0..15,marking_rate=N,packet_size=B,victim_mask=BOOL,hysteresis=B,marking=random|counter)",
}

// ParseDefinition reads a definition in the form Name returns. Parameters may
// be given in any order and omitted (0, false, random); the result is
// validated. For example "threshold(bytes=8192)" or
// "ibcc(weight=8,hysteresis=12288)".
func ParseDefinition(s string) (Definition, error) {
	name, args, err := splitCall(s)
	if err != nil {
		return nil, err
	}
	var d Definition
	switch name {
	case "queue-over-credits":
		if len(args) != 0 {
			return nil, fmt.Errorf("congestion definition %q: queue-over-credits takes no parameters", s)
		}
		d = QueueOverCredits{}
	case "threshold":
		var t Threshold
		err = eachArg(s, args, map[string]func(string) error{
			"bytes":   intArg(&t.Bytes),
			"packets": func(v string) error { n, err := strconv.Atoi(v); t.Packets = n; return err },
		})
		d = t
	case "probabilistic":
		var p Probabilistic
		err = eachArg(s, args, map[string]func(string) error{"min": intArg(&p.Min), "max": intArg(&p.Max)})
		d = p
	case "ibcc":
		var c IBCC
		err = eachArg(s, args, map[string]func(string) error{
			"weight":       func(v string) error { n, err := strconv.Atoi(v); c.Weight = n; return err },
			"marking_rate": func(v string) error { n, err := strconv.Atoi(v); c.MarkingRate = n; return err },
			"packet_size":  func(v string) error { n, err := strconv.Atoi(v); c.PacketSize = n; return err },
			"victim_mask":  func(v string) error { b, err := strconv.ParseBool(v); c.VictimMask = b; return err },
			"hysteresis":   intArg(&c.Hysteresis),
			"marking": func(v string) error {
				switch v {
				case "random":
					c.Counter = false
				case "counter":
					c.Counter = true
				default:
					return fmt.Errorf("want random or counter")
				}
				return nil
			},
		})
		d = c
	default:
		return nil, fmt.Errorf("unknown congestion definition %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("congestion definition %q: %w", s, err)
	}
	return d, nil
}

func intArg(p *int64) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		*p = n
		return err
	}
}

// splitCall splits "name(a=1,b=2)" into name and the key=value strings.
func splitCall(s string) (string, []string, error) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, "),=") {
			return "", nil, fmt.Errorf("congestion definition %q: want name(key=value,...)", s)
		}
		return s, nil, nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", nil, fmt.Errorf("congestion definition %q: missing closing parenthesis", s)
	}
	body := s[open+1 : len(s)-1]
	if strings.ContainsAny(body, "()") {
		return "", nil, fmt.Errorf("congestion definition %q: nested parentheses", s)
	}
	var args []string
	if strings.TrimSpace(body) != "" {
		args = strings.Split(body, ",")
	}
	return s[:open], args, nil
}

func eachArg(s string, args []string, set map[string]func(string) error) error {
	seen := make(map[string]bool, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(strings.TrimSpace(a), "=")
		if !ok {
			return fmt.Errorf("congestion definition %q: parameter %q is not key=value", s, a)
		}
		f, known := set[k]
		if !known {
			return fmt.Errorf("congestion definition %q: unknown parameter %q", s, k)
		}
		if seen[k] {
			return fmt.Errorf("congestion definition %q: parameter %q given twice", s, k)
		}
		seen[k] = true
		if err := f(v); err != nil {
			return fmt.Errorf("congestion definition %q: parameter %s=%q: %v", s, k, v, err)
		}
	}
	return nil
}
