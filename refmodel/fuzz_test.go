// SPDX-License-Identifier: Apache-2.0

package refmodel

import (
	"bytes"
	"encoding/binary"
	"testing"

	"ibreservoir/header"
)

// FuzzReceiveStage feeds arbitrary bytes to the receiver and the switch stage
// of several configurations, twice: as fuzzed, and with the VCRC recomputed
// over the fuzzed bytes. A mutated packet almost never keeps a right VCRC, so
// without the second pass the stage would refuse nearly every input at its
// first check and the fuzzer would never reach the telemetry fields. Both
// must return an error or a result, never panic. A stage that succeeds must
// leave a packet whose VCRC is right and whose ICRC-covered bytes are
// unchanged (checked against the input), and, on the repaired bytes, equal to
// the slow oracle of docs/spec.md section 5 (oracleStage) byte for byte.
func FuzzReceiveStage(f *testing.F) {
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 0, 0))      // minimal local packet
	f.Add(testPacket(header.LNHGlobal, 1, 2, 3, 4, 9, 0))     // global, padded payload
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 5, 4))      // with a 4-byte footer
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 5, 8))      // with an 8-byte footer
	f.Add(testPacket(header.LNHLocal, 1, 2, 3, 4, 5, 8)[:20]) // truncated
	f.Add([]byte{})                                           // empty
	cs := testConfigs()
	models := make([]*Model, len(cs))
	for i, c := range cs {
		models[i] = mustModel(f, c)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		fixed, repaired := withVCRC(pkt)
		for i, m := range models {
			c := cs[i]
			_, _ = m.Receive(pkt)
			fuzzStage(t, m, c, pkt, false)
			if repaired {
				_, _ = m.Receive(fixed)
				fuzzStage(t, m, c, fixed, true)
			}
		}
	})
}

// withVCRC returns a copy of pkt with the VCRC recomputed where its PktLen
// puts it, and whether pkt is long enough to have one there.
func withVCRC(pkt []byte) ([]byte, bool) {
	fr, err := header.FrameOf(pkt)
	if err != nil {
		return nil, false
	}
	p := bytes.Clone(pkt)
	binary.LittleEndian.PutUint16(p[fr.PktLen:], header.VCRC(p[:fr.PktLen]))
	return p, true
}

// fuzzStage runs model m's stage on a copy of in and checks what must hold.
// With vcrcOK the input's VCRC is known right, so a stage error must come
// from something else, and a result is compared with the oracle.
func fuzzStage(t *testing.T, m *Model, c Config, in []byte, vcrcOK bool) {
	p := bytes.Clone(in)
	g, _ := c.NewPortGenerator(3, 4)
	var gRef = g
	if g != nil {
		gRef = g.Clone()
	}
	if _, err := m.Stage(p, 3, 4, true, g); err != nil {
		if n, ferr := m.frame(in); vcrcOK && ferr == nil {
			if verr := m.checkVCRC(in, n); verr != nil {
				t.Fatalf("%s: the repaired packet fails the VCRC check: %v", c, verr)
			}
		}
		return
	}
	mask, _ := header.InvariantMask(c.LNH)
	n, _ := m.frame(p)
	for j := range n - m.Layout().FooterBytes - header.ICRCLen {
		var v byte
		if j < len(mask) {
			v = mask[j]
		}
		if (p[j]^in[j])&^v != 0 {
			t.Fatalf("%s: stage changed ICRC-covered byte %d", c, j)
		}
	}
	if err := m.checkVCRC(p, n); err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	if !vcrcOK {
		return
	}
	ref := bytes.Clone(in)
	oracleStage(t, c, ref, 3, 4, true, gRef)
	if !bytes.Equal(p, ref) {
		t.Fatalf("%s: stage and oracle differ\nin     %x\nstage  %x\noracle %x", c, in, p, ref)
	}
}
