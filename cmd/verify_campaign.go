// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"ibreservoir/cosim"
	"ibreservoir/internal/atomicfile"
	"ibreservoir/internal/cli"
	"ibreservoir/verilog"
)

// campaignOptions are verify's flags of the synthesis campaign (every
// configuration at every beat width; cosim.Campaign).
type campaignOptions struct {
	Widths  string   // --widths: comma-separated beat widths, or all
	Shard   string   // --shard i/n
	Out     string   // --out: the shard's partial (JSON)
	Merge   []string // --merge: partials or campaign pages
	Partial bool     // --partial: with --merge, a page of the shards there are
	Jobs    int      // --jobs: Yosys runs at a time
}

// campaignFlags are the campaign's own flags; any of them puts verify in
// campaign mode.
var campaignFlags = []string{"widths", "shard", "out", "merge", "partial", "jobs"}

// The flags each campaign mode takes; any other given is an error (it would
// have no effect).
var (
	campaignRunFlags   = []string{"synth", "widths", "configs", "synth-lib", "synth-table", "synth-readme", "shard", "out", "jobs", "work"}
	campaignMergeFlags = []string{"merge", "partial", "synth-table", "synth-readme", "out"}
)

// The synthesis and the tools' description the campaign uses; the tests
// stand in ones that need no tools.
var (
	campaignSynth = cosim.SynthesizeAll
	campaignTools = cosim.CurrentSynthTools
)

func bindCampaignFlags(fs *pflag.FlagSet, o *campaignOptions) {
	fs.StringVar(&o.Widths, "widths", "", "with --synth, the synthesis campaign: every configuration of --configs at each of these beat widths (comma-separated, or all: 64,128,256,512), without co-simulation; --shard and --out split it, --merge joins the parts, --synth-table writes its page (docs/synthesis-widths.md)")
	fs.StringVar(&o.Shard, "shard", "", "with --widths, run only shard i of n (i/n: every n-th (configuration, width) pair from the i-th) and write its partial to --out")
	fs.StringVar(&o.Out, "out", "", "with --widths or --merge, write the campaign's partial (JSON, for --merge) to this file")
	fs.StringSliceVar(&o.Merge, "merge", nil, "join the campaign's partials (--out files) and pages (comma-separated) instead of synthesizing; every shard once, of one campaign, RTL and set of tools")
	fs.BoolVar(&o.Partial, "partial", false, "with --merge, allow missing shards: the page says which and how to complete it")
	cli.IntVar(fs, &o.Jobs, "jobs", 1, 64, "with --widths, Yosys and OpenSTA runs at a time")
}

// isCampaign says whether verify's flags ask for the campaign.
func isCampaign(o verifyOptions) bool {
	return slices.ContainsFunc(campaignFlags, func(f string) bool { return o.given[f] })
}

// checkCampaignFlags refuses, before any work, a campaign flag out of its
// mode, a flag with no effect in it, and outputs whose directory cannot be
// made (it makes them).
func checkCampaignFlags(o verifyOptions) error {
	c := o.Campaign
	merge := len(c.Merge) > 0
	if o.given["merge"] && !merge {
		return errors.New("--merge is empty: give the partials (--out files) and pages to join, comma-separated")
	}
	var allowed []string
	switch {
	case merge && o.given["widths"]:
		return errors.New("--merge joins partials and --widths synthesizes: give one")
	case merge:
		allowed = campaignMergeFlags
		if o.SynthTable == "" && c.Out == "" {
			return errors.New("--merge writes the page (--synth-table docs/synthesis-widths.md) or a merged partial (--out): give one")
		}
	case o.given["widths"]:
		allowed = campaignRunFlags
		if !o.Synth {
			return errors.New("--widths is the synthesis campaign: give --synth with it")
		}
		if c.Shard != "" && c.Out == "" {
			return errors.New("--shard needs --out FILE for its partial; join the shards with --merge")
		}
		if c.Shard != "" && o.SynthTable != "" {
			return errors.New("--synth-table writes the campaign's page, which needs every shard: run the shards with --out, then --merge them with --synth-table")
		}
		if c.Out == "" && o.SynthTable == "" {
			return errors.New("--widths writes its figures to --out (a partial) or --synth-table (the page): give one, or the run's hours are lost")
		}
		if o.Configs == "flags" || o.Configs == "subset" || o.Configs == "none" {
			return fmt.Errorf("--configs %s with --widths: the campaign takes the matrix's configurations: all (the default) or names", o.Configs)
		}
	default:
		for _, f := range campaignFlags {
			if o.given[f] {
				return fmt.Errorf("--%s is a flag of the synthesis campaign: give --synth --widths, or --merge", f)
			}
		}
	}
	for f := range o.given {
		if !slices.Contains(allowed, f) {
			mode := "--widths (the synthesis campaign, which does not co-simulate)"
			if merge {
				mode = "--merge, which joins partials"
			}
			return fmt.Errorf("--%s has no effect with %s", f, mode)
		}
	}
	if o.SynthTable != "" {
		if err := checkCampaignPage(o.SynthTable); err != nil {
			return err
		}
	}
	if o.SynthReadme != "" {
		switch {
		case c.Shard != "":
			return errors.New("--synth-readme writes the campaign's summary, which needs every shard: run the shards with --out, then --merge them with --synth-readme")
		case c.Partial:
			return errors.New("--synth-readme with --partial: the campaign's summary needs every shard")
		}
		// Refuse a file without the markers now, not after the work.
		if err := cosim.ReadmeCampaignSummary.Check(o.SynthReadme); err != nil {
			return fmt.Errorf("--synth-readme: %w", err)
		}
	}
	for _, p := range []string{o.SynthTable, c.Out} {
		if p == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("%s: its directory cannot be made: %w", p, err)
		}
	}
	return nil
}

