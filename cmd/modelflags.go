// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"ibreservoir/header"
	"ibreservoir/refmodel"
)

// Flag names of the reference model's configuration, beyond the telemetry
// layout's: package refmodel's setting names, which its configuration
// strings share.
const (
	flagHash      = refmodel.SettingHash
	flagIDOption  = refmodel.SettingIDOption
	flagLink      = refmodel.SettingLink
	flagGenerator = refmodel.SettingGenerator
	flagSeed      = refmodel.SettingSeed
	flagMaxSwitch = refmodel.SettingMaxSwitch
	flagMaxPort   = refmodel.SettingMaxPort
)

// settingValue is one refmodel.Setting as a pflag Value writing *c: the
// command line and configuration strings parse through the same Setting.
type settingValue struct {
	s refmodel.Setting
	c *refmodel.Config
}

func (v settingValue) String() string {
	if v.c == nil {
		return ""
	}
	return v.s.Get(v.c)
}
func (v settingValue) Type() string       { return v.s.Type }
func (v settingValue) Set(x string) error { return v.s.Set(v.c, x) }
func (v settingValue) Allowed() []string  { return v.s.Enum }

// bindSetting binds one setting to fs as a flag of the same name.
func bindSetting(fs *pflag.FlagSet, s refmodel.Setting, c *refmodel.Config) {
	f := fs.VarPF(settingValue{s, c}, s.Name, "", s.Usage)
	if s.Bool {
		f.NoOptDefVal = "true"
	}
}

// bindModelFlags binds every setting of c to flags of fs (refmodel.Settings,
// through which configuration strings are parsed too); the values already in
// c are the defaults (start from refmodel.DefaultConfig). Flags write c as
// they are parsed; check the result with validateModelConfig.
func bindModelFlags(fs *pflag.FlagSet, c *refmodel.Config) {
	for _, s := range refmodel.Settings() {
		bindSetting(fs, s, c)
	}
}

// telemetryValue is a telemetry-layout setting writing a header.TelemetrySpec
// alone, for commands that place fields without a model.
type telemetryValue struct {
	s refmodel.Setting
	t *header.TelemetrySpec
}

func (v telemetryValue) String() string {
	if v.t == nil {
		return ""
	}
	c := refmodel.Config{Telemetry: *v.t}
	return v.s.Get(&c)
}
func (v telemetryValue) Type() string      { return v.s.Type }
func (v telemetryValue) Allowed() []string { return v.s.Enum }
func (v telemetryValue) Set(x string) error {
	c := refmodel.Config{Telemetry: *v.t}
	if err := v.s.Set(&c, x); err != nil {
		return err
	}
	*v.t = c.Telemetry
	return nil
}

// validateModelConfig validates c and names the flags that set it.
func validateModelConfig(c refmodel.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model configuration: %w\n(change --%s, --%s, --%s, --%s, --%s, --%s or --%s; see --help)",
			err, flagScheme, flagCountBits, flagSenderL, flagPlacement, flagGenerator, flagLink, flagMaxPort)
	}
	return nil
}
