// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"testing"
)

// TestFixturesCurrent regenerates header/fixture_test.go from the capture and
// requires the checked-in file to be what go generate writes.
func TestFixturesCurrent(t *testing.T) {
	got, err := render("../../../capture/testdata/infiniband-hca-capture.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../fixture_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("header/fixture_test.go is not what go generate ./header writes from the capture; run it")
	}
}
