// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"ibreservoir/hash"
	"ibreservoir/rng"
)

// The names of the flags this package binds, for commands that name them in
// messages.
const (
	FlagFormat    = "format"
	FlagHash      = "hash"
	FlagID        = "id"
	FlagLink      = "link"
	FlagGenerator = "generator"
)

// ---- integers

// intValue is an int flag accepting lo..hi; unset, when not nil, is a value
// that means "not given" and is shown as no default.
type intValue struct {
	p      *int64
	lo, hi int64
	unset  *int64
	bits   int // 64 for int64 flags, strconv.IntSize for int flags
	set    func(int64)
}

func (v *intValue) String() string {
	if v.unset != nil && *v.p == *v.unset {
		return ""
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v *intValue) Type() string { return "int" }

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, v.bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return fmt.Errorf("%s is out of range: %s", s, rangeText(v.lo, v.hi))
		}
		return fmt.Errorf("%q is not an integer: %s", s, rangeText(v.lo, v.hi))
	}
	if n < v.lo || n > v.hi {
		return fmt.Errorf("%d is out of range: %s", n, rangeText(v.lo, v.hi))
	}
	*v.p = n
	if v.set != nil {
		v.set(n)
	}
	return nil
}

func rangeText(lo, hi int64) string {
	switch {
	case hi == math.MaxInt64 || hi == math.MaxInt:
		return fmt.Sprintf("want %d or more", lo)
	default:
		return fmt.Sprintf("want %d..%d", lo, hi)
	}
}

// IntVar binds an int flag that accepts lo..hi (use math.MaxInt for no upper
// bound); the value in *p is the default.
func IntVar(fs *pflag.FlagSet, p *int, name string, lo, hi int, usage string) *pflag.Flag {
	return intVar(fs, p, name, lo, hi, nil, usage)
}

// OptionalIntVar is IntVar for a flag whose value unset (outside lo..hi)
// means "not given": the help shows no default for it, and the usage should
// say what happens then.
func OptionalIntVar(fs *pflag.FlagSet, p *int, name string, unset, lo, hi int, usage string) *pflag.Flag {
	*p = unset
	u := int64(unset)
	return intVar(fs, p, name, lo, hi, &u, usage)
}

func intVar(fs *pflag.FlagSet, p *int, name string, lo, hi int, unset *int64, usage string) *pflag.Flag {
	n := int64(*p)
	v := &intValue{p: &n, lo: int64(lo), hi: int64(hi), unset: unset, bits: strconv.IntSize, set: func(x int64) { *p = int(x) }}
	fs.Var(v, name, usage)
	return fs.Lookup(name)
}

// Int64Var binds an int64 flag that accepts lo..hi.
func Int64Var(fs *pflag.FlagSet, p *int64, name string, lo, hi int64, usage string) *pflag.Flag {
	fs.Var(&intValue{p: p, lo: lo, hi: hi, bits: 64}, name, usage)
	return fs.Lookup(name)
}

// ---- floating point

// A Range is an interval of finite floats: Lo < x < Hi, with either end
// closed when LoClosed or HiClosed is set.
type Range struct {
	Lo, Hi             float64
	LoClosed, HiClosed bool
}

// Contains reports whether x is a finite number within r.
func (r Range) Contains(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	lo := x > r.Lo || r.LoClosed && x == r.Lo
	hi := x < r.Hi || r.HiClosed && x == r.Hi
	return lo && hi
}

func (r Range) String() string {
	lo, hi := "<", "<"
	if r.LoClosed {
		lo = "<="
	}
	if r.HiClosed {
		hi = "<="
	}
	return fmt.Sprintf("%s %s x %s %s", Float(r.Lo), lo, hi, Float(r.Hi))
}

type floatValue struct {
	p *float64
	r Range
}

func (v *floatValue) String() string { return Float(*v.p) }
func (v *floatValue) Type() string   { return "float" }
func (v *floatValue) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && !math.IsInf(x, 0) {
		return fmt.Errorf("%q is not a number: want %s", s, v.r)
	}
	if !v.r.Contains(x) {
		return fmt.Errorf("%s is out of range: want a finite %s", s, v.r)
	}
	*v.p = x
	return nil
}

// FloatVar binds a float64 flag that accepts finite values within r (never
// NaN or an infinity).
func FloatVar(fs *pflag.FlagSet, p *float64, name string, r Range, usage string) *pflag.Flag {
	fs.Var(&floatValue{p, r}, name, usage)
	return fs.Lookup(name)
}

