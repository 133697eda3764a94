// SPDX-License-Identifier: Apache-2.0

package cmd

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"ibreservoir/capture"
	"ibreservoir/header"
	"ibreservoir/internal/cli"
)

// packetCheckOptions are the inputs of `ibreservoir packet check`.
type packetCheckOptions struct {
	Files     []string
	Format    cli.Format
	Telemetry bool // decode the telemetry fields of Spec
	Spec      header.TelemetrySpec
}

// telemetryFlagNames are the flags of the telemetry layout, which only
// --telemetry uses.
var telemetryFlagNames = []string{flagScheme, flagCountBits, flagSenderL, flagSwitchBits, flagPortBits, flagPlacement}

func newPacketCmd() *cobra.Command {
	packetCmd := cli.Group(&cobra.Command{
		Use:   "packet",
		Short: "Inspect InfiniBand packets in capture files",
	})
	o := packetCheckOptions{Spec: defaultTelemetrySpec()}
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Decode every packet of pcap/pcapng captures and verify its ICRC and VCRC",
		Long: `check reads pcap and pcapng captures (ERF records of type 21 in link type 197,
as Endace cards and Wireshark save them, or raw InfiniBand in link type 247)
and prints, per packet, the decoded LRH, GRH and BTH and whether the ICRC and
VCRC are good. A packet whose ERF header flags a receive error, a data-stream
error or truncation is bad whatever its CRCs say. With --telemetry it also
decodes the telemetry fields of the layout the telemetry flags describe (and
finds the ICRC before its footer). --format json prints one JSON document,
written as the packets are read, so any capture takes the same memory.
It exits non-zero if any packet is malformed or has a bad CRC, or a file
cannot be read as a capture.`,
		Example: `  ibreservoir packet check capture/testdata/infiniband-hca-capture.pcap
  ibreservoir packet check --format json a.pcap b.pcapng
  ibreservoir packet check --telemetry --scheme fullid --count-bits 8 vectors.pcap`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("name at least one capture file to check, e.g. ibreservoir packet check capture.pcap")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.Telemetry {
				if err := cli.NoEffect(cmd.Flags(), "without --telemetry", "add --telemetry to decode the fields of that layout",
					telemetryFlagNames...); err != nil {
					return err
				}
			} else if err := checkTelemetryFlags(cmd.Flags(), o.Spec); err != nil {
				return err
			}
			o.Files = args
			return runPacketCheck(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	cli.FormatVar(check.Flags(), &o.Format, cli.Text, cli.JSON)
	check.Flags().BoolVar(&o.Telemetry, "telemetry", false, "also decode the telemetry fields of the layout given by --scheme, --count-bits, ... --placement")
	bindTelemetryFlags(check.Flags(), &o.Spec)
	packetCmd.AddCommand(check)
	return packetCmd
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
	Packets    int `json:"packets"`
	Good       int `json:"good"`
	Bad        int `json:"bad"`
	Unreadable int `json:"unreadable_files,omitempty"` // files that are not captures at all
}

// fileError is a file that could not be read as a capture: it holds no
// packets, so it is reported apart from them.
type fileError struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func gid(g [16]byte) string {
	s := hex.EncodeToString(g[:])
	var parts []string
	for i := 0; i < len(s); i += 4 {
		parts = append(parts, s[i:i+4])
	}
	return strings.Join(parts, ":")
}

// runPacketCheck checks every packet of o.Files, writing each report as it
// goes (text, or one JSON document streamed packet by packet), so that memory
// does not grow with the capture. A SIGINT or SIGTERM (ctx) stops it between
// packets.
func runPacketCheck(ctx context.Context, out io.Writer, o packetCheckOptions) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
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
	w := bufio.NewWriterSize(out, 1<<16)
	defer func() {
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
	}()
	var sum checkSummary
	var fileErrs []fileError
	js := o.Format == cli.JSON
	if js {
		io.WriteString(w, "{\n  \"packets\": [")
	}
	emit := func(c checkedPacket) error {
		sum.Packets++
		if c.OK {
			sum.Good++
		} else {
			sum.Bad++
		}
		if !js {
			printChecked(w, c)
			return nil
		}
		b, err := json.MarshalIndent(c, "    ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n    "
		if sum.Packets == 1 {
			sep = "\n    "
		}
		w.WriteString(sep)
		_, err = w.Write(b)
		return err
	}
	for _, path := range o.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, f, err := capture.Open(path)
		if err != nil {
			sum.Unreadable++
			msg := strings.TrimPrefix(err.Error(), path+": ") // the line names the file already
			fileErrs = append(fileErrs, fileError{path, msg})
			if !js {
				fmt.Fprintf(w, "%s: FAIL: %s\n\n", path, msg)
			}
			continue
		}
		err = checkFile(ctx, path, r, footer, layouts, layoutErrs, emit)
		f.Close()
		if err != nil {
			return err
		}
	}
	if js {
		if sum.Packets > 0 {
			w.WriteString("\n  ")
		}
		w.WriteString("],\n")
		if len(fileErrs) > 0 {
			b, _ := json.MarshalIndent(fileErrs, "  ", "  ")
			fmt.Fprintf(w, "  \"file_errors\": %s,\n", b)
		}
		b, _ := json.MarshalIndent(sum, "  ", "  ")
		fmt.Fprintf(w, "  \"summary\": %s\n}\n", b)
	} else {
		fmt.Fprintf(w, "%d packets: %d good, %d bad\n", sum.Packets, sum.Good, sum.Bad)
		if sum.Unreadable > 0 {
			fmt.Fprintf(w, "%d of %d files could not be read as captures\n", sum.Unreadable, len(o.Files))
		}
	}
	switch {
	case sum.Bad > 0 && sum.Unreadable > 0:
		return exitError{1, fmt.Errorf("%d of %d packets failed the check, and %d of %d files could not be read", sum.Bad, sum.Packets, sum.Unreadable, len(o.Files))}
	case sum.Bad > 0:
		return exitError{1, fmt.Errorf("%d of %d packets failed the check", sum.Bad, sum.Packets)}
	case sum.Unreadable > 0:
		return exitError{1, fmt.Errorf("%d of %d files could not be read as captures", sum.Unreadable, len(o.Files))}
	case sum.Packets == 0:
		return exitError{1, errors.New("no packets found")}
	}
	return nil
}

