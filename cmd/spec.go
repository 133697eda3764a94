package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ibreservoir/header"
)

// specOptions are the inputs of `ibreservoir spec`.
type specOptions struct {
	Spec   header.TelemetrySpec
	Global bool
	Format string // "text" or "markdown"
}

func init() {
	o := specOptions{Spec: defaultTelemetrySpec(), Format: "text"}
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
			return runSpec(cmd.OutOrStdout(), o)
		},
	}
	bindTelemetryFlags(cmd.Flags(), &o.Spec)
	bindLNHFlag(cmd.Flags(), &o.Global)
	cmd.Flags().StringVar(&o.Format, "format", o.Format, "output format: text or markdown")
	rootCmd.AddCommand(cmd)
}

// specColumns are the bit map's columns.
var specColumns = []string{"field", "writer", "header", "byte", "bits", "packet byte", "IBA field", "ICRC", "meaning"}

func runSpec(w io.Writer, o specOptions) error {
	if o.Format != "text" && o.Format != "markdown" {
		return fmt.Errorf("unknown --format %q: use text or markdown", o.Format)
	}
	lnh := lnhOf(o.Global)
	l, err := telemetryLayout(o.Spec, lnh)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, r := range l.BitMap(lnh) {
		icrc := "not covered"
		if r.ICRCCovered {
			icrc = "covered"
		}
		rows = append(rows, []string{r.Field, r.Writer.String(), r.Header, fmt.Sprint(r.Byte), r.Bits,
			packetByte(r, lnh, l.FooterBytes), r.IBAField, icrc, r.Meaning})
	}
	title := fmt.Sprintf("Layout %s, %s packets", l.Name, lnhWord(lnh))
	notes := []string{l.Description}
	if l.FooterBytes > 0 {
		notes = append(notes, fmt.Sprintf("The footer's %d bytes sit between the ICRC and the VCRC; PktLen counts them, the ICRC does not, the VCRC does.", l.FooterBytes))
	}
	notes = append(notes, "Switches rewrite only bits outside the ICRC and recompute the VCRC (docs/spec.md §5).")
	if o.Format == "markdown" {
		fmt.Fprintf(w, "### %s\n\n", title)
		for _, n := range notes {
			fmt.Fprintf(w, "%s\n", n)
		}
		fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(specColumns, " | "), strings.Repeat("---|", len(specColumns)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return nil
	}
	fmt.Fprintf(w, "%s\n", title)
	for _, n := range notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(specColumns, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
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
