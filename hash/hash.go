// SPDX-License-Identifier: Apache-2.0

// Package hash holds the one-bit hashes H(id, d) of thesis section 5.4, the
// packet-id choices and the link-identifier encodings they are applied to.
//
// Every hash here is frozen: its definition is part of the project's output
// format, and golden tests pin it. All arithmetic is on uint32, mod 2^32.
//
//	parity      (id & d) & 1                       Bond and McKinley's control: biased, dependent
//	parity-xor  (id ^ d) & 1                       the XOR they may have meant: balanced, dependent
//	single      bit31(id*d)                        Bond and McKinley
//	double      bit31(id*d*d)                      Bond and McKinley
//	mult0       bit31(1846571429*id*d)             the thesis's proposal
//	crc32       bit0 of CRC-32 (ICRC parameters) over the 4 bytes of id*d, little-endian
//	crc16       bit0 of CRC-16 (VCRC parameters) over the 4 bytes of id*d, little-endian
//	siphash     bit0 of SipHash-2-4 under a 128-bit key over LE(id) || LE(d)
//	mxm         h = 1846571429*d*id; h ^= h>>16; bit31(h*0x9E3779B1)
//
// bit31(x) is x>>31; bit0 of a CRC is the least-significant bit of the CRC
// value as the standard reflected algorithm returns it (after the final XOR).
//
// All but siphash and mxm are, with one argument fixed, the parity of a fixed mask of
// the bits of a quadratic polynomial in the other, plus a constant: see Form.
// For the CRC candidates this is because a CRC of fixed-length input is affine
// over GF(2) in the input bits, so bit0 of the CRC of the product id*d is the
// parity of a fixed mask of the product's bits (crc32Form, crc16Form).
package hash

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/dchest/siphash"

	"ibreservoir/header"
)

// Mult0Const is the random 31-bit prime of Hmult0 (thesis section 5.4).
const Mult0Const = 1846571429

// Kind selects a hash function.
type Kind uint8

const (
	Parity Kind = iota
	ParityXor
	SingleMult
	DoubleMult
	Mult0
	CRC32
	CRC16
	SipHash
	MXM
	numKinds
)

var kindNames = [numKinds]string{
	Parity: "parity", ParityXor: "parity-xor", SingleMult: "single", DoubleMult: "double",
	Mult0: "mult0", CRC32: "crc32", CRC16: "crc16", SipHash: "siphash", MXM: "mxm",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Kinds lists every hash, in the order reports use.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// ParseKind accepts the names String returns.
func ParseKind(name string) (Kind, error) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown hash %q (want one of %v)", name, kindNames)
}

// DefaultKey is the SipHash key used unless one is given: the bytes 0x00..0x0F,
// the key of the SipHash paper's test vectors.
var DefaultKey = [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// A Func is a configured hash: a Kind, and a key for SipHash.
type Func struct {
	Kind   Kind
	k0, k1 uint64 // SipHash key halves
}

// New returns the hash of the given kind. SipHash uses DefaultKey.
func New(k Kind) Func { return NewKeyed(k, DefaultKey) }

// NewKeyed returns the hash of the given kind with a SipHash key; the key is
// ignored by the other kinds.
func NewKeyed(k Kind, key [16]byte) Func {
	return Func{Kind: k, k0: binary.LittleEndian.Uint64(key[:8]), k1: binary.LittleEndian.Uint64(key[8:])}
}

func (f Func) String() string { return f.Kind.String() }

// Key returns the SipHash key.
func (f Func) Key() [16]byte {
	var k [16]byte
	binary.LittleEndian.PutUint64(k[:8], f.k0)
	binary.LittleEndian.PutUint64(k[8:], f.k1)
	return k
}

// Bit returns H(id, d), 0 or 1. It is the reference definition; every fast
// path is checked against it.
func (f Func) Bit(id, d uint32) uint32 {
	switch f.Kind {
	case Parity:
		return id & d & 1
	case ParityXor:
		return (id ^ d) & 1
	case SingleMult:
		return id * d >> 31
	case DoubleMult:
		return id * d * d >> 31
	case Mult0:
		return Mult0Const * id * d >> 31
	case CRC32:
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], id*d)
		return header.CRC32(b[:]) & 1
	case CRC16:
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], id*d)
		return uint32(header.CRC16(b[:])) & 1
	case SipHash:
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], id)
		binary.LittleEndian.PutUint32(b[4:], d)
		return uint32(siphash.Hash(f.k0, f.k1, b[:])) & 1
	case MXM:
		return mxm(Mult0Const*d, id)
	}
	panic(fmt.Sprintf("hash: unknown kind %d", f.Kind))
}

