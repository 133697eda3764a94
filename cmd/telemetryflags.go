// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"ibreservoir/header"
	"ibreservoir/internal/cli"
	"ibreservoir/refmodel"
)

// Flag names of the telemetry layout, shared by every command that places the
// reservoir fields in packets (spec, packet check, the model's commands):
// package refmodel's, which its configuration strings share.
const (
	flagScheme     = refmodel.SettingScheme
	flagCountBits  = refmodel.SettingCountBits
	flagSenderL    = refmodel.SettingSenderL
	flagSwitchBits = refmodel.SettingSwitchBits
	flagPortBits   = refmodel.SettingPortBits
	flagPlacement  = refmodel.SettingPlacement
	flagGlobal     = refmodel.SettingGlobal
)

// defaultTelemetrySpec is the one-reservoir scheme of thesis section 5.7
// (Alg. 8-9) with a 3-bit hop count: 5 bits in BTH Resv6, enough for paths of
// up to 7 hops (section 5.6 argues b >= 3 for fat trees and dragonflies).
func defaultTelemetrySpec() header.TelemetrySpec {
	return header.TelemetrySpec{
		Scheme:     header.OneReservoir,
		CountBits:  3,
		SwitchBits: 16,
		PortBits:   8,
		Placement:  header.PlaceAuto,
	}
}

// bindTelemetryFlags binds the fields of s to flags of fs (the telemetry
// settings of refmodel.Settings). The values already in s are the defaults
// (start from defaultTelemetrySpec, or set your own).
func bindTelemetryFlags(fs *pflag.FlagSet, s *header.TelemetrySpec) {
	for _, st := range refmodel.Settings() {
		if st.Telemetry {
			fs.Var(telemetryValue{st, s}, st.Name, st.Usage)
		}
	}
}

// checkTelemetryFlags refuses the layout flags that s makes meaningless: the
// full-ID field widths under another scheme, and the count width when the
// sender's draws replace the count.
func checkTelemetryFlags(fs *pflag.FlagSet, s header.TelemetrySpec) error {
	if s.Scheme != header.FullID {
		if err := cli.NoEffect(fs, "without --"+flagScheme+" fullid", "", flagSwitchBits, flagPortBits); err != nil {
			return err
		}
	}
	if s.SenderL > 0 {
		return cli.NoEffect(fs, "with --"+flagSenderL+" (the sender's draws replace the count)", "", flagCountBits)
	}
	return nil
}

// bindLNHFlag binds *global to --global: whether packets carry a GRH (LNH=3)
// rather than being local (LNH=2). The ICRC coverage of the LRH reserved bits
// depends on it.
func bindLNHFlag(fs *pflag.FlagSet, global *bool) {
	fs.BoolVar(global, flagGlobal, *global,
		"global packets (LNH=3, with a GRH), in which the LRH is outside the ICRC; false: local packets (LNH=2)")
}

// lnhOf returns the LNH that --global selects.
func lnhOf(global bool) uint8 {
	if global {
		return header.LNHGlobal
	}
	return header.LNHLocal
}

// telemetryLayout builds and validates the layout s describes for packets
// with the given LNH. Its errors name the flags to change.
func telemetryLayout(s header.TelemetrySpec, lnh uint8) (*header.Layout, error) {
	l, err := s.Layout()
	if err != nil {
		return nil, fmt.Errorf("telemetry layout (--%s=%s --%s=%d --%s=%d --%s=%s): %w; "+
			"choose a smaller layout or --%s=footer",
			flagScheme, s.Scheme, flagCountBits, s.CountBits, flagSenderL, s.SenderL, flagPlacement, s.Placement,
			err, flagPlacement)
	}
	if err := l.Validate(lnh); err != nil {
		hint := "choose another --" + flagPlacement
		if l.Packets == header.GlobalPacket && lnh != header.LNHGlobal {
			hint = "add --" + flagGlobal + " or choose another --" + flagPlacement
		}
		return nil, fmt.Errorf("telemetry layout %s is invalid for %s packets: %w; %s",
			l.Name, lnhWord(lnh), err, hint)
	}
	return l, nil
}

func lnhWord(lnh uint8) string {
	if lnh == header.LNHGlobal {
		return "global (LNH=3)"
	}
	return "local (LNH=2)"
}
