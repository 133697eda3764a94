package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"ibreservoir/hash"
	"ibreservoir/refmodel"
)

// Flag names of the reference model's configuration, beyond the telemetry
// layout's (bindTelemetryFlags).
const (
	flagHash      = "hash"
	flagIDOption  = "id"
	flagLink      = "link"
	flagGenerator = "generator"
	flagSeed      = "seed"
	flagMaxSwitch = "max-switch"
	flagMaxPort   = "max-port"
)

// modelFlags holds the string-valued flags until they are parsed into the
// Config (resolveModelFlags).
type modelFlags struct {
	cfg    *refmodel.Config
	hash   string
	id     string
	link   string
	global bool
}

// bindModelFlags binds every field of c to flags of fs; the values already in
// c are the defaults (start from refmodel.DefaultConfig). Call the returned
// function after parsing to fill the enum fields and the LNH, and validate.
func bindModelFlags(fs *pflag.FlagSet, c *refmodel.Config) func() error {
	mf := &modelFlags{cfg: c, hash: c.Hash.String(), id: c.ID.String(), link: c.Link.String(), global: c.LNH == 3}
	bindTelemetryFlags(fs, &c.Telemetry)
	bindLNHFlag(fs, &mf.global)
	fs.StringVar(&mf.hash, flagHash, mf.hash, fmt.Sprintf("hash H(id, d) of the one-bit schemes (thesis section 5.4): one of %v", hash.Kinds()))
	fs.StringVar(&mf.id, flagIDOption, mf.id, fmt.Sprintf("packet id, the first argument of H: one of %v", hash.IDOptions()))
	fs.StringVar(&mf.link, flagLink, mf.link, fmt.Sprintf("link encoding d of (switch, port): one of %v (thesis: switch*2^15 + port*2^9 + 509)", hash.LinkEncodings()))
	fs.StringVar(&c.Generator, flagGenerator, c.Generator, "switch random generator (thesis section 5.9): ideal, or sender with --"+flagSenderL)
	fs.Uint64Var(&c.Seed, flagSeed, c.Seed, "run seed; every component's random stream derives from it")
	fs.IntVar(&c.MaxSwitch, flagMaxSwitch, c.MaxSwitch, "largest switch ID in the fabric (checked against the link encoding or the full-ID switch field)")
	fs.IntVar(&c.MaxPort, flagMaxPort, c.MaxPort, "largest output port in the fabric, 1..254 (checked against the link encoding or the full-ID port field)")
	return mf.resolve
}

func (mf *modelFlags) resolve() error {
	c := mf.cfg
	k, err := hash.ParseKind(mf.hash)
	if err != nil {
		return fmt.Errorf("--%s: %w", flagHash, err)
	}
	c.Hash = hash.New(k)
	if c.ID, err = hash.ParseIDOption(mf.id); err != nil {
		return fmt.Errorf("--%s: %w", flagIDOption, err)
	}
	if c.Link, err = hash.ParseLinkEncoding(mf.link); err != nil {
		return fmt.Errorf("--%s: %w", flagLink, err)
	}
	c.LNH = lnhOf(mf.global)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model configuration: %w\n(see --help: --%s, --%s, --%s, --%s, --%s, --%s, --%s)",
			err, flagScheme, flagCountBits, flagSenderL, flagPlacement, flagGenerator, flagLink, flagMaxPort)
	}
	return nil
}
