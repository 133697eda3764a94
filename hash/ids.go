// SPDX-License-Identifier: Apache-2.0

package hash

import "fmt"

// IDOption says how a packet's id, the first argument of H, is formed from
// fields the receiver also sees. The ICRC covers all of them, so no switch can
// change them.
//
//	psn         id = PSN                           the thesis's choice (24 bits)
//	psn-odd     id = 2*PSN + 1                     never 0, always odd (25 bits)
//	psn-slid    id = PSN ^ (SLID << 16)            mixes in the source LID
//	psn-destqp  id = PSN ^ (DestQP << 8)           mixes in the destination QP
//
// Domain limits. With psn, PSN 0 gives id 0, and every multiplicative hash
// (and parity) is then 0 for every link: such a packet matches every candidate
// link and adds its weight to all of them. Small PSNs give small ids, for which
// single and double are skewed toward 0 (section 5.4). PSNs wrap at 2^24, so a
// long flow reuses ids: two packets with equal ids carry perfectly correlated
// hash bits. psn-odd removes id 0 and the even ids (for which the products
// lose their low bits) but keeps the wrap. psn-slid and psn-destqp separate
// flows that share a PSN sequence; they are 0 when PSN equals the shifted
// field's low 24 bits and the field's remaining high bits are 0.
type IDOption uint8

const (
	IDPSN IDOption = iota
	IDPSNOdd
	IDPSNSLID
	IDPSNDestQP
	numIDOptions
)

var idNames = [numIDOptions]string{IDPSN: "psn", IDPSNOdd: "psn-odd", IDPSNSLID: "psn-slid", IDPSNDestQP: "psn-destqp"}

func (o IDOption) String() string {
	if o < numIDOptions {
		return idNames[o]
	}
	return fmt.Sprintf("IDOption(%d)", uint8(o))
}

// IDOptions lists every option.
func IDOptions() []IDOption {
	os := make([]IDOption, numIDOptions)
	for i := range os {
		os[i] = IDOption(i)
	}
	return os
}

// ParseIDOption accepts the names String returns.
func ParseIDOption(name string) (IDOption, error) {
	for i, n := range idNames {
		if n == name {
			return IDOption(i), nil
		}
	}
	return 0, fmt.Errorf("unknown packet-id option %q (want one of %v)", name, idNames)
}

// ID returns the packet id from the LRH SLID and the BTH DestQP and PSN (24-bit
// fields; higher bits are ignored).
func (o IDOption) ID(slid uint16, destQP, psn uint32) uint32 {
	psn &= 0xFFFFFF
	switch o {
	case IDPSN:
		return psn
	case IDPSNOdd:
		return 2*psn + 1
	case IDPSNSLID:
		return psn ^ uint32(slid)<<16
	case IDPSNDestQP:
		return psn ^ (destQP&0xFFFFFF)<<8
	}
	panic(fmt.Sprintf("hash: unknown id option %d", o))
}
