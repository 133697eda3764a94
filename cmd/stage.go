// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"ibreservoir/header"
	"ibreservoir/internal/cli"
	"ibreservoir/rng"
	"ibreservoir/vectors"
	"ibreservoir/verilog"
)

type stageOptions struct {
	Out       string
	Packet    string
	Switch    int
	Port      int
	Congested bool
	State     string
	Flags     rtlFlags
}

var stageOpts = stageOptions{Out: "out/stage", Flags: defaultRTLFlags()}

var stageCmd = &cobra.Command{
	Use:   "stage",
	Short: "Run the model's switch stage on one packet and write it as a switch-stage vector",
	Long: `stage runs the reference model's switch stage (thesis Alg. 8, the RTL's
configuration chosen by the RTL flags) on one packet: --packet, leaving switch
--switch by output port --port, with the congested bit --congested, from the
generator state --state (hex, most significant digit first, as the vector
files and the DPI scoreboard print it; none with --generator sender). It prints
the model's output packet and decision and writes the packet as a one-vector
set in the switch-stage vector formats (stage.hex, stage.jsonl, stage.bin,
the pcaps and a manifest; docs/rtl.md) as OUT/stage/replay_<configuration>,
so that a packet a testbench reports can be co-simulated on its own:

  ibreservoir verify --vectors OUT/stage/replay_<configuration>/stage.bin

(printed at the end, as this command was invoked).

The DPI scoreboard (ibreservoir scoreboard) prints this command for every
mismatch.`,
	Example: `  ibreservoir stage --packet 30027e65000dbe0413001dc9985e53650041999df81d42678cb1d6f820456a8fb4d9fe23486d92b7dc01264b7095badf67505dc0c1d6 \
    --switch 65525 --port 28 --state 595df5ca21247c30360e0266026516ed --out out/repro`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runStage(cmd.Context(), cmd.OutOrStdout(), stageOpts)
	},
}

func init() {
	fs := stageCmd.Flags()
	fs.StringVar(&stageOpts.Out, "out", stageOpts.Out, "output directory of the vector files")
	fs.StringVar(&stageOpts.Packet, "packet", "", "the packet entering the stage, LRH byte 0 through the VCRC, in hex")
	stageOpts.Port = 1
	cli.IntVar(fs, &stageOpts.Switch, "switch", 0, math.MaxUint16, "the switch ID")
	cli.IntVar(fs, &stageOpts.Port, "port", 0, math.MaxUint8, "the output port")
	fs.BoolVar(&stageOpts.Congested, "congested", false, "the port is congested for this packet")
	fs.StringVar(&stageOpts.State, "state", "", "the port's generator state before the packet, hex, most significant digit first (not with --generator sender)")
	bindRTLFlags(fs, &stageOpts.Flags)
	rootCmd.AddCommand(stageCmd)
}

func runStage(ctx context.Context, w io.Writer, o stageOptions) error {
	c, err := o.Flags.config()
	if err != nil {
		return err
	}
	pkt, err := hex.DecodeString(strings.TrimPrefix(o.Packet, "0x"))
	if err != nil || len(pkt) == 0 {
		return fmt.Errorf("--packet %q: want the packet's bytes in hex (LRH byte 0 through the VCRC)", o.Packet)
	}
	set, err := vectors.NewStageSet(vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, 0)})
	if err != nil {
		return err
	}
	var state rng.State
	switch {
	case set.StateBits == 0 && o.State != "":
		return fmt.Errorf("--state: generator %s keeps no switch state; leave --state out", c.Generator)
	case set.StateBits > 0 && o.State == "":
		return fmt.Errorf("--state: the %d-bit state of generator %s before the packet is needed (hex, most significant digit first)", set.StateBits, c.Generator)
	case set.StateBits > 0:
		if state, err = rng.ParseState(strings.TrimPrefix(o.State, "0x"), set.StateBits); err != nil {
			return fmt.Errorf("--state: %w", err)
		}
	}
	r := vectors.Replay{Name: "given", In: pkt, Switch: uint16(o.Switch), Port: uint8(o.Port), Congested: o.Congested, State: state}
	v, err := set.Append(r.Name, r.In, r.Switch, r.Port, r.Congested, r.State)
	if err != nil {
		return err
	}
	spec := vectors.SetSpec{Kind: vectors.KindStage, Name: "replay_" + c.Name(), RTL: c,
		Stage: vectors.StageConfig{Model: set.Config.Model, Replay: []vectors.Replay{r}}}
	if _, err := vectors.WriteAll(ctx, o.Out, Version, []vectors.SetSpec{spec}); err != nil {
		return err
	}
	res := v.Result
	fmt.Fprintf(w, "configuration %s (model: %s)\n", c.Name(), set.Config.Model.Settings())
	fmt.Fprintf(w, "in   %x\nout  %x\n", v.In, v.Out)
	fmt.Fprintf(w, "hash %d, l %d, replaced %t, saturated %t, hop field %d -> %d", res.HashBit, res.HopL, res.HopReplaced, res.HopSaturated, v.FieldIn, v.FieldOut)
	if set.StateBits > 0 {
		fmt.Fprintf(w, ", state out %s", v.StateOut.Hex(set.StateBits))
	}
	bin := filepath.Join(spec.Dir(o.Out), "stage.bin")
	fmt.Fprintf(w, "\nwrote the set %s\nco-simulate: %s verify --vectors %s\n", spec.Dir(o.Out), reproPrefix(), bin)
	return nil
}

// rtlArgs returns the RTL flags that choose c (bindRTLFlags), for commands a
// user can paste; the defaults of --id, --link and --depth are left out. (The
// RTL flags choose no SipHash key: c has the default one.)
func rtlArgs(c verilog.Config) []string {
	d := verilog.DefaultConfig()
	args := []string{"--hash", c.Hash.Kind.String(), "--generator", c.Generator}
	if c.Generator == "sender" {
		args = append(args, "--sender-draws", fmt.Sprint(c.SenderL))
	} else {
		args = append(args, "--count-bits", fmt.Sprint(c.CountBits))
	}
	if c.ID != d.ID {
		args = append(args, "--id", c.ID.String())
	}
	if c.Link != d.Link {
		args = append(args, "--link", c.Link.String())
	}
	if c.PipeDepth != d.PipeDepth {
		args = append(args, "--depth", fmt.Sprint(c.PipeDepth))
	}
	if c.HashLatency != 0 {
		args = append(args, "--hash-latency", fmt.Sprint(c.HashLatency))
	}
	return args
}
