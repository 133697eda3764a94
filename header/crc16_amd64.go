// SPDX-License-Identifier: Apache-2.0

package header

import "ibreservoir/internal/cpu"

// vcrcCLMUL is the VCRC register after p (at least 64 bytes, a multiple of
// 16) from crc, by carry-less multiplication (crc16_amd64.s). It needs
// PCLMULQDQ and SSE4.1.
//
//go:noescape
func vcrcCLMUL(crc uint32, p []byte) uint32

// vcrcFold is vcrcCLMUL's constants for the VCRC polynomial.
var vcrcFold = foldConstants(1<<32 | VCRCPoly<<16)

// useCLMUL: the CPU has the carry-less multiply and the process runs a
// vector path (internal/cpu).
var useCLMUL = cpu.CLMUL

// archUpdateCRC16 runs the register over the whole 16-byte blocks of b by
// vcrcCLMUL where it may run and b has at least 64 bytes, and returns the
// register and the bytes left (all of b otherwise).
func archUpdateCRC16(crc uint16, b []byte) (uint16, []byte) {
	if !useCLMUL || len(b) < 64 {
		return crc, b
	}
	n := len(b) &^ 15
	return uint16(vcrcCLMUL(uint32(crc), b[:n])), b[n:]
}
