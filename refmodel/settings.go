// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/rng"
)

// The names of the configuration's settings: the items of a configuration
// string (count-bits=3, ParseConfig) and the command line's flags
// (--count-bits 3), which bind the same Settings.
const (
	SettingScheme     = "scheme"
	SettingCountBits  = "count-bits"
	SettingSenderL    = "sender-draws"
	SettingSwitchBits = "switch-bits"
	SettingPortBits   = "port-bits"
	SettingPlacement  = "placement"
	SettingGlobal     = "global"
	SettingHash       = "hash"
	SettingSipHashKey = "siphash-key"
	SettingIDOption   = "id"
	SettingLink       = "link"
	SettingGenerator  = "generator"
	SettingSeed       = "seed"
	SettingMaxSwitch  = "max-switch"
	SettingMaxPort    = "max-port"
)

// A Setting is one item of a configuration: its name, what it means, and how
// it reads and writes a Config. ParseConfig reads configuration strings with
// them, and the command line binds each as a flag of the same name, so the
// two cannot drift apart.
type Setting struct {
	Name  string
	Usage string   // one line of help
	Type  string   // the kind of value, for help text: "int", "hash", ...
	Enum  []string // the values a setting of a fixed set takes; nil otherwise
	Bool  bool     // a boolean: the flag alone means true

	// Telemetry marks the settings of the telemetry layout (Config.Telemetry
	// alone), which commands that place fields without a model bind too.
	Telemetry bool

	get func(c *Config) string
	set func(c *Config, v string) error
}

// Get returns the setting's value in c, in the form Set reads.
func (s Setting) Get(c *Config) string { return s.get(c) }

// Set writes v into c; an error says what v should have been.
func (s Setting) Set(c *Config, v string) error { return s.set(c, v) }

// Settings lists every setting of a configuration, in the order of
// Config.Settings.
func Settings() []Setting { return slices.Clone(settings) }

