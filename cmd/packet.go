package cmd

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"ibreservoir/capture"
	"ibreservoir/header"
)

// packetCheckOptions are the inputs of `ibreservoir packet check`.
type packetCheckOptions struct {
	Files     []string
	JSON      bool
	Telemetry bool // decode the telemetry fields of Spec
	Spec      header.TelemetrySpec
}

func init() {
	packetCmd := &cobra.Command{
		Use:   "packet",
		Short: "Inspect InfiniBand packets in capture files",
	}
	o := packetCheckOptions{Spec: defaultTelemetrySpec()}
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Decode every packet of pcap/pcapng captures and verify its ICRC and VCRC",
		Long: `check reads pcap and pcapng captures (ERF records of type 21 in link type 197,
as Endace cards and Wireshark save them, or raw InfiniBand in link type 247)
and prints, per packet, the decoded LRH, GRH and BTH and whether the ICRC and
VCRC are good. With --telemetry it also decodes the telemetry fields of the
layout the telemetry flags describe (and finds the ICRC before its footer).
It exits non-zero if any packet is malformed or has a bad CRC.`,
		Example: `  ibreservoir packet check capture.pcap
  ibreservoir packet check --json a.pcap b.pcapng
  ibreservoir packet check --telemetry --scheme fullid --count-bits 8 vectors.pcap`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("name at least one capture file to check, e.g. ibreservoir packet check capture.pcap")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			return runPacketCheck(cmd.OutOrStdout(), o)
		},
	}
	check.Flags().BoolVar(&o.JSON, "json", false, "print one JSON document instead of text")
	check.Flags().BoolVar(&o.Telemetry, "telemetry", false, "also decode the telemetry fields of the layout given by --scheme, --count-bits, ... --placement")
	bindTelemetryFlags(check.Flags(), &o.Spec)
	packetCmd.AddCommand(check)
	rootCmd.AddCommand(packetCmd)
}

// checkedPacket is the report on one packet (or one malformed record).
type checkedPacket struct {
	File       string            `json:"file"`
	Record     int               `json:"record"`
	Offset     int64             `json:"offset"`
	Length     int               `json:"length"`
	WireLength int               `json:"wire_length"`
	LNH        uint8             `json:"lnh,omitempty"`
	LRH        *header.LRH       `json:"lrh,omitempty"`
	GRH        *grhView          `json:"grh,omitempty"`
	BTH        *header.BTH       `json:"bth,omitempty"`
	ICRC       *crcView          `json:"icrc,omitempty"`
	VCRC       *crcView          `json:"vcrc,omitempty"`
	Telemetry  map[string]uint64 `json:"telemetry,omitempty"`
	Layout     string            `json:"layout,omitempty"`
	Error      string            `json:"error,omitempty"`
	OK         bool              `json:"ok"`

	fields  []string // telemetry field names in layout order, for the text report
	framing bool     // a malformed capture record; Error names record and offset
}

// grhView is the GRH with its GIDs written as IPv6-style hex.
type grhView struct {
	IPVer     uint8  `json:"IPVer"`
	TClass    uint8  `json:"TClass"`
	FlowLabel uint32 `json:"FlowLabel"`
	PayLen    uint16 `json:"PayLen"`
	NxtHdr    uint8  `json:"NxtHdr"`
	HopLmt    uint8  `json:"HopLmt"`
	SGID      string `json:"SGID"`
	DGID      string `json:"DGID"`
}

type crcView struct {
	Carried  string `json:"carried"` // the value, sent least-significant byte first
	Wire     string `json:"wire"`    // the bytes in wire order, as Wireshark shows them
	Computed string `json:"computed"`
	OK       bool   `json:"ok"`
}

type checkSummary struct {
	Packets int `json:"packets"`
	Good    int `json:"good"`
	Bad     int `json:"bad"`
}

func gid(g [16]byte) string {
	s := hex.EncodeToString(g[:])
	var parts []string
	for i := 0; i < len(s); i += 4 {
		parts = append(parts, s[i:i+4])
	}
	return strings.Join(parts, ":")
}