// checkCampaignPage refuses to write the campaign's page over a file that
// is not one (docs/synthesis.md, the per-configuration page, say).
func checkCampaignPage(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--synth-table: %w", err)
	}
	if !bytes.HasPrefix(b, []byte("<!-- Code generated by ibreservoir verify --synth --widths;")) {
		return fmt.Errorf("--synth-table %s is not a campaign page (docs/synthesis-widths.md): the campaign does not write over it", path)
	}
	return nil
}

// parseWidths resolves --widths.
func parseWidths(spec string) ([]int, error) {
	if spec == "all" {
		return verilog.Widths(), nil
	}
	var ws []int
	for _, f := range strings.Split(spec, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--widths %q: %q is not a number of bits (give e.g. 64,128,256,512, or all)", spec, f)
		}
		if err := verilog.CheckWidth(w); err != nil {
			return nil, fmt.Errorf("--widths %q: %w", spec, err)
		}
		if slices.Contains(ws, w) {
			return nil, fmt.Errorf("--widths %q: %d twice", spec, w)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// runCampaign runs or merges the synthesis campaign.
func runCampaign(ctx context.Context, w io.Writer, o verifyOptions) error {
	if err := checkCampaignFlags(o); err != nil {
		return err
	}
	if len(o.Campaign.Merge) > 0 {
		return interruptedError(ctx, mergeCampaign(w, o))
	}
	widths, err := parseWidths(o.Campaign.Widths)
	if err != nil {
		return err
	}
	cfgs, err := pickConfigs(o.Configs, o.Flags, verilog.Matrix())
	if err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	libs, err := cosim.SelectLibraries(o.SynthLib)
	if err != nil {
		return fmt.Errorf("--synth-lib: %w", err)
	}
	camp, err := cosim.NewCampaign(cfgs, widths, libs)
	if err != nil {
		return err
	}
	pairs, err := camp.Pairs()
	if err != nil {
		return err
	}
	i, n := 0, 1
	if o.Campaign.Shard != "" {
		if i, n, err = parseShard(o.Campaign.Shard); err != nil {
			return err
		}
		if n > len(pairs) {
			return fmt.Errorf("--shard %s: the campaign has %d pairs, so at most %d shards (more would leave some empty)", o.Campaign.Shard, len(pairs), len(pairs))
		}
	}
	rtl, err := cosim.RTLDigest()
	if err != nil {
		return err
	}
	work := filepath.Join(o.Work, fmt.Sprintf("campaign-%d-of-%d", i, n))
	release, err := lockWork(work)
	if err != nil {
		return err
	}
	defer release()
	tools, err := campaignTools(ctx, filepath.Join(work, "tools"), libs)
	if err != nil {
		return interruptedError(ctx, err)
	}
	mine := cosim.Shard(pairs, i, n)
	fmt.Fprintf(w, "campaign: %s: %d pairs; shard %d of %d: %d pairs, %d at a time (no co-simulation)\n", camp, len(pairs), i, n, len(mine), o.Campaign.Jobs)
	t0 := time.Now()
	stats, err := campaignSynth(ctx, work, mine, libs, o.Campaign.Jobs, func(s *cosim.SynthStats) {
		var figs []string
		var secs float64
		for _, m := range s.Mapped {
			figs = append(figs, fmt.Sprintf("%s %.1f um^2 %.3f ns", m.Library, m.AreaUM2, m.Timing.CriticalNS))
			secs += m.Time.Seconds()
		}
		fmt.Fprintf(w, "synthesized %s: %d flip-flops; %s (%.1f s)\n", s.Config, s.FlipFlops, strings.Join(figs, "; "), secs)
	})
	if err != nil {
		return interruptedError(ctx, err)
	}
	part := cosim.NewPartial(camp, tools, rtl, i, n, stats)
	printSeconds(w, part, pairs)
	fmt.Fprintf(w, "campaign: shard %d of %d: %d pairs in %.1f s\n", i, n, len(stats), time.Since(t0).Seconds())
	return writeCampaign(w, o, part)
}

// printSeconds prints the partial's mean time a pair, width by width.
func printSeconds(w io.Writer, p *cosim.CampaignPartial, pairs []verilog.Config) {
	sum, cnt := map[int]float64{}, map[int]int{}
	for _, c := range pairs {
		if t, ok := p.Seconds[c.Name()]; ok {
			sum[c.DataW()] += t
			cnt[c.DataW()]++
		}
	}
	var ws []int
	for k := range cnt {
		ws = append(ws, k)
	}
	sort.Ints(ws)
	for _, k := range ws {
		fmt.Fprintf(w, "campaign: %d bits: %d pairs, %.1f s a pair in Yosys and OpenSTA (wall, every library)\n", k, cnt[k], sum[k]/float64(cnt[k]))
	}
}

// mergeCampaign joins --merge's partials and writes them.
func mergeCampaign(w io.Writer, o verifyOptions) error {
	var parts []*cosim.CampaignPartial
	for _, f := range o.Campaign.Merge {
		p, err := cosim.ReadPartial(f)
		if err != nil {
			return fmt.Errorf("--merge: %w", err)
		}
		parts = append(parts, p)
	}
	m, err := cosim.MergeCampaign(parts, o.Campaign.Partial)
	if err != nil {
		return fmt.Errorf("--merge: %w", err)
	}
	if o.Campaign.Partial && m.Complete() {
		return errors.New("--partial: every shard is there; leave --partial out")
	}
	if rtl, err := cosim.RTLDigest(); err == nil && rtl != m.RTL {
		fmt.Fprintf(w, "campaign: the parts are of the RTL %s, the tree's is %s: the page will be stale\n", m.RTL, rtl)
	}
	pairs, err := m.Campaign.Pairs()
	if err != nil {
		return err
	}
	printSeconds(w, m, pairs)
	fmt.Fprintf(w, "campaign: %d parts, shards %d of %d, %d of %d pairs\n", len(parts), len(m.Done), m.Shards, len(m.Rows), len(pairs))
	return writeCampaign(w, o, m)
}

// writeCampaign writes the partial (--out), the page and its JSON
// (--synth-table) and the README's summary (--synth-readme), every one
// rendered before any is written.
func writeCampaign(w io.Writer, o verifyOptions, p *cosim.CampaignPartial) error {
	files := map[string][]byte{}
	var order []string
	if o.Campaign.Out != "" {
		js, err := p.JSON()
		if err != nil {
			return err
		}
		files[o.Campaign.Out] = js
		order = append(order, o.Campaign.Out)
	}
	if o.SynthTable != "" {
		md, err := cosim.CampaignMarkdown(p)
		if err != nil {
			return err
		}
		js, err := cosim.CampaignJSON(p)
		if err != nil {
			return err
		}
		files[o.SynthTable], files[cosim.JSONPath(o.SynthTable)] = md, js
		order = append(order, o.SynthTable, cosim.JSONPath(o.SynthTable))
	}
	if o.SynthReadme != "" {
		sum, err := cosim.CampaignSummary(p)
		if err != nil {
			return fmt.Errorf("--synth-readme: %w", err)
		}
		doc, err := os.ReadFile(o.SynthReadme)
		if err != nil {
			return fmt.Errorf("--synth-readme: %w", err)
		}
		if doc, err = cosim.ReadmeCampaignSummary.Replace(doc, sum); err != nil {
			return fmt.Errorf("--synth-readme %s: %w", o.SynthReadme, err)
		}
		files[o.SynthReadme] = doc
		order = append(order, o.SynthReadme)
	}
	for _, f := range order {
		if err := atomicfile.WriteFile(f, files[f]); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	return nil
}
