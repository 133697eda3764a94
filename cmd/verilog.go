// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ibreservoir/cosim"
	"ibreservoir/hash"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
	"ibreservoir/internal/lock"
	"ibreservoir/verilog"
)

// rtlFlags are the flags that choose one configuration of the RTL stage.
type rtlFlags struct {
	hash                      hash.Func
	generator                 string
	id                        hash.IDOption
	link                      hash.LinkEncoding
	countBits, senderL, depth int
	hashLatency               int
	// width is the beat width the configuration is for (the command's
	// --width; 0: 64 bits): the pipeline depths a stage takes depend on it.
	width int
}

func defaultRTLFlags() rtlFlags {
	d := verilog.DefaultConfig()
	return rtlFlags{hash: d.Hash, generator: d.Generator, id: d.ID, link: d.Link, countBits: d.CountBits, depth: d.PipeDepth}
}

func bindRTLFlags(fs *pflag.FlagSet, f *rtlFlags) {
	cli.HashVar(fs, &f.hash)
	cli.GeneratorVar(fs, &f.generator, cli.GeneratorUsage)
	cli.IntVar(fs, &f.countBits, flagCountBits, 1, 4, "hop_count width b, 1..4 (switch generators)")
	cli.IntVar(fs, &f.senderL, flagSenderL, 0, 3, "L, 1..3, with --generator sender: hop_rand is L+1 bits")
	cli.IDVar(fs, &f.id)
	cli.LinkVar(fs, &f.link)
	cli.IntVar(fs, &f.depth, "depth", 2, verilog.MaxPipeDepthWide, fmt.Sprintf("pipeline registers, 2..4 (beats wider than 64 bits: 2..%d)", verilog.MaxPipeDepthWide))
	cli.IntVar(fs, &f.hashLatency, "hash-latency", 0, verilog.MaxHashLatency,
		fmt.Sprintf("with --hash siphash, its eight rounds over this many pipeline stages, 1..%d (0: all in the PSN's cycle)", verilog.MaxHashLatency))
}

// config builds and validates the configuration; its errors name the flag.
func (f rtlFlags) config() (verilog.Config, error) {
	c := verilog.Config{Hash: f.hash, Generator: f.generator, ID: f.id, Link: f.link, CountBits: f.countBits, SenderL: f.senderL, PipeDepth: f.depth,
		HashLatency: f.hashLatency, Width: f.width}
	if c.Generator == "sender" {
		if c.SenderL == 0 {
			c.SenderL = 3
		}
		c.CountBits = 0
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("RTL configuration: %w; see --help for the flags' ranges", err)
	}
	return c, nil
}

// widthValue is the --width flag: a beat width the stage takes
// (verilog.Widths), refused when the flag is parsed, before any work.
type widthValue struct{ p *int }

func (v widthValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}
func (v widthValue) Type() string { return "bits" }
func (v widthValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a number of bits", s)
	}
	if err := verilog.CheckWidth(n); err != nil {
		return err
	}
	*v.p = n
	return nil
}

// bindWidthFlag binds --width, the stage's beat width (its DataW).
func bindWidthFlag(fs *pflag.FlagSet, p *int) {
	*p = verilog.DefaultWidth
	fs.Var(widthValue{p}, "width", fmt.Sprintf("beat width in bits (the stage's DataW): %s; a packet is cut into beats of width/8 bytes, one packet per beat",
		strings.Trim(fmt.Sprint(verilog.Widths()), "[]")))
}

// bindSegmentedFlag binds --segmented, the stage's Segmented.
func bindSegmentedFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "segmented", false, "with --width 256 or 512, beats shared by two packets: a packet starts at any 8-byte segment, so a beat may end one and start the next (docs/rtl.md, \"Segmented beats\")")
}

// checkSegmented refuses --segmented at a width that cannot share beats.
func checkSegmented(seg bool, width int) error {
	if seg && !verilog.Segmented(width) {
		return fmt.Errorf("--segmented at --width %d: beats shared by two packets need --width 256 or 512", width)
	}
	return nil
}

// withBeats returns cfgs with their beat width set to w and, when seg,
// segmented beats.
func withBeats(cfgs []verilog.Config, w int, seg bool) []verilog.Config {
	out := withWidth(cfgs, w)
	for i := range out {
		out[i].Segmented = seg
	}
	return out
}

// withWidth returns cfgs with their beat width set to w.
func withWidth(cfgs []verilog.Config, w int) []verilog.Config {
	out := make([]verilog.Config, len(cfgs))
	for i, c := range cfgs {
		c.Width = w
		out[i] = c
	}
	return out
}

