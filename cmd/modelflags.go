package cmd

import (
	"fmt"
	"strconv"

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

// bindModelFlags binds every field of c to flags of fs, the telemetry layout's
// through bindTelemetryFlags; the values already in c are the defaults (start
// from refmodel.DefaultConfig). Flags write c as they are parsed; check the
// result with validateModelConfig.
func bindModelFlags(fs *pflag.FlagSet, c *refmodel.Config) {
	bindTelemetryFlags(fs, &c.Telemetry)
	fs.VarPF(globalValue{&c.LNH}, flagGlobal, "",
		"global packets (LNH=3, with a GRH), in which the LRH is outside the ICRC; default local (LNH=2)").NoOptDefVal = "true"
	fs.Var(hashValue{&c.Hash}, flagHash, fmt.Sprintf("hash H(id, d) of the one-bit schemes (thesis section 5.4): one of %v", hash.Kinds()))
	fs.Var(idValue{&c.ID}, flagIDOption, fmt.Sprintf("packet id, the first argument of H: one of %v", hash.IDOptions()))
	fs.Var(linkValue{&c.Link}, flagLink, fmt.Sprintf("link encoding d of (switch, port): one of %v (thesis: switch*2^15 + port*2^9 + 509)", hash.LinkEncodings()))
	fs.StringVar(&c.Generator, flagGenerator, c.Generator, "switch random generator (thesis section 5.9): ideal, or sender with --"+flagSenderL)
	fs.Uint64Var(&c.Seed, flagSeed, c.Seed, "run seed; every component's random stream derives from it")
	fs.IntVar(&c.MaxSwitch, flagMaxSwitch, c.MaxSwitch, "largest switch ID in the fabric (checked against the link encoding or the full-ID switch field)")
	fs.IntVar(&c.MaxPort, flagMaxPort, c.MaxPort, "largest output port in the fabric, 1..254 (checked against the link encoding or the full-ID port field)")
}

// validateModelConfig validates c and names the flags that set it.
func validateModelConfig(c refmodel.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model configuration: %w\n(change --%s, --%s, --%s, --%s, --%s, --%s or --%s; see --help)",
			err, flagScheme, flagCountBits, flagSenderL, flagPlacement, flagGenerator, flagLink, flagMaxPort)
	}
	return nil
}

// pflag Values writing the model's enum fields directly.

type hashValue struct{ f *hash.Func }

func (v hashValue) String() string { return v.f.String() }
func (v hashValue) Type() string   { return "hash" }
func (v hashValue) Set(s string) error {
	k, err := hash.ParseKind(s)
	if err == nil {
		*v.f = hash.New(k)
	}
	return err
}

type idValue struct{ o *hash.IDOption }

func (v idValue) String() string { return v.o.String() }
func (v idValue) Type() string   { return "id" }
func (v idValue) Set(s string) (err error) {
	*v.o, err = hash.ParseIDOption(s)
	return err
}

type linkValue struct{ e *hash.LinkEncoding }

func (v linkValue) String() string { return v.e.String() }
func (v linkValue) Type() string   { return "encoding" }
func (v linkValue) Set(s string) (err error) {
	*v.e, err = hash.ParseLinkEncoding(s)
	return err
}

// globalValue is --global as a boolean writing the LNH.
type globalValue struct{ lnh *uint8 }

func (v globalValue) String() string { return strconv.FormatBool(*v.lnh == 3) }
func (v globalValue) Type() string   { return "bool" }
func (v globalValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*v.lnh = lnhOf(b)
	return nil
}
