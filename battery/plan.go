// SPDX-License-Identifier: Apache-2.0

package battery

import (
	"fmt"

	"ibreservoir/hash"
)

// plan lists every test of the configuration, in a fixed order: for each
// hash, its hash-only tests, then its tests on each id option and link
// encoding; for each generator, its tests for each l, then its estimator
// tests for each count width.
func (b *Battery) plan() error {
	c := b.cfg
	if len(c.Hashes) > 0 {
		flows := sampleFlows(c.Seed, c.Size.Flows)
		for _, name := range c.Hashes {
			h := b.hashes[name]
			b.planHashOnly(h)
			for _, on := range c.IDs {
				opt, _ := hash.ParseIDOption(on)
				for _, en := range c.Links {
					enc, _ := hash.ParseLinkEncoding(en)
					b.planHashDomain(h, domain{opt: opt, enc: enc, flows: flows})
				}
			}
		}
	}
	for _, name := range c.Generators {
		gs := b.gens[name]
		if err := b.planGenerator(gs); err != nil {
			return err
		}
		for _, w := range c.CountBits {
			b.planEstimator(gs, w, "")
			if c.Lockstep && !gs.PerPacket {
				b.planEstimator(gs, w, "lockstep")
			}
		}
	}
	if err := b.planDecode(); err != nil {
		return err
	}
	seen := make(map[string]bool, len(b.tests))
	for _, t := range b.tests {
		if t.limit == nil {
			panic(fmt.Sprintf("battery: test %s has no limit: every test says what its chunks count", t.key()))
		}
	}
	for _, t := range b.tests {
		if seen[t.key()] {
			return fmt.Errorf("battery: two tests are both %q (a hash or generator listed twice under different names?)", t.key())
		}
		seen[t.key()] = true
	}
	return nil
}
