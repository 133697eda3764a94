// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/rng"
)

// GeneratorSender names the sender-generated draws of section 5.9: no
// generator on the switch; the sender NIC fills *_rand fields.
const GeneratorSender = "sender"

// Seed kinds: the first tag of seed.Derive for each component with its own
// random stream (docs/spec.md section 6).
const (
	SeedPortGenerator uint64 = 1 // then switch ID, output port
	SeedSenderNIC     uint64 = 2 // then the NIC's LID
)

// Config is everything that fixes the model's output bits.
type Config struct {
	Telemetry header.TelemetrySpec // scheme, count width or sender L, full-ID widths, placement
	Hash      hash.Func            // H(id, d) of the one-bit schemes (section 5.4)
	ID        hash.IDOption        // how the packet id is formed
	Link      hash.LinkEncoding    // how (switch, port) becomes d
	Generator string               // the switch generator's name, or "sender"
	LNH       uint8                // 2 (local) or 3 (global) packets
	Seed      uint64               // the run seed every component's stream derives from
	// The largest switch ID and output port the fabric uses; checked against
	// the link encoding (one-bit schemes) or the field widths (full-ID).
	MaxSwitch int
	MaxPort   int
}

// DefaultConfig is the thesis's practical variant: the one-reservoir scheme
// in BTH Resv6 with a 3-bit count (section 5.7: "b >= 3" for fat trees and
// dragonflies), Hmult0 over the PSN with the thesis's link encoding, an ideal
// switch generator, local packets, and 48-port switches. The golden vectors
// and the RTL's default are this configuration.
//
// DefaultConfig does not decode soundly: over consecutive PSNs Hmult0 is a
// rotation, and some pairs of links keep agreeing for as long as a window
// lasts, so a Tally reports links that carried nothing (docs/battery.md,
// "What is sound"). To decode, start from RecommendedConfig.
func DefaultConfig() Config {
	return Config{
		Telemetry: header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: 3, SwitchBits: 16, PortBits: 8, Placement: header.PlaceAuto},
		Hash:      hash.New(hash.Mult0),
		ID:        hash.IDPSN,
		Link:      hash.LinkThesis,
		Generator: "ideal",
		LNH:       header.LNHLocal,
		Seed:      1,
		MaxSwitch: 1023,
		MaxPort:   48,
	}
}

// RecommendedConfig is the configuration to decode with: DefaultConfig with
// SipHash (the paper's key) over the PSN and SLID (id psn-slid) and the
// lfsr-lut/b16 switch generator, the cheapest configuration the decode
// battery finds sound at every window from 2^12 to 2^22 packets with every
// id option and every link encoding (docs/battery.md, "Which configuration
// to choose"; mxm, cheaper, is sound at every window with every id option on
// the thesis and packed encodings, not on the wide one; its settings string
// is RecommendedConfig().Settings()).
func RecommendedConfig() Config {
	c := DefaultConfig()
	c.Hash = hash.New(hash.SipHash)
	c.ID = hash.IDPSNSLID
	c.Generator = "lfsr-lut/b16"
	return c
}

// checkGenerator asks the registry (rng.New) whether name is a switch
// generator; "sender" is the model's own (no switch state).
func checkGenerator(name string, maxL int) error {
	if name == GeneratorSender {
		return fmt.Errorf("generator %q: internal: sender draws are not a switch generator", name)
	}
	_, err := rng.New(name, 1, maxL)
	return err
}

// SenderMode reports whether the configuration uses sender-generated draws.
func (c Config) SenderMode() bool { return c.Telemetry.SenderL > 0 }

// MaxL is the largest l a switch generator is asked to draw for: a count
// saturates at 2^b-1, and the draw is for count+1.
func (c Config) MaxL() int {
	if c.SenderMode() {
		return c.Telemetry.SenderL
	}
	return 1 << c.Telemetry.CountBits
}

// CountMax is the largest value the hop count reaches: 2^b-1, or L with
// sender draws.
func (c Config) CountMax() int {
	if c.SenderMode() {
		return c.Telemetry.SenderL
	}
	return 1<<c.Telemetry.CountBits - 1
}

