// SPDX-License-Identifier: Apache-2.0

package hash

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Exhaustive counts over all 2^32 values of one argument of H, the facts of
// thesis section 5.4:
//
//   - Theorem 5.1: for Hmult0 and any id != 0, OnesOverD(id) = 2^31.
//   - Theorem 5.2 (false): AgreeOverD(2, 6) for Hmult0 is 2863311532 =
//     (2^33 + 4)/3, about 2/3 of 2^32 rather than 1/2.
//   - By the symmetry of the multiplicative hashes, the same with d fixed:
//     OnesOverID(d) and AgreeOverID(2, 6) (congestion on link 2 shows on
//     link 6).
//
// Every hash with a Form goes through CountOnes and CountAgree (the vector
// kernels); SipHash has no Form and is counted by calling Func.Bit on every
// value, on GOMAXPROCS goroutines, which takes tens of seconds.

// Domain is the number of values of either argument, 2^32.
const Domain = 1 << 32

// OnesOverD returns the number of d in [0, 2^32) with H(id, d) = 1.
func (f Func) OnesOverD(id uint32) uint64 {
	if p, ok := f.FormD(id); ok {
		return CountOnes(p, 0, Domain)
	}
	return countBits(func(d uint32) uint32 { return f.Bit(id, d) })
}

// AgreeOverD returns the number of d in [0, 2^32) with H(id1, d) = H(id2, d).
func (f Func) AgreeOverD(id1, id2 uint32) uint64 {
	p, ok1 := f.FormD(id1)
	q, ok2 := f.FormD(id2)
	if ok1 && ok2 {
		return CountAgree(p, q, 0, Domain)
	}
	return countBits(func(d uint32) uint32 { return f.Bit(id1, d) ^ f.Bit(id2, d) ^ 1 })
}

// OnesOverID returns the number of id in [0, 2^32) with H(id, d) = 1.
func (f Func) OnesOverID(d uint32) uint64 {
	if p, ok := f.FormID(d); ok {
		return CountOnes(p, 0, Domain)
	}
	return countBits(func(id uint32) uint32 { return f.Bit(id, d) })
}

// AgreeOverID returns the number of id in [0, 2^32) with H(id, d1) = H(id, d2).
func (f Func) AgreeOverID(d1, d2 uint32) uint64 {
	p, ok1 := f.FormID(d1)
	q, ok2 := f.FormID(d2)
	if ok1 && ok2 {
		return CountAgree(p, q, 0, Domain)
	}
	return countBits(func(id uint32) uint32 { return f.Bit(id, d1) ^ f.Bit(id, d2) ^ 1 })
}

// countBits sums bit(x) over all 2^32 x, in chunks shared by GOMAXPROCS
// goroutines; the sum does not depend on the split.
func countBits(bit func(x uint32) uint32) uint64 {
	return countBitsRange(bit, 0, Domain, runtime.GOMAXPROCS(0))
}

func countBitsRange(bit func(x uint32) uint32, lo, hi uint64, workers int) uint64 {
	const chunk = 1 << 20
	nChunks := (hi - lo + chunk - 1) / chunk
	var total, next atomic.Uint64
	var wg sync.WaitGroup
	for range max(1, min(uint64(workers), nChunks)) {
		wg.Go(func() {
			var n uint64
			for {
				c := next.Add(1) - 1
				if c >= nChunks {
					break
				}
				a := lo + c*chunk
				for x := a; x < min(a+chunk, hi); x++ {
					n += uint64(bit(uint32(x)))
				}
			}
			total.Add(n)
		})
	}
	wg.Wait()
	return total.Load()
}
