// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"ibreservoir/header"
	"ibreservoir/internal/cli"
)

// specOptions are the inputs of `ibreservoir spec`.
type specOptions struct {
	Spec   header.TelemetrySpec
	Global bool
	Format cli.Format
}

func newSpecCmd() *cobra.Command {
	o := specOptions{Spec: defaultTelemetrySpec(), Format: cli.Text}
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Print the bit map of a telemetry layout: header, byte, bits, meaning, ICRC coverage",
		Long: `spec prints where the reservoir-sampling fields of the chosen layout lie in an
InfiniBand packet: which header, byte and bits, what each field means, who
writes it, and whether the ICRC covers it (docs/spec.md §2). An invalid
layout, such as switch-written fields in ICRC-covered bits, is an error that
gives the reason.`,
		Example: `  ibreservoir spec
  ibreservoir spec --scheme tworeservoir --count-bits 3 --placement reserved-global --global
  ibreservoir spec --scheme fullid --switch-bits 10 --port-bits 6 --count-bits 4 --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTelemetryFlags(cmd.Flags(), o.Spec); err != nil {
				return err
			}
			return runSpec(cmd.OutOrStdout(), o)
		},
	}
	bindTelemetryFlags(cmd.Flags(), &o.Spec)
	bindLNHFlag(cmd.Flags(), &o.Global)
	cli.FormatVar(cmd.Flags(), &o.Format)
	return cmd
}

// specColumns are the bit map's columns.
var specColumns = []string{"field", "writer", "header", "byte", "bits", "packet byte", "IBA field", "ICRC", "meaning"}

func runSpec(w io.Writer, o specOptions) error {
	lnh := lnhOf(o.Global)
	l, err := telemetryLayout(o.Spec, lnh)
	if err != nil {
		return err
	}
	type rowJSON struct {
		Field       string `json:"field"`
		Writer      string `json:"writer"`
		Header      string `json:"header"`
		Byte        int    `json:"byte"`
		Bits        string `json:"bits"`
		PacketByte  string `json:"packet_byte"`
		IBAField    string `json:"iba_field"`
		ICRCCovered bool   `json:"icrc_covered"`
		Meaning     string `json:"meaning"`
	}
	var rows [][]string
	var jrows []rowJSON
	for _, r := range l.BitMap(lnh) {
		icrc := "not covered"
		if r.ICRCCovered {
			icrc = "covered"
		}
		pb := packetByte(r, lnh, l.FooterBytes)
		rows = append(rows, []string{r.Field, r.Writer.String(), r.Header, fmt.Sprint(r.Byte), r.Bits,
			pb, r.IBAField, icrc, r.Meaning})
		jrows = append(jrows, rowJSON{r.Field, r.Writer.String(), r.Header, r.Byte, r.Bits, pb, r.IBAField, r.ICRCCovered, r.Meaning})
	}
	notes := []string{l.Description}
	if l.FooterBytes > 0 {
		notes = append(notes, fmt.Sprintf("The footer's %d bytes sit between the ICRC and the VCRC; PktLen counts them, the ICRC does not, the VCRC does.", l.FooterBytes))
	}
	notes = append(notes, "Switches rewrite only bits outside the ICRC and recompute the VCRC (docs/spec.md §5).")
	t := &cli.Table{Title: fmt.Sprintf("Layout %s, %s packets", l.Name, lnhWord(lnh)), Notes: notes, Columns: specColumns, Rows: rows}
	doc := struct {
		Layout      string    `json:"layout"`
		LNH         uint8     `json:"lnh"`
		FooterBytes int       `json:"footer_bytes"`
		Notes       []string  `json:"notes"`
		Fields      []rowJSON `json:"fields"`
	}{l.Name, lnh, l.FooterBytes, notes, jrows}
	return cli.Report{Tables: []*cli.Table{t}, JSON: doc}.Write(w, o.Format)
}

// packetByte gives a bit-map row's byte as an offset in the packet: from LRH
// byte 0 for the headers, from the end of the footer (4*PktLen) for the footer.
func packetByte(r header.BitMapRow, lnh uint8, footer int) string {
	switch r.Header {
	case "LRH":
		return fmt.Sprint(r.Byte)
	case "BTH":
		bth, _ := header.BTHOffset(lnh)
		return fmt.Sprint(bth + r.Byte)
	}
	return fmt.Sprintf("4*PktLen-%d", footer-r.Byte)
}
