// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package header

// archUpdateCRC16 has no fast path outside amd64: the register and all of
// b go on to slicingUpdateCRC16.
func archUpdateCRC16(crc uint16, b []byte) (uint16, []byte) { return crc, b }
