// SPDX-License-Identifier: Apache-2.0

//go:build amd64

#include "textflag.h"

// The VCRC's CRC-16 by carry-less multiplication: the folding method of
// Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction" (2009) for a reflected 32-bit CRC, run with the polynomial
// P'(x) = x^16 * P(x), P the VCRC's x^16 + x^12 + x^3 + x + 1. The bitwise
// reflected CRC-32 with P' (reflected 0x0000D008) is the reflected CRC-16
// with P step for step (its upper 16 bits stay zero), so the 32-bit method
// with P' computes the VCRC register. The constants are vcrcFold (crc.go's
// foldConstants derives them from the polynomial): k1..k5 at bytes 0..39,
// P' and mu at 40 and 48.

// func vcrcCLMUL(crc uint32, p []byte) uint32
// len(p) is at least 64 and a multiple of 16; crc and the result are the
// register (no final XOR), upper 16 bits zero.
TEXT ·vcrcCLMUL(SB), NOSPLIT, $0
	MOVL crc+0(FP), X0
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	MOVOU (SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	PXOR  X0, X1
	ADDQ  $64, SI
	SUBQ  $64, CX
	CMPQ  CX, $64
	JB    fold4

	MOVOU ·vcrcFold+0(SB), X0

loop64:
	// four 16-byte lanes, each folded 64 bytes on: lane*x^(512) mod P'
	MOVOA     X1, X5
	MOVOA     X2, X6
	MOVOA     X3, X7
	MOVOA     X4, X8
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x00, X0, X2
	PCLMULQDQ $0x00, X0, X3
	PCLMULQDQ $0x00, X0, X4
	MOVOU     (SI), X11
	MOVOU     16(SI), X12
	MOVOU     32(SI), X13
	MOVOU     48(SI), X14
	PCLMULQDQ $0x11, X0, X5
	PCLMULQDQ $0x11, X0, X6
	PCLMULQDQ $0x11, X0, X7
	PCLMULQDQ $0x11, X0, X8
	PXOR      X5, X1
	PXOR      X6, X2
	PXOR      X7, X3
	PXOR      X8, X4
	PXOR      X11, X1
	PXOR      X12, X2
	PXOR      X13, X3
	PXOR      X14, X4
	ADDQ      $64, SI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       loop64

fold4:
	// the four lanes into one, 16 bytes at a time
	MOVOU     ·vcrcFold+16(SB), X0
	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X2, X1
	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X3, X1
	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X4, X1

	CMPQ CX, $16
	JB   finish

loop16:
	MOVOU     (SI), X10
	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X10, X1
	ADDQ      $16, SI
	SUBQ      $16, CX
	CMPQ      CX, $16
	JAE       loop16

finish:
	// 128 bits to 64, then to 32 (k5), then Barrett's reduction by P'
	PCMPEQB   X3, X3
	PCLMULQDQ $0x01, X1, X0
	PSRLDQ    $8, X1
	PXOR      X0, X1

	MOVOA X1, X2
	MOVQ  ·vcrcFold+32(SB), X0
	PSRLQ $32, X3 // a 32-bit mask in each half
	PSRLDQ $4, X2
	PAND  X3, X1
	PCLMULQDQ $0x00, X0, X1
	PXOR  X2, X1

	MOVOU ·vcrcFold+40(SB), X0
	MOVOA X1, X2
	PAND  X3, X1
	PCLMULQDQ $0x10, X0, X1
	PAND  X3, X1
	PCLMULQDQ $0x00, X0, X1
	PXOR  X2, X1

	PEXTRD $1, X1, AX
	MOVL   AX, ret+32(FP)
	RET