// checkFile checks the packets of one capture, passing each report to emit.
func checkFile(ctx context.Context, path string, r *capture.Reader, footer int, layouts [4]*header.Layout, layoutErrs [4]error, emit func(checkedPacket) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var fe *capture.FormatError
			c := checkedPacket{File: path, Error: err.Error(), framing: true}
			if errors.As(err, &fe) {
				c.Record, c.Offset = fe.Record, fe.Offset
			}
			if err := emit(c); err != nil {
				return err
			}
			if fe != nil && fe.Skippable {
				continue
			}
			return nil
		}
		if err := emit(checkOne(path, p, footer, layouts, layoutErrs)); err != nil {
			return err
		}
	}
}

// checkOne decodes and checks one captured packet. A packet the capture
// card flagged (ERF receive or data-stream error, truncation) is bad whatever
// its CRCs say; it is still decoded, for the report.
func checkOne(path string, p *capture.Packet, footer int, layouts [4]*header.Layout, layoutErrs [4]error) checkedPacket {
	c := checkedPacket{File: path, Record: p.Record, Offset: p.Offset, Length: len(p.Data), WireLength: p.WireLen}
	var errs []string
	done := func(err error) checkedPacket {
		if err != nil {
			errs = append(errs, err.Error())
		}
		c.Error = strings.Join(errs, "; ")
		c.OK = len(errs) == 0
		return c
	}
	if err := p.CaptureError(); err != nil {
		errs = append(errs, err.Error())
	}
	if p.Truncated() {
		return done(fmt.Errorf("truncated: %d of %d bytes captured, so the CRCs cannot be checked", len(p.Data), p.WireLen))
	}
	pk, err := header.DecodePacket(p.Data, footer)
	if err != nil {
		return done(err)
	}
	c.LNH = pk.LRH.LNH
	c.LRH, c.BTH = &pk.LRH, &pk.BTH
	if pk.Global() {
		g := pk.GRH
		c.GRH = &grhView{g.IPVer, g.TClass, g.FlowLabel, g.PayLen, g.NxtHdr, g.HopLmt, gid(g.SGID), gid(g.DGID)}
	}
	chk, err := header.Check(p.Data, footer)
	if err != nil {
		return done(err)
	}
	n := 4 * int(pk.LRH.PktLen)
	c.ICRC = &crcView{fmt.Sprintf("%#08x", chk.ICRC), hex.EncodeToString(p.Data[n-footer-4 : n-footer]), fmt.Sprintf("%#08x", chk.WantICRC), chk.ICRCOK()}
	c.VCRC = &crcView{fmt.Sprintf("%#04x", chk.VCRC), hex.EncodeToString(p.Data[n : n+2]), fmt.Sprintf("%#04x", chk.WantVCRC), chk.VCRCOK()}
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
	return done(nil)
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
