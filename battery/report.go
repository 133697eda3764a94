// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// A Report is a finished battery. It answers two questions apart, each with
// its own verdicts and its own family-wise error rate:
//
//   - randomness (Parts, Combinations): does the hash, on the ids and links a
//     switch sees, and the generator, behave like the ideal that the thesis's
//     analysis assumes (sections 3.3, 5.4, 5.6, 5.9)?
//   - decode (DecodeParts, DecodeCombinations): decoding windows of n
//     consecutive packets, does the receiver report the links that carried
//     nothing at no more than the nominal false-positive rate of section
//     5.3's threshold, and the others without bias? A configuration can fail
//     the first and pass the second (a structured hash whose flaws average
//     out over long windows), never the reverse in a way that matters.
type Report struct {
	Format             string              `json:"format"`
	Config             Config              `json:"config"`
	Summary            Summary             `json:"summary"`
	Parts              []Part              `json:"parts"`        // verdicts of the hash parts and the generator parts
	Combinations       []Combination       `json:"combinations"` // every combination's verdict
	DecodeParts        []DecodePart        `json:"decode_parts,omitempty"`
	DecodeCombinations []DecodeCombination `json:"decode_combinations,omitempty"`
	Results            []Result            `json:"results"`
	// Note warns that the run used less data than the default battery and
	// says which verdicts that leaves untrustworthy; empty for the default.
	Note string `json:"note,omitempty"`
}

// Verdicts counts results by verdict.
type Verdicts struct {
	Tests   int `json:"tests"`
	Pass    int `json:"pass"`
	Fail    int `json:"fail"`
	Invalid int `json:"invalid"`
}

func (v *Verdicts) count(x Verdict) {
	v.Tests++
	switch x {
	case Pass:
		v.Pass++
	case Fail:
		v.Fail++
	case Invalid:
		v.Invalid++
	}
}

// Summary counts the results: the randomness tests (hypothesis tests in the
// Holm family, and checks), and apart the decode family's.
type Summary struct {
	Verdicts
	Combinations int            `json:"combinations"`
	Sound        int            `json:"sound"` // combinations that pass
	Decode       *DecodeSummary `json:"decode,omitempty"`
}

// DecodeSummary counts the decode family's results and, per window size,
// the combinations sound for decoding.
type DecodeSummary struct {
	Verdicts
	Windows      []int `json:"windows"` // log2 of the window sizes
	Combinations int   `json:"combinations"`
	Sound        []int `json:"sound"` // per window size
	// Power: per window size, the windows per workload and the
	// false-positive rate of a zero-traffic link found with 90% probability.
	Power []DecodePower `json:"power,omitempty"`
}

// A DecodePart is one factor of the decode combinations: a hash on an id
// option and link encoding, with a verdict per window size over every
// workload, or a generator at a count width, with one verdict over its
// routings (measured at DecodePackets packets).
type DecodePart struct {
	PartName
	Windows []WindowVerdict `json:"windows"`
}

// PartName says which factor a part is: a hash on an id option and link
// encoding, or a generator at a count width.
type PartName struct {
	Kind      string `json:"kind"` // "hash" or "generator"
	Hash      string `json:"hash,omitempty"`
	ID        string `json:"id,omitempty"`
	Link      string `json:"link,omitempty"`
	Generator string `json:"generator,omitempty"`
	CountBits int    `json:"count_bits,omitempty"`
}

// A WindowVerdict is a decode part's verdict at one window size (Window 0:
// a generator part's, for every window), with the workloads it fails on.
type WindowVerdict struct {
	Window  int      `json:"window,omitempty"`
	Verdict Verdict  `json:"verdict"`
	Failing []string `json:"failing,omitempty"` // scenarios
	Invalid []string `json:"invalid,omitempty"`
	Tests   int      `json:"tests"`
}

// A DecodeCombination is a hash part with a generator part: its decode
// verdicts, one per window size (Summary.Decode.Windows).
type DecodeCombination struct {
	Hash      string    `json:"hash"`
	ID        string    `json:"id"`
	Link      string    `json:"link"`
	Generator string    `json:"generator"`
	CountBits int       `json:"count_bits"`
	Verdicts  []Verdict `json:"verdicts"`
}

// A Part is one factor of the combinations: a hash on an id option and link
// encoding, or a generator at a count width. A combination is sound when both
// its parts pass.
type Part struct {
	PartName
	Verdict Verdict  `json:"verdict"`
	Failing []string `json:"failing,omitempty"` // the failing tests, each named once
	Invalid []string `json:"invalid,omitempty"`
	Tests   int      `json:"tests"`
}

// A Combination is one choice of every factor, with its verdict and the
// failing tests that decide it.
type Combination struct {
	Hash      string   `json:"hash,omitempty"`
	ID        string   `json:"id,omitempty"`
	Link      string   `json:"link,omitempty"`
	Generator string   `json:"generator,omitempty"`
	CountBits int      `json:"count_bits,omitempty"`
	Verdict   Verdict  `json:"verdict"`
	Failing   []string `json:"failing,omitempty"`
}

