// SPDX-License-Identifier: Apache-2.0

// Package lfsr holds maximal-length linear feedback shift registers of every
// width from 3 to 32 bits, in Fibonacci and Galois form: the "normal linear
// feedback shift register" of the random-number circuit of thesis section 5.9
// (Figure 5.7), modelled bit for bit so the RTL can be checked against it.
//
// # Polynomials
//
// Width n uses the characteristic polynomial
//
//	p(x) = x^n + x^t2 + ... + x^tk + 1
//
// whose exponents n, t2, ..., tk are the taps of Table 3 of P. Alfke, "Efficient
// Shift Registers, LFSR Counters, and Long Pseudo-Random Sequence Generators",
// Xilinx application note XAPP052 (v1.1, July 7, 1996). The tests prove every
// one primitive (so the register visits all 2^n - 1 non-zero states): x has
// multiplicative order exactly 2^n - 1 modulo p, checked by
// x^(2^n-1) = 1 and x^((2^n-1)/q) != 1 for every prime q dividing 2^n - 1,
// and, for the widths where it is quick, by stepping through the whole period.
// XAPP052 numbers stages from 1 and feeds back XNOR; its taps read as the
// polynomial above or as its reciprocal x^n p(1/x), and both are primitive
// when either is, so the table is used as printed.
//
// # The two forms
//
// Write p(x) = x^n + c(n-1) x^(n-1) + ... + c1 x + c0 (c0 = 1). Both registers
// hold n bits, never all zero, and emit one bit per step.
//
// Fibonacci (many-to-one: one XOR tree into one stage), state s with bit i
// holding the output i steps ahead:
//
//	out = s & 1
//	s   = s>>1 | parity(s & FibMask) << (n-1)      FibMask = c(n-1)..c0
//
// so the output sequence a obeys a(k+n) = sum c(i) a(k+i): its
// characteristic polynomial is p.
//
// Galois (one-to-many: the output XORs into several stages), state s read as
// the polynomial s(x) = sum s_i x^i, multiplied by x modulo p at each step:
//
//	out = s >> (n-1) & 1
//	s   = s<<1 & (2^n-1), then ^= GaloisMask if out  GaloisMask = c(n-1)..c0
//
// Its output is the coefficient of x^(n-1) of x^k s(x) mod p, a linear
// function of x^k s(x), so it obeys the same recurrence: both forms emit the
// same sequences. Precisely (TestFibonacciGaloisRelation): a Fibonacci
// register loaded with the next n output bits of a Galois register (bit i =
// output i) emits the Galois register's output stream forever. The map from
// Galois state to that Fibonacci state (Galois.FibonacciState) is linear and
// one-to-one. The states differ: the integers the two registers hold, step by
// step, are different sequences.
package lfsr

import (
	"fmt"
	"math/bits"
)

// MinWidth and MaxWidth bound the widths with a tap table entry.
const (
	MinWidth = 3
	MaxWidth = 32
)

// taps is XAPP052 Table 3, widths 3 to 32: the exponents of p(x) other than
// the constant term, highest first.
var taps = [MaxWidth + 1][]int{
	3:  {3, 2},
	4:  {4, 3},
	5:  {5, 3},
	6:  {6, 5},
	7:  {7, 6},
	8:  {8, 6, 5, 4},
	9:  {9, 5},
	10: {10, 7},
	11: {11, 9},
	12: {12, 6, 4, 1},
	13: {13, 4, 3, 1},
	14: {14, 5, 3, 1},
	15: {15, 14},
	16: {16, 15, 13, 4},
	17: {17, 14},
	18: {18, 11},
	19: {19, 6, 2, 1},
	20: {20, 17},
	21: {21, 19},
	22: {22, 21},
	23: {23, 18},
	24: {24, 23, 22, 17},
	25: {25, 22},
	26: {26, 6, 2, 1},
	27: {27, 5, 2, 1},
	28: {28, 25},
	29: {29, 27},
	30: {30, 6, 4, 1},
	31: {31, 28},
	32: {32, 22, 2, 1},
}

func checkWidth(n int) error {
	if n < MinWidth || n > MaxWidth {
		return fmt.Errorf("lfsr: width %d outside %d..%d", n, MinWidth, MaxWidth)
	}
	return nil
}

