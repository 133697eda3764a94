// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"
	"math/big"
	"strings"

	"ibreservoir/hash"
	"ibreservoir/header"
	"ibreservoir/internal/seed"
	"ibreservoir/refmodel"
	"ibreservoir/rng"
)

// The estimator test: reservoir uniformity (section 3.3: the hop reservoir is
// a uniform sample of the path's hops, each selected with probability 1/l) and
// its saturated form (section 5.6: past 2^b-1 hops the selection is skewed, by
// refmodel's exact distribution). Packets go through the reference model
// itself, bytes and CRCs included: the sender NIC, l switch stages of the
// one-reservoir scheme (Alg. 8) and the receiver NIC.

// maxPath caps the path lengths tested: saturation past 2^b-1 hops is tested
// for b up to 5; wider counts are tested unsaturated up to this length.
const maxPath = 34

// estimatorPaths returns the path lengths tested at width b.
func (b *Battery) estimatorPaths(w int) []int {
	top := min(1<<w-1+b.cfg.Size.ExtraHops, maxPath)
	var ls []int
	for l := 2; l <= top; l++ {
		ls = append(ls, l)
	}
	return ls
}

// senderL is the L of the sender draws that matches a b-bit count: both
// serve paths of up to 2^b-1 hops exactly.
func senderL(w int) int { return 1<<w - 1 }

// estimatorModel returns the model the estimator test drives: the
// one-reservoir scheme with count width w (or sender draws with L = 2^w-1).
func estimatorModel(w int, sender bool, run uint64) (*refmodel.Model, error) {
	cfg := refmodel.Config{
		Telemetry: header.TelemetrySpec{Scheme: header.OneReservoir, CountBits: w, SwitchBits: 16, PortBits: 8, Placement: header.PlaceAuto},
		Hash:      hash.New(hash.Mult0),
		ID:        hash.IDPSN,
		Link:      hash.LinkThesis,
		Generator: "ideal",
		LNH:       header.LNHLocal,
		Seed:      run,
		MaxSwitch: 1023,
		MaxPort:   48,
	}
	if sender {
		cfg.Telemetry.SenderL = senderL(w)
		cfg.Generator = refmodel.GeneratorSender
	}
	return refmodel.New(cfg)
}

// estimatorPacket builds the test packet: a local RC SEND Only (opcode 0x04)
// from LID 1 to LID 2, DestQP 2, PSN 0x123456, 16 bytes of payload.
func estimatorPacket(m *refmodel.Model) ([]byte, error) {
	h := header.Headers{
		LRH: header.LRH{LNH: header.LNHLocal, DLID: 2, SLID: 1},
		BTH: header.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 2, PSN: 0x123456},
	}
	return header.Build(h, make([]byte, 16), m.Layout().FooterBytes)
}

func (b *Battery) planEstimator(gs GeneratorSpec, w int, scenario string) {
	sz := b.cfg.Size
	sender := gs.PerPacket
	if sender && (gs.Name != refmodel.GeneratorSender || senderL(w) > rng.MaxSenderL) {
		return // only the model's own sender draws, with a field that fits
	}
	name := gs.Name
	if scenario == "lockstep" {
		name += lockstepSuffix
	}
	for _, l := range b.estimatorPaths(w) {
		var sel refmodel.Selection
		var err error
		if sender {
			sel, err = refmodel.SenderSaturation(l, senderL(w))
		} else {
			sel, err = refmodel.Saturation(l, w, nil)
		}
		if err != nil {
			panic(fmt.Sprintf("battery: %v", err)) // l >= 2 and 1 <= w <= 8 always
		}
		probs := append(sel.Floats(), ratFloat(sel.None))
		subj := Subject{Generator: name, CountBits: w, L: l}
		// counts: hop 1..l selected, none, then receiver/stage disagreements.
		t := &testSpec{name: "reservoir-uniformity", group: "estimator", subject: subj, scenario: scenario,
			chunks: 1, counts: l + 2, limit: func(int) uint64 { return uint64(sz.Packets) }}
		t.run = func(c int, a *Acc) {
			run := seed.Derive(b.cfg.Seed, tagBattery, keyTag(t.key()), uint64(c))
			m, err := estimatorModel(w, sender, run)
			if err != nil {
				panic(fmt.Sprintf("battery: estimator model: %v", err))
			}
			tmpl, err := estimatorPacket(m)
			if err != nil {
				panic(fmt.Sprintf("battery: estimator packet: %v", err))
			}
			gens := make([]rng.Generator, l+1)
			var nic rng.Generator
			if sender {
				nic = m.Config().NewSenderGenerator(1)
			} else {
				for j := 1; j <= l; j++ {
					s := m.Config().PortSeed(uint16(j), 1)
					if scenario == "lockstep" {
						s = seed.Derive(run, tagLockstep)
					}
					if gens[j], err = gs.New(s, m.Config().MaxL()); err != nil {
						panic(fmt.Sprintf("battery: generator %s: %v", gs.Name, err))
					}
				}
			}
			pkt := make([]byte, len(tmpl))
			bits := make([]uint8, l+1)
			for range sz.Packets {
				copy(pkt, tmpl)
				if err := m.Send(pkt, nic); err != nil {
					panic(fmt.Sprintf("battery: sender NIC: %v", err))
				}
				held := 0
				for j := 1; j <= l; j++ {
					r, err := m.Stage(pkt, uint16(j), 1, false, gens[j])
					if err != nil {
						panic(fmt.Sprintf("battery: switch %d: %v", j, err))
					}
					bits[j] = r.HashBit
					if r.HopReplaced {
						held = j
					}
				}
				s, err := m.Receive(pkt)
				if err != nil {
					panic(fmt.Sprintf("battery: receiver NIC: %v", err))
				}
				if held == 0 {
					a.Counts[l]++
				} else {
					a.Counts[held-1]++
					// The receiver must read the held hop's hash bit.
					if s.HopBit != bits[held] {
						a.Counts[l+1]++
					}
				}
			}
		}
		t.final = func(a Acc) Result {
			obs := a.Counts[:l+1]
			r := chiFamily(obs, probs, func(int) string {
				return fmt.Sprintf("%d packets over %d hops", sz.Packets, l)
			})
			if a.Counts[l+1] > 0 {
				return Result{Verdict: Fail, Statistic: "disagreements", Value: Float(float64(a.Counts[l+1])),
					Detail: fmt.Sprintf("%d packets arrived with a hop bit that is not the held hop's H(id, d)", a.Counts[l+1])}
			}
			if r.Verdict != Invalid {
				r.Statistic = strings.TrimPrefix(r.Statistic, "max ")
				var ps []string
				for _, p := range sel.P {
					ps = append(ps, p.RatString())
				}
				r.Detail = fmt.Sprintf("%d hops, weight %d: selected %v, none %d; expected %s, none %s",
					l, sel.Weight, obs[:l], obs[l], strings.Join(ps, " "), sel.None.RatString())
			}
			return r
		}
		b.add(t)
	}
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}
