// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"bytes"
	"fmt"

	"ibreservoir/rng"
)

// Append runs the model's stage on packet in, leaving switch sw by output
// port with congested bit cong, from generator state (nil with sender
// draws), and appends the vector to the set, its state loaded (Load), named
// name. A vector appended to a set of only directed vectors counts as a
// directed one.
func (s *StageSet) Append(name string, in []byte, sw uint16, port uint8, cong bool, state rng.State) (*StageVector, error) {
	v, err := s.replay(Replay{Name: name, In: in, Switch: sw, Port: port, Congested: cong, State: state})
	if err != nil {
		return nil, err
	}
	v.Index = len(s.Vectors)
	if s.Directed == len(s.Vectors) {
		s.Directed++
	}
	s.Vectors = append(s.Vectors, v)
	return &s.Vectors[len(s.Vectors)-1], nil
}

// replay runs the model's stage on one given packet from its port's state.
func (s *StageSet) replay(r Replay) (StageVector, error) {
	var g rng.Generator
	if s.Config.Model.SenderMode() {
		if len(r.State) != 0 {
			return StageVector{}, fmt.Errorf("vector %q: a generator state, but the configuration uses sender draws (no switch state)", r.Name)
		}
	} else {
		var err error
		if g, err = s.Config.Model.NewPortGenerator(r.Switch, r.Port); err != nil {
			return StageVector{}, err
		}
		if err := g.SetState(r.State); err != nil {
			return StageVector{}, fmt.Errorf("vector %q: %w", r.Name, err)
		}
	}
	v, err := s.stage(r.Name, bytes.Clone(r.In), nil, r.Switch, r.Port, r.Congested, g, true)
	if err != nil {
		return StageVector{}, err
	}
	if err := v.checkInvariant(); err != nil {
		return StageVector{}, err
	}
	return v, nil
}

// streamReplay delivers the set's Replay packets as its vectors, counted as
// directed ones (they are chosen, not drawn).
func (s *StageSet) streamReplay(deliver func(*chainOut) error, encode func([]StageVector, []byte) []byte) error {
	o := &chainOut{}
	for i, r := range s.Config.Replay {
		v, err := s.replay(r)
		if err != nil {
			return err
		}
		v.Index = i
		o.vs = append(o.vs, v)
	}
	s.Directed = len(o.vs)
	o.tally.addAll(o.vs)
	if encode != nil {
		o.enc = encode(o.vs, nil)
	}
	return deliver(o)
}
