// SPDX-License-Identifier: Apache-2.0

package dpi

import (
	"errors"
	"testing"
)

// TestParseAssertions: the errors the RTL reports are counted apart from the
// mismatches, Verilator's note of an error let pass is not output the
// testbench should not print, and the testbench's own messages are not the
// RTL's.
func TestParseAssertions(t *testing.T) {
	out := "MODEL 0.1 hash=mult0\n" +
		"[40] %Error: ibr_gen_ideal.sv:128: Assertion failed in TOP.ibr_dpi_tb.u: ibr_gen_ideal: all-zero state\n" +
		"-Info: ibr_gen_ideal.sv:128: Verilog $stop, ignored due to +verilator+error+limit\n" +
		"[41] %Error: ibr_gen_ideal.sv:128: Assertion failed in TOP.ibr_dpi_tb.u: again\n" +
		"CORRUPT vcrc=1 icrc=0 pktlen-longer=2 pktlen-shorter=0 oversize=0 stomped=3\nRESULT packets=9 mismatches=0 malformed=0 cycles=90\nSECONDS 0.5 CPU 0.25\n"
	r, err := parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if r.Assertions != 2 || r.Mismatches != 0 || r.FirstAssertion == "" {
		t.Errorf("assertions %d (first %q), mismatches %d; want 2, the first, 0", r.Assertions, r.FirstAssertion, r.Mismatches)
	}
	tb := "%Error: " + TopModule + ".sv:12: the testbench's own\nCORRUPT vcrc=1 icrc=0 pktlen-longer=2 pktlen-shorter=0 oversize=0 stomped=3\nRESULT packets=1 mismatches=0 malformed=0 cycles=1\nSECONDS 1 CPU 0.25\n"
	if _, err := parse([]byte(tb)); err == nil {
		t.Error("a testbench's own error line was taken for the RTL's and accepted")
	}
	// A $fatal of the RTL ends the run before its RESULT line: a Stopped
	// error; a missing RESULT line without one is a plain failure.
	fatal := "MODEL 0.1 hash=mult0\n[40] %Fatal: ibr_switch_stage.sv:615: Assertion failed in TOP.ibr_dpi_tb.u: byte 4\n" +
		"%Error: ibr_switch_stage.sv:615: Verilog $stop\n"
	var st *Stopped
	if _, err := parse([]byte(fatal)); !errors.As(err, &st) || st.Result.Assertions != 1 {
		t.Errorf("a run a $fatal ended: %v, want a Stopped error with 1 assertion", err)
	}
	if _, err := parse([]byte("MODEL 0.1 hash=mult0\n")); err == nil || errors.As(err, &st) {
		t.Errorf("a run with no RESULT line and no RTL error: %v, want a plain error", err)
	}
}
