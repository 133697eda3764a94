// SPDX-License-Identifier: Apache-2.0

package header

//go:generate go run ./internal/fixturegen -capture ../capture/testdata/infiniband-hca-capture.pcap -o fixture_test.go
