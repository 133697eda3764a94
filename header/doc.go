// SPDX-License-Identifier: Apache-2.0

// Package header models the bytes of an InfiniBand transport packet as the
// telemetry of Taffet's thesis (chapter 5) needs them, bit for bit:
//
//   - the LRH, GRH and BTH as typed structs named after their IBA fields
//     (IBA Vol. 1 sections 7.7, 8.3 and 9.2), with byte-offset constants
//     (LRHPos*, GRHPos*, BTHPos*) and single-field readers (LNHOf, PktLenOf,
//     SLIDOf, DLIDOf, DestQPOf, PSNOf) for code that reads a field or two per packet
//     without decoding the headers; decoders check lengths and versions,
//     serializers refuse values too wide for their field;
//   - the ICRC (CRC-32 with the variant fields counted as ones, section
//     7.8.1) and the VCRC (CRC-16), each with a bit-serial reference the fast
//     forms are tested against, and PatchVCRC, the constant-time VCRC update
//     after a few bytes change, which the reference model's switch stage uses
//     once it has checked the incoming VCRC;
//   - whole packets: Build and AppendBuild write headers, payload, pad,
//     ICRC, an optional telemetry footer and VCRC; DecodePacket and Check read
//     them back;
//   - telemetry layouts (TelemetrySpec, Layout): where each field of the
//     full-ID, two-reservoir and one-reservoir schemes sits in the reserved
//     bits (BTH Resv6, LRH Rsv5 in global packets) or in a footer between the
//     ICRC and the VCRC, refusing any switch-written bit the ICRC covers, with
//     Get, Set, compiled FieldRefs and the bit map `ibreservoir spec` prints.
//
// docs/spec.md sections 1 and 2 are the contract this package implements;
// docs/packets.md describes it at length. The tests hold it to a capture of
// real HCA traffic (capture/testdata/infiniband-hca-capture.pcap): every one
// of its 43 packets decodes, both CRCs verify, and re-serializing reproduces
// its bytes.
package header