func runPacketCheck(w io.Writer, o packetCheckOptions) error {
	if len(o.Files) == 0 {
		return errors.New("name at least one capture file to check")
	}
	// The layout, per LNH; a layout invalid for one kind of packet is
	// reported on each packet of that kind.
	var layouts [4]*header.Layout
	var layoutErrs [4]error
	footer := 0
	if o.Telemetry {
		l, err := o.Spec.Layout()
		if err != nil {
			_, err = telemetryLayout(o.Spec, header.LNHLocal) // for its flag-naming message
			return err
		}
		footer = l.FooterBytes
		for _, lnh := range []uint8{header.LNHLocal, header.LNHGlobal} {
			layouts[lnh], layoutErrs[lnh] = telemetryLayout(o.Spec, lnh)
		}
	}
	var all []checkedPacket
	var sum checkSummary
	emit := func(c checkedPacket) {
		sum.Packets++
		if c.OK {
			sum.Good++
		} else {
			sum.Bad++
		}
		if o.JSON {
			all = append(all, c)
		} else {
			printChecked(w, c)
		}
	}
	for _, path := range o.Files {
		r, f, err := capture.Open(path)
		if err != nil {
			emit(checkedPacket{File: path, Error: err.Error()})
			continue
		}
		for {
			p, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *capture.FormatError
				c := checkedPacket{File: path, Error: err.Error(), framing: true}
				if errors.As(err, &fe) {
					c.Record, c.Offset = fe.Record, fe.Offset
				}
				emit(c)
				if fe != nil && fe.Skippable {
					continue
				}
				break
			}
			emit(checkOne(path, p, footer, layouts, layoutErrs))
		}
		f.Close()
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Packets []checkedPacket `json:"packets"`
			Summary checkSummary    `json:"summary"`
		}{all, sum}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "%d packets: %d good, %d bad\n", sum.Packets, sum.Good, sum.Bad)
	}
	if sum.Bad > 0 {
		return exitError{1, fmt.Errorf("%d of %d packets failed the check", sum.Bad, sum.Packets)}
	}
	if sum.Packets == 0 {
		return exitError{1, errors.New("no packets found")}
	}
	return nil
}

// checkOne decodes and checks one captured packet.
func checkOne(path string, p *capture.Packet, footer int, layouts [4]*header.Layout, layoutErrs [4]error) checkedPacket {
	c := checkedPacket{File: path, Record: p.Record, Offset: p.Offset, Length: len(p.Data), WireLength: p.WireLen}
	if p.Truncated() {
		c.Error = fmt.Sprintf("truncated: %d of %d bytes captured, so the CRCs cannot be checked", len(p.Data), p.WireLen)
		return c
	}
	pk, err := header.DecodePacket(p.Data, footer)
	if err != nil {
		c.Error = err.Error()
		return c
	}
	c.LNH = pk.LRH.LNH
	c.LRH, c.BTH = &pk.LRH, &pk.BTH
	if pk.Global() {
		g := pk.GRH
		c.GRH = &grhView{g.IPVer, g.TClass, g.FlowLabel, g.PayLen, g.NxtHdr, g.HopLmt, gid(g.SGID), gid(g.DGID)}
	}
	chk, err := header.Check(p.Data, footer)
	if err != nil {
		c.Error = err.Error()
		return c
	}
	n := 4 * int(pk.LRH.PktLen)
	c.ICRC = &crcView{fmt.Sprintf("%#08x", chk.ICRC), hex.EncodeToString(p.Data[n-footer-4 : n-footer]), fmt.Sprintf("%#08x", chk.WantICRC), chk.ICRCOK()}
	c.VCRC = &crcView{fmt.Sprintf("%#04x", chk.VCRC), hex.EncodeToString(p.Data[n : n+2]), fmt.Sprintf("%#04x", chk.WantVCRC), chk.VCRCOK()}
	var errs []string
	if err := chk.Err(); err != nil {
		errs = append(errs, err.Error())
	}
	if l := layouts[pk.LRH.LNH]; l != nil {
		c.Layout = l.Name
		fr, err := l.Locate(p.Data)
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			c.Telemetry = make(map[string]uint64, len(l.Fields))
			for _, f := range l.Fields {
				v, err := l.Get(p.Data, fr, f.Name)
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				c.Telemetry[f.Name] = v
				c.fields = append(c.fields, f.Name)
			}
		}
	} else if err := layoutErrs[pk.LRH.LNH]; err != nil {
		errs = append(errs, err.Error())
	}
	c.Error = strings.Join(errs, "; ")
	c.OK = len(errs) == 0
	return c
}