// LookupSetting returns the setting with the given name.
func LookupSetting(name string) (Setting, bool) {
	for _, s := range settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

var settings = []Setting{
	{
		Name: SettingScheme, Type: "scheme", Telemetry: true, Enum: names(header.FullID, header.TwoReservoir, header.OneReservoir),
		Usage: "reservoir scheme: onereservoir (thesis Alg. 8-9), tworeservoir (Alg. 5-7) or fullid (Alg. 2-4)",
		get:   func(c *Config) string { return c.Telemetry.Scheme.String() },
		set:   func(c *Config, v string) error { return c.Telemetry.Scheme.Set(v) },
	},
	intSetting(SettingCountBits, 1, 16, true, func(c *Config) *int { return &c.Telemetry.CountBits },
		"width b of each saturating hop count, 1..16 (thesis section 5.6: b >= 3 for fat trees)"),
	intSetting(SettingSenderL, 0, rng.MaxSenderL, true, func(c *Config) *int { return &c.Telemetry.SenderL },
		"L > 0: the sender NIC draws L random bits plus a sentinel in place of each count (thesis section 5.9), with generator sender; 0 for switch generators"),
	intSetting(SettingSwitchBits, 1, 16, true, func(c *Config) *int { return &c.Telemetry.SwitchBits },
		"fullid scheme: switch ID width, 1..16 (thesis section 5.1: 16, or 10 for the 40-bit layout)"),
	intSetting(SettingPortBits, 1, 8, true, func(c *Config) *int { return &c.Telemetry.PortBits },
		"fullid scheme: output port width, 1..8 (thesis section 5.1: 8, or 6 for the 40-bit layout)"),
	{
		Name: SettingPlacement, Type: "placement", Telemetry: true,
		Enum:  names(header.PlaceAuto, header.PlaceResv6, header.PlaceReservedGlobal, header.PlaceFooter),
		Usage: "where the fields go: auto (resv6 if they fit 6 bits, else footer), resv6 (BTH Resv6), reserved-global (BTH Resv6 and LRH Rsv5, global packets only) or footer",
		get:   func(c *Config) string { return c.Telemetry.Placement.String() },
		set:   func(c *Config, v string) error { return c.Telemetry.Placement.Set(v) },
	},
	{
		Name: SettingGlobal, Type: "bool", Bool: true,
		Usage: "global packets (LNH=3, with a GRH), in which the LRH is outside the ICRC; false: local packets (LNH=2)",
		get:   func(c *Config) string { return strconv.FormatBool(c.LNH == header.LNHGlobal) },
		set: func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%q: want true or false", v)
			}
			c.LNH = header.LNHLocal
			if b {
				c.LNH = header.LNHGlobal
			}
			return nil
		},
	},
	{
		Name: SettingHash, Type: "hash", Enum: names(hash.Kinds()...),
		Usage: "hash H(id, d) of thesis section 5.4: " + orList(names(hash.Kinds()...)),
		get:   func(c *Config) string { return c.Hash.String() },
		set: func(c *Config, v string) error {
			k, err := hash.ParseKind(v)
			if err != nil {
				return err
			}
			c.Hash = hash.NewKeyed(k, c.Hash.Key()) // a SipHash key given before the hash stays
			return nil
		},
	},
	{
		Name: SettingSipHashKey, Type: "hex",
		Usage: "SipHash key, 32 hex digits, bytes 0..15 (the default is the SipHash paper's)",
		get:   func(c *Config) string { k := c.Hash.Key(); return hex.EncodeToString(k[:]) },
		set: func(c *Config, v string) error {
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != 16 {
				return fmt.Errorf("SipHash key %q: want 32 hex digits", v)
			}
			c.Hash = hash.NewKeyed(c.Hash.Kind, [16]byte(b))
			return nil
		},
	},
	{
		Name: SettingIDOption, Type: "id", Enum: names(hash.IDOptions()...),
		Usage: "packet id, the first argument of H: " + orList(names(hash.IDOptions()...)),
		get:   func(c *Config) string { return c.ID.String() },
		set:   func(c *Config, v string) error { return parseInto(&c.ID, v, hash.ParseIDOption) },
	},
	{
		Name: SettingLink, Type: "encoding", Enum: names(hash.LinkEncodings()...),
		Usage: "link encoding d of (switch, port): " + orList(names(hash.LinkEncodings()...)) + " (thesis: switch*2^15 + port*2^9 + 509)",
		get:   func(c *Config) string { return c.Link.String() },
		set:   func(c *Config, v string) error { return parseInto(&c.Link, v, hash.ParseLinkEncoding) },
	},
	{
		Name: SettingGenerator, Type: "generator",
		Usage: "switch random generator of thesis section 5.9: " + rng.Syntax + " (sender with sender-draws L > 0)",
		get:   func(c *Config) string { return c.Generator },
		set: func(c *Config, v string) error {
			// The name alone is checked here; its parameters against the
			// longest path by Validate (a 3-bit LFSR serves paths of up to 7 hops).
			if _, err := rng.New(v, 1, 1); err != nil {
				return err
			}
			c.Generator = v
			return nil
		},
	},
	{
		Name: SettingSeed, Type: "uint",
		Usage: "run seed; every component's random stream derives from it",
		get:   func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
		set: func(c *Config, v string) error {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 0, 64)
			if err != nil {
				return fmt.Errorf("%q is not an unsigned 64-bit integer", v)
			}
			c.Seed = n
			return nil
		},
	},
	intSetting(SettingMaxSwitch, 0, 0xFFFF, false, func(c *Config) *int { return &c.MaxSwitch },
		"largest switch ID in the fabric, 0..65535 (checked against the link encoding or the full-ID switch field)"),
	intSetting(SettingMaxPort, 1, 254, false, func(c *Config) *int { return &c.MaxPort },
		"largest output port in the fabric, 1..254 (checked against the link encoding or the full-ID port field)"),
}

func intSetting(name string, lo, hi int, telemetry bool, field func(*Config) *int, usage string) Setting {
	return Setting{
		Name: name, Type: "int", Usage: usage, Telemetry: telemetry,
		get: func(c *Config) string { return strconv.Itoa(*field(c)) },
		set: func(c *Config, v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 0, strconv.IntSize)
			switch {
			case err != nil && errors.Is(err, strconv.ErrRange):
				return fmt.Errorf("%s is out of range: want %d..%d", v, lo, hi)
			case err != nil:
				return fmt.Errorf("%q is not an integer: want %d..%d", v, lo, hi)
			case n < int64(lo) || n > int64(hi) || n > math.MaxInt:
				return fmt.Errorf("%d is out of range: want %d..%d", n, lo, hi)
			}
			*field(c) = int(n)
			return nil
		},
	}
}

// parseInto parses v into *p, leaving *p as it was on an error.
func parseInto[T any](p *T, v string, parse func(string) (T, error)) error {
	x, err := parse(v)
	if err == nil {
		*p = x
	}
	return err
}

func names[T fmt.Stringer](xs ...T) []string {
	var ns []string
	for _, x := range xs {
		ns = append(ns, x.String())
	}
	return ns
}

