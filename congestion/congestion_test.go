// SPDX-License-Identifier: Apache-2.0

package congestion

import (
	"ibreservoir/internal/golden"

	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQueueOverCredits(t *testing.T) {
	d := QueueOverCredits{}.NewDetector(0)
	for _, c := range []struct {
		q, cr int64
		want  bool
	}{{0, 0, false}, {100, 100, false}, {101, 100, true}, {100, 0, true}, {0, 4096, false}} {
		st := PortState{QueueBytes: c.q, QueuePackets: 1, Credits: c.cr}
		if got := d.Congested(st); got != c.want {
			t.Errorf("queue %d credits %d: congested=%t, want %t", c.q, c.cr, got, c.want)
		}
	}
}

func TestThreshold(t *testing.T) {
	d := Threshold{Bytes: 1000, Packets: 4}.NewDetector(0)
	for _, c := range []struct {
		q    int64
		n    int
		want bool
	}{{1000, 4, false}, {1001, 1, true}, {10, 5, true}, {0, 0, false}} {
		if got := d.Congested(PortState{QueueBytes: c.q, QueuePackets: c.n}); got != c.want {
			t.Errorf("queue %d bytes %d packets: congested=%t, want %t", c.q, c.n, got, c.want)
		}
	}
	if err := (Threshold{}).Validate(); err == nil {
		t.Error("threshold with no limit validated")
	}
}

func TestProbabilisticThreshold(t *testing.T) {
	p := Probabilistic{Min: 1000, Max: 3000}
	for _, c := range []struct {
		q    int64
		want uint64
	}{{0, 0}, {1000, 0}, {2000, 1 << 31}, {1500, 1 << 30}, {3000, 1 << 32}, {1 << 40, 1 << 32}, {1001, (1 << 32) / 2000}} {
		if got := p.MarkThreshold(c.q); got != c.want {
			t.Errorf("MarkThreshold(%d) = %d, want %d", c.q, got, c.want)
		}
	}
}

// TestProbabilisticRate checks the marking frequency at three occupancies
// against the exact probability T(q)/2^32 with a two-sided z-test at level
// 1e-6 (|z| < 4.89) over n = 200000 packets each.
func TestProbabilisticRate(t *testing.T) {
	p := Probabilistic{Min: 0, Max: 4096}
	d := p.NewDetector(7)
	const n = 200000
	for _, q := range []int64{512, 2048, 3900} {
		marked := 0
		for range n {
			if d.Congested(PortState{QueueBytes: q, QueuePackets: 1}) {
				marked++
			}
		}
		pr := float64(p.MarkThreshold(q)) / (1 << 32)
		z := (float64(marked) - n*pr) / math.Sqrt(n*pr*(1-pr))
		if math.Abs(z) > 4.89 {
			t.Errorf("occupancy %d: marked %d of %d, expected %.1f (z=%.2f)", q, marked, n, n*pr, z)
		}
	}
}

func TestIBCCHysteresis(t *testing.T) {
	c := IBCC{Weight: 8, Hysteresis: 3000}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	const capacity = 16384 // high threshold 8192, low 5192
	if hi, lo := c.HighThreshold(capacity), c.LowThreshold(capacity); hi != 8192 || lo != 5192 {
		t.Fatalf("thresholds %d, %d; want 8192, 5192", hi, lo)
	}
	d := c.NewDetector(1)
	steps := []struct {
		q       int64
		credits int64
		want    bool
	}{
		{8000, 100, false}, // below the high threshold
		{8192, 0, false},   // at it, but a victim (no credits): does not enter
		{8192, 100, true},  // root of congestion: enters
		{6000, 0, true},    // between the thresholds: stays (credits no longer matter)
		{5192, 100, true},  // at the low threshold: stays
		{5191, 100, false}, // below: leaves
		{6000, 100, false}, // between, from outside: does not re-enter
	}
	for i, s := range steps {
		got := d.Congested(PortState{QueueBytes: s.q, QueuePackets: 1, Capacity: capacity, Credits: s.credits, PacketBytes: 2048})
		if got != s.want {
			t.Errorf("step %d (queue %d, credits %d): congested=%t, want %t", i, s.q, s.credits, got, s.want)
		}
	}
}

func TestIBCCVictimMaskAndSize(t *testing.T) {
	d := IBCC{Weight: 15, VictimMask: true, PacketSize: 256}.NewDetector(1)
	st := PortState{QueueBytes: 4096, QueuePackets: 2, Capacity: 16384, Credits: 0, PacketBytes: 64, FacesHCA: true}
	if d.Congested(st) {
		t.Error("a 64-byte packet was marked with Packet_Size 256")
	}
	if !InState(d) {
		t.Error("Victim_Mask set: port without credits did not enter the congestion state")
	}
	st.PacketBytes = 256
	if !d.Congested(st) {
		t.Error("a 256-byte packet in the congestion state was not marked (Marking_Rate 0)")
	}
	if (IBCC{Weight: 0}).NewDetector(1).Congested(PortState{QueueBytes: 1 << 30, QueuePackets: 9, Credits: 1}) {
		t.Error("weight 0 marked a packet")
	}
}

func TestIBCCCounter(t *testing.T) {
	d := IBCC{Weight: 15, MarkingRate: 3, Counter: true}.NewDetector(1)
	st := PortState{QueueBytes: 2000, QueuePackets: 1, Capacity: 16384, Credits: 1, PacketBytes: 100}
	var got []bool
	for range 9 {
		got = append(got, d.Congested(st))
	}
	want := []bool{false, false, false, true, false, false, false, true, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counter marking, Marking_Rate 3 (-want +got):\n%s", diff)
	}
}

// TestIBCCRandomRate: Marking_Rate 4 marks each eligible packet with
// probability 1/5; z-test at level 1e-6 over 100000 packets.
func TestIBCCRandomRate(t *testing.T) {
	d := IBCC{Weight: 15, MarkingRate: 4}.NewDetector(99)
	st := PortState{QueueBytes: 2000, QueuePackets: 1, Capacity: 16384, Credits: 1, PacketBytes: 100}
	const n = 100000
	marked := 0
	for range n {
		if d.Congested(st) {
			marked++
		}
	}
	z := (float64(marked) - n/5.0) / math.Sqrt(n*0.2*0.8)
	if math.Abs(z) > 4.89 {
		t.Errorf("marked %d of %d, expected %d (z=%.2f)", marked, n, n/5, z)
	}
}

func TestParseRoundTrip(t *testing.T) {
	defs := []Definition{
		QueueOverCredits{},
		Threshold{Bytes: 8192},
		Threshold{Packets: 3},
		Probabilistic{Min: 1, Max: 99},
		IBCC{Weight: 8, MarkingRate: 1, PacketSize: 64, VictimMask: true, Hysteresis: 12288, Counter: true},
		IBCC{Weight: 1},
	}
	for _, d := range defs {
		got, err := ParseDefinition(d.Name())
		if err != nil {
			t.Errorf("ParseDefinition(%q): %v", d.Name(), err)
			continue
		}
		if got != d {
			t.Errorf("ParseDefinition(%q) = %#v, want %#v", d.Name(), got, d)
		}
	}
	for _, bad := range []string{"", "nope", "threshold", "threshold(bytes=x)", "ibcc(weight=16)", "ibcc(weight=1,weight=2)",
		"probabilistic(min=5,max=5)", "threshold(bytes=1", "queue-over-credits(x=1)", "ibcc(marking=sometimes,weight=1)"} {
		if _, err := ParseDefinition(bad); err == nil {
			t.Errorf("ParseDefinition(%q) accepted it", bad)
		}
	}
}

func FuzzParseDefinition(f *testing.F) {
	f.Add("queue-over-credits")                              // the thesis's definition
	f.Add("threshold(bytes=8192,packets=0)")                 // both keys
	f.Add("ibcc(weight=8,hysteresis=12288)")                 // partial keys
	f.Add("probabilistic(min=0,max=4096)")                   // RED-like
	f.Add("ibcc(weight=8,marking=counter,victim_mask=true)") // booleans and modes
	f.Add("threshold(bytes=)")                               // empty value
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDefinition(s)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseDefinition(%q) returned an invalid definition: %v", s, err)
		}
		again, err := ParseDefinition(d.Name())
		if err != nil || again != d {
			t.Fatalf("round trip of %q through %q: %v, %#v", s, d.Name(), err, again)
		}
		det := d.NewDetector(1)
		det.Congested(PortState{QueueBytes: 100, QueuePackets: 1, Capacity: 1000, Credits: 10, PacketBytes: 64})
	})
}