// Validate says what is inconsistent, all problems at once.
func (c Config) Validate() error {
	var errs []error
	l, err := c.Telemetry.Layout()
	if err != nil {
		errs = append(errs, fmt.Errorf("telemetry: %w", err))
	} else if err := l.Validate(c.LNH); err != nil {
		errs = append(errs, fmt.Errorf("telemetry layout %s is not valid for LNH=%d packets: %w", l.Name, c.LNH, err))
	}
	switch {
	case c.Generator == GeneratorSender && !c.SenderMode():
		errs = append(errs, errors.New("generator sender needs the sender draws' L (section 5.9): set the telemetry's sender L to the longest path"))
	case c.Generator != GeneratorSender && c.SenderMode():
		errs = append(errs, fmt.Errorf("telemetry carries sender draws (L=%d) but the generator is %q: use generator sender, or sender L 0 for a switch generator", c.Telemetry.SenderL, c.Generator))
	case c.Generator != GeneratorSender && c.Telemetry.CountBits >= 1 && c.Telemetry.CountBits <= 16:
		if err := checkGenerator(c.Generator, c.MaxL()); err != nil {
			errs = append(errs, fmt.Errorf("%w; or sender, with sender draws", err))
		}
	}
	if _, err := hash.ParseKind(c.Hash.Kind.String()); err != nil {
		errs = append(errs, err)
	}
	if _, err := hash.ParseIDOption(c.ID.String()); err != nil {
		errs = append(errs, err)
	}
	if _, err := hash.ParseLinkEncoding(c.Link.String()); err != nil {
		errs = append(errs, err)
	}
	if c.MaxPort < 1 || c.MaxPort > 254 {
		errs = append(errs, fmt.Errorf("largest port %d: IBA switch ports are 1..254", c.MaxPort))
	}
	if c.MaxSwitch < 0 || c.MaxSwitch > 0xFFFF {
		errs = append(errs, fmt.Errorf("largest switch ID %d: want 0..65535 (a 16-bit LID)", c.MaxSwitch))
	}
	if c.Telemetry.Scheme == header.FullID {
		if c.MaxSwitch >= 1<<c.Telemetry.SwitchBits {
			errs = append(errs, fmt.Errorf("switch IDs up to %d do not fit the %d-bit switch field: widen it or renumber the switches", c.MaxSwitch, c.Telemetry.SwitchBits))
		}
		if c.MaxPort >= 1<<c.Telemetry.PortBits {
			errs = append(errs, fmt.Errorf("ports up to %d do not fit the %d-bit port field: widen it", c.MaxPort, c.Telemetry.PortBits))
		}
	} else {
		if c.MaxPort > c.Link.MaxPort() {
			errs = append(errs, fmt.Errorf("ports up to %d are too wide for link encoding %s (ports up to %d stay distinct): use link encoding wide", c.MaxPort, c.Link, c.Link.MaxPort()))
		}
		if c.MaxSwitch > c.Link.MaxSwitch() {
			errs = append(errs, fmt.Errorf("switch IDs up to %d are too wide for link encoding %s (up to %d): use link encoding thesis or packed", c.MaxSwitch, c.Link, c.Link.MaxSwitch()))
		}
	}
	return errors.Join(errs...)
}

// NewPortGenerator returns the generator of output port (sw, port), seeded
// from the run seed as PortSeed says. It returns nil with sender draws, which
// need no switch state.
func (c Config) NewPortGenerator(sw uint16, port uint8) (rng.Generator, error) {
	if c.SenderMode() {
		return nil, nil
	}
	return c.newGenerator(c.Generator, c.PortSeed(sw, port), c.MaxL())
}

// PortSeed is the seed of output port (sw, port)'s generator:
// seed.Derive(Seed, SeedPortGenerator, sw, port) (docs/spec.md section 6).
// Studies that build a port's generator themselves (a generator under test)
// seed it here.
func (c Config) PortSeed(sw uint16, port uint8) uint64 {
	return seed.Derive(c.Seed, SeedPortGenerator, uint64(sw), uint64(port))
}

// NewSenderGenerator returns the sender NIC's generator for the draws of
// section 5.9 (always ideal, docs/spec.md section 4), seeded as
// seed.Derive(Seed, SeedSenderNIC, lid); nil without sender draws.
func (c Config) NewSenderGenerator(lid uint16) rng.Generator {
	if !c.SenderMode() {
		return nil
	}
	return rng.NewIdeal(seed.Derive(c.Seed, SeedSenderNIC, uint64(lid)), c.Telemetry.SenderL)
}

func (c Config) newGenerator(name string, s uint64, maxL int) (rng.Generator, error) {
	return rng.New(name, s, maxL)
}