// Taps returns the XAPP052 taps of width n, highest first (the first is n).
func Taps(n int) ([]int, error) {
	if err := checkWidth(n); err != nil {
		return nil, err
	}
	return append([]int(nil), taps[n]...), nil
}

// Poly returns p(x) for width n as a bit mask: bit i is the coefficient of
// x^i, bits 0 and n set.
func Poly(n int) (uint64, error) {
	if err := checkWidth(n); err != nil {
		return 0, err
	}
	p := uint64(1)
	for _, t := range taps[n] {
		p |= 1 << t
	}
	return p, nil
}

// Period is the period of a maximal-length register of width n, 2^n - 1.
func Period(n int) uint64 { return 1<<n - 1 }

// feedback returns c(n-1)..c0, the tap mask both forms use.
func feedback(n int) uint32 {
	p, _ := Poly(n)
	return uint32(p & (1<<n - 1))
}

func checkState(form string, n int, s uint32) error {
	if s == 0 {
		return fmt.Errorf("lfsr: %s width %d: the all-zero state never changes; the register holds a non-zero state", form, n)
	}
	if n < 32 && s>>n != 0 {
		return fmt.Errorf("lfsr: %s width %d: state %#x has bits at or above bit %d", form, n, s, n)
	}
	return nil
}

// Fibonacci is the many-to-one register: shift right, feedback into bit n-1.
type Fibonacci struct {
	n    int
	mask uint32
	s    uint32
}

// NewFibonacci returns the width-n Fibonacci register in state s (non-zero,
// below 2^n).
func NewFibonacci(n int, s uint32) (*Fibonacci, error) {
	if err := checkWidth(n); err != nil {
		return nil, err
	}
	l := &Fibonacci{n: n, mask: feedback(n)}
	return l, l.SetState(s)
}

// Width returns n.
func (l *Fibonacci) Width() int { return l.n }

// Mask returns the feedback mask c(n-1)..c0.
func (l *Fibonacci) Mask() uint32 { return l.mask }

// State returns the register.
func (l *Fibonacci) State() uint32 { return l.s }

// SetState loads the register, refusing zero and values wider than n bits.
func (l *Fibonacci) SetState(s uint32) error {
	if err := checkState("Fibonacci", l.n, s); err != nil {
		return err
	}
	l.s = s
	return nil
}

// Step emits bit 0 and shifts right, the parity of the tapped bits entering
// at bit n-1.
func (l *Fibonacci) Step() uint32 {
	out := l.s & 1
	fb := uint32(bits.OnesCount32(l.s&l.mask) & 1)
	l.s = l.s>>1 | fb<<(l.n-1)
	return out
}

// Galois is the one-to-many register: multiply by x modulo p.
type Galois struct {
	n    int
	mask uint32
	s    uint32
}

// NewGalois returns the width-n Galois register in state s (non-zero, below
// 2^n).
func NewGalois(n int, s uint32) (*Galois, error) {
	if err := checkWidth(n); err != nil {
		return nil, err
	}
	l := &Galois{n: n, mask: feedback(n)}
	return l, l.SetState(s)
}

// Width returns n.
func (l *Galois) Width() int { return l.n }

// Mask returns the mask XORed in when the output is 1, c(n-1)..c0.
func (l *Galois) Mask() uint32 { return l.mask }

// State returns the register.
func (l *Galois) State() uint32 { return l.s }

// SetState loads the register, refusing zero and values wider than n bits.
func (l *Galois) SetState(s uint32) error {
	if err := checkState("Galois", l.n, s); err != nil {
		return err
	}
	l.s = s
	return nil
}

// Step emits bit n-1 and multiplies the state by x modulo p.
func (l *Galois) Step() uint32 {
	out := l.s >> (l.n - 1) & 1
	l.s <<= 1
	if l.n < 32 {
		l.s &= 1<<l.n - 1
	}
	l.s ^= -out & l.mask
	return out
}

// FibonacciState returns the state of the Fibonacci register that emits the
// same stream as l from now on: the next n outputs of l, output i in bit i.
// l is not advanced.
func (l *Galois) FibonacciState() uint32 {
	c := *l
	var s uint32
	for i := range l.n {
		s |= c.Step() << i
	}
	return s
}
