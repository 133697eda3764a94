// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"fmt"
	"strconv"
	"strings"
)

// Generator names, as configurations and the command line write them:
//
//	ideal                   Ideal: xoshiro128** with exact rejection
//	lfsr-lut/b<B>           LFSRLUT: B-bit LFSR (3..32), one step per draw
//	lfsr-lut/b<B>/k<K>      ... K steps per draw (K = B: B fresh bits)
//	shiftreg/per-draw       ShiftReg, only the register read is clocked
//	shiftreg/per-packet     ShiftReg, every register clocked once per draw
//	shiftreg/free/<P>:<Q>   ShiftReg, free-running clock P/Q times the draw rate
//	sender                  Sender: the sender NIC's draws carried in the packet
//
// New parses a name; Names lists one of each, with typical parameters.

// Syntax is the grammar of generator names, for error and help messages.
const Syntax = "ideal | lfsr-lut/b<B>[/k<K>] | shiftreg/per-draw | shiftreg/per-packet | shiftreg/free/<P>:<Q> | sender"

// Names returns a name of every generator kind, with typical parameters, in
// the order reports use. Each is accepted by New and is the canonical form
// (New(name, ...).Name() == name).
func Names() []string {
	return []string{
		"ideal",
		"lfsr-lut/b8",
		"lfsr-lut/b16",
		"lfsr-lut/b16/k16",
		"lfsr-lut/b32",
		"shiftreg/per-draw",
		"shiftreg/per-packet",
		"shiftreg/free/7:3",
		"sender",
	}
}

// New returns the generator called name, seeded with seed, serving l up to
// maxL. The error says what was wrong with the name or the parameters.
func New(name string, seed uint64, maxL int) (Generator, error) {
	if maxL < 1 {
		return nil, fmt.Errorf("generator %q: maxL %d; the longest path is at least 1 hop", name, maxL)
	}
	parts := strings.Split(name, "/")
	bad := func(why string) error {
		return fmt.Errorf("generator %q: %s (names: %s)", name, why, Syntax)
	}
	switch parts[0] {
	case "ideal":
		if len(parts) != 1 {
			return nil, bad("ideal takes no parameters")
		}
		return NewIdeal(seed, maxL), nil
	case "sender":
		if len(parts) != 1 {
			return nil, bad("sender takes no parameters; its field has maxL+1 bits")
		}
		return wrap(NewSender(seed, maxL))
	case "lfsr-lut":
		if len(parts) < 2 || len(parts) > 3 {
			return nil, bad("lfsr-lut needs a width, lfsr-lut/b<B>, and may take steps, /k<K>")
		}
		b, err := numParam(parts[1], "b")
		if err != nil {
			return nil, bad(err.Error())
		}
		k := 1
		if len(parts) == 3 {
			if k, err = numParam(parts[2], "k"); err != nil {
				return nil, bad(err.Error())
			}
		}
		return wrap(NewLFSRLUT(b, k, seed, maxL))
	case "shiftreg":
		if len(parts) < 2 {
			return nil, bad("shiftreg needs a clocking model: per-draw, per-packet or free/<P>:<Q>")
		}
		switch parts[1] {
		case "per-draw", "per-packet":
			if len(parts) != 2 {
				return nil, bad(parts[1] + " takes no parameters")
			}
			c := PerDraw
			if parts[1] == "per-packet" {
				c = PerPacket
			}
			return wrap(NewShiftReg(c, 1, 1, seed, maxL))
		case "free":
			if len(parts) != 3 {
				return nil, bad("the free-running model needs a clock ratio, shiftreg/free/<P>:<Q>")
			}
			ps, qs, ok := strings.Cut(parts[2], ":")
			if !ok {
				return nil, bad(fmt.Sprintf("clock ratio %q is not <P>:<Q>", parts[2]))
			}
			p, err1 := strconv.ParseUint(ps, 10, 64)
			q, err2 := strconv.ParseUint(qs, 10, 64)
			if err1 != nil || err2 != nil || ps != strconv.FormatUint(p, 10) || qs != strconv.FormatUint(q, 10) {
				return nil, bad(fmt.Sprintf("clock ratio %q is not two decimal integers <P>:<Q>", parts[2]))
			}
			return wrap(NewShiftReg(FreeRunning, p, q, seed, maxL))
		}
		return nil, bad(fmt.Sprintf("unknown clocking model %q", parts[1]))
	}
	return nil, bad("unknown generator")
}

// numParam parses "<prefix><decimal>", e.g. b16, in canonical form (no sign,
// no leading zeros).
func numParam(s, prefix string) (int, error) {
	v, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return 0, fmt.Errorf("parameter %q should be %s<number>", s, prefix)
	}
	n, err := strconv.Atoi(v)
	if err != nil || v != strconv.Itoa(n) || n < 0 {
		return 0, fmt.Errorf("parameter %q should be %s followed by a decimal number", s, prefix)
	}
	return n, nil
}

// wrap returns a constructor's result as a Generator, and a nil interface
// (not a nil pointer in one) on error.
func wrap[G Generator](g G, err error) (Generator, error) {
	if err != nil {
		return nil, err
	}
	return g, nil
}
