// SPDX-License-Identifier: Apache-2.0

package verilog

import "ibreservoir/hash"

// Latency is the stage's latency in clock cycles: from a telemetry beat's
// entry (in_valid_i and in_ready_o high) to its exit, the egress ready and
// the pipeline flowing, for the kind of packet that takes longest. A beat
// leaves PipeDepth cycles after it enters when its packet's decision is
// ready by then, else when the decision is (docs/rtl.md, "Beat width",
// Latency): max(PipeDepth, DecisionCycles). The ideal generator's
// rejections, which stall the stage a cycle now and then, are not counted:
// they depend on the draws, not on the configuration. With PipeDepth at
// least DecisionCycles every beat takes exactly Latency cycles, back to back
// too; a shallower stage holds beats behind late decisions, so back-to-back
// beats queue and take longer (the co-simulation measures both; docs/rtl.md,
// "Beat width", Latency).
func (c Config) Latency() int { return max(c.PipeDepth, c.DecisionCycles()) }

// DecisionCycles is how many cycles after its telemetry beat enters a
// packet's decision is ready, the most over packet kinds (docs/rtl.md,
// "Pipeline", "Hash" and "Beat width"): the draw's answer 2 (it counts the
// cycle the generator gives it), the hash 2, one more for mxm's second
// multiply (the stage registers between the two), HashLatency more for
// SipHash's pipelined rounds, one more at 128-bit beats, where a local
// packet's (LNH=2) PSN comes a beat after its telemetry word, and one more
// with segmented beats ("Segmented beats": a packet from a late segment has
// its PSN in the next beat, where it is the tail's and goes first, and a
// beat's second PSN waits a cycle for the one hash unit).
func (c Config) DecisionCycles() int {
	h := 2 + c.HashLatency
	if c.Hash.Kind == hash.MXM {
		h++
	}
	if c.DataW() == 128 || c.Segmented {
		h++
	}
	return max(2, h)
}
