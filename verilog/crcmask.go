package verilog

import "fmt"

// vcrcPolyReflected is the VCRC polynomial 0x100B with its bits reversed
// (IBA Vol. 1 section 7.8.2: CRC-16, reflected).
const vcrcPolyReflected = 0xD008

// crc16Serial advances the VCRC register over b one bit at a time, least
// significant bit of each byte first, with no initial value or final XOR: the
// definition the RTL's masks are derived from. With crc = 0xFFFF and a final
// complement it is header.VCRC (the tests hold the two equal).
func crc16Serial(crc uint16, b []byte) uint16 {
	for _, x := range b {
		crc ^= uint16(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ vcrcPolyReflected
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

// crcMasks returns, for each output bit i of crc16Serial over n bytes, the
// register bits (mask bits 79..64) and data bits (63..0; data bit j is bit
// j%8 of byte n-1-j/8, so byte 0 is the most significant) whose parity it
// is. The update is linear over GF(2): with no initial value or final XOR it
// maps 0 to 0, and each output bit is the XOR of the outputs of the input
// bits that are set.
func crcMasks(n int) [16][2]uint64 {
	var m [16][2]uint64 // [i][0]: register mask; [i][1]: data mask
	buf := make([]byte, n)
	for k := range 16 {
		out := crc16Serial(1<<k, buf)
		for i := range 16 {
			m[i][0] |= uint64(out>>i&1) << k
		}
	}
	for j := range 8 * n {
		clear(buf)
		buf[n-1-j/8] = 1 << (j % 8)
		out := crc16Serial(0, buf)
		for i := range 16 {
			m[i][1] |= uint64(out>>i&1) << j
		}
	}
	return m
}

type crcMaskTable struct {
	N     int
	Masks []string // 20 hex digits each: register mask, then data mask
}

func crcMaskTables() []crcMaskTable {
	var ts []crcMaskTable
	for _, n := range []int{4, 8} {
		t := crcMaskTable{N: n}
		for _, m := range crcMasks(n) {
			t.Masks = append(t.Masks, fmt.Sprintf("%04x_%016x", m[0], m[1]))
		}
		ts = append(ts, t)
	}
	return ts
}