// TestGoldenSequence freezes every definition's answers to a fixed scripted
// sequence of port states: a change of any rule, threshold mapping or random
// stream shows as a diff. Regenerate with -update.
func TestGoldenSequence(t *testing.T) {
	defs := []Definition{
		QueueOverCredits{},
		Threshold{Bytes: 6000, Packets: 5},
		Probabilistic{Min: 2000, Max: 14000},
		IBCC{Weight: 10, MarkingRate: 2, PacketSize: 128, Hysteresis: 2 * 2048},
		IBCC{Weight: 10, MarkingRate: 2, PacketSize: 128, Hysteresis: 2 * 2048, Counter: true, VictimMask: true},
	}
	render := func() []byte {
		var b bytes.Buffer
		for _, d := range defs {
			det := d.NewDetector(0x5eed)
			fmt.Fprintf(&b, "%s\n", d.Name())
			for i := range 64 {
				// A queue that fills and drains: a triangle wave of period 32 packets.
				k := int64(i % 32)
				if k > 16 {
					k = 32 - k
				}
				st := PortState{
					QueueBytes: k * 1024, QueuePackets: int(k), Capacity: 16384,
					Credits: int64((i * 1237) % 9000), PacketBytes: 64 + (i*97)%2048, Time: int64(i) * 80000,
				}
				if det.Congested(st) {
					b.WriteByte('1')
				} else {
					b.WriteByte('0')
				}
			}
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	got := render()
	if again := render(); !bytes.Equal(got, again) {
		t.Fatal("two renders of the golden sequence differ")
	}
	golden.Check(t, filepath.Join("testdata", "sequence.golden"), got)
}
