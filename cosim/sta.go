// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"ibreservoir/verilog"
)

// A Library is a Liberty standard-cell library, read as far as synthesis
// reporting needs: each cell's area, which cells are sequential, and the FO4
// delay OpenSTA measures on its inverter.
type Library struct {
	Spec       *CellLibrary
	Path       string
	Area       map[string]float64 // um^2 (both libraries' area unit)
	Sequential map[string]bool    // flip-flops and latches
	SHA256     string
	fo4        struct {
		once sync.Once
		ns   float64
		err  error
	}
}

// Tag names the library file and its content: "osu018_stdcells.lib (sha256 1a2b3c4d)".
func (l *Library) Tag() string {
	return fmt.Sprintf("%s (sha256 %s)", filepath.Base(l.Path), l.SHA256[:8])
}

var (
	libraries   sync.Map // path -> *Library
	reCellBlock = regexp.MustCompile(`(?m)^\s*cell\s*\(\s*"?([A-Za-z0-9_]+)"?\s*\)\s*\{`)
	reArea      = regexp.MustCompile(`^\s*area\s*:\s*([0-9.]+)\s*(;|$)`) // ASAP7's INVBUF file ends some without ;
)

// LoadLibrary reads the Liberty file at path, library cl's (once per
// process and path).
func LoadLibrary(cl *CellLibrary, path string) (*Library, error) {
	if l, ok := libraries.Load(path); ok {
		return l.(*Library), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cosim: the standard-cell library %s (%s; scripts/setup.sh installs qflow-tech-osu018): %w", path, cl.Label, err)
	}
	sum := sha256.Sum256(b)
	l := &Library{Spec: cl, Path: path, Area: map[string]float64{}, Sequential: map[string]bool{}, SHA256: hex.EncodeToString(sum[:])}
	idx := reCellBlock.FindAllSubmatchIndex(b, -1)
	for k, m := range idx {
		name := string(b[m[2]:m[3]])
		end := len(b)
		if k+1 < len(idx) {
			end = idx[k+1][0]
		}
		body := string(b[m[1]:end])
		for _, line := range strings.Split(body, "\n") {
			if a := reArea.FindStringSubmatch(line); a != nil {
				l.Area[name], _ = strconv.ParseFloat(a[1], 64)
				break
			}
		}
		if strings.Contains(body, "ff (") || strings.Contains(body, "ff(") || strings.Contains(body, "latch (") || strings.Contains(body, "latch(") {
			l.Sequential[name] = true
		}
	}
	if l.Area[cl.NAND2] == 0 || l.Area[cl.INV] == 0 {
		return nil, fmt.Errorf("cosim: %s: no %s or %s with an area; the reports count %s equivalents and time %s for FO4",
			path, cl.NAND2, cl.INV, cl.NAND2, cl.INV)
	}
	actual, _ := libraries.LoadOrStore(path, l)
	return actual.(*Library), nil
}

// Timing is OpenSTA's view of a mapped netlist: the clock clk_i ideal, every
// other input arriving at the clock edge and every output required at the
// next (no external delay), and no wire load model (neither library defines
// one): wires have zero capacitance and resistance, so every delay is the
// cells' own, driving their loads' pin capacitance. Times are in ns
// whatever the library's unit.
type Timing struct {
	CriticalNS float64  `json:"critical_path_ns"` // the register-to-register (or port) path: period - worst slack
	LogicDepth int      `json:"logic_depth"`      // cells on that path, between its flip-flops or ports
	FO4Depth   float64  `json:"fo4_depth"`        // CriticalNS in the library's FO4 delays
	FmaxMHz    float64  `json:"fmax_mhz"`         // 1000 / CriticalNS
	Path       []string `json:"path"`             // the critical path's cells, start to end
	// Start and End are the critical path's start and end points (a flip-flop
	// instance or a port), StartSrc and EndSrc the RTL that made a flip-flop
	// ("ibr_gen_ideal.sv:67", its always_ff block; "" for a port), and Report
	// OpenSTA's report of the path.
	Start, End       string
	StartSrc, EndSrc string
	Report           string `json:"-"`
	// IOPaths are the combinational input-to-output paths, "in_port -> out_port"
	// (rst_ni's asynchronous clear excepted).
	IOPaths []string `json:"io_paths"`
}

