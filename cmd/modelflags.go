package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"ibreservoir/refmodel"
)

// Flag names of the reference model's configuration, beyond the telemetry
// layout's: package refmodel's, which its configuration strings share.
const (
	flagHash      = refmodel.FlagHash
	flagIDOption  = refmodel.FlagIDOption
	flagLink      = refmodel.FlagLink
	flagGenerator = refmodel.FlagGenerator
	flagSeed      = refmodel.FlagSeed
	flagMaxSwitch = refmodel.FlagMaxSwitch
	flagMaxPort   = refmodel.FlagMaxPort
)

// bindModelFlags binds every field of c to flags of fs (refmodel.BindFlags,
// the binding configuration strings are parsed with); the values already in c
// are the defaults (start from refmodel.DefaultConfig). Flags write c as they
// are parsed; check the result with validateModelConfig.
func bindModelFlags(fs *pflag.FlagSet, c *refmodel.Config) { refmodel.BindFlags(fs, c) }

// validateModelConfig validates c and names the flags that set it.
func validateModelConfig(c refmodel.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model configuration: %w\n(change --%s, --%s, --%s, --%s, --%s, --%s or --%s; see --help)",
			err, flagScheme, flagCountBits, flagSenderL, flagPlacement, flagGenerator, flagLink, flagMaxPort)
	}
	return nil
}
