package cosim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ibreservoir/verilog"
)

// SynthStats is what Yosys's generic synthesis (`synth -flatten`, to Yosys's
// internal gate library, no technology mapping) makes of one configuration.
type SynthStats struct {
	Config    string         `json:"config"`
	Cells     int            `json:"cells"`
	FlipFlops int            `json:"flip_flops"`
	ByType    map[string]int `json:"by_type"`
	Warnings  []string       `json:"warnings,omitempty"`
	Time      time.Duration  `json:"-"`
}

// Synthesize runs Yosys on configuration c in dir and returns its cell and
// flip-flop counts. Any Yosys warning is returned in Warnings (a clean run
// has none); an error is a run that failed.
func Synthesize(ctx context.Context, dir string, c verilog.Config) (*SynthStats, error) {
	if _, err := exec.LookPath("yosys"); err != nil {
		return nil, fmt.Errorf("cosim: yosys is not installed (run scripts/setup.sh): %w", err)
	}
	files, err := verilog.Files(c)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths, err := verilog.Write(dir, files)
	if err != nil {
		return nil, err
	}
	var srcs []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".sv") {
			srcs = append(srcs, p)
		}
	}
	statFile := filepath.Join(dir, "stat.json")
	script := fmt.Sprintf("read_verilog -sv -DSYNTHESIS %s; synth -flatten -top %s; tee -q -o %s stat -json",
		strings.Join(srcs, " "), c.Module(), statFile)
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, "yosys", "-q", "-p", script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cosim: yosys synthesis of %s failed: %w\n%s", c.Module(), err, tail(out.String(), 40))
	}
	s := &SynthStats{Config: c.Name(), Time: time.Since(t0), ByType: map[string]int{}}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Warning:") {
			s.Warnings = append(s.Warnings, strings.TrimSpace(l))
		}
	}
	b, err := os.ReadFile(statFile)
	if err != nil {
		return nil, fmt.Errorf("cosim: yosys wrote no statistics for %s: %w", c.Module(), err)
	}
	var st struct {
		Modules map[string]struct {
			NumCells       int            `json:"num_cells"`
			NumCellsByType map[string]int `json:"num_cells_by_type"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("cosim: yosys statistics of %s: %w", c.Module(), err)
	}
	m, ok := st.Modules["\\"+c.Module()]
	if !ok {
		var names []string
		for n := range st.Modules {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("cosim: yosys statistics of %s name no module %s (have %v)", c.Module(), c.Module(), names)
	}
	s.Cells = m.NumCells
	for t, n := range m.NumCellsByType {
		s.ByType[t] = n
		if isFlipFlop(t) {
			s.FlipFlops += n
		}
	}
	return s, nil
}

// isFlipFlop reports whether a Yosys internal cell type is a flip-flop
// ($_DFF_*, $_DFFE_*, $_SDFF*, $_SDFFE*, $_ALDFF*, $_DFFSR*, ...).
func isFlipFlop(t string) bool {
	for _, p := range []string{"$_DFF", "$_SDFF", "$_ALDFF", "$_DFFSR", "$_DLATCH", "$_SR_"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