// staPeriod is the clock period of the timing runs (ns): long enough that
// every path meets it, so the slack measures the path. The script gives it
// in the library's unit.
const staPeriod = 100.0

var (
	reSlack     = regexp.MustCompile(`^\s*(-?[0-9.]+)\s+slack \((MET|VIOLATED)\)`)
	reArc       = regexp.MustCompile(`^\s*-?[0-9.]+\s+-?[0-9.]+\s+[v^]\s+(\S+)/(\S+)\s+\((\S+)\)`)
	reStartEnd  = regexp.MustCompile(`^(Startpoint|Endpoint): (\S+)`)
	rePathGroup = regexp.MustCompile(`^Path Group: (\S+)`)
)

// TimeNetlist runs OpenSTA on the mapped netlist of module top (in dir).
func TimeNetlist(ctx context.Context, dir, netlist, top string, lib *Library) (*Timing, error) {
	fo4, err := lib.FO4(ctx, dir)
	if err != nil {
		return nil, err
	}
	script := fmt.Sprintf(`read_liberty %s
read_verilog %s
link_design %s
create_clock -name clk -period %g [get_ports clk_i]
set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk_i]]
set_output_delay 0 -clock clk [all_outputs]
puts "== critical"
report_checks -path_delay max -digits 4
puts "== io"
foreach in {%s} {
  report_checks -unconstrained -from [get_ports "${in}*"] -to [all_outputs] -group_count 1000 -endpoint_count 1 -digits 4
}
exit
`, lib.Path, netlist, top, staPeriod/lib.Spec.UnitNS, strings.Join(dataInputs(), " "))
	out, err := runSTA(ctx, dir, "timing.tcl", script)
	if err != nil {
		return nil, err
	}
	crit, io, _ := strings.Cut(out, "== io")
	t := &Timing{}
	group, slack := "", ""
	var start, end string
	for _, line := range strings.Split(crit, "\n") {
		if m := reStartEnd.FindStringSubmatch(line); m != nil {
			if m[1] == "Startpoint" {
				start = m[2]
			} else {
				end = m[2]
			}
		}
		if m := rePathGroup.FindStringSubmatch(line); m != nil {
			group = m[1]
			if group == "clk" {
				t.Start, t.End = start, end
			}
		}
		if group != "clk" {
			continue
		}
		if slack == "" {
			t.Report += line + "\n"
		}
		if m := reArc.FindStringSubmatch(line); m != nil {
			t.Path = append(t.Path, m[1]+" ("+m[3]+")")
			if !lib.Sequential[m[3]] {
				t.LogicDepth++
			}
		}
		if m := reSlack.FindStringSubmatch(line); m != nil && slack == "" {
			slack = m[1]
		}
	}
	s, err := strconv.ParseFloat(slack, 64)
	if err != nil || len(t.Path) == 0 {
		return nil, fmt.Errorf("cosim: OpenSTA reported no clk path for %s:\n%s", top, tail(out, 40))
	}
	t.CriticalNS = staPeriod - s*lib.Spec.UnitNS
	if t.StartSrc, t.EndSrc, err = cellSources(netlist, top, t.Start, t.End); err != nil {
		return nil, err
	}
	t.FmaxMHz = 1000 / t.CriticalNS
	t.FO4Depth = t.CriticalNS / fo4
	seen := map[string]bool{}
	start = ""
	for _, line := range strings.Split(io, "\n") {
		if m := reStartEnd.FindStringSubmatch(line); m != nil {
			port, _, _ := strings.Cut(m[2], "[") // a bit of a split bus: the bus
			if m[1] == "Startpoint" {
				start = port
			} else if p := start + " -> " + port; !seen[p] {
				seen[p] = true
				t.IOPaths = append(t.IOPaths, p)
			}
		}
	}
	sort.Strings(t.IOPaths)
	return t, nil
}

var reCellSrc = regexp.MustCompile(`(?m)^\s*\(\* src = "([^"]*)" \*\)\s*\n\s*\S+\s+(\S+)\s*\(`)

