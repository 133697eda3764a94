package cmd

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"ibreservoir/internal/cli"
	"ibreservoir/refmodel"
)

// Flag names of the reference model's configuration, beyond the telemetry
// layout's (bindTelemetryFlags).
const (
	flagHash      = cli.FlagHash
	flagIDOption  = cli.FlagID
	flagLink      = cli.FlagLink
	flagGenerator = cli.FlagGenerator
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
	cli.HashVar(fs, &c.Hash)
	cli.IDVar(fs, &c.ID)
	cli.LinkVar(fs, &c.Link)
	cli.GeneratorVar(fs, &c.Generator, cli.GeneratorUsage+"; sender needs --"+flagSenderL)
	fs.Uint64Var(&c.Seed, flagSeed, c.Seed, "run seed; every component's random stream derives from it")
	cli.IntVar(fs, &c.MaxSwitch, flagMaxSwitch, 0, 0xFFFF, "largest switch ID in the fabric, 0..65535 (checked against the link encoding or the full-ID switch field)")
	cli.IntVar(fs, &c.MaxPort, flagMaxPort, 1, 254, "largest output port in the fabric, 1..254 (checked against the link encoding or the full-ID port field)")
}

// validateModelConfig validates c and names the flags that set it.
func validateModelConfig(c refmodel.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model configuration: %w\n(change --%s, --%s, --%s, --%s, --%s, --%s or --%s; see --help)",
			err, flagScheme, flagCountBits, flagSenderL, flagPlacement, flagGenerator, flagLink, flagMaxPort)
	}
	return nil
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
