package refmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/cli"
	"ibreservoir/rng"
)

// The names of the configuration's settings: the command line's flags
// (--count-bits 3) and the items of a configuration string (count-bits=3,
// ParseConfig). BindFlags and BindTelemetryFlags are the one binding both
// use.
const (
	FlagScheme     = "scheme"
	FlagCountBits  = "count-bits"
	FlagSenderL    = "sender-draws"
	FlagSwitchBits = "switch-bits"
	FlagPortBits   = "port-bits"
	FlagPlacement  = "placement"
	FlagGlobal     = "global"
	FlagHash       = cli.FlagHash
	FlagSipHashKey = "siphash-key"
	FlagIDOption   = cli.FlagID
	FlagLink       = cli.FlagLink
	FlagGenerator  = cli.FlagGenerator
	FlagSeed       = "seed"
	FlagMaxSwitch  = "max-switch"
	FlagMaxPort    = "max-port"
)

// BindTelemetryFlags binds the fields of s, the telemetry layout, to flags of
// fs. The values already in s are the defaults.
func BindTelemetryFlags(fs *pflag.FlagSet, s *header.TelemetrySpec) {
	fs.Var(&s.Scheme, FlagScheme,
		"reservoir scheme: onereservoir (thesis Alg. 8-9), tworeservoir (Alg. 5-7) or fullid (Alg. 2-4)")
	cli.IntVar(fs, &s.CountBits, FlagCountBits, 1, 16,
		"width b of each saturating hop count, 1..16 (thesis section 5.6: b >= 3 for fat trees)")
	cli.IntVar(fs, &s.SenderL, FlagSenderL, 0, rng.MaxSenderL,
		"L > 0: the sender NIC draws L random bits plus a sentinel in place of each count (thesis section 5.9); 0 for switch generators")
	cli.IntVar(fs, &s.SwitchBits, FlagSwitchBits, 1, 16,
		"fullid scheme: switch ID width, 1..16 (thesis section 5.1: 16, or 10 for the 40-bit layout)")
	cli.IntVar(fs, &s.PortBits, FlagPortBits, 1, 8,
		"fullid scheme: output port width, 1..8 (thesis section 5.1: 8, or 6 for the 40-bit layout)")
	fs.Var(&s.Placement, FlagPlacement,
		"where the fields go: auto (resv6 if they fit 6 bits, else footer), resv6 (BTH Resv6), reserved-global (BTH Resv6 and LRH Rsv5, global packets only) or footer")
}

// BindFlags binds every field of c to flags of fs, the telemetry layout's
// through BindTelemetryFlags. The values already in c are the defaults (start
// from DefaultConfig); flags write c as they are parsed, and Validate checks
// the result.
func BindFlags(fs *pflag.FlagSet, c *Config) {
	BindTelemetryFlags(fs, &c.Telemetry)
	fs.VarPF(globalValue{&c.LNH}, FlagGlobal, "",
		"global packets (LNH=3, with a GRH), in which the LRH is outside the ICRC; default local (LNH=2)").NoOptDefVal = "true"
	cli.HashVar(fs, &c.Hash)
	fs.Var(keyValue{&c.Hash}, FlagSipHashKey, "SipHash key, 32 hex digits (bytes 0..15); default 000102...0f, the SipHash paper's")
	cli.IDVar(fs, &c.ID)
	cli.LinkVar(fs, &c.Link)
	cli.GeneratorVar(fs, &c.Generator, cli.GeneratorUsage+"; or sender with --"+FlagSenderL)
	fs.Uint64Var(&c.Seed, FlagSeed, c.Seed, "run seed; every component's random stream derives from it")
	cli.IntVar(fs, &c.MaxSwitch, FlagMaxSwitch, 0, 0xFFFF, "largest switch ID in the fabric, 0..65535 (checked against the link encoding or the full-ID switch field)")
	cli.IntVar(fs, &c.MaxPort, FlagMaxPort, 1, 254, "largest output port in the fabric, 1..254 (checked against the link encoding or the full-ID port field)")
}

