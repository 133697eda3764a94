// SPDX-License-Identifier: Apache-2.0

package cosim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"ibreservoir/verilog"
)

// A UserRTL is a switch stage written outside the library: the files of a
// file list, and a top module that implements the stage's port contract
// (verilog.Ports, docs/rtl.md) at one configuration, as the library's
// wrappers (ibr_stage_<name>) do. The testbenches instantiate Top with no
// parameter overrides in place of the library's wrapper, so the top fixes its
// own configuration; Config says which one it is (the vectors and the model
// are that configuration's).
type UserRTL struct {
	FileList string         // the file list, as given
	Top      string         // the top module
	Config   verilog.Config // the configuration Top implements
	Files    []verilog.File // the sources in the list's order (base names; .vlt files are Verilator's alone)
	IncDirs  []string       // +incdir+ and -I directories, absolute
	Defines  []string       // +define+ and -D macros (NAME or NAME=VALUE)
	// headers are the bytes of every file in IncDirs, so a build that
	// includes them is rebuilt when one changes.
	headers [][]byte
	order   []string // the sources' base names, in order
}

// headerExts are the file extensions a file list may name that are included,
// not compiled.
var headerExts = map[string]bool{".svh": true, ".vh": true, ".h": true}

// sourceExts are the extensions of the files a file list compiles.
var sourceExts = map[string]bool{".sv": true, ".v": true, ".vlt": true}

// reservedNames are the files the testbenches add beside the user's.
var reservedNames = map[string]bool{TopModule + ".sv": true, "tb.cpp": true, "ibr_vectors.h": true, ExampleTB: true}

var reModule = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// LoadUserRTL reads a file list (a Verilator and Icarus -f file: one source
// per line or several separated by blanks, // and # comments, +incdir+DIR,
// -I DIR, +define+NAME[=VALUE], -D NAME[=VALUE], and -f/-F FILE nesting
// another list) and the files it names. Relative paths resolve against the
// directory of the list that names them. A missing file, an option it does
// not know, two sources with one base name, or a list with no source is an
// error naming the list's line.
func LoadUserRTL(fileList, top string, c verilog.Config) (*UserRTL, error) {
	if !reModule.MatchString(top) {
		return nil, fmt.Errorf("--top %q: want a module name", top)
	}
	if top == TopModule || top == "ibr_example_tb" {
		return nil, fmt.Errorf("--top %s: that is the testbench's own top; give the stage's", top)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	u := &UserRTL{FileList: fileList, Top: top, Config: c}
	seen := map[string]string{}
	if err := u.readList(fileList, seen, 0); err != nil {
		return nil, err
	}
	if len(u.Files) == 0 {
		return nil, fmt.Errorf("%s names no source file (.sv, .v)", fileList)
	}
	// The testbenches compile copies of the sources side by side, so a
	// source's own directory, where a simulator run in place would look for
	// what it includes, joins the include path after the list's own.
	for _, name := range u.order {
		if err := u.addIncDir(fileList, filepath.Dir(seen[name])); err != nil {
			return nil, err
		}
	}
	for _, d := range u.IncDirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() && headerExts[filepath.Ext(e.Name())] {
				b, err := os.ReadFile(filepath.Join(d, e.Name()))
				if err != nil {
					return nil, err
				}
				u.headers = append(u.headers, b)
			}
		}
	}
	return u, nil
}

