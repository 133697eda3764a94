// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"ibreservoir/internal/cli"
)

// `ibreservoir hash ...`: the one-bit hashes of thesis section 5.4 (package
// hash).

func newHashCmd() *cobra.Command {
	c := cli.Group(&cobra.Command{
		Use:   "hash",
		Short: "The one-bit hashes H(id, d) of thesis section 5.4: exhaustive sweeps",
	})
	c.AddCommand(newHashSweepCmd())
	return c
}

// parseUint32 reads a 32-bit value written in decimal, 0x hex, 2^N or 2^N-1.
func parseUint32(s string) (uint32, error) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "2^"); ok {
		minus := false
		if r, ok := strings.CutSuffix(rest, "-1"); ok {
			rest, minus = r, true
		}
		n, err := strconv.Atoi(rest)
		if err == nil && n >= 0 && (n < 32 || n == 32 && minus) {
			v := uint64(1) << n
			if minus {
				v--
			}
			return uint32(v), nil
		}
	} else if v, err := strconv.ParseUint(t, 0, 32); err == nil {
		return uint32(v), nil
	}
	return 0, fmt.Errorf("%q is not a 32-bit value (write decimal, 0x hex, 2^N or 2^N-1)", s)
}

// ratString writes n/2^32 as a reduced fraction.
func ratString(n uint64) string {
	r := new(big.Rat).SetFrac(new(big.Int).SetUint64(n), new(big.Int).Lsh(big.NewInt(1), 32))
	return r.RatString()
}
