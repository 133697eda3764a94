package vectors

import (
	"bytes"
	"fmt"

	"ibreservoir/rng"
)

// Append runs the model's stage on packet in, leaving switch sw by output
// port with congested bit cong, from generator state (nil with sender
// draws), and appends the vector to the set, its state loaded (Load), named
// name. It is how one packet a testbench reports becomes a vector file
// (ibreservoir stage). A vector appended to a set of only directed vectors
// counts as a directed one.
func (s *StageSet) Append(name string, in []byte, sw uint16, port uint8, cong bool, state rng.State) (*StageVector, error) {
	var g rng.Generator
	if s.Config.Model.SenderMode() {
		if len(state) != 0 {
			return nil, fmt.Errorf("vector %q: a generator state, but the configuration uses sender draws (no switch state)", name)
		}
	} else {
		var err error
		if g, err = s.Config.Model.NewPortGenerator(sw, port); err != nil {
			return nil, err
		}
		if err := g.SetState(state); err != nil {
			return nil, fmt.Errorf("vector %q: %w", name, err)
		}
	}
	v, err := s.stage(name, bytes.Clone(in), nil, sw, port, cong, g, true)
	if err != nil {
		return nil, err
	}
	if err := v.checkInvariant(); err != nil {
		return nil, err
	}
	v.Index = len(s.Vectors)
	if s.Directed == len(s.Vectors) {
		s.Directed++
	}
	s.Vectors = append(s.Vectors, v)
	return &s.Vectors[len(s.Vectors)-1], nil
}
