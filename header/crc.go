package header

// The two link-level checks of an InfiniBand packet (IBA Vol. 1, section 7.8):
//
//   - ICRC, the invariant CRC: CRC-32 with the Ethernet polynomial 0x04C11DB7,
//     processed least-significant bit first (reflected), initial value and final
//     XOR 0xFFFFFFFF. It covers the packet from the first byte of the LRH to the
//     last byte of the payload (including the pad), with the variant fields
//     replaced by ones (see invariantMask). It is sent least-significant byte first.
//   - VCRC, the variant CRC: CRC-16 with polynomial 0x100B, reflected, initial
//     value and final XOR 0xFFFF. It covers every byte from the first byte of the
//     LRH through the last byte of the ICRC, as they are on the wire, and is sent
//     least-significant byte first. Every switch recomputes it.
//
// Both are table-driven byte-at-a-time reflected CRCs. The bitwise forms below
// (crc32Bitwise, crc16Bitwise) are the definitions the tables are built from and
// the oracle the tests compare them against.

import "hash/crc32"

const (
	// ICRCPoly is the ICRC generator polynomial in normal (MSB-first) form.
	ICRCPoly = 0x04C11DB7
	// VCRCPoly is the VCRC generator polynomial in normal (MSB-first) form.
	VCRCPoly = 0x100B

	icrcPolyReflected = 0xEDB88320 // bits of ICRCPoly reversed
	vcrcPolyReflected = 0xD008     // bits of VCRCPoly reversed
)

var (
	icrcTable = crc32.MakeTable(icrcPolyReflected)
	vcrcTable = makeCRC16Table(vcrcPolyReflected)
)

func makeCRC16Table(polyReflected uint16) *[256]uint16 {
	var t [256]uint16
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ polyReflected
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return &t
}

// CRC32 returns the ICRC-parameter CRC-32 (reflected 0x04C11DB7, init and final
// XOR all ones) of b, with no masking. It equals the IEEE CRC-32 of Ethernet.
func CRC32(b []byte) uint32 { return crc32.Checksum(b, icrcTable) }

// CRC16 returns the VCRC-parameter CRC-16 (reflected 0x100B, init and final XOR
// 0xFFFF) of b.
func CRC16(b []byte) uint16 { return ^updateCRC16(0xFFFF, b) }

// updateCRC16 runs the reflected CRC-16 register over b without the final XOR.
func updateCRC16(crc uint16, b []byte) uint16 {
	for _, x := range b {
		crc = crc>>8 ^ vcrcTable[byte(crc)^x]
	}
	return crc
}

// crc32Bitwise and crc16Bitwise are the bit-serial definitions, kept as the
// oracle for the table-driven forms and for the hardware generators.
func crc32Bitwise(b []byte) uint32 {
	crc := ^uint32(0)
	for _, x := range b {
		crc ^= uint32(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ icrcPolyReflected
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func crc16Bitwise(b []byte) uint16 {
	crc := uint16(0xFFFF)
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
	return ^crc
}
