// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A docEntry declares how TestDocumentedCommands runs one documented command.
// A command the documentation shows and this table does not list runs as
// written and must exit 0 within the default timeout.
type docEntry struct {
	// Run is the reduced form, a shell command run instead of the documented
	// one at the clone's root; "" runs the command as written. A reduced
	// form keeps the command and its relative paths and shrinks only the
	// work (fewer configurations, a smaller tree, less data).
	Run string
	// Why says why the command is reduced (or why its expected outcome is
	// not success).
	Why string
	// Exit is the exit status the command documents (0 unless it says).
	Exit int
	// Needs are programs the command runs; without them it is skipped, or
	// fails under CI.
	Needs []string
	// Slow commands (more than a few seconds) are skipped under -short.
	Slow bool
	// Timeout replaces the default of two minutes.
	Timeout time.Duration
}

// docTable is the one table of reduced forms and expectations, keyed by the
// command as the documentation writes it (comments removed, continuation
// lines joined, spaces collapsed). Every key must still appear in the
// documentation: a stale entry fails the test.
var docTable = map[string]docEntry{
	"./scripts/test.sh": {Run: "bash -n scripts/test.sh",
		Why: "the full suite, which runs this test; CI runs it as written (.ci/run), here only its syntax is checked"},
	"./scripts/hostile.sh": {Run: "bash -n scripts/hostile.sh",
		Why: "the hostile-input suite, which CI runs as written from scripts/test.sh; here only its syntax is checked"},

	// README.md and docs/rtl.md: vectors, RTL, co-simulation.
	"go run . vectors --bulk 10000000": {Run: "go run . vectors --bulk 20000",
		Why: "10 M vectors are 860 MB; 20 000 write the same file (out/vectors/bulk/mult0_ideal_c3/stage.bin) for the co-simulation that follows"},
	"go run . verify": {Run: "go run . verify --configs mult0_ideal_c3 --icarus mult0_ideal_c3 --random 200",
		Why: "all 99 configurations take minutes; one configuration in the same relative work directory (out/cosim)", Needs: []string{"verilator", "iverilog"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --synth --synth-table docs/synthesis.md": {Run: "go run . verify --configs mult0_ideal_c3 --icarus none --random 200 --synth --synth-table out/synthesis.md",
		Why: "Yosys on all 99 configurations in two libraries takes tens of minutes; one configuration, its page written beside the docs (a page of one configuration in docs/ would fail stats choose, which needs all 99)", Needs: []string{"verilator", "yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --synth --synth-table docs/synthesis.md --synth-readme README.md": {Run: "go run . verify --configs mult0_ideal_c3 --icarus none --random 200 --synth --synth-table out/synthesis.md",
		Why: "Yosys on all 99 configurations in two libraries takes tens of minutes; one configuration, its page written beside the docs (a page of one configuration in docs/ would fail stats choose, which needs all 99; the README's summary is held by TestReadmeSynthesisSummary)", Needs: []string{"verilator", "yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	"cd out/rtl && iverilog -g2012 -o tb.vvp -f ibr_stage.f ibr_example_tb.sv && vvp -n tb.vvp +hex=../vectors/stage/mult0_ideal_c3/stage.hex": {
		Why: "the example testbench in Icarus Verilog, as written", Needs: []string{"iverilog", "vvp"}, Slow: true, Timeout: 5 * time.Minute},
	"cd out/rtl && verilator --binary --timing -f ibr_stage.f ibr_example_tb.sv --top-module ibr_example_tb -o tb && obj_dir/tb +hex=../vectors/stage/mult0_ideal_c3/stage.hex": {
		Why: "the example testbench in Verilator, as written", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --configs mult0_ideal_c3 --width 512 --random 200": {
		Why: "as written: one configuration at 512-bit beats, one Verilator build (about 30 s)", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --synth --synth-lib asap7 --width 512 --configs mult0_ideal_c3,mxm_ideal_c3 --random 50 --icarus none": {
		Run: "go run . verify --synth --synth-lib asap7 --width 128 --configs parity_lfsr_lut_b16_c3 --random 20 --icarus none",
		Why: "two 512-bit stages in ASAP7 take minutes of Yosys; the smallest configuration at 128 bits takes the same path (wide beats, one library)", Needs: []string{"verilator", "yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --synth --width 512 --configs flags --hash mxm --generator lfsr-lut/b16 --depth 3 --random 50 --icarus none": {
		Run: "go run . verify --synth --synth-lib asap7 --width 128 --configs flags --hash mxm --generator lfsr-lut/b16 --depth 3 --random 20 --icarus none",
		Why: "a 512-bit stage in two libraries takes minutes of Yosys; the same configuration at 128 bits in ASAP7 takes the same path", Needs: []string{"verilator", "yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --synth --widths 64,128 --configs parity_lfsr_lut_b16_c3 --synth-table out/synthesis-widths.md": {
		Why: "as written: the smallest configuration at two widths, a Yosys run in each library for each (about a minute of CPU)", Needs: []string{"yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	"ibreservoir verify --synth --widths 64,128,256,512 --shard ${SLURM_ARRAY_TASK_ID}/33 --out parts/synth-${SLURM_ARRAY_TASK_ID}.json --work out/synth-work": {
		Run: `mkdir -p parts && for SLURM_ARRAY_TASK_ID in 0 1; do ibreservoir verify --synth --widths 64 --configs parity_lfsr_lut_b16_c3,parity_shiftreg_free_7_3_c3 --shard ${SLURM_ARRAY_TASK_ID}/2 --out parts/synth-${SLURM_ARRAY_TASK_ID}.json --work out/synth-work; done`,
		Why: "the 396 pairs take hours of CPU; the Slurm array's tasks in a loop, two shards of a campaign of two small 64-bit pairs, for the merge that follows", Needs: []string{"yosys", "sta"}, Slow: true, Timeout: 10 * time.Minute},
	`ibreservoir verify --merge "$(echo parts/synth-*.json | tr ' ' ,)" --synth-table docs/synthesis-widths.md`: {
		Why: "runs as written on the loop's partials (the clone's page becomes the two-pair campaign's)", Slow: true},
	"go run . verify --synth --synth-lib asap7 --width 512 --segmented --configs mult0_ideal_c3 --random 50 --icarus none": {
		Run: "go run . verify --synth --synth-lib asap7 --width 256 --segmented --configs parity_lfsr_lut_b16_c3 --random 20 --icarus none",
		Why: "a segmented 512-bit stage in ASAP7 takes minutes of Yosys; the smallest configuration, segmented at 256 bits, takes the same path", Needs: []string{"verilator", "yosys", "sta"}, Slow: true, Timeout: 15 * time.Minute},
	"go run . verify --formal --width 512 --configs mult0_ideal_c3,parity_sender_l3": {
		Run:   "go run . verify --formal --width 128 --configs mult0_ideal_c3 --formal-props c,d",
		Why:   "seven properties on two 512-bit configurations take hours ((b) alone about two hours on each); two of them on one configuration at 128 bits take the same path (wide beats, the formal flows) in about a minute",
		Needs: []string{"yosys", "yosys-smtbmc", "z3", "yosys-abc", "cryptominisat5"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --vectors out/vectors/bulk/mult0_ideal_c3/stage.bin --parts 2": {
		Why: "runs as written on the reduced bulk file", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	// docs/rtl.md: a team's own stage (a copy of the library with a planted bug) and the mutation campaign.
	"go run . verilog --out out/mine": {Why: "as written: the copy the next commands plant a bug in and check"},
	`cd out/mine && sed -i 's/\(stat_field_o *<= \)field_new;/\1field_in;/' ibr_switch_stage.sv`: {Why: "as written: plants the bug"},
	"go run . verify --rtl out/mine/ibr_stage.f --top ibr_stage_mult0_ideal_c3 --random 200": {Exit: 1,
		Why: "documented to fail: the comparison with the model finds the planted bug", Needs: []string{"verilator", "iverilog"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . scoreboard --rtl out/mine/ibr_stage.f --top ibr_stage_mult0_ideal_c3 --packets 20000": {Exit: 1,
		Why: "the same planted bug, found by the scoreboard", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . mutate --only count-wraps,stat-field-old --scoreboard=false": {
		Why: "as written: two mutants, each a Verilator build", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . mutate --doc docs/rtl.md": {Run: "go run . mutate --only stat-field-old --scoreboard=false",
		Why: "the whole campaign takes about 15-20 minutes of verify in two shards (a Verilator build per mutant); one mutant (the table is held by TestCampaignTable)", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},

	// docs/testbench.md: the C library, the DPI scoreboard, a replayed packet.
	"go run . scoreboard": {Run: "go run . scoreboard --packets 20000",
		Why: "a million packets take about 10 s after a build; 20 000 through the same build", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . scoreboard --configs mult0_ideal_c3,crc32_lfsr_lut_b16_c4 --packets 100000": {Run: "go run . scoreboard --configs mult0_ideal_c3,crc32_lfsr_lut_b16_c4 --packets 5000",
		Why: "the same two configurations, fewer packets", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . scoreboard --width 512 --packets 20000": {
		Why: "as written: one 512-bit build of the default configuration", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . scoreboard --width 512 --segmented --packets 20000": {
		Why: "as written: one 512-bit build of the default configuration's segmented stage", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . scoreboard --configs all --packets 20000": {Run: "go run . scoreboard --configs mult0_ideal_c3,siphash_sender_l3 --packets 2000",
		Why: "the build of all 99 configurations takes minutes; two of them", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . verify --vectors out/repro/stage/replay_mult0_ideal_c3/stage.bin": {
		Why: "runs as written on the set the stage command above wrote", Needs: []string{"verilator"}, Slow: true, Timeout: 10 * time.Minute},
	"go run . vectors --only stage/mult0_ideal_c3 --random 100000000": {Exit: 1,
		Why: "documented as refused before starting: the set would be larger than the free disk"},

	// docs/battery.md: the statistical battery.
	"ibreservoir stats": {Run: "ibreservoir stats --quick --hashes crc32 --ids psn-destqp --links wide --generators lfsr-lut/b8",
		Why: "the default battery takes minutes; one combination with little data (the whole --quick battery runs below, as written)"},
	"go run . stats": {Run: "go run . stats --quick --hashes parity --ids psn-slid --links thesis --generators ideal,sender",
		Why: "the default battery takes minutes; two combinations with little data (the whole --quick battery runs below, as written)"},
	"ibreservoir stats --hashes mult0,siphash --ids psn-slid --links thesis --generators ideal,lfsr-lut/b16 --count-widths 3": {
		Run: "ibreservoir stats --quick --hashes mult0,siphash --ids psn-slid --links thesis --generators ideal,lfsr-lut/b16 --count-widths 3",
		Why: "the same choices with little data"},
	"ibreservoir stats --json stats.json --report stats-report": {Run: "ibreservoir stats --quick --hashes mult0 --ids psn-slid --links thesis --generators ideal --count-widths 3 --json stats.json --report stats-report",
		Why: "one combination with little data, the same outputs"},
	"ibreservoir stats --quick": {Slow: true, Why: "about 15 s"},
	"ibreservoir stats --decode-record docs/decode.json": {Run: "ibreservoir stats --quick --hashes mult0 --ids psn-slid --links thesis --generators ideal --count-widths 3 --decode-record decode-quick.json",
		Why: "the default battery takes minutes; a quick run's record, beside the checked-in one that 'stats choose' reads"},
	"ibreservoir stats --decode=false": {Run: "ibreservoir stats --decode=false --quick --hashes mult0 --ids psn-slid --links thesis --generators ideal --count-widths 3",
		Why: "the randomness battery takes minutes; a quick run of one combination"},
	"go run . stats --decode-slow-bits 22 --json stats.json": {Run: "go run . stats --decode-slow-bits 14 --quick --hashes siphash --ids psn-slid --links thesis --generators ideal --count-widths 3 --json stats.json",
		Why: "SipHash decoded to 2^22-packet windows takes many minutes; to the quick battery's largest window, 2^14"},
	"ibreservoir stats --strict": {Run: "ibreservoir stats --strict --quick --hashes parity --ids psn --links thesis --generators ideal --count-widths 3",
		Why: "one unsound combination with little data: the documented exit status 2", Exit: 2},
	"ibreservoir stats --seed 7 --shard ${SLURM_ARRAY_TASK_ID}/16 --out parts/part-${SLURM_ARRAY_TASK_ID}.json --jobs ${SLURM_CPUS_PER_TASK}": {
		Run: `for SLURM_ARRAY_TASK_ID in $(seq 0 15); do ibreservoir stats --seed 7 --shard ${SLURM_ARRAY_TASK_ID}/16 --out parts/part-${SLURM_ARRAY_TASK_ID}.json --jobs 1 --quick --hashes mult0 --ids psn-slid --links thesis --generators ideal --count-widths 3; done`,
		Why: "the Slurm array's 16 tasks in a loop, one small battery, for the merge that follows"},
	"ibreservoir stats merge parts/part-*.json --json stats.json --report stats-report": {
		Why: "runs as written on the loop's partials"},

	// docs/hashes-and-generators.md: the sweeps take a second each.
	"ibreservoir hash sweep": {Why: "as written: 30 exhaustive sweeps on the vector kernels", Slow: true},

	// docs/packets.md: command synopses, run as an instance.
	"ibreservoir spec [--scheme S] [--count-bits B] [--sender-draws L] [--switch-bits N] [--port-bits N] [--placement P] [--global] [--format text|markdown|json]": {
		Run: "ibreservoir spec --scheme fullid --count-bits 4 --switch-bits 10 --port-bits 6 --placement footer --format json",
		Why: "a synopsis; an instance of it"},
	"ibreservoir packet check [--format text|json] [--telemetry <layout flags>] FILE...": {
		Run: "ibreservoir packet check --format json --telemetry --count-bits 4 capture/testdata/infiniband-hca-capture.pcap",
		Why: "a synopsis; an instance of it on the repository's capture"},

	// docs/simulation.md: the presets' trees are thousands of nodes.
	"go run . sim --preset reduction-tapered": {Run: "go run . sim --preset reduction-tapered --topology kary:k=4,n=3 --progress=false",
		Why: "Tapered's 4608 nodes take minutes; the same preset on the 64-node 4-ary 3-tree", Slow: true},
	"ibreservoir sim --preset reduction-tapered": {Run: "ibreservoir sim --preset reduction-tapered --topology kary:k=4,n=3 --progress=false",
		Why: "Tapered's 4608 nodes take minutes; the same preset on the 64-node 4-ary 3-tree", Slow: true},
	"ibreservoir sim --preset stencil-row-major -o out": {Run: "ibreservoir sim --preset stencil-small-row-major -o out --progress=false",
		Why: "the 64 x 72 stencil needs Tapered; its 16 x 8 form on small-tapered", Slow: true},
	"ibreservoir sim --preset ring-background": {Run: "ibreservoir sim --preset ring-background --topology small-tapered --progress=false",
		Why: "Tapered's 4608 nodes take minutes; the same preset on small-tapered", Slow: true},
	"ibreservoir sim --preset NAME --progress=false": {Run: "ibreservoir sim --preset reduction-small --progress=false",
		Why: "a template (NAME); the smallest preset"},
}

// A docCommand is a command shown in the documentation.
type docCommand struct {
	file string // relative to the repository root
	line int
	text string // comments removed, continuation lines joined, spaces collapsed
}

// commandStart matches the start of a runnable command line.
var commandStart = regexp.MustCompile(`^(\$ )?(go run \. |go run \.$|go build |ibreservoir( |$)|\./scripts/|out/|cd out/|cc |python3 )`)

// extractCommands lists the commands a Markdown file shows: in fenced and
// indented code blocks, lines that start a command (after a "$ " prompt, if
// the block uses prompts), with their continuation lines; and inline code
// spans that run something (`go run . ...`, `./scripts/...`, or
// `ibreservoir ... --flag`; a bare `ibreservoir stats` names a command).
func extractCommands(file string, text string) []docCommand {
	var out []docCommand
	lines := strings.Split(text, "\n")
	add := func(line int, s string) {
		s = strings.TrimPrefix(strings.TrimSpace(s), "$ ")
		if i := strings.Index(s, " #"); i >= 0 {
			s = s[:i]
		}
		s = strings.Join(strings.Fields(s), " ")
		if s != "" {
			out = append(out, docCommand{file, line, s})
		}
	}
	fenced := false
	prompts := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trim := strings.TrimSpace(l)
		if strings.HasPrefix(trim, "```") {
			fenced = !fenced
			prompts = false
			if fenced {
				for _, m := range lines[i+1:] {
					if strings.HasPrefix(strings.TrimSpace(m), "```") {
						break
					}
					if strings.HasPrefix(strings.TrimSpace(m), "$ ") {
						prompts = true
					}
				}
			}
			continue
		}
		indented := !fenced && strings.HasPrefix(l, "    ")
		if fenced || indented {
			if prompts && !strings.HasPrefix(trim, "$ ") {
				continue
			}
			if !commandStart.MatchString(trim) {
				continue
			}
			start := i
			cmd := trim
			indent := len(l) - len(strings.TrimLeft(l, " "))
			for i+1 < len(lines) {
				next := lines[i+1]
				nt := strings.TrimSpace(next)
				switch {
				case strings.HasSuffix(strings.TrimSpace(strings.SplitN(cmd, " #", 2)[0]), `\`):
					cmd = strings.TrimSuffix(strings.TrimSpace(strings.SplitN(cmd, " #", 2)[0]), `\`) + " " + nt
				case indented && nt != "" && len(next)-len(strings.TrimLeft(next, " ")) > indent+4 && !commandStart.MatchString(nt):
					cmd += " " + nt // a synopsis's continuation line
				default:
					goto done
				}
				i++
			}
		done:
			add(start+1, cmd)
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(l, -1) {
			c := m[1]
			if strings.HasPrefix(c, "go run . ") || strings.HasPrefix(c, "./scripts/") || strings.HasPrefix(c, "ibreservoir ") && strings.Contains(c, " --") {
				add(i+1, c)
			}
		}
	}
	return out
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// documentedCommands reads README.md and docs/*.md of the tree at root.
func documentedCommands(t *testing.T, root string) []docCommand {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	sort.Strings(files)
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var cmds []docCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		cmds = append(cmds, extractCommands(rel, string(b))...)
	}
	return cmds
}

// shellPrelude makes `go run .` run the clone's command, built once: the same
// program `go run .` would build at the clone's root, without linking it
// again for every command.
const shellPrelude = `set -eo pipefail
go() { if [ "$1" = run ] && [ "$2" = . ]; then shift 2; ibreservoir "$@"; else command go "$@"; fi; }
`

// TestDocumentedCommands runs every command of README.md and docs/*.md in a
// fresh clone, at its root, in document order (later commands use earlier
// ones' outputs, as a reader's would), each as written or in its declared
// reduced form (docTable). It also checks that every --flag a documented
// command names is a flag of that command, so that a synopsis or an example
// cannot drift from the code even where the command runs reduced.
//
// Cost: the clone and one build (a few seconds with a warm build cache), then
// the commands: about 20-30 s under -short (the slow ones skipped), about 1.5
// minutes in full, most of it the Verilator builds, the quick battery and the
// simulations.
func TestDocumentedCommands(t *testing.T) {
	clone := freshClone(t)
	cmds := documentedCommands(t, clone)
	if len(cmds) < 10 {
		t.Fatalf("found only %d documented commands: the extraction is broken", len(cmds))
	}
	bin := buildBinary(t, clone)
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}

	seen := map[string]bool{}
	for _, c := range cmds {
		seen[c.text] = true
	}
	for k := range docTable {
		if !seen[k] {
			t.Errorf("docTable lists %q, which no document shows any more: remove or update the entry", k)
		}
	}
	helps := map[string]string{}
	ran := map[string]bool{}
	for _, c := range cmds {
		where := c.file + ":" + strconv.Itoa(c.line)
		checkFlags(t, where, c.text, bin, clone, helps)
		if ran[c.text] {
			continue
		}
		ran[c.text] = true
		e := docTable[c.text]
		script := c.text
		if e.Run != "" {
			script = e.Run
		}
		t.Run(where, func(t *testing.T) {
			if e.Slow && testing.Short() {
				t.Skipf("%s: slow, skipped under -short", c.text)
			}
			if !needTools(t, e.Needs...) {
				return
			}
			tmp := t.TempDir()
			r := run([]string{"bash", "-c", shellPrelude + script}, runOpts{dir: clone, env: append(env, "TMPDIR="+tmp), timeout: e.Timeout})
			ok := r.exit == e.Exit && !r.timedOut && !r.signaled
			reduced := ""
			if e.Run != "" {
				reduced = "\n  reduced: " + e.Run + "\n  (" + e.Why + ")"
			}
			switch {
			case !ok:
				t.Errorf("%s: exit %d (want %d), timed out %v, after %s%s\n%s", c.text, r.exit, e.Exit, r.timedOut,
					r.wall.Round(time.Millisecond), reduced, tail(r.stdout+r.stderr, 30))
			default:
				t.Logf("%s: ok in %s%s", c.text, r.wall.Round(time.Millisecond), reduced)
			}
		})
	}
}

// flagToken finds the flags a command names: --name, --name=value, -o.
var flagToken = regexp.MustCompile(`(?:^|\s|\[)(--?[a-zA-Z][a-zA-Z0-9-]*)`)

// checkFlags checks every flag the documented command text names against
// the help of the ibreservoir command it calls.
func checkFlags(t *testing.T, where, text, bin, dir string, helps map[string]string) {
	t.Helper()
	for _, part := range regexp.MustCompile(`&&|;|\|\||\bdo\b`).Split(text, -1) {
		fields := strings.Fields(part)
		i := 0
		for i < len(fields) && fields[i] != "ibreservoir" && !(fields[i] == "go" && i+2 < len(fields) && fields[i+1] == "run" && fields[i+2] == ".") {
			i++
		}
		if i == len(fields) {
			continue
		}
		if fields[i] == "go" {
			i += 2
		}
		var path []string
		for _, f := range fields[i+1:] {
			if strings.HasPrefix(f, "-") || strings.ContainsAny(f, "./[<$*") || strings.ToUpper(f) == f {
				break
			}
			path = append(path, f)
		}
		help, err := commandHelp(bin, dir, path, helps)
		if err != nil {
			t.Errorf("%s: %s: %v", where, text, err)
			continue
		}
		for _, m := range flagToken.FindAllStringSubmatch(part, -1) {
			flag := m[1]
			if !regexp.MustCompile(`(^|\s|,)` + regexp.QuoteMeta(flag) + `[\s,]`).MatchString(help) {
				t.Errorf("%s: %s names %s, which `ibreservoir %s` does not have", where, text, flag, strings.Join(path, " "))
			}
		}
	}
}

// commandHelp returns the help of the deepest command of path, and trims
// path to it (the rest are arguments).
func commandHelp(bin, dir string, path []string, helps map[string]string) (string, error) {
	key := strings.Join(path, " ")
	if h, ok := helps[key]; ok {
		return h, nil
	}
	cmd := exec.Command(filepath.Join(bin, "ibreservoir"), append(append([]string{}, path...), "--help")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", err
	}
	// The flags: the "Flags:" and "Global Flags:" sections.
	var b strings.Builder
	in := false
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasSuffix(l, "Flags:"):
			in = true
		case l == "" || !strings.HasPrefix(l, " "):
			in = false
		case in:
			b.WriteString(strings.TrimSpace(l))
			b.WriteByte('\n')
		}
	}
	helps[key] = b.String()
	return helps[key], nil
}

// TestExtractCommands: the extraction finds commands in every form the
// documentation uses, and nothing else.
func TestExtractCommands(t *testing.T) {
	md := "# T\n\n    go run . vectors                 # main job\n    ./scripts/test.sh\n\ntext `go run . stats` and `ibreservoir stats` and `ibreservoir sim --list`.\n\n" +
		"```\n$ ibreservoir hash sweep\n# output line\nid=0 d\n```\n\n```bash\n#!/bin/bash\n#SBATCH --x\nibreservoir stats --seed 7 \\\n    --out a.json   # c\n```\n\n" +
		"    ibreservoir spec [--scheme S]\n                     [--global]\n    ibreservoir packet check FILE...\n"
	var got []string
	for _, c := range extractCommands("x.md", md) {
		got = append(got, c.text)
	}
	want := []string{"go run . vectors", "./scripts/test.sh", "go run . stats", "ibreservoir sim --list", "ibreservoir hash sweep",
		"ibreservoir stats --seed 7 --out a.json", "ibreservoir spec [--scheme S] [--global]", "ibreservoir packet check FILE..."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("extracted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
