// SPDX-License-Identifier: Apache-2.0

package verilog

import (
	"testing"

	"ibreservoir/hash"
)

// TestLatency holds Config.Latency to docs/rtl.md's account of when a
// decision is ready ("Pipeline", "Hash", "Beat width"): 2 cycles after the
// telemetry beat enters, a cycle later for mxm and for a 128-bit local
// packet, HashLatency later for SipHash's pipelined rounds; a beat leaves
// PipeDepth cycles after it enters, or when its decision is ready if later.
func TestLatency(t *testing.T) {
	for _, tc := range []struct {
		hash           hash.Kind
		width, depth   int
		hashLatency    int
		segmented      bool
		decision, want int
	}{
		{hash.Mult0, 64, 2, 0, false, 2, 2},       // the default: depth 2 moves a word every cycle
		{hash.Mult0, 64, 4, 0, false, 2, 4},       // a deeper pipeline is its depth
		{hash.MXM, 64, 2, 0, false, 3, 3},         // at depth 2 the output waits one cycle
		{hash.MXM, 64, 3, 0, false, 3, 3},         // depth 3 hides it
		{hash.Mult0, 128, 2, 0, false, 3, 3},      // a local packet's PSN is the next beat
		{hash.MXM, 128, 2, 0, false, 4, 4},        // both
		{hash.MXM, 128, 4, 0, false, 4, 4},        // depth 4 hides 128-bit mxm
		{hash.Mult0, 256, 2, 0, false, 2, 2},      // the PSN in the telemetry beat
		{hash.MXM, 512, 2, 0, false, 3, 3},        // two one-beat packets every three cycles
		{hash.SipHash, 512, 2, 8, false, 10, 10},  // the hash over 8 cycles
		{hash.SipHash, 512, 10, 8, false, 10, 10}, // depth HashLatency+2 hides it
		{hash.Mult0, 512, 2, 0, true, 3, 3},       // segmented: a PSN a beat late or second in its beat
		{hash.Mult0, 512, 3, 0, true, 3, 3},       // the depth that keeps a beat a cycle
		{hash.MXM, 256, 4, 0, true, 4, 4},         // mxm segmented, at its full-rate depth
	} {
		c := DefaultConfig()
		c.Hash, c.Width, c.PipeDepth, c.HashLatency, c.Segmented = hash.New(tc.hash), tc.width, tc.depth, tc.hashLatency, tc.segmented
		if got := c.DecisionCycles(); got != tc.decision {
			t.Errorf("%s: decision ready %d cycles after entry, want %d", c.Name(), got, tc.decision)
		}
		if got := c.Latency(); got != tc.want {
			t.Errorf("%s: latency %d cycles, want %d", c.Name(), got, tc.want)
		}
	}
}