type verilogOptions struct {
	Out       string
	All       bool
	Width     int
	Segmented bool // --segmented: beats shared by two packets
	Flags     rtlFlags
}

var verilogOpts = verilogOptions{Out: "out/rtl", Width: verilog.DefaultWidth, Flags: defaultRTLFlags()}

var verilogCmd = &cobra.Command{
	Use:   "verilog",
	Short: "Write the synthesizable SystemVerilog switch stage for a configuration",
	Long: `verilog writes the RTL of the one-reservoir switch stage (thesis section 5.7,
Alg. 8): the parameterized library (one module per file, ibr_*.sv), its lint
waivers (ibr_stage.vlt), and a wrapper module fixing the parameters of the
chosen configuration (ibr_stage_<name>.sv). With --all it writes a wrapper for
every configuration the default vectors cover. docs/rtl.md describes the
architecture and the ports.`,
	Example: `  ibreservoir verilog
  ibreservoir verilog --hash siphash --generator lfsr-lut/b16 --id psn-slid --out out/rtl
  ibreservoir verilog --all
  ibreservoir verilog --width 512 --out out/rtl512`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := refuseEmpty(cmd.Flags()); err != nil {
			return err
		}
		return runVerilog(cmd.OutOrStdout(), verilogOpts)
	},
}

func init() {
	fs := verilogCmd.Flags()
	fs.StringVar(&verilogOpts.Out, "out", verilogOpts.Out, "output directory")
	fs.BoolVar(&verilogOpts.All, "all", false, "write a wrapper for every configuration of the default vectors (every hash, generator and count width)")
	bindRTLFlags(fs, &verilogOpts.Flags)
	bindWidthFlag(fs, &verilogOpts.Width)
	bindSegmentedFlag(fs, &verilogOpts.Segmented)
	rootCmd.AddCommand(verilogCmd)
}

func runVerilog(w io.Writer, o verilogOptions) error {
	var cfgs []verilog.Config
	if o.All {
		cfgs = verilog.Matrix()
	} else {
		o.Flags.width = o.Width
		c, err := o.Flags.config()
		if err != nil {
			return err
		}
		cfgs = []verilog.Config{c}
	}
	if o.Width == 0 {
		o.Width = verilog.DefaultWidth
	}
	if err := checkSegmented(o.Segmented, o.Width); err != nil {
		return err
	}
	cfgs = withBeats(cfgs, o.Width, o.Segmented)
	files, err := verilog.Files(cfgs...)
	if err != nil {
		return err
	}
	// The example testbench of the one configuration, at its beat width.
	example := !o.All
	if example {
		tb, err := cosim.Example(cfgs[0])
		if err != nil {
			return err
		}
		files = append(files, verilog.File{Name: cosim.ExampleTB, Data: tb})
	}
	paths, err := writeUnit(o.Out, files)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %d files to %s:\n  %s\n", len(paths), o.Out, strings.Join(paths, "\n  "))
	if example {
		fmt.Fprintf(w, "run the example testbench there, on %s's vectors (ibreservoir vectors), with\n  %s\n", cfgs[0].Name(),
			strings.ReplaceAll(cosim.ExampleCommands("STAGE.hex"), "\n", "\n  "))
	}
	return nil
}

// writeUnit writes the files into dir as one unit: dir is locked against
// another run for the whole write (a second run fails at once, naming it),
// the files go to a staging directory inside it, and only when every one
// is complete are they moved into place; a failed or interrupted run
// leaves dir's files as they were.
func writeUnit(dir string, files []verilog.File) ([]string, error) {
	d, err := atomicfile.CreateDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Abort()
	release, err := lock.Parent(dir, "--out "+dir)
	if err != nil {
		return nil, err
	}
	defer release()
	// Every file the commit will rename into place must be free to take:
	// a rename that failed half-way would leave some files new, some old.
	for _, f := range files {
		if f.Name != filepath.Base(f.Name) {
			return nil, fmt.Errorf("verilog file %q: a name, not a path", f.Name)
		}
		p := filepath.Join(dir, f.Name)
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("--out %s: %s is in the way (not a regular file): the run writes a file there; move it away", dir, p)
		}
	}
	var paths []string
	for _, f := range files {
		if err := os.WriteFile(d.Path(f.Name), f.Data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Join(dir, f.Name))
	}
	if err := d.Commit(); err != nil {
		return nil, err
	}
	return paths, nil
}