// Float writes x in the shortest form that reads back as the same float64:
// every digit a figure needs to be reproduced, and no more.
func Float(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ---- enumerations

// enumValue is a string flag taking one of a fixed set of words.
type enumValue struct {
	p       *string
	allowed []string
}

func (v *enumValue) String() string     { return *v.p }
func (v *enumValue) Type() string       { return "string" }
func (v *enumValue) Allowed() []string  { return v.allowed }
func (v *enumValue) Set(s string) error { return setEnum(v.p, s, v.allowed) }

func setEnum(p *string, s string, allowed []string) error {
	if !slices.Contains(allowed, s) {
		return fmt.Errorf("%q: want %s", s, orList(allowed))
	}
	*p = s
	return nil
}

// EnumVar binds a string flag that takes one of allowed.
func EnumVar(fs *pflag.FlagSet, p *string, name string, allowed []string, usage string) *pflag.Flag {
	fs.Var(&enumValue{p, allowed}, name, usage)
	return fs.Lookup(name)
}

type checkedValue struct {
	p     *string
	typ   string
	check func(string) error
}

func (v *checkedValue) String() string { return *v.p }
func (v *checkedValue) Type() string   { return v.typ }
func (v *checkedValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

// CheckedStringVar binds a string flag whose value check accepts when the
// flag is parsed (a congestion definition, a generator name), so a bad value
// is a usage error before the command starts; typ names the value in the
// help.
func CheckedStringVar(fs *pflag.FlagSet, p *string, name, typ string, check func(string) error, usage string) *pflag.Flag {
	fs.Var(&checkedValue{p, typ, check}, name, usage)
	return fs.Lookup(name)
}

// orList writes "a, b or c".
func orList(ws []string) string {
	switch len(ws) {
	case 0:
		return "nothing"
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// A Format is what a command prints on standard output.
type Format string

// The output formats. Text is for reading; Markdown is for pasting into a
// document (a specification, a review); JSON is for programs and carries every
// figure at full precision.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

type formatValue struct {
	p       *Format
	allowed []string
}

func (v *formatValue) String() string    { return string(*v.p) }
func (v *formatValue) Type() string      { return "format" }
func (v *formatValue) Allowed() []string { return v.allowed }
func (v *formatValue) Set(s string) error {
	var t string
	if err := setEnum(&t, s, v.allowed); err != nil {
		return err
	}
	*v.p = Format(t)
	return nil
}

// FormatVar binds --format, taking one of allowed (text, markdown and json
// when none are given); the default is *p, or text when *p is empty.
func FormatVar(fs *pflag.FlagSet, p *Format, allowed ...Format) *pflag.Flag {
	if len(allowed) == 0 {
		allowed = []Format{Text, Markdown, JSON}
	}
	if *p == "" {
		*p = Text
	}
	var names []string
	for _, f := range allowed {
		names = append(names, string(f))
	}
	fs.Var(&formatValue{p, names}, FlagFormat, "what to print on standard output: "+orList(names))
	return fs.Lookup(FlagFormat)
}

// ---- the model's kinds

// kindValue is a flag taking one of a fixed set of named values of a type
// with a parser (a hash, a packet-id option, a link encoding).
type kindValue[T fmt.Stringer] struct {
	p     *T
	typ   string
	parse func(string) (T, error)
	all   []T
}

func (v kindValue[T]) String() string { return (*v.p).String() }
func (v kindValue[T]) Type() string   { return v.typ }
func (v kindValue[T]) Allowed() []string {
	var ns []string
	for _, x := range v.all {
		ns = append(ns, x.String())
	}
	return ns
}
func (v kindValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

func kindVar[T fmt.Stringer](fs *pflag.FlagSet, v kindValue[T], name, usage string) *pflag.Flag {
	fs.Var(v, name, usage)
	return fs.Lookup(name)
}

// HashNames lists the hashes of thesis section 5.4 by their flag names.
func HashNames() []string { return kindValue[hash.Kind]{all: hash.Kinds()}.Allowed() }

// HashUsage is the help text of a --hash flag.
func HashUsage() string {
	return "hash H(id, d) of thesis section 5.4: " + orList(HashNames())
}

// HashVar binds --hash writing a hash function (a model configuration's).
func HashVar(fs *pflag.FlagSet, p *hash.Func) *pflag.Flag {
	var all []hash.Func
	for _, k := range hash.Kinds() {
		all = append(all, hash.New(k))
	}
	parse := func(s string) (hash.Func, error) {
		k, err := hash.ParseKind(s)
		if err != nil {
			return hash.Func{}, err
		}
		return hash.NewKeyed(k, p.Key()), nil // a SipHash key given before the hash stays
	}
	return kindVar(fs, kindValue[hash.Func]{p, "hash", parse, all}, FlagHash, HashUsage())
}

// HashKindVar binds --hash writing a hash kind.
func HashKindVar(fs *pflag.FlagSet, p *hash.Kind) *pflag.Flag {
	return kindVar(fs, kindValue[hash.Kind]{p, "hash", hash.ParseKind, hash.Kinds()}, FlagHash, HashUsage())
}

// IDVar binds --id, the packet id that is H's first argument.
func IDVar(fs *pflag.FlagSet, p *hash.IDOption) *pflag.Flag {
	v := kindValue[hash.IDOption]{p, "id", hash.ParseIDOption, hash.IDOptions()}
	return kindVar(fs, v, FlagID, "packet id, the first argument of H: "+orList(v.Allowed()))
}

// LinkVar binds --link, the link encoding d(switch, port).
func LinkVar(fs *pflag.FlagSet, p *hash.LinkEncoding) *pflag.Flag {
	v := kindValue[hash.LinkEncoding]{p, "encoding", hash.ParseLinkEncoding, hash.LinkEncodings()}
	return kindVar(fs, v, FlagLink, "link encoding d of (switch, port): "+orList(v.Allowed())+" (thesis: switch*2^15 + port*2^9 + 509)")
}

// CheckGenerator says whether name is a generator name of package rng. Its
// parameters are checked against the longest path later, by the configuration
// that uses it (a 3-bit LFSR serves paths of up to 7 hops).
func CheckGenerator(name string) error {
	_, err := rng.New(name, 1, 1)
	return err
}

// GeneratorUsage is the help text of a --generator flag.
const GeneratorUsage = "switch random generator of thesis section 5.9: " + rng.Syntax

// GeneratorVar binds --generator, a generator name of package rng, with the
// given help text (GeneratorUsage, or narrower where a command takes fewer).
func GeneratorVar(fs *pflag.FlagSet, p *string, usage string) *pflag.Flag {
	return CheckedStringVar(fs, p, FlagGenerator, "generator", CheckGenerator, usage)
}

// ---- percentages

// percentValue is a percentage written with its sign ("14%"; a bare 0, which
// means never in any unit, is accepted too). With oneInN, *p holds N of "one
// in N" (0: never), the nearest to the percentage, for a testbench that
// paces by counting.
type percentValue struct {
	p      *int
	max    int
	oneInN bool
}

func (v *percentValue) percent() int {
	if v.oneInN && *v.p > 0 {
		return int(math.Round(100 / float64(*v.p)))
	}
	return *v.p
}

func (v *percentValue) String() string { return strconv.Itoa(v.percent()) + "%" }
func (v *percentValue) Type() string   { return "percent" }
func (v *percentValue) Set(s string) error {
	num, sign := strings.CutSuffix(strings.TrimSpace(s), "%")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a percentage: want 0%%..%d%%", s, v.max)
	case !sign && n != 0:
		hint := ""
		if n > 0 {
			hint = fmt.Sprintf(" (one in %d is %d%%)", n, int(math.Round(100/float64(n))))
		}
		return fmt.Errorf("%q has no unit: write the percentage with its sign, %d%%%s", s, n, hint)
	case n < 0 || n > v.max:
		return fmt.Errorf("%d%% is out of range: want 0%%..%d%%", n, v.max)
	}
	if v.oneInN && n > 0 {
		n = int(math.Round(100 / float64(n)))
	}
	*v.p = n
	return nil
}

// PercentVar binds a flag taking a percentage 0%..max% into *p (whose value
// is the default, a percentage).
func PercentVar(fs *pflag.FlagSet, p *int, name string, max int, usage string) *pflag.Flag {
	fs.Var(&percentValue{p: p, max: max}, name, usage)
	return fs.Lookup(name)
}

// OneInNPercentVar binds a flag taking a percentage 0%..max% into *p as N of
// "one in N", the nearest (14% is one in 7; 0% is 0, never); the default is
// *p, an N.
func OneInNPercentVar(fs *pflag.FlagSet, p *int, name string, max int, usage string) *pflag.Flag {
	fs.Var(&percentValue{p: p, max: max, oneInN: true}, name, usage)
	return fs.Lookup(name)
}