func yn(b bool) int {
	if b {
		return 1
	}
	return 0
}

func goodBad(ok bool) string {
	if ok {
		return "good"
	}
	return "BAD"
}

// printChecked writes the text report of one packet.
func printChecked(w io.Writer, c checkedPacket) {
	verdict := "ok"
	if !c.OK {
		verdict = "FAIL"
	}
	if c.framing {
		fmt.Fprintf(w, "%s: %s: %s\n\n", c.File, verdict, c.Error)
		return
	}
	if c.LRH == nil {
		fmt.Fprintf(w, "%s record %d (byte %d): %s: %s\n\n", c.File, c.Record, c.Offset, verdict, c.Error)
		return
	}
	fmt.Fprintf(w, "%s record %d (byte %d): %d bytes, %s: %s\n", c.File, c.Record, c.Offset, c.Length, lnhWord(c.LNH), verdict)
	l := c.LRH
	fmt.Fprintf(w, "  LRH  VL=%d LVer=%d SL=%d Rsv2=%d LNH=%d DLID=%#04x Rsv5=%d PktLen=%d SLID=%#04x\n",
		l.VL, l.LVer, l.SL, l.Rsv2, l.LNH, l.DLID, l.Rsv5, l.PktLen, l.SLID)
	if g := c.GRH; g != nil {
		fmt.Fprintf(w, "  GRH  IPVer=%d TClass=%d FlowLabel=%#05x PayLen=%d NxtHdr=%#02x HopLmt=%d\n",
			g.IPVer, g.TClass, g.FlowLabel, g.PayLen, g.NxtHdr, g.HopLmt)
		fmt.Fprintf(w, "       SGID=%s DGID=%s\n", g.SGID, g.DGID)
	}
	b := c.BTH
	fmt.Fprintf(w, "  BTH  OpCode=%#02x SE=%d M=%d PadCnt=%d TVer=%d P_Key=%#04x FECN=%d BECN=%d Resv6=%#02x DestQP=%#06x AckReq=%d Resv7=%#02x PSN=%d\n",
		b.OpCode, yn(b.SE), yn(b.M), b.PadCnt, b.TVer, b.PKey, yn(b.FECN), yn(b.BECN), b.Resv6, b.DestQP, yn(b.AckReq), b.Resv7, b.PSN)
	if c.ICRC != nil {
		fmt.Fprintf(w, "  ICRC %s (wire %s) %s", c.ICRC.Carried, c.ICRC.Wire, goodBad(c.ICRC.OK))
		if !c.ICRC.OK {
			fmt.Fprintf(w, " (computed %s)", c.ICRC.Computed)
		}
		fmt.Fprintf(w, "   VCRC %s (wire %s) %s", c.VCRC.Carried, c.VCRC.Wire, goodBad(c.VCRC.OK))
		if !c.VCRC.OK {
			fmt.Fprintf(w, " (computed %s)", c.VCRC.Computed)
		}
		fmt.Fprintln(w)
	}
	if c.Telemetry != nil {
		fmt.Fprintf(w, "  telemetry (%s):", c.Layout)
		for _, n := range c.fields {
			fmt.Fprintf(w, " %s=%d", n, c.Telemetry[n])
		}
		fmt.Fprintln(w)
	}
	if c.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", c.Error)
	}
	fmt.Fprintln(w)
}
