package cmd

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ibreservoir/header"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
	"ibreservoir/vectors"
)

type vectorsOptions struct {
	Out    string
	Seed   uint64
	Random int
	Paths  int
	Only   string
	Bulk   int
	Flags  rtlFlags
}

var vectorsOpts = vectorsOptions{Out: "out/vectors", Seed: vectors.DefaultSeed, Random: vectors.DefaultRandom,
	Paths: vectors.DefaultPaths, Flags: defaultRTLFlags()}

var vectorsCmd = &cobra.Command{
	Use:   "vectors",
	Short: "Write the golden test vectors (switch stage and whole path) with their manifests",
	Long: `vectors writes golden test vectors made by the reference model, reproducible
byte for byte from --seed whatever the machine or GOMAXPROCS:

  OUT/stage/<config>/   switch-stage vectors for every RTL configuration (every
                        hash x generator x count width): stage.hex ($readmemh),
                        stage.jsonl, stage.bin (co-simulation), stage_in.pcap and
                        stage_out.pcap (ERF pcap), manifest.json
  OUT/path/<config>/    whole-path vectors (sender NIC, l switches, receiver) for
                        every scheme: path.jsonl, path.pcap, manifest.json
  OUT/index.json        every set and the SHA-256 of its files

Each manifest records the seed, the configuration, the counts, the SHA-256 of
every file, the tool version and the CPU. With --bulk N it writes instead N
random switch-stage vectors of one configuration (the RTL flags) in the binary
form, streaming, for long co-simulation runs: OUT/bulk/<config>.bin.
docs/rtl.md documents every field of every format.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runVectors(cmd.OutOrStdout(), vectorsOpts)
	},
}

func init() {
	fs := vectorsCmd.Flags()
	fs.StringVar(&vectorsOpts.Out, "out", vectorsOpts.Out, "output directory")
	fs.Uint64Var(&vectorsOpts.Seed, "seed", vectorsOpts.Seed, "run seed every random choice derives from")
	cli.IntVar(fs, &vectorsOpts.Random, "random", 0, math.MaxInt, "random switch-stage vectors per set, after the directed ones")
	cli.IntVar(fs, &vectorsOpts.Paths, "paths", 0, math.MaxInt, "random whole paths per set, after the directed ones")
	fs.StringVar(&vectorsOpts.Only, "only", "", "write only the sets whose kind/name contains this text (e.g. stage/mult0_ideal)")
	cli.IntVar(fs, &vectorsOpts.Bulk, "bulk", 0, math.MaxInt, "write N random switch-stage vectors of the configuration the RTL flags choose, in the binary form only")
	bindRTLFlags(fs, &vectorsOpts.Flags)
	rootCmd.AddCommand(vectorsCmd)
}

func runVectors(w io.Writer, o vectorsOptions) error {
	if o.Random < 0 || o.Paths < 0 || o.Bulk < 0 {
		return fmt.Errorf("--random, --paths and --bulk count vectors: give 0 or more")
	}
	t0 := time.Now()
	if o.Bulk > 0 {
		c, err := o.Flags.config()
		if err != nil {
			return err
		}
		path := filepath.Join(o.Out, "bulk", c.Name()+".bin")
		var n int
		err = atomicfile.Write(path, func(f io.Writer) error {
			bw := bufio.NewWriterSize(f, 1<<20)
			var err error
			if n, err = vectors.WriteStageBinary(bw, vectors.StageConfig{Model: c.ModelConfig(header.LNHLocal, o.Seed), Seed: o.Seed, Random: o.Bulk}); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %d switch-stage vectors of %s to %s in %.2f s\n", n, c.Name(), path, time.Since(t0).Seconds())
		return nil
	}
	var sets []vectors.SetSpec
	for _, s := range vectors.DefaultSets(o.Seed, o.Random, o.Paths) {
		if o.Only == "" || strings.Contains(s.Kind+"/"+s.Name, o.Only) {
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return fmt.Errorf("--only %q matches no vector set; names are like stage/mult0_ideal_c3 or path/onereservoir-c3@resv6_mult0_ideal_local", o.Only)
	}
	ms, err := vectors.WriteAll(o.Out, Version, sets)
	if err != nil {
		return err
	}
	files, vecs := 0, 0
	for _, m := range ms {
		files += len(m.Files) + 1
		vecs += m.Counts["vectors"] + m.Counts["paths"]
	}
	fmt.Fprintf(w, "wrote %d vector sets (%d vectors and paths, %d files) to %s in %.2f s\n", len(ms), vecs, files, o.Out, time.Since(t0).Seconds())
	return nil
}
