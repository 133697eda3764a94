// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchest/siphash"

	"ibreservoir/internal/golden"
)

// edges are the ids and links where hashes misbehave: 0, the small ids of
// section 5.4's counterexample, the thesis's smallest link offset, the top bit
// and all ones.
var edges = []uint32{0, 1, 2, 6, 509, 1 << 31, 1<<32 - 1}

// goldenPairs returns the (id, d) pairs the golden table freezes: every pair
// of edges, then pairs from a fixed PCG stream.
func goldenPairs() [][2]uint32 {
	var ps [][2]uint32
	for _, id := range edges {
		for _, d := range edges {
			ps = append(ps, [2]uint32{id, d})
		}
	}
	r := rand.New(rand.NewPCG(5, 4))
	for range 40 {
		ps = append(ps, [2]uint32{r.Uint32(), r.Uint32()})
	}
	return ps
}

// hashTable renders every hash at every golden pair, one line per pair, and
// the coefficients of the CRC forms.
func hashTable() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# H(id, d) for every hash of thesis section 5.4 (docs/spec.md section 3).\n")
	fmt.Fprintf(&b, "# id d")
	for _, k := range Kinds() {
		fmt.Fprintf(&b, " %s", k)
	}
	fmt.Fprintln(&b)
	for _, p := range goldenPairs() {
		fmt.Fprintf(&b, "%d %d", p[0], p[1])
		for _, k := range Kinds() {
			fmt.Fprintf(&b, " %d", New(k).Bit(p[0], p[1]))
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "# bit0(CRC(LE(y))) = parity(y & mask) ^ c\n")
	fmt.Fprintf(&b, "crc32 mask=%#08x c=%d\n", crc32Form.mask, crc32Form.c)
	fmt.Fprintf(&b, "crc16 mask=%#08x c=%d\n", crc16Form.mask, crc16Form.c)
	return b.Bytes()
}

// TestHashGolden freezes every hash at the golden pairs
// (testdata/hashes.golden; go test -update rewrites it) and renders the table
// twice to show it stable.
func TestHashGolden(t *testing.T) {
	golden.CheckStable(t, filepath.Join("testdata", "hashes.golden"), hashTable)
}

// TestHashDefinitions restates each definition of docs/spec.md section 3
// independently of Func.Bit: the CRCs from the standard library's IEEE table
// and a bit-serial CRC-16, SipHash from its package.
func TestHashDefinitions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pairs := goldenPairs()
	for range 20000 {
		pairs = append(pairs, [2]uint32{r.Uint32(), r.Uint32()})
	}
	key := DefaultKey
	k0, k1 := binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])
	for _, p := range pairs {
		id, d := p[0], p[1]
		var le [4]byte
		binary.LittleEndian.PutUint32(le[:], id*d)
		var msg [8]byte
		binary.LittleEndian.PutUint32(msg[:4], id)
		binary.LittleEndian.PutUint32(msg[4:], d)
		want := map[Kind]uint32{
			Parity:     id & d & 1,
			ParityXor:  (id ^ d) & 1,
			SingleMult: (id * d) >> 31,
			DoubleMult: (id * d * d) >> 31,
			Mult0:      (uint32(1846571429) * id * d) >> 31,
			CRC32:      crc32.ChecksumIEEE(le[:]) & 1,
			CRC16:      uint32(crc16Serial(le[:])) & 1,
			SipHash:    uint32(siphash.Hash(k0, k1, msg[:])) & 1,
			MXM:        mxmDefinition(id, d),
		}
		for _, k := range Kinds() {
			if got := New(k).Bit(id, d); got != want[k] {
				t.Fatalf("%s(%d, %d) = %d, definition gives %d", k, id, d, got, want[k])
			}
		}
	}
}

// mxmDefinition is mxm as docs/spec.md section 3 writes it, in 64-bit
// arithmetic reduced mod 2^32 at each step.
func mxmDefinition(id, d uint32) uint32 {
	h := (1846571429 * uint64(d) % (1 << 32)) * uint64(id) % (1 << 32)
	h ^= h >> 16
	return uint32(h * 0x9E3779B1 % (1 << 32) >> 31)
}

// crc16Serial is the VCRC CRC-16 bit by bit: polynomial 0x100B reflected
// (0xD008), initial value and final XOR 0xFFFF (IBA Vol. 1 section 7.8.2).
func crc16Serial(b []byte) uint16 {
	c := uint16(0xFFFF)
	for _, x := range b {
		for i := range 8 {
			if (c^uint16(x>>i))&1 != 0 {
				c = c>>1 ^ 0xD008
			} else {
				c >>= 1
			}
		}
	}
	return ^c
}