func (u *UserRTL) readList(list string, seen map[string]string, depth int) error {
	if depth > 8 {
		return fmt.Errorf("%s: file lists nested more than 8 deep", list)
	}
	data, err := os.ReadFile(list)
	if err != nil {
		return fmt.Errorf("file list: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(list))
	if err != nil {
		return err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		toks := strings.Fields(line)
		where := fmt.Sprintf("%s:%d", list, n)
		for i := 0; i < len(toks); i++ {
			t := toks[i]
			arg := func(opt string) (string, error) {
				if v := strings.TrimPrefix(t, opt); v != "" {
					return v, nil
				}
				if i+1 >= len(toks) {
					return "", fmt.Errorf("%s: %s without its argument", where, opt)
				}
				i++
				return toks[i], nil
			}
			switch {
			case strings.HasPrefix(t, "+incdir+"):
				for _, d := range strings.Split(strings.TrimPrefix(t, "+incdir+"), "+") {
					if d != "" {
						if err := u.addIncDir(where, abs(d)); err != nil {
							return err
						}
					}
				}
			case strings.HasPrefix(t, "+define+"):
				for _, d := range strings.Split(strings.TrimPrefix(t, "+define+"), "+") {
					if d != "" {
						u.Defines = append(u.Defines, d)
					}
				}
			case strings.HasPrefix(t, "-I"):
				d, err := arg("-I")
				if err != nil {
					return err
				}
				if err := u.addIncDir(where, abs(d)); err != nil {
					return err
				}
			case strings.HasPrefix(t, "-D"):
				d, err := arg("-D")
				if err != nil {
					return err
				}
				u.Defines = append(u.Defines, d)
			case t == "-f" || t == "-F":
				f, err := arg(t)
				if err != nil {
					return err
				}
				if err := u.readList(abs(f), seen, depth+1); err != nil {
					return err
				}
			case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
				return fmt.Errorf("%s: option %s is not supported in a stage's file list (give sources, +incdir+, -I, +define+, -D, -f)", where, t)
			default:
				p := abs(t)
				ext := filepath.Ext(p)
				if !sourceExts[ext] && !headerExts[ext] {
					return fmt.Errorf("%s: %s: not a source (.sv, .v, .vlt) or header (.svh, .vh)", where, t)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", where, t, errors.Unwrap(err))
				}
				if headerExts[ext] {
					// A listed header is included, not compiled: its directory
					// joins the include path.
					if err := u.addIncDir(where, filepath.Dir(p)); err != nil {
						return err
					}
					continue
				}
				name := filepath.Base(p)
				if prev, ok := seen[name]; ok {
					return fmt.Errorf("%s: %s and %s share the name %s: the testbenches compile the sources side by side, so give each a distinct name", where, prev, p, name)
				}
				if reservedNames[name] {
					return fmt.Errorf("%s: %s: the testbench's own file is named %s; rename it", where, t, name)
				}
				seen[name] = p
				u.order = append(u.order, name)
				u.Files = append(u.Files, verilog.File{Name: name, Data: b})
			}
		}
	}
	return sc.Err()
}

func (u *UserRTL) addIncDir(where, d string) error {
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: include directory %s does not exist", where, d)
	}
	for _, x := range u.IncDirs {
		if x == d {
			return nil
		}
	}
	u.IncDirs = append(u.IncDirs, d)
	return nil
}

// verilatorArgs are the include and define options of the user's list, for
// Verilator.
func (u *UserRTL) verilatorArgs() []string {
	var a []string
	for _, d := range u.IncDirs {
		a = append(a, "-I"+d)
	}
	for _, d := range u.Defines {
		a = append(a, "+define+"+d)
	}
	return a
}

// icarusArgs are the same for Icarus Verilog.
func (u *UserRTL) icarusArgs() []string {
	var a []string
	for _, d := range u.IncDirs {
		a = append(a, "-I", d)
	}
	for _, d := range u.Defines {
		a = append(a, "-D", d)
	}
	return a
}

// Inputs is what else a build of the user's RTL depends on: the headers
// of its include directories and its defines.
func (u *UserRTL) Inputs() [][]byte {
	in := append([][]byte{[]byte(strings.Join(u.Defines, " ")), []byte(strings.Join(u.IncDirs, " "))}, u.headers...)
	return in
}

// A PortError says how the user's top breaks the port contract, naming the
// port.
type PortError struct {
	Top      string
	Config   string
	Problems []string
}

func (e *PortError) Error() string {
	return fmt.Sprintf("module %s does not implement the stage's port contract for %s (docs/rtl.md, ports):\n  %s",
		e.Top, e.Config, strings.Join(e.Problems, "\n  "))
}

// A declaredPort is a port of the user's top as Verilator elaborated it.
type declaredPort struct {
	Dir   string
	Name  string
	Width int
	Type  string // "" for a plain vector; otherwise the type Verilator gives
}

// CheckPorts elaborates the user's RTL with Verilator (--xml-only, in dir)
// and compares its top's ports with the contract at u.Config: every port of
// verilog.Ports with its direction and width, and no other. The error names
// every missing, extra, misdirected or mis-sized port (a *PortError), or
// says why the RTL did not elaborate.
func (u *UserRTL) CheckPorts(ctx context.Context, dir string) error {
	if _, err := exec.LookPath("verilator"); err != nil {
		return fmt.Errorf("cosim: verilator is not installed (run scripts/setup.sh): %w", err)
	}
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(src); err != nil {
		return err
	}
	if _, err := verilog.Write(src, u.Files); err != nil {
		return err
	}
	out := filepath.Join(dir, "ports.xml")
	args := []string{"--xml-only", "--xml-output", out, "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", u.Top, "-Mdir", filepath.Join(dir, "obj")}
	args = append(args, u.verilatorArgs()...)
	for _, f := range u.Files {
		args = append(args, filepath.Join(src, f.Name))
	}
	var msg bytes.Buffer
	cmd := toolCommand(ctx, "verilator", args...)
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := interrupted(ctx, "verilator", cmd.Run()); err != nil {
		if Interrupted(err) {
			return err
		}
		if strings.Contains(msg.String(), "was not found in design") {
			return fmt.Errorf("%s: no module %s among its sources (--top)", u.FileList, u.Top)
		}
		return fmt.Errorf("%s: the sources do not elaborate with top %s:\n%s", u.FileList, u.Top, tail(msg.String(), 30))
	}
	x, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	got, err := topPortsXML(x)
	if err != nil {
		return fmt.Errorf("%s: %w", u.FileList, err)
	}
	return comparePorts(u.Top, u.Config, got)
}

// comparePorts checks declared ports against the contract at c.
func comparePorts(top string, c verilog.Config, got []declaredPort) error {
	byName := map[string]declaredPort{}
	for _, p := range got {
		byName[p.Name] = p
	}
	var probs []string
	want := map[string]bool{}
	for _, p := range verilog.Ports() {
		want[p.Name] = true
		g, ok := byName[p.Name]
		w := p.Bits(c)
		switch {
		case !ok:
			probs = append(probs, fmt.Sprintf("port %s is missing: want %s", p.Name, p.Decl(c)))
		case g.Type != "":
			probs = append(probs, fmt.Sprintf("port %s is of type %s: want %s", p.Name, g.Type, p.Decl(c)))
		case g.Dir != p.Dir:
			probs = append(probs, fmt.Sprintf("port %s is an %s: want %s", p.Name, g.Dir, p.Decl(c)))
		case g.Width != w:
			probs = append(probs, fmt.Sprintf("port %s is %d bits: want %d (%s)", p.Name, g.Width, w, p.Decl(c)))
		}
	}
	for _, p := range got {
		if !want[p.Name] {
			probs = append(probs, fmt.Sprintf("port %s (%s, %d bits) is not in the contract", p.Name, p.Dir, p.Width))
		}
	}
	if len(probs) > 0 {
		return &PortError{Top: top, Config: c.Name(), Problems: probs}
	}
	return nil
}

// topPortsXML reads the top module's ports from Verilator's --xml-only output.
func topPortsXML(data []byte) ([]declaredPort, error) {
	type xvar struct {
		Name  string `xml:"name,attr"`
		Dir   string `xml:"dir,attr"`
		DType string `xml:"dtype_id,attr"`
	}
	type xmodule struct {
		Name string `xml:"name,attr"`
		Top  string `xml:"topModule,attr"`
		Vars []xvar `xml:"var"`
	}
	type xdtype struct {
		XMLName xml.Name
		ID      string `xml:"id,attr"`
		Name    string `xml:"name,attr"`
		Left    string `xml:"left,attr"`
		Right   string `xml:"right,attr"`
	}
	var doc struct {
		Netlist struct {
			Modules   []xmodule `xml:"module"`
			TypeTable struct {
				Types []xdtype `xml:",any"`
			} `xml:"typetable"`
		} `xml:"netlist"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading Verilator's XML: %w", err)
	}
	types := map[string]xdtype{}
	for _, t := range doc.Netlist.TypeTable.Types {
		types[t.ID] = t
	}
	for _, m := range doc.Netlist.Modules {
		if m.Top != "1" {
			continue
		}
		var ps []declaredPort
		for _, v := range m.Vars {
			if v.Dir == "" {
				continue
			}
			p := declaredPort{Dir: v.Dir, Name: v.Name, Width: 1}
			t := types[v.DType]
			switch {
			case t.XMLName.Local != "basicdtype" || (t.Name != "logic" && t.Name != "bit" && t.Name != "wire"):
				p.Type = t.XMLName.Local + " " + t.Name
			case t.Left != "":
				l, err1 := strconv.Atoi(t.Left)
				r, err2 := strconv.Atoi(t.Right)
				if err1 != nil || err2 != nil || r != 0 || l < 0 {
					p.Type = fmt.Sprintf("%s [%s:%s]", t.Name, t.Left, t.Right)
				}
				p.Width = l + 1
			}
			ps = append(ps, p)
		}
		return ps, nil
	}
	return nil, errors.New("Verilator's XML has no top module")
}
