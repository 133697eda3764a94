// SPDX-License-Identifier: Apache-2.0

// ibr_dpi_pkg: the ibreservoir reference model (libibreservoir, the Go model
// built as a C library) in SystemVerilog through DPI-C, for scoreboards that
// check a switch pipeline packet by packet.
//
// Three thin layers, as Ibex's co-simulation has them: the C interface of the
// model (capi/include/ibreservoir.h), the DPI adapter (dpi/src/ibr_dpi.cc), which
// only converts svBitVecVal and svBit arguments and calls it, and this
// package of import declarations. Build the library with
//
//   go build -buildmode=c-archive -o out/lib/libibreservoir.a ./capi
//
// and give the simulator ibr_dpi_pkg.sv, ibr_dpi.cc (with -I capi/include)
// and the library (with -lpthread). docs/testbench.md walks through it;
// dpi/example/ holds a Verilator scoreboard for the RTL stage.
//
// Conventions:
// * A model is a chandle made by ibr_dpi_model_new from a configuration
//   string with the command line's flag names ("hash=crc32 count-bits=4").
// * Every function but the string ones returns a status (Ibr* below); on a
//   failure ibr_dpi_error(model) gives the message (ibr_dpi_error(null): the
//   last failed ibr_dpi_model_new's, or of the last call given a null
//   chandle, which returns IbrErrHandle). Nothing is printed or aborted.
// * A packet is a packet_t, byte i of the packet in bits 8i+7..8i (byte 0,
//   the LRH's first, in bits 7..0), and a length in bytes; pass MaxBytes as
//   max_bytes. A generator state is a state_t, bit i of the state in bit i
//   (the RTL's gen_state_i/gen_state_o), zero above the generator's width;
//   pass StateBits as state_bits.
// * A failing call changes none of its outputs.
package ibr_dpi_pkg;

  // Status codes (ibreservoir.h).
  localparam int IbrOk          = 0;
  localparam int IbrErrArg      = 1;  // a length or a value out of range
  localparam int IbrErrConfig   = 2;  // the configuration string
  localparam int IbrErrPacket   = 3;  // the packet: malformed, not of the model's kind, a bad CRC
  localparam int IbrErrState    = 4;  // a generator state the generator cannot be in
  localparam int IbrErrHandle   = 5;  // not a live model (a null chandle included)
  localparam int IbrErrSpace    = 6;  // an output too small
  localparam int IbrErrInternal = 7;  // a defect of the library (recovered)
  localparam int IbrErrFork     = 8;  // called in a fork() child of the process that loaded the library

  // Schemes (ibr_dpi_info).
  localparam int IbrSchemeFullId       = 0;
  localparam int IbrSchemeTwoReservoir = 1;
  localparam int IbrSchemeOneReservoir = 2;

  // Why a cut-through stage stomped a frame's VCRC (ibr_dpi_stage_frame's
  // corrupt; IBR_CORRUPT_* of ibreservoir.h).
  localparam int IbrCorruptVcrc     = 1;  // the frame's last two bytes are not the VCRC of the bytes before them
  localparam int IbrCorruptLength   = 2;  // PktLen disagrees with the frame's length, longer or shorter
  localparam int IbrCorruptOversize = 4;  // PktLen beyond the longest legal packet, 1048 words

  // The longest frame a packet_t holds: the most an 11-bit PktLen describes,
  // 4*2047+2 = 8190 bytes (the longest legal packet is 4194).
  localparam int MaxBytes  = 8192;
  localparam int StateBits = 256;  // the widest generator state a state_t holds (vectors.MaxStateBits)

  typedef bit [8*MaxBytes-1:0] packet_t;
  typedef bit [StateBits-1:0]  state_t;

  import "DPI-C" function string ibr_dpi_version();

  // A model from a configuration string ("" is the default configuration).
  import "DPI-C" function int ibr_dpi_model_new(input string cfg, output chandle model);
  import "DPI-C" function void ibr_dpi_free(input chandle model);
  import "DPI-C" function string ibr_dpi_error(input chandle model);

  // What the model is; its canonical configuration string and digest.
  import "DPI-C" function int ibr_dpi_info(input chandle model, output int scheme, output int lnh,
                                           output int count_bits, output int sender_l, output int state_bits,
                                           output int max_switch, output int max_port);
  import "DPI-C" function string ibr_dpi_config(input chandle model);
  import "DPI-C" function string ibr_dpi_digest(input chandle model);

  // A packet of the model's kind (LNH, GRH, footer, CRCs from the model), its
  // telemetry bits as resv6 gives them; ibr_dpi_send initialises them as the
  // sender NIC with LID lid does.
  import "DPI-C" function int ibr_dpi_build(input chandle model, input shortint unsigned slid,
                                            input shortint unsigned dlid, input byte unsigned sl,
                                            input byte unsigned vl, input byte unsigned opcode,
                                            input shortint unsigned pkey, input int unsigned dest_qp,
                                            input int unsigned psn, input byte unsigned resv6,
                                            input byte unsigned tclass, input int unsigned flow_label,
                                            input byte unsigned hop_limit, input bit [127:0] sgid,
                                            input bit [127:0] dgid, input packet_t payload,
                                            input int payload_len, output packet_t pkt, output int len,
                                            input int max_bytes);
  import "DPI-C" function int ibr_dpi_send(input chandle model, inout packet_t pkt, input int len,
                                           input shortint unsigned lid, input int max_bytes);

  // One switch stage on pkt, in place, from generator state `state` (updated):
  // the decision and the hop field after it (the RTL's stat_* outputs).
  import "DPI-C" function int ibr_dpi_stage(input chandle model, inout packet_t pkt, input int len,
                                            input shortint unsigned switch_id, input byte unsigned port,
                                            input bit congested, inout state_t state, output int hop_l,
                                            output bit hash_bit, output bit replaced, output bit saturated,
                                            output int hop_field, input int max_bytes, input int state_bits);
  // The stage as a cut-through switch runs it on a frame the link delivered,
  // corrupt or not (docs/spec.md section 5, step 0; ibr_stage_frame): len is
  // the frame's length, its VCRC its last two bytes whatever PktLen says.
  // corrupt receives the reasons (IbrCorrupt*, 0: sound); a corrupt frame
  // leaves with its telemetry updated as a sound one's and its VCRC stomped.
  import "DPI-C" function int ibr_dpi_stage_frame(input chandle model, inout packet_t pkt, input int len,
                                                  input shortint unsigned switch_id, input byte unsigned port,
                                                  input bit congested, inout state_t state, output int hop_l,
                                                  output bit hash_bit, output bit replaced, output bit saturated,
                                                  output int hop_field, output int corrupt, input int max_bytes,
                                                  input int state_bits);
  // Writes the VCRC of a frame's bytes into its last two bytes, whatever
  // PktLen says: to make a frame whose PktLen or ICRC is wrong and whose VCRC
  // is right.
  import "DPI-C" function int ibr_dpi_frame_seal(input chandle model, inout packet_t pkt, input int len,
                                                 input int max_bytes);
  // The generator state the configuration's seed gives port (switch_id, port).
  import "DPI-C" function int ibr_dpi_port_state(input chandle model, input shortint unsigned switch_id,
                                                 input byte unsigned port, output state_t state,
                                                 input int state_bits);

  // The receiver's read of a packet (checks both CRCs).
  import "DPI-C" function int ibr_dpi_receive(input chandle model, input packet_t pkt, input int len,
                                              output int unsigned id, output int hop_bit, output int cong_bit,
                                              output int hop_count, output int cong_count, input int max_bytes);

  // A telemetry field by name (hop_bit, cong_bit, hop_count, hop_rand, ...);
  // setting one recomputes the VCRC.
  import "DPI-C" function int ibr_dpi_field_get(input chandle model, input packet_t pkt, input int len,
                                                input string name, output longint unsigned value,
                                                input int max_bytes);
  import "DPI-C" function int ibr_dpi_field_set(input chandle model, inout packet_t pkt, input int len,
                                                input string name, input longint unsigned value,
                                                input int max_bytes);

  // How got differs from want, one difference a line ("" when equal).
  import "DPI-C" function string ibr_dpi_diff(input chandle model, input packet_t got, input int got_len,
                                              input packet_t want, input int want_len, input int max_bytes);

endpackage
