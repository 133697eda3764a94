// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"fmt"

	"ibreservoir/header"
)

// A fieldAcc reads and writes one telemetry field straight from packet bytes,
// without the name lookups of header.Layout.Get and Set: the switch stage runs
// on every hop of every simulated packet and must not allocate.
//
// It is compiled from the layout by asking header.Layout.Set where each bit of
// the field lands (compileField), so header stays the single definition of the
// bit placement; tests hold the two equal on every layout.
type fieldAcc struct {
	ok     bool
	width  int
	chunks []chunk // most significant first
}

// A chunk is a run of the field's bits inside one byte.
type chunk struct {
	off     int  // byte offset from LRH byte 0, or back from the end of the packet when fromEnd
	fromEnd bool // footer bits: the offset counts back from 4*PktLen (the VCRC's first byte)
	shift   uint // bit number of the run's least significant bit
	width   uint // bits in the run
}

func (c chunk) index(pktLen int) int {
	if c.fromEnd {
		return pktLen - c.off
	}
	return c.off
}

func (a *fieldAcc) get(pkt []byte, pktLen int) uint64 {
	var v uint64
	for _, c := range a.chunks {
		v = v<<c.width | uint64(pkt[c.index(pktLen)]>>c.shift)&(1<<c.width-1)
	}
	return v
}

// set writes the low width bits of v; the caller has checked v fits.
func (a *fieldAcc) set(pkt []byte, pktLen int, v uint64) {
	w := uint(a.width)
	for _, c := range a.chunks {
		w -= c.width
		m := byte(1<<c.width-1) << c.shift
		i := c.index(pktLen)
		pkt[i] = pkt[i]&^m | byte(v>>w)<<c.shift&m
	}
}

// compileField locates every bit of field name of l in packets with the given
// LNH. Bits whose byte moves with PktLen are footer bits and are anchored to
// the end of the packet.
func compileField(l *header.Layout, lnh uint8, name string) (fieldAcc, error) {
	f := l.Field(name)
	if f == nil {
		return fieldAcc{}, nil
	}
	w := f.Width()
	bth, err := header.BTHOffset(lnh)
	if err != nil {
		return fieldAcc{}, err
	}
	// Two scratch packets whose PktLen differs by 16 words.
	words := [2]int{(bth + header.BTHLen + header.ICRCLen + l.FooterBytes + 3) / 4, 0}
	words[1] = words[0] + 16
	locate := func(k int, bit int) (int, uint, error) {
		n := 4 * words[k]
		pkt := make([]byte, n+header.VCRCLen)
		pkt[1] = lnh
		pkt[4] = byte(words[k] >> 8 & 7)
		pkt[5] = byte(words[k])
		base := append([]byte(nil), pkt...)
		fr, err := header.FrameOf(pkt)
		if err != nil {
			return 0, 0, err
		}
		if err := l.Set(pkt, fr, name, 1<<(w-1-bit)); err != nil {
			return 0, 0, err
		}
		for i := range pkt {
			if d := pkt[i] ^ base[i]; d != 0 {
				for b := uint(0); b < 8; b++ {
					if d == 1<<b {
						return i, b, nil
					}
				}
			}
		}
		return 0, 0, fmt.Errorf("layout %s: bit %d of field %s lands nowhere", l.Name, bit, name)
	}
	acc := fieldAcc{ok: true, width: w}
	for bit := range w {
		i0, b0, err := locate(0, bit)
		if err != nil {
			return fieldAcc{}, err
		}
		i1, b1, err := locate(1, bit)
		if err != nil {
			return fieldAcc{}, err
		}
		var c chunk
		switch {
		case i0 == i1 && b0 == b1:
			c = chunk{off: i0, shift: b0, width: 1}
		case i1-i0 == 4*(words[1]-words[0]) && b0 == b1:
			c = chunk{off: 4*words[0] - i0, fromEnd: true, shift: b0, width: 1}
		default:
			return fieldAcc{}, fmt.Errorf("layout %s: bit %d of field %s is neither header- nor end-anchored", l.Name, bit, name)
		}
		// Merge with the previous run when this bit sits just below it in the same byte.
		if n := len(acc.chunks); n > 0 {
			p := &acc.chunks[n-1]
			if p.off == c.off && p.fromEnd == c.fromEnd && p.shift == c.shift+1 {
				p.shift--
				p.width++
				continue
			}
		}
		acc.chunks = append(acc.chunks, c)
	}
	return acc, nil
}