// generatorParts lists the generators under test with their lockstep
// variants, in the order the report lists their parts.
func (b *Battery) generatorParts() []string {
	var gens []string
	for _, g := range b.cfg.Generators {
		gens = append(gens, g)
		if b.cfg.Lockstep && !b.gens[g].PerPacket {
			gens = append(gens, g+lockstepSuffix)
		}
	}
	return gens
}

// singleStream are the generator tests that read one generator alone; the
// lockstep variant of a generator shares them with the generator.
var singleStream = map[string]bool{"generator/p0-exact": true, "generator/binomial": true, "generator/gap": true}

func (b *Battery) report(results []Result) *Report {
	r := &Report{Format: ReportFormat, Config: b.cfg, Results: results, Note: b.cfg.SizeNote()}
	for _, x := range results {
		if !isDecode(x.Test) {
			r.Summary.count(x.Verdict)
		}
	}
	c := b.cfg
	// Hash parts.
	var hashParts, genParts []Part
	for _, h := range c.Hashes {
		for _, id := range c.IDs {
			for _, link := range c.Links {
				p := Part{PartName: PartName{Kind: "hash", Hash: h, ID: id, Link: link}}
				for _, x := range results {
					if isDecode(x.Test) {
						continue
					}
					s := x.Subject
					if s.Hash == h && (s.ID == "" || s.ID == id) && (s.Link == "" || s.Link == link) {
						p.add(x)
					}
				}
				hashParts = append(hashParts, p.done())
			}
		}
	}
	// Generator parts, with the lockstep variants.
	for _, g := range b.generatorParts() {
		base := strings.TrimSuffix(g, lockstepSuffix)
		for _, w := range c.CountBits {
			p := Part{PartName: PartName{Kind: "generator", Generator: g, CountBits: w}}
			for _, x := range results {
				if isDecode(x.Test) {
					continue
				}
				s := x.Subject
				own := s.Generator == g || (s.Generator == base && g != base && singleStream[x.Test])
				if !own {
					continue
				}
				if x.Test == "estimator/reservoir-uniformity" {
					if s.CountBits == w {
						p.add(x)
					}
				} else if s.L <= 1<<w {
					p.add(x)
				}
			}
			genParts = append(genParts, p.done())
		}
	}
	r.Parts = append(hashParts, genParts...)
	// Combinations: every hash part with every generator part.
	if len(hashParts) == 0 {
		hashParts = []Part{{Verdict: Pass}}
	}
	if len(genParts) == 0 {
		genParts = []Part{{Verdict: Pass}}
	}
	for _, hp := range hashParts {
		for _, gp := range genParts {
			cb := Combination{Hash: hp.Hash, ID: hp.ID, Link: hp.Link, Generator: gp.Generator, CountBits: gp.CountBits, Verdict: Pass}
			cb.Failing = append(slices.Clone(hp.Failing), gp.Failing...)
			switch {
			case hp.Verdict == Fail || gp.Verdict == Fail:
				cb.Verdict = Fail
			case hp.Verdict == Invalid || gp.Verdict == Invalid:
				cb.Verdict = Invalid
			}
			r.Combinations = append(r.Combinations, cb)
			r.Summary.Combinations++
			if cb.Verdict == Pass {
				r.Summary.Sound++
			}
		}
	}
	b.decodeReport(r)
	return r
}

func (p *Part) add(x Result) {
	p.Tests++
	switch x.Verdict {
	case Fail:
		if !slices.Contains(p.Failing, x.Test) {
			p.Failing = append(p.Failing, x.Test)
		}
	case Invalid:
		if !slices.Contains(p.Invalid, x.Test) {
			p.Invalid = append(p.Invalid, x.Test)
		}
	}
}

func (p Part) done() Part {
	p.Verdict = verdictOf(p.Failing, p.Invalid)
	return p
}

// verdictOf is a part's verdict from its failing and invalid members: FAIL
// if any fails, else INVALID if any is, else PASS.
func verdictOf(failing, invalid []string) Verdict {
	switch {
	case len(failing) > 0:
		return Fail
	case len(invalid) > 0:
		return Invalid
	}
	return Pass
}

func (p Part) name() string {
	if p.Kind == "hash" {
		return fmt.Sprintf("%s %s %s", p.Hash, p.ID, p.Link)
	}
	return fmt.Sprintf("%s b=%d", p.Generator, p.CountBits)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error { return writeIndented(w, r) }

// writeIndented writes v as JSON indented by two spaces, the form of the
// battery's readable JSON outputs.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	if r.Format != ReportFormat {
		return nil, fmt.Errorf("read report: format %q, want %q", r.Format, ReportFormat)
	}
	return &r, nil
}

// WriteJSON writes a partial as JSON with its checksum.
func (p *Partial) WriteJSON(w io.Writer) error {
	q := *p
	sum, err := q.checksum()
	if err != nil {
		return err
	}
	q.Checksum = sum
	return json.NewEncoder(w).Encode(&q)
}

// checksum is the SHA-256 of the partial's JSON with an empty checksum.
func (p Partial) checksum() (string, error) {
	p.Checksum = ""
	b, err := json.Marshal(&p)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// readOne decodes exactly one JSON object with no unknown fields from rd
// into v, and refuses anything after it.
func readOne(rd io.Reader, v any) error {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON object (at byte %d); the file holds one object", dec.InputOffset())
	}
	return nil
}

