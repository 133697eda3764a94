// SPDX-License-Identifier: Apache-2.0

package rng

import (
	"fmt"
	"math/big"
	"math/bits"
)

// Sender-generated draws (the last paragraph of thesis section 5.9,
// docs/spec.md section 4): the switches keep no random state. The sender NIC
// fills an L+1 bit field in the packet,
//
//	b0 b1 ... b(L-1) 1          most significant bit first
//
// with P(bi = 0) = 1/(i+1), each bi drawn in order i = 0..L-1 from the NIC's
// own generator (bi = 0 exactly when Draw(i+1) is true; b0 is always 0). The
// switch at hop h (h = 1, 2, ...) reads the leading bit as its draw for
// l = h, then shifts the field left by one, dropping that bit and shifting in
// a 0. After j hops the field is b(j) .. b(L-1) 1 0^j, so the receiver reads
// the hop count as the number of trailing zeros. When only the sentinel is
// left (1 0^L, after L hops) the draws are spent: the answer is "not zero" and
// the field stays as it is, so the hop count saturates at L. A field of 0 has
// lost its sentinel and is malformed.
//
// As a field is an unsigned integer of L+1 <= 64 bits, L is at most
// MaxSenderL.

// MaxSenderL is the largest L a uint64 field holds.
const MaxSenderL = 63

func checkSenderL(l int) error {
	if l < 1 || l > MaxSenderL {
		return fmt.Errorf("sender draws: L = %d outside 1..%d", l, MaxSenderL)
	}
	return nil
}

func checkField(field uint64, l int) error {
	if err := checkSenderL(l); err != nil {
		return err
	}
	if field == 0 {
		return fmt.Errorf("sender draws: field is 0: its sentinel bit is gone, so it is malformed")
	}
	if field>>(l+1) != 0 {
		return fmt.Errorf("sender draws: field %#x is wider than L+1 = %d bits", field, l+1)
	}
	return nil
}

// Fill returns a fresh field of L+1 bits drawn from gen (which must serve
// l up to L): bit L-i is bi, 0 when gen.Draw(i+1) is true; bit 0 is the
// sentinel.
func Fill(L int, gen Generator) (uint64, error) {
	if err := checkSenderL(L); err != nil {
		return 0, err
	}
	if gen.MaxL() < L {
		return 0, fmt.Errorf("sender draws: generator %s serves l up to %d, the field needs %d", gen.Name(), gen.MaxL(), L)
	}
	field := uint64(1)
	for i := range L {
		if !gen.Draw(i + 1) {
			field |= 1 << (L - i)
		}
	}
	return field, nil
}

// Consume is one switch's draw: zero reports whether the leading bit is 0,
// and next is the field shifted left by one within its L+1 bits. A spent field
// (only the sentinel left) answers false and is returned unchanged.
func Consume(field uint64, L int) (zero bool, next uint64, err error) {
	if err := checkField(field, L); err != nil {
		return false, 0, err
	}
	if field == 1<<L {
		return false, field, nil
	}
	return field>>L&1 == 0, field << 1 & (1<<(L+1) - 1), nil
}

// Hops returns the hop count the receiver reads: the number of trailing
// zeros, L when the field is spent.
func Hops(field uint64, L int) (int, error) {
	if err := checkField(field, L); err != nil {
		return 0, err
	}
	return bits.TrailingZeros64(field), nil
}

// SenderP0 is the exact probability that the switch at hop h (1-based) of a
// path draws 0 from a field of L+1 bits filled by an exact generator: 1/h for
// h <= L, and 0 beyond, where the field is spent.
func SenderP0(h, L int) *big.Rat {
	if h < 1 {
		panic(fmt.Sprintf("rng: SenderP0 hop %d; hops count from 1", h))
	}
	if h > L {
		return new(big.Rat)
	}
	return big.NewRat(1, int64(h))
}

// Sender presents sender-generated draws as a Generator, for the tests that
// treat every generator alike: it models the packets reaching one switch
// port. Its state is the NIC's ideal generator and the field of the packet
// last seen. Draw(l) asks about a packet that has crossed l-1 hops: if the
// field in hand has (its trailing zeros equal l-1), that packet continues;
// otherwise the NIC sends a new packet (Fill), which crosses l-1 hops first
// (Consume l-1 times). Either way the answer is the field's leading bit, 0
// with probability exactly 1/l; a path driven hop by hop (l = 1, 2, 3, ...)
// reads one packet's bits in order, as the switches of that path would.
//
// Whole state: bits 0..127 the NIC's xoshiro128** (as Ideal.State), bits
// 128..128+L the field. MaxL is L.
type Sender struct {
	nic   *Ideal
	l     int
	field uint64
}

// NewSender returns sender draws of L = maxL bits from a NIC generator
// seeded with seed; the field starts spent, so the first draw fills one.
func NewSender(seed uint64, maxL int) (*Sender, error) {
	if err := checkSenderL(maxL); err != nil {
		return nil, err
	}
	return &Sender{nic: NewIdeal(seed, maxL), l: maxL, field: 1 << maxL}, nil
}

func (g *Sender) Name() string   { return "sender" }
func (g *Sender) MaxL() int      { return g.l }
func (g *Sender) StateBits() int { return 128 + g.l + 1 }

// Field returns the field in hand.
func (g *Sender) Field() uint64 { return g.field }

func (g *Sender) Draw(l int) bool {
	checkL(g, l)
	if bits.TrailingZeros64(g.field) != l-1 {
		g.field, _ = Fill(g.l, g.nic)
		for range l - 1 {
			_, g.field, _ = Consume(g.field, g.l)
		}
	}
	z, next, _ := Consume(g.field, g.l)
	g.field = next
	return z
}

func (g *Sender) State() State {
	s := g.nic.State()
	return State{s[0], s[1], g.field}
}

func (g *Sender) SetState(st State) error {
	if len(st) != 3 {
		return fmt.Errorf("sender: state is %d words, want 3 (128 NIC bits, then the %d-bit field)", len(st), g.l+1)
	}
	if err := checkField(st[2], g.l); err != nil {
		return fmt.Errorf("sender: %w", err)
	}
	nic := g.nic.Clone().(*Ideal)
	if err := nic.SetState(st[:2]); err != nil {
		return fmt.Errorf("sender: NIC generator: %w", err)
	}
	g.nic, g.field = nic, st[2]
	return nil
}

func (g *Sender) Clone() Generator {
	c := *g
	c.nic = g.nic.Clone().(*Ideal)
	return &c
}

// P0 is exactly 1/l: the leading bit at hop l was drawn 0 with probability
// 1/l by the NIC's exact generator.
func (g *Sender) P0(l int) *big.Rat {
	checkL(g, l)
	return big.NewRat(1, int64(l))
}
