package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"ibreservoir/header"
	"ibreservoir/internal/cli"
	"ibreservoir/rng"
)

// Flag names of the telemetry layout, shared by every command that places the
// reservoir fields in packets (spec, packet check, the model's commands).
const (
	flagScheme     = "scheme"
	flagCountBits  = "count-bits"
	flagSenderL    = "sender-draws"
	flagSwitchBits = "switch-bits"
	flagPortBits   = "port-bits"
	flagPlacement  = "placement"
	flagGlobal     = "global"
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

// bindTelemetryFlags binds the fields of s to flags of fs. The values already
// in s are the defaults (start from defaultTelemetrySpec, or set your own).
func bindTelemetryFlags(fs *pflag.FlagSet, s *header.TelemetrySpec) {
	fs.Var(&s.Scheme, flagScheme,
		"reservoir scheme: onereservoir (thesis Alg. 8-9), tworeservoir (Alg. 5-7) or fullid (Alg. 2-4)")
	cli.IntVar(fs, &s.CountBits, flagCountBits, 1, 16,
		"width b of each saturating hop count, 1..16 (thesis section 5.6: b >= 3 for fat trees)")
	cli.IntVar(fs, &s.SenderL, flagSenderL, 0, rng.MaxSenderL,
		"L > 0: the sender NIC draws L random bits plus a sentinel in place of each count (thesis section 5.9); 0 for switch generators")
	cli.IntVar(fs, &s.SwitchBits, flagSwitchBits, 1, 16,
		"fullid scheme: switch ID width, 1..16 (thesis section 5.1: 16, or 10 for the 40-bit layout)")
	cli.IntVar(fs, &s.PortBits, flagPortBits, 1, 8,
		"fullid scheme: output port width, 1..8 (thesis section 5.1: 8, or 6 for the 40-bit layout)")
	fs.Var(&s.Placement, flagPlacement,
		"where the fields go: auto (resv6 if they fit 6 bits, else footer), resv6 (BTH Resv6), reserved-global (BTH Resv6 and LRH Rsv5, global packets only) or footer")
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
		"global packets (LNH=3, with a GRH), in which the LRH is outside the ICRC; default local (LNH=2)")
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