// cellSources returns the RTL source of cells a and b of a mapped netlist
// (their src attribute's first location outside the wrapper top, as
// "file.sv:line"), "" for a cell without one (a port).
func cellSources(netlist, top, a, b string) (string, string, error) {
	nl, err := os.ReadFile(netlist)
	if err != nil {
		return "", "", err
	}
	src := map[string]string{}
	for _, m := range reCellSrc.FindAllSubmatch(nl, -1) {
		name := string(m[2])
		if name != a && name != b {
			continue
		}
		for _, loc := range strings.Split(string(m[1]), "|") {
			file, pos, _ := strings.Cut(filepath.Base(loc), ":")
			if file == top+".sv" {
				continue
			}
			line, _, _ := strings.Cut(pos, ".")
			src[name] = file + ":" + line
			break
		}
	}
	return src[a], src[b], nil
}

// dataInputs are the stage's inputs but the clock and the asynchronous reset.
func dataInputs() []string {
	var ins []string
	for _, p := range verilog.Ports() {
		if p.Input() && p.Name != "clk_i" && p.Name != "rst_ni" {
			ins = append(ins, p.Name)
		}
	}
	return ins
}

// runSTA runs OpenSTA on a script written to dir/name and returns its output.
// OpenSTA exits 0 whatever its reports say, so an "Error:" line fails the run.
func runSTA(ctx context.Context, dir, name, script string) (string, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return "", err
	}
	cmd := toolCommand(ctx, "sta", "-no_splash", "-exit", path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := interrupted(ctx, "sta", cmd.Run())
	if Interrupted(err) {
		return "", err
	}
	if err != nil || strings.Contains(out.String(), "Error") {
		return "", fmt.Errorf("cosim: OpenSTA on %s: %v\n%s", path, err, tail(out.String(), 40))
	}
	return out.String(), nil
}

// FO4 is the library's fan-out-of-4 inverter delay (ns), as OpenSTA times it:
// a chain of its inverter (CellLibrary.INV), each driving the next and three more inputs of it, the
// mean stage delay (rise and fall alternate) over six stages in its middle.
func (l *Library) FO4(ctx context.Context, dir string) (float64, error) {
	l.fo4.once.Do(func() { l.fo4.ns, l.fo4.err = l.measureFO4(ctx, dir) })
	return l.fo4.ns, l.fo4.err
}

func (l *Library) measureFO4(ctx context.Context, dir string) (float64, error) {
	const n = 12
	var v strings.Builder
	v.WriteString("module fo4 (input a, output y);\n  wire")
	for i := 0; i <= n; i++ {
		sep := ","
		if i == n {
			sep = ";"
		}
		fmt.Fprintf(&v, " n%d%s", i, sep)
	}
	v.WriteString("\n  assign n0 = a;\n  assign y = n12;\n")
	for i := range n {
		fmt.Fprintf(&v, "  %s s%d (.A(n%d), .Y(n%d));\n", l.Spec.INV, i, i, i+1)
		for k := 0; i > 0 && k < 3; k++ {
			fmt.Fprintf(&v, "  %s l%d_%d (.A(n%d), .Y());\n", l.Spec.INV, i, k, i)
		}
	}
	v.WriteString("endmodule\n")
	fdir := filepath.Join(dir, "fo4", l.Spec.Name)
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(fdir, "fo4.v"), []byte(v.String()), 0o644); err != nil {
		return 0, err
	}
	out, err := runSTA(ctx, fdir, "fo4.tcl", fmt.Sprintf("read_liberty %s\nread_verilog %s\nlink_design fo4\n"+
		"report_checks -unconstrained -from [get_ports a] -to [get_ports y] -digits 5\nexit\n", l.Path, filepath.Join(fdir, "fo4.v")))
	if err != nil {
		return 0, err
	}
	at := map[string]float64{}
	re := regexp.MustCompile(`^\s*[0-9.]+\s+([0-9.]+)\s+[v^]\s+(s\d+)/Y`)
	for _, line := range strings.Split(out, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			at[m[2]], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	a4, ok4 := at["s4"]
	a10, ok10 := at["s10"]
	if !ok4 || !ok10 || a10 <= a4 {
		return 0, fmt.Errorf("cosim: the FO4 chain's timing has no stages 4 and 10:\n%s", tail(out, 30))
	}
	return (a10 - a4) / 6 * l.Spec.UnitNS, nil
}