// ParseConfig reads a configuration string: settings name=value separated by
// spaces, the names those of the command line's flags (BindFlags), each
// setting what the flag sets, over DefaultConfig. For example
//
//	hash=crc32 generator=lfsr-lut/b16 count-bits=4
//	scheme=tworeservoir sender-draws=5 generator=sender global=true
//
// A name given twice, an unknown name, a value the flag refuses, a setting
// with no effect in the configuration (count-bits with sender draws, the
// full-ID widths in another scheme, a SipHash key for another hash) and a
// configuration Validate refuses are errors, each named. The empty
// string is DefaultConfig.
func ParseConfig(s string) (Config, error) {
	c := DefaultConfig()
	fs := pflag.NewFlagSet("configuration", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	BindFlags(fs, &c)
	seen := map[string]bool{}
	for _, item := range strings.Fields(s) {
		name, value, ok := strings.Cut(item, "=")
		if !ok || name == "" || strings.HasPrefix(name, "-") {
			return c, fmt.Errorf("configuration %q: %q is not name=value", s, item)
		}
		f := fs.Lookup(name)
		if f == nil {
			return c, fmt.Errorf("configuration %q: unknown setting %q (settings: %s)", s, name, strings.Join(flagNames(fs), ", "))
		}
		if seen[name] {
			return c, fmt.Errorf("configuration %q: %s given twice", s, name)
		}
		seen[name] = true
		if err := fs.Set(name, value); err != nil {
			return c, fmt.Errorf("configuration %q: %s=%s: %w", s, name, value, err)
		}
	}
	for _, x := range []struct {
		name  string
		inert bool
		why   string
	}{
		{FlagCountBits, c.SenderMode(), "the sender draws replace the counts"},
		{FlagSwitchBits, c.Telemetry.Scheme != header.FullID, "only the fullid scheme carries switch IDs"},
		{FlagPortBits, c.Telemetry.Scheme != header.FullID, "only the fullid scheme carries ports"},
		{FlagSipHashKey, c.Hash.Kind != hash.SipHash, "only hash=siphash has a key"},
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

func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}

// Settings returns the configuration string ParseConfig reads back as c:
// every setting that matters, by name, in a fixed order (a setting the
// configuration ignores, such as count-bits with sender draws or the full-ID
// widths of the one-bit schemes, is left out).
func (c Config) Settings() string {
	var b strings.Builder
	t := c.Telemetry
	fmt.Fprintf(&b, "%s=%s", FlagScheme, t.Scheme)
	if t.SenderL > 0 {
		fmt.Fprintf(&b, " %s=%d", FlagSenderL, t.SenderL)
	} else {
		fmt.Fprintf(&b, " %s=%d", FlagCountBits, t.CountBits)
	}
	if t.Scheme == header.FullID {
		fmt.Fprintf(&b, " %s=%d %s=%d", FlagSwitchBits, t.SwitchBits, FlagPortBits, t.PortBits)
	}
	fmt.Fprintf(&b, " %s=%s %s=%t %s=%s", FlagPlacement, t.Placement, FlagGlobal, c.LNH == header.LNHGlobal, FlagHash, c.Hash)
	if c.Hash.Kind == hash.SipHash {
		k := c.Hash.Key()
		fmt.Fprintf(&b, " %s=%s", FlagSipHashKey, hex.EncodeToString(k[:]))
	}
	fmt.Fprintf(&b, " %s=%s %s=%s %s=%s %s=%d %s=%d %s=%d", FlagIDOption, c.ID, FlagLink, c.Link, FlagGenerator, c.Generator,
		FlagSeed, c.Seed, FlagMaxSwitch, c.MaxSwitch, FlagMaxPort, c.MaxPort)
	return b.String()
}

// Digest identifies the configuration: the SHA-256, in hex, of its
// canonical configuration string (Settings), which names every setting that
// fixes the model's output bits and none that does not.
func (c Config) Digest() string {
	s := sha256.Sum256([]byte(c.Settings()))
	return hex.EncodeToString(s[:])
}

// pflag Values writing the model's fields directly.

// keyValue sets the SipHash key of a hash.Func, whatever its kind.
type keyValue struct{ f *hash.Func }

func (v keyValue) String() string { k := v.f.Key(); return hex.EncodeToString(k[:]) }
func (v keyValue) Type() string   { return "hex" }
func (v keyValue) Set(s string) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		return fmt.Errorf("SipHash key %q: want 32 hex digits", s)
	}
	*v.f = hash.NewKeyed(v.f.Kind, [16]byte(b))
	return nil
}

// globalValue is a boolean writing the LNH: true for global packets (LNH=3).
type globalValue struct{ lnh *uint8 }

func (v globalValue) String() string { return strconv.FormatBool(*v.lnh == header.LNHGlobal) }
func (v globalValue) Type() string   { return "bool" }
func (v globalValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*v.lnh = header.LNHLocal
	if b {
		*v.lnh = header.LNHGlobal
	}
	return nil
}