// ReadPartial reads a partial written by WriteJSON: one JSON object and
// nothing after it, in the current format, with a checksum that matches.
func ReadPartial(rd io.Reader) (*Partial, error) {
	var p Partial
	if err := readOne(rd, &p); err != nil {
		return nil, fmt.Errorf("read partial result: %w", err)
	}
	if p.Format != PartialFormat {
		return nil, fmt.Errorf("read partial result: format %q, want %q (is this a partial written by ibreservoir stats --shard?)", p.Format, PartialFormat)
	}
	if sum, err := p.checksum(); err != nil || sum != p.Checksum {
		return nil, fmt.Errorf("read partial result: checksum %q does not match its contents (%s): the file was changed or cut after it was written", p.Checksum, sum)
	}
	if p.Of < 1 || len(p.Shards) == 0 {
		return nil, fmt.Errorf("read partial result: it names no shard (of %d)", p.Of)
	}
	for _, s := range p.Shards {
		if s < 0 || s >= p.Of {
			return nil, fmt.Errorf("read partial result: shard %d outside 0..%d", s, p.Of-1)
		}
	}
	return &p, nil
}

// WriteText writes the readable report: the summary, the verdict of every
// part with its failing tests, and the failing and invalid tests in full (all
// tests with all set).
func (r *Report) WriteText(w io.Writer, all bool) error {
	s := r.Summary
	if r.Note != "" {
		fmt.Fprintf(w, "%s\n\n", r.Note)
	}
	fmt.Fprintf(w, "ibreservoir stats: %d randomness tests: %d PASS, %d FAIL, %d INVALID; family-wise error rate %g (Holm)\n",
		s.Tests, s.Pass, s.Fail, s.Invalid, r.Config.Alpha)
	fmt.Fprintf(w, "%d of %d combinations are sound (a combination is sound when its hash part and its generator part both pass)\n",
		s.Sound, s.Combinations)
	fmt.Fprintf(w, "Randomness verdicts answer: does the hash, on the ids and links a switch sees, and the generator behave like the ideal the thesis's analysis assumes?\n\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, kind := range []string{"hash", "generator"} {
		first := true
		for _, p := range r.Parts {
			if p.Kind != kind {
				continue
			}
			if first {
				if kind == "hash" {
					fmt.Fprintln(tw, "HASH\tID\tLINK\tVERDICT\tTESTS\tFAILING")
				} else {
					fmt.Fprintln(tw, "GENERATOR\tCOUNT BITS\t\tVERDICT\tTESTS\tFAILING")
				}
				first = false
			}
			why := strings.Join(trimGroup(p.Failing), ", ")
			if len(p.Invalid) > 0 {
				why += " (invalid: " + strings.Join(trimGroup(p.Invalid), ", ") + ")"
			}
			if kind == "hash" {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", p.Hash, p.ID, p.Link, p.Verdict, p.Tests, why)
			} else {
				fmt.Fprintf(tw, "%s\t%d\t\t%s\t%d\t%s\n", p.Generator, p.CountBits, p.Verdict, p.Tests, why)
			}
		}
		if !first {
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := r.writeDecodeText(w); err != nil {
		return err
	}
	title := "FAILING AND INVALID TESTS"
	if all {
		title = "ALL TESTS"
	}
	shown := r.Results
	if !all && r.Summary.Decode != nil {
		shown = r.decodeWorst()
		title += " (of the decode hash tests, the worst failing window and workload of each hash part; --all or --json for every one)"
	}
	fmt.Fprintln(w, title)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tTEST\tSUBJECT\tSTATISTIC\tVALUE\tP\tP HOLM\tDETAIL")
	for _, x := range shown {
		if !all && x.Verdict == Pass {
			continue
		}
		subj := x.Subject.String()
		if x.Scenario != "" {
			subj += " [" + x.Scenario + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.Verdict, x.Test, subj, x.Statistic, x.Value, x.P, x.PHolm, x.Detail)
	}
	return tw.Flush()
}

// decodeWorst returns the results with the failing decode hash tests thinned
// to the one with the largest statistic per hash part (hash, id, link).
func (r *Report) decodeWorst() []Result {
	type part struct{ h, id, link string }
	best := map[part]int{}
	for i, x := range r.Results {
		if x.Test != "decode/hash" || x.Verdict != Fail {
			continue
		}
		k := part{x.Subject.Hash, x.Subject.ID, x.Subject.Link}
		if j, ok := best[k]; !ok || x.Value > r.Results[j].Value {
			best[k] = i
		}
	}
	var out []Result
	for i, x := range r.Results {
		if x.Test == "decode/hash" && x.Verdict == Fail && best[part{x.Subject.Hash, x.Subject.ID, x.Subject.Link}] != i {
			continue
		}
		out = append(out, x)
	}
	return out
}

func trimGroup(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		_, after, ok := strings.Cut(n, "/")
		if ok {
			n = after
		}
		out[i] = n
	}
	return out
}