// orList writes "a, b or c".
func orList(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// ParseConfig reads a configuration string: settings name=value separated by
// spaces (Settings lists the names, the same as the command line's flags),
// each over DefaultConfig. For example
//
//	hash=siphash generator=lfsr-lut/b16 id=psn-slid
//	scheme=tworeservoir sender-draws=5 generator=sender global=true
//
// A name given twice, an unknown name, a value the setting refuses, a
// setting with no effect in the configuration (count-bits with sender draws,
// the full-ID widths in another scheme, a SipHash key for another hash) and a
// configuration Validate refuses are errors, each named. The empty string is
// DefaultConfig (which does not decode soundly: start from
// RecommendedConfig().Settings() to decode).
func ParseConfig(s string) (Config, error) {
	c := DefaultConfig()
	seen := map[string]bool{}
	for _, item := range strings.Fields(s) {
		name, value, ok := strings.Cut(item, "=")
		if !ok || name == "" || strings.HasPrefix(name, "-") {
			return c, fmt.Errorf("configuration %q: %q is not name=value", s, item)
		}
		if i := strings.IndexByte(value, ','); i >= 0 && strings.Contains(value[i:], "=") {
			return c, fmt.Errorf("configuration %q: %q: settings are separated by spaces, not commas (%s)", s, item,
				strings.ReplaceAll(item, ",", " "))
		}
		st, ok := LookupSetting(name)
		if !ok {
			var all []string
			for _, x := range settings {
				all = append(all, x.Name)
			}
			return c, fmt.Errorf("configuration %q: unknown setting %q (settings: %s)", s, name, strings.Join(all, ", "))
		}
		if seen[name] {
			return c, fmt.Errorf("configuration %q: %s given twice", s, name)
		}
		seen[name] = true
		if err := st.Set(&c, value); err != nil {
			return c, fmt.Errorf("configuration %q: %s=%s: %w", s, name, value, err)
		}
	}
	for _, x := range []struct {
		name  string
		inert bool
		why   string
	}{
		{SettingCountBits, c.SenderMode(), "the sender draws replace the counts"},
		{SettingSwitchBits, c.Telemetry.Scheme != header.FullID, "only the fullid scheme carries switch IDs"},
		{SettingPortBits, c.Telemetry.Scheme != header.FullID, "only the fullid scheme carries ports"},
		{SettingSipHashKey, c.Hash.Kind != hash.SipHash, "only hash=siphash has a key"},
	} {
		if seen[x.name] && x.inert {
			return c, fmt.Errorf("configuration %q: %s has no effect here: %s", s, x.name, x.why)
		}
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("configuration %q: %w", s, err)
	}
	return c, nil
}

// Settings returns the configuration string ParseConfig reads back as c:
// every setting that matters, by name, in a fixed order (a setting the
// configuration ignores, such as count-bits with sender draws or the full-ID
// widths of the one-bit schemes, is left out).
func (c Config) Settings() string {
	var b strings.Builder
	t := c.Telemetry
	fmt.Fprintf(&b, "%s=%s", SettingScheme, t.Scheme)
	if t.SenderL > 0 {
		fmt.Fprintf(&b, " %s=%d", SettingSenderL, t.SenderL)
	} else {
		fmt.Fprintf(&b, " %s=%d", SettingCountBits, t.CountBits)
	}
	if t.Scheme == header.FullID {
		fmt.Fprintf(&b, " %s=%d %s=%d", SettingSwitchBits, t.SwitchBits, SettingPortBits, t.PortBits)
	}
	fmt.Fprintf(&b, " %s=%s %s=%t %s=%s", SettingPlacement, t.Placement, SettingGlobal, c.LNH == header.LNHGlobal, SettingHash, c.Hash)
	if c.Hash.Kind == hash.SipHash {
		k := c.Hash.Key()
		fmt.Fprintf(&b, " %s=%s", SettingSipHashKey, hex.EncodeToString(k[:]))
	}
	fmt.Fprintf(&b, " %s=%s %s=%s %s=%s %s=%d %s=%d %s=%d", SettingIDOption, c.ID, SettingLink, c.Link, SettingGenerator, c.Generator,
		SettingSeed, c.Seed, SettingMaxSwitch, c.MaxSwitch, SettingMaxPort, c.MaxPort)
	return b.String()
}

// Digest identifies the configuration: the SHA-256, in hex, of its
// canonical configuration string (Settings), which names every setting that
// fixes the model's output bits and none that does not.
func (c Config) Digest() string {
	s := sha256.Sum256([]byte(c.Settings()))
	return hex.EncodeToString(s[:])
}