// P0 returns the switch generator's long-run probability of answering "zero"
// for each l (rng.Exact), for the exact selection distributions of section
// 5.6 (Config.SelectionFor); nil for the ideal generator (exactly 1/l) and for
// sender draws.
func (c Config) P0() (func(l int) *big.Rat, error) {
	if c.SenderMode() || c.Generator == "ideal" {
		return nil, nil
	}
	g, err := c.newGenerator(c.Generator, c.Seed, c.MaxL())
	if err != nil {
		return nil, err
	}
	e, ok := g.(rng.Exact)
	if !ok {
		return nil, fmt.Errorf("generator %s has no closed-form P0", g.Name())
	}
	return e.P0, nil
}

// String is the configuration's stable one-line form, for logs and manifests.
func (c Config) String() string {
	j := c.jsonForm()
	var b strings.Builder
	fmt.Fprintf(&b, "scheme=%s", j.Scheme)
	if j.SenderL > 0 {
		fmt.Fprintf(&b, " sender_l=%d", j.SenderL)
	} else {
		fmt.Fprintf(&b, " count_bits=%d", j.CountBits)
	}
	if c.Telemetry.Scheme == header.FullID {
		fmt.Fprintf(&b, " switch_bits=%d port_bits=%d", j.SwitchBits, j.PortBits)
	}
	fmt.Fprintf(&b, " placement=%s hash=%s", j.Placement, j.Hash)
	if j.SipHashKey != "" {
		fmt.Fprintf(&b, " siphash_key=%s", j.SipHashKey)
	}
	fmt.Fprintf(&b, " id=%s link=%s generator=%s lnh=%d seed=%d max_switch=%d max_port=%d",
		j.ID, j.Link, j.Generator, j.LNH, j.Seed, j.MaxSwitch, j.MaxPort)
	return b.String()
}

// configJSON is the manifest form: every enum by name.
type configJSON struct {
	Scheme     string `json:"scheme"`
	CountBits  int    `json:"count_bits"`
	SenderL    int    `json:"sender_l"`
	SwitchBits int    `json:"switch_bits"`
	PortBits   int    `json:"port_bits"`
	Placement  string `json:"placement"`
	Hash       string `json:"hash"`
	SipHashKey string `json:"siphash_key,omitempty"`
	ID         string `json:"id"`
	Link       string `json:"link"`
	Generator  string `json:"generator"`
	LNH        uint8  `json:"lnh"`
	Seed       uint64 `json:"seed"`
	MaxSwitch  int    `json:"max_switch"`
	MaxPort    int    `json:"max_port"`
}

func (c Config) jsonForm() configJSON {
	j := configJSON{
		Scheme: c.Telemetry.Scheme.String(), CountBits: c.Telemetry.CountBits, SenderL: c.Telemetry.SenderL,
		SwitchBits: c.Telemetry.SwitchBits, PortBits: c.Telemetry.PortBits, Placement: c.Telemetry.Placement.String(),
		Hash: c.Hash.String(), ID: c.ID.String(), Link: c.Link.String(), Generator: c.Generator,
		LNH: c.LNH, Seed: c.Seed, MaxSwitch: c.MaxSwitch, MaxPort: c.MaxPort,
	}
	if c.Hash.Kind == hash.SipHash {
		k := c.Hash.Key()
		j.SipHashKey = hex.EncodeToString(k[:])
	}
	return j
}

// MarshalJSON writes the manifest form; field order is fixed.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.jsonForm()) }

// UnmarshalJSON reads the manifest form back; unknown names are errors.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&j); err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	var out Config
	var err error
	if out.Telemetry.Scheme, err = header.ParseScheme(j.Scheme); err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	if out.Telemetry.Placement, err = header.ParsePlacement(j.Placement); err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	out.Telemetry.CountBits, out.Telemetry.SenderL = j.CountBits, j.SenderL
	out.Telemetry.SwitchBits, out.Telemetry.PortBits = j.SwitchBits, j.PortBits
	kind, err := hash.ParseKind(j.Hash)
	if err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	key := hash.DefaultKey
	if j.SipHashKey != "" {
		kb, err := hex.DecodeString(j.SipHashKey)
		if err != nil || len(kb) != 16 {
			return fmt.Errorf("model config: siphash_key %q: want 32 hex digits", j.SipHashKey)
		}
		copy(key[:], kb)
	}
	out.Hash = hash.NewKeyed(kind, key)
	if out.ID, err = hash.ParseIDOption(j.ID); err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	if out.Link, err = hash.ParseLinkEncoding(j.Link); err != nil {
		return fmt.Errorf("model config: %w", err)
	}
	out.Generator, out.LNH, out.Seed, out.MaxSwitch, out.MaxPort = j.Generator, j.LNH, j.Seed, j.MaxSwitch, j.MaxPort
	*c = out
	return nil
}
