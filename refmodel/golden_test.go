// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"ibreservoir/internal/golden"
)

// TestGoldenStageTrace freezes the model's output bits: for every test
// configuration, one packet through 8 switches with seeded port generators,
// the packet bytes and the stage's report after every hop. Any change to the
// draw order, the field placement, the hash, the id or the link encoding shows
// as a difference from testdata/stage.golden (go test ./refmodel -run Golden
// -update rewrites it); the trace is rendered twice to show it stable.
func TestGoldenStageTrace(t *testing.T) {
	render := func() []byte {
		var b bytes.Buffer
		for _, c := range testConfigs() {
			m := mustModel(t, c)
			fmt.Fprintf(&b, "# %s\n", c)
			pkt := testPacket(c.LNH, 0x0101, 0x0202, 0x00ABCD, 0x123456, 12, footerOf(m))
			must(t, m.Send(pkt, c.NewSenderGenerator(0x0101)))
			fmt.Fprintf(&b, "send   %s\n", hex.EncodeToString(pkt))
			for hop := range 8 {
				sw, port := uint16(3*hop+1), uint8(hop%5+1)
				g, err := c.NewPortGenerator(sw, port)
				must(t, err)
				res, err := m.Stage(pkt, sw, port, hop%3 == 1, g)
				must(t, err)
				fmt.Fprintf(&b, "hop %d  %s  %+v\n", hop+1, hex.EncodeToString(pkt), res)
			}
			s, err := m.Receive(pkt)
			must(t, err)
			fmt.Fprintf(&b, "recv   %+v\n", s)
		}
		return b.Bytes()
	}
	golden.CheckStable(t, filepath.Join("testdata", "stage.golden"), render)
}
