package refmodel

import (
	"bytes"
	"testing"

	"ibreservoir/header"
)

// FuzzReceiveStage feeds arbitrary bytes to the receiver and the switch stage
// of several configurations: they must return an error or a result, never
// panic, and a stage that succeeds must leave a packet whose VCRC is right and
// whose ICRC-covered bytes are unchanged (checked against the input).
func FuzzReceiveStage(f *testing.F) {
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 0, 0))      // minimal local packet
	f.Add(testPacket(header.LNHGlobal, 1, 2, 3, 4, 9, 0))     // global, padded payload
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 5, 4))      // with a 4-byte footer
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 5, 8)[:20]) // truncated
	f.Add([]byte{})                                           // empty
	cs := testConfigs()
	models := make([]*Model, len(cs))
	for i, c := range cs {
		models[i] = mustModel(f, c)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		for i, m := range models {
			c := cs[i]
			_, _ = m.Receive(pkt)
			p := bytes.Clone(pkt)
			g, _ := c.NewPortGenerator(3, 4)
			if _, err := m.Stage(p, 3, 4, true, g); err != nil {
				continue
			}
			mask, _ := header.InvariantMask(c.LNH)
			n, _ := m.frame(p)
			for j := range n - m.Layout().FooterBytes - header.ICRCLen {
				var v byte
				if j < len(mask) {
					v = mask[j]
				}
				if (p[j]^pkt[j])&^v != 0 {
					t.Fatalf("%s: stage changed ICRC-covered byte %d", c, j)
				}
			}
			if err := m.checkVCRC(p, n); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
		}
	})
}