// Form is the affine-quadratic shape of a hash with one argument fixed:
//
//	h(x) = parity((A*x*x + B*x) & Mask) ^ C     (all mod 2^32)
//
// bit31(y) is parity(y & 1<<31), so the multiplicative hashes have this shape
// with Mask = 1<<31; the parity hashes and the CRC candidates have it with
// A = 0. The fast kernels evaluate Forms; Func.Bit is their oracle.
type Form struct {
	A, B, Mask, C uint32
}

// Eval returns h(x).
func (p Form) Eval(x uint32) uint32 {
	return uint32(bits.OnesCount32((p.A*x*x+p.B*x)&p.Mask)&1) ^ p.C
}

// crcForm holds Mask and C of bit0(CRC(LE(y))) = parity(y & Mask) ^ C,
// derived from the CRC itself: C is the CRC's bit 0 at y = 0, and mask bit i
// is the change flipping bit i of y causes. This is exact because a CRC of a
// fixed-length message is affine over GF(2) in the message bits.
type crcForm struct{ mask, c uint32 }

func deriveCRCForm(crc func(y uint32) uint32) crcForm {
	c := crc(0)
	var m uint32
	for i := range 32 {
		m |= (crc(1<<i) ^ c) << i
	}
	return crcForm{m, c}
}

var (
	crc32Form = deriveCRCForm(func(y uint32) uint32 { return New(CRC32).Bit(y, 1) })
	crc16Form = deriveCRCForm(func(y uint32) uint32 { return New(CRC16).Bit(y, 1) })
)

// FormD returns the shape of d -> H(id, d) for a fixed id, or false for
// SipHash and mxm, which have none.
func (f Func) FormD(id uint32) (Form, bool) {
	switch f.Kind {
	case Parity:
		return Form{B: 1, Mask: id & 1}, true
	case ParityXor:
		return Form{B: 1, Mask: 1, C: id & 1}, true
	case SingleMult:
		return Form{B: id, Mask: 1 << 31}, true
	case DoubleMult:
		return Form{A: id, Mask: 1 << 31}, true
	case Mult0:
		return Form{B: Mult0Const * id, Mask: 1 << 31}, true
	case CRC32:
		return Form{B: id, Mask: crc32Form.mask, C: crc32Form.c}, true
	case CRC16:
		return Form{B: id, Mask: crc16Form.mask, C: crc16Form.c}, true
	}
	return Form{}, false
}

// FormID returns the shape of id -> H(id, d) for a fixed d, or false for
// SipHash and mxm.
func (f Func) FormID(d uint32) (Form, bool) {
	switch f.Kind {
	case Parity:
		return Form{B: 1, Mask: d & 1}, true
	case ParityXor:
		return Form{B: 1, Mask: 1, C: d & 1}, true
	case SingleMult:
		return Form{B: d, Mask: 1 << 31}, true
	case DoubleMult:
		return Form{B: d * d, Mask: 1 << 31}, true
	case Mult0:
		return Form{B: Mult0Const * d, Mask: 1 << 31}, true
	case CRC32:
		return Form{B: d, Mask: crc32Form.mask, C: crc32Form.c}, true
	case CRC16:
		return Form{B: d, Mask: crc16Form.mask, C: crc16Form.c}, true
	}
	return Form{}, false
}
