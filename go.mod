module ibreservoir

go 1.26

require (
	github.com/dchest/siphash v1.2.3
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/gopacket/gopacket v1.7.7 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mmcloughlin/avo v0.5.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/mod v0.23.0 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sync v0.12.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