// TestSipHashVector checks the keyed reference against the SipHash paper's
// test vector for key 00..0f and message 00..07 (Aumasson and Bernstein,
// 2012, appendix A / vectors.h entry 8): 0x93f5f5799a932462, whose bit 0 is 0.
// That message is LE(id) || LE(d) for id = 0x03020100, d = 0x07060504.
func TestSipHashVector(t *testing.T) {
	f := New(SipHash)
	k := f.Key()
	msg := []byte{0, 1, 2, 3, 4, 5, 6, 7}
	if h := siphash.Hash(binary.LittleEndian.Uint64(k[:8]), binary.LittleEndian.Uint64(k[8:]), msg); h != 0x93f5f5799a932462 {
		t.Fatalf("SipHash-2-4 of 00..07 under key 00..0f = %#x, want 0x93f5f5799a932462", h)
	}
	if b := f.Bit(0x03020100, 0x07060504); b != 0 {
		t.Errorf("siphash(0x03020100, 0x07060504) = %d, want 0 (bit 0 of 0x...62)", b)
	}
	var other [16]byte
	other[0] = 1
	g := NewKeyed(SipHash, other)
	if g.Key() != other {
		t.Errorf("NewKeyed(...).Key() = %x, want %x", g.Key(), other)
	}
	differs := false
	for x := range uint32(64) {
		if g.Bit(x, 509) != f.Bit(x, 509) {
			differs = true
		}
	}
	if !differs {
		t.Errorf("changing the SipHash key changed none of 64 outputs")
	}
}

// TestFormsMatchBit holds Form.Eval equal to Func.Bit, the reference, with
// either argument fixed, on every pair of edges and on random pairs.
func TestFormsMatchBit(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	vals := append([]uint32{}, edges...)
	for range 300 {
		vals = append(vals, r.Uint32())
	}
	for _, k := range Kinds() {
		f := New(k)
		for _, a := range vals {
			fd, okD := f.FormD(a)
			fi, okI := f.FormID(a)
			if k == SipHash || k == MXM {
				if okD || okI {
					t.Fatalf("%s reported a Form", k)
				}
				continue
			}
			if !okD || !okI {
				t.Fatalf("%s has no Form", k)
			}
			for _, b := range vals {
				if got, want := fd.Eval(b), f.Bit(a, b); got != want {
					t.Fatalf("%s FormD(%d) = %+v: Eval(%d) = %d, Bit(%d, %d) = %d", k, a, fd, b, got, a, b, want)
				}
				if got, want := fi.Eval(b), f.Bit(b, a); got != want {
					t.Fatalf("%s FormID(%d) = %+v: Eval(%d) = %d, Bit(%d, %d) = %d", k, a, fi, b, got, b, a, want)
				}
			}
		}
	}
}

// TestCRCForms checks the derived masks against the CRCs computed directly
// (standard-library CRC-32, bit-serial CRC-16) for every single-bit y and
// random y: bit0(CRC(LE(y))) = parity(y & mask) ^ c.
func TestCRCForms(t *testing.T) {
	direct := map[string]func(y uint32) uint32{
		"crc32": func(y uint32) uint32 {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], y)
			return crc32.ChecksumIEEE(b[:]) & 1
		},
		"crc16": func(y uint32) uint32 {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], y)
			return uint32(crc16Serial(b[:])) & 1
		},
	}
	forms := map[string]crcForm{"crc32": crc32Form, "crc16": crc16Form}
	r := rand.New(rand.NewPCG(11, 12))
	for name, crc := range direct {
		fm := forms[name]
		p := Form{B: 1, Mask: fm.mask, C: fm.c}
		ys := []uint32{0, 1<<32 - 1}
		for i := range 32 {
			ys = append(ys, 1<<i, ^uint32(1<<i))
		}
		for range 100000 {
			ys = append(ys, r.Uint32())
		}
		for _, y := range ys {
			if got, want := p.Eval(y), crc(y); got != want {
				t.Fatalf("%s form (mask %#x, c %d) at y=%#x: %d, CRC gives %d", name, fm.mask, fm.c, y, got, want)
			}
		}
	}
}

func TestKindNames(t *testing.T) {
	for _, k := range Kinds() {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("md5"); err == nil || !strings.Contains(err.Error(), "mult0") {
		t.Errorf("ParseKind(md5) error %v should list the hashes", err)
	}
	if s := Kind(99).String(); s != "Kind(99)" {
		t.Errorf("Kind(99).String() = %q", s)
	}
}

func FuzzParseKind(f *testing.F) {
	for _, k := range Kinds() {
		f.Add(k.String())
	}
	f.Add("")
	f.Add("MULT0")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKind(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("ParseKind(%q) = %v, whose name differs", s, k)
		}
	})
}
