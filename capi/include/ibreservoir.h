// SPDX-License-Identifier: Apache-2.0

/*
 * ibreservoir.h: the C interface of libibreservoir, the bit-exact reference
 * model of in-band reservoir-sampling telemetry in InfiniBand switches
 * (Taffet's thesis, chapters 3 and 5; docs/spec.md is the contract).
 *
 * The library is the Go model (package refmodel) built as a C library:
 *
 *   go build -buildmode=c-shared  -o out/lib/libibreservoir.so ./capi
 *   go build -buildmode=c-archive -o out/lib/libibreservoir.a  ./capi
 *
 * Include this header (-I capi/include), never the libibreservoir.h that go
 * build writes beside the library: that one is cgo's, and declares the
 * internal ibrgo_* entry points this header's functions call. Link with
 * -lpthread (and -ldl on older C libraries).
 * docs/testbench.md walks through it; capi/example/ holds a C program, and
 * python/ the Python package over the shared library.
 *
 * Handles. A model is created from a configuration string and referred to
 * by an opaque ibr_model handle; a decoder likewise by an ibr_decoder. 0 is
 * never a valid handle. Handles are not pointers: no memory of the library
 * is ever given to the caller, and a stale or invented handle is reported
 * as IBR_ERR_HANDLE, never dereferenced. Every call on one handle is
 * serialised by the library, so a handle may be shared by threads; calls on
 * different handles run in parallel.
 *
 * Errors. Every function but ibr_version returns an ibr_status. A failing
 * call changes none of its outputs (a packet, a state, a result: each is
 * written whole or not at all) and keeps its message in the handle, where
 * ibr_last_error fetches it; the library never prints, aborts or exits. A
 * defect of the library itself (a Go panic) is caught at the boundary and
 * reported as IBR_ERR_INTERNAL.
 *
 * Packets are whole IBA packets, LRH byte 0 through the VCRC, as on the
 * wire: the length given is the buffer's, and the packet (4*PktLen+2 bytes)
 * must fit in it.
 *
 * Generators. A model keeps one generator per link for its whole life: the
 * first stage on a link starts it from the state the configuration's seed
 * gives that link (docs/spec.md section 6), and every later stage on that
 * link, however the link is asked for again, continues it. Two handles made
 * from one configuration are two models: each has its own generators.
 *
 * Limits. A configuration string, a field name: at most 65,536 bytes (a
 * longer one is refused, never cut). A packet buffer given as input: at most
 * 65,536 bytes (an IBA packet is at most 4*2047+2); an output buffer may be
 * of any size. A batch: at most 16,777,216 packets. A generator state: at
 * most 1,024 words. A decoder: at most 16,777,216 candidate links.
 *
 * Threads. Any thread may call any function; calls on one handle are
 * serialised, calls on different handles run in parallel.
 *
 * fork(). The library is the Go runtime, whose threads do not survive fork():
 * in the child of a process that has loaded the library, every function
 * that returns a status returns IBR_ERR_FORK at once (ibr_model_new and
 * ibr_last_error say why in their buffers; ibr_error_count gives 0,
 * ibr_packet_spec_init works) and nothing reaches the runtime. Use the library in the
 * parent, or in a process that was started by exec (posix_spawn, fork+exec);
 * from Python's multiprocessing, use the "spawn" or "forkserver" start
 * method, whose workers load the library afresh.
 *
 * Generator state (ibr_stage, ibr_port_state) is the RTL's gen_state_i /
 * gen_state_o: bit i of the state is bit i%32 of word i/32 (the layout of a
 * SystemVerilog svBitVecVal array, and of the package rng State). A state
 * array of any length of at least ibr_info.state_words words is accepted;
 * bits at and above ibr_info.state_bits must be 0 and are written 0.
 */
#ifndef IBRESERVOIR_H
#define IBRESERVOIR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
typedef int ibr_status;
#define IBR_OK 0
#define IBR_ERR_ARG 1      /* a null pointer, a length or a value out of range */
#define IBR_ERR_CONFIG 2   /* the configuration string */
#define IBR_ERR_PACKET 3   /* the packet: malformed, not of the model's kind, a bad CRC */
#define IBR_ERR_STATE 4    /* a generator state the generator cannot be in */
#define IBR_ERR_HANDLE 5   /* not a live handle of the right kind */
#define IBR_ERR_SPACE 6    /* an output buffer too small */
#define IBR_ERR_INTERNAL 7 /* a defect of the library (recovered) */
#define IBR_ERR_FORK 8     /* called in the child of a fork(): see fork() above */

typedef uintptr_t ibr_model;
typedef uintptr_t ibr_decoder;

/* Schemes (ibr_info.scheme). */
#define IBR_SCHEME_FULLID 0       /* Alg. 2-4 */
#define IBR_SCHEME_TWORESERVOIR 1 /* Alg. 5-7 */
#define IBR_SCHEME_ONERESERVOIR 2 /* Alg. 8-9 */

/* What a model is (ibr_model_info). */
typedef struct {
  int32_t scheme;       /* IBR_SCHEME_* */
  int32_t lnh;          /* 2: local packets; 3: global (with a GRH) */
  int32_t count_bits;   /* b, with a switch generator; 0 with sender draws */
  int32_t sender_l;     /* L of the sender draws (section 5.9); 0 with a switch generator */
  int32_t count_max;    /* the largest hop count: 2^b-1, or L */
  int32_t state_bits;   /* width of a port's generator state; 0 with sender draws */
  int32_t state_words;  /* 32-bit words that hold it: (state_bits+31)/32 */
  int32_t footer_bytes; /* the telemetry footer (0 when the fields are in the headers) */
  int32_t max_switch;   /* the largest switch ID of the fabric */
  int32_t max_port;     /* the largest output port */
} ibr_info;

/* A packet to build (ibr_packet_build). Fields the model decides (LNH,
 * PktLen, PadCnt, PayLen, the CRCs, the footer) are not here. Start from
 * ibr_packet_spec_init, which gives the Go and Python APIs' defaults (an RC
 * SEND Only, OpCode 0x04, in the default partition, P_Key 0xFFFF; every
 * other field 0), then set the fields: a spec that ibr_packet_spec_init did
 * not start (a zeroed one) is refused, never built as OpCode 0 and P_Key 0. */
#define IBR_PACKET_SPEC_INIT 0x31524249u /* "IBR1" */
typedef struct {
  uint32_t init;       /* IBR_PACKET_SPEC_INIT, set by ibr_packet_spec_init */
  uint16_t slid, dlid; /* LRH */
  uint8_t sl, vl;      /* LRH, 4 bits each */
  uint8_t opcode;      /* BTH OpCode */
  uint16_t pkey;       /* BTH P_Key */
  uint32_t dest_qp;    /* BTH DestQP, 24 bits */
  uint32_t psn;        /* BTH PSN, 24 bits */
  uint8_t resv6;       /* BTH Resv6, 6 bits, as given: ibr_send initialises the telemetry in it */
  uint8_t tclass;      /* GRH (global packets only) */
  uint32_t flow_label; /* GRH, 20 bits */
  uint8_t hop_limit;   /* GRH */
  uint8_t sgid[16];    /* GRH */
  uint8_t dgid[16];    /* GRH */
  const uint8_t *payload; /* extended transport headers and data; may be NULL when payload_len is 0 */
  size_t payload_len;
} ibr_packet_spec;

/* What one switch stage did (refmodel.StageResult). */
typedef struct {
  uint32_t id;            /* the packet id */
  uint32_t d;             /* the link's encoding (one-bit schemes) */
  int32_t hash_bit;       /* H(id, d) */
  int32_t hop_l;          /* l of the hop draw (count+1); sender draws: the hop the field served (0: spent) */
  int32_t hop_replaced;   /* the hop reservoir took this link */
  int32_t hop_saturated;  /* the hop count was already at its maximum */
  int32_t hop_count;      /* the hop count after the stage */
  int32_t congested;      /* the congested bit given */
  int32_t cong_drew;      /* tworeservoir, fullid: a second draw was made */
  int32_t cong_l;
  int32_t cong_replaced;  /* the congested reservoir took this link (onereservoir: cong_bit was written) */
  int32_t cong_saturated;
  int32_t cong_count;
  int32_t draws;          /* generator draws consumed */
  int32_t hop_field;      /* the hop count field after the stage (hop_count, or hop_rand with sender draws):
                             the RTL's stat_field_o */
} ibr_stage_result;

/* What the receiver reads from one packet (refmodel.Sample). */
typedef struct {
  uint16_t slid, dlid;
  uint32_t id;
  int32_t hop_bit, cong_bit;     /* one-bit schemes */
  int32_t hop_count, cong_count; /* the weights */
  uint16_t hop_switch, cong_switch; /* fullid */
  uint8_t hop_port, cong_port;      /* fullid */
} ibr_sample;

/* A link: a switch output port. */
typedef struct {
  uint16_t switch_id;
  uint8_t port;
} ibr_link;

/* One candidate link's decoded estimate (refmodel.LinkEstimate). */
typedef struct {
  ibr_link link;
  int32_t hop;      /* its position on the paths */
  int32_t passed;   /* w >= threshold */
  int64_t w;        /* weighted count W_d */
  int64_t c;        /* weighted congested count */
  int64_t q;        /* packets that might have crossed it */
  double threshold; /* L*sqrt(Q)*Phi^-1(p), section 5.3 */
  double fraction;  /* congested fraction, 0 unless passed */
} ibr_estimate;

/* The library's version (a static string). */
const char *ibr_version(void);

/* Creates a model from a configuration string: settings name=value separated
 * by spaces, the names those of the command line's flags (`ibreservoir model
 * config --help`), e.g. "hash=crc32 generator=lfsr-lut/b16 count-bits=4";
 * "" is the default configuration. On failure *out is 0 and the message is
 * copied to err (err_cap bytes with the terminating NUL; err may be NULL). */
ibr_status ibr_model_new(const char *config, ibr_model *out, char *err, size_t err_cap);

/* Releases a model or a decoder. Its handle is dead afterwards. */
ibr_status ibr_free(uintptr_t handle);

/* The last error of a model or decoder handle: its status (IBR_OK if none
 * since ibr_clear_errors) and its message, copied to buf (cap bytes with the
 * NUL, truncated to fit; buf may be NULL). An invalid handle gives
 * IBR_ERR_HANDLE and says so in buf. */
ibr_status ibr_last_error(uintptr_t handle, char *buf, size_t cap);

/* The number of failed calls on a handle since ibr_clear_errors (0 for an
 * invalid handle), and the reset. */
uint64_t ibr_error_count(uintptr_t handle);
ibr_status ibr_clear_errors(uintptr_t handle);

/* The model's configuration: *info, its canonical configuration string (which
 * ibr_model_new reads back as the same model) and its digest (64 hex digits:
 * the SHA-256 of the configuration's manifest form, refmodel.Config.Digest).
 * A string that does not fit gives IBR_ERR_SPACE and writes nothing. */
ibr_status ibr_model_info(ibr_model m, ibr_info *info);
ibr_status ibr_model_config(ibr_model m, char *buf, size_t cap);
ibr_status ibr_model_digest(ibr_model m, char *buf, size_t cap);

/* Sets *spec to the defaults: init, OpCode 0x04 (RC SEND Only), P_Key
 * 0xFFFF, every other field 0. */
void ibr_packet_spec_init(ibr_packet_spec *spec);

/* Builds a packet of the model's kind from *spec into buf (cap bytes, any
 * size) and sets *len to its length; the telemetry fields are as spec->resv6
 * gives them (ibr_send initialises them). */
ibr_status ibr_packet_build(ibr_model m, const ibr_packet_spec *spec, uint8_t *buf, size_t cap, size_t *len);

/* The sender NIC with LID lid (Alg. 2 and 5): initialises the telemetry
 * fields of pkt in place and recomputes the VCRC. The packet's LRH SLID must
 * be lid (a packet of another sender is refused). With sender draws each LID
 * has its own generator, kept in the handle for its whole life and seeded
 * from the configuration's seed. */
ibr_status ibr_send(ibr_model m, uint8_t *pkt, size_t len, uint16_t lid);

/* One switch stage (Alg. 3, 6, 8) on pkt in place, for the packet leaving
 * switch switch_id by output port port with congested bit congested (0 or
 * 1). With state == NULL the stage draws from the model's generator for that
 * link (see Generators above, and ibr_port_state). Otherwise state (state_words words) is the port's
 * generator state before the stage and receives the state after it, as the
 * RTL's gen_state_i and gen_state_o. result may be NULL. */
ibr_status ibr_stage(ibr_model m, uint8_t *pkt, size_t len, uint16_t switch_id, uint8_t port, int congested,
                     uint32_t *state, size_t state_words, ibr_stage_result *result);

/* Cut-through stages (docs/spec.md section 5, step 0). ibr_stage reads a
 * packet's length from its PktLen and refuses a wrong VCRC, as a
 * store-and-forward switch drops the packet. A cut-through stage (the RTL)
 * cannot: the packet's head has left before its end arrives. It takes the
 * packet as the link delimits it, a frame whose VCRC is its last two bytes,
 * whatever PktLen says. ibr_stage_frame is that stage (refmodel.StageCutThrough):
 * len is the frame's length, not a buffer's (a frame is 4k+2 bytes, at most
 * 4*2047+2 = 8190; of the model's LNH; long enough to hold its headers, the
 * ICRC and the footer: 26 bytes local, 66 global, plus the footer; or a raw
 * frame, LNH 0 or 1, no BTH, at least its LRH and VCRC, 10 bytes, which
 * passes with no telemetry change and no draw, the result all zero, stomped
 * when corrupt as any other). The frame
 * is corrupt when any of the IBR_CORRUPT_* reasons holds; a corrupt frame
 * leaves with its telemetry updated exactly as a sound packet with the same
 * headers (the same draw, which the generator consumes), every other byte
 * unchanged, and its last two bytes stomped: the complement of the valid
 * VCRC of the bytes before them, so no receiver or later stage takes it. A
 * sound frame leaves as ibr_stage leaves it. The stage does not check the
 * ICRC: a frame with a wrong ICRC and a right VCRC is sound and leaves with a
 * fresh VCRC. */
#define IBR_MAX_LEGAL_PKTLEN 1048 /* words: the longest legal IBA packet, 4194 bytes with the VCRC */
#define IBR_CORRUPT_VCRC 1        /* the last two bytes are not the VCRC of the bytes before them */
#define IBR_CORRUPT_LENGTH 2      /* PktLen disagrees with the frame's length (4*PktLen+2 bytes): longer or shorter */
#define IBR_CORRUPT_OVERSIZE 4    /* PktLen beyond IBR_MAX_LEGAL_PKTLEN */

/* ibr_stage on a frame the link delivered, corrupt or not, as a cut-through
 * stage runs it (above): arguments, state and result as ibr_stage's; *corrupt
 * (may be NULL) receives the IBR_CORRUPT_* reasons that held, 0 for a sound
 * frame (several may hold at once; any of them means the VCRC was stomped).
 * result->hop_field is read from the frame as it left, through its own
 * length. With sender draws, a frame whose hop_rand (or, with two
 * reservoirs and congested set, cong_rand) is 0 is malformed (spec section
 * 4): ibr_stage refuses it, and ibr_stage_frame forwards it as the RTL does,
 * with no draw and no telemetry change (stomped when corrupt); its result
 * gives id, d, hash_bit and congested, every other field 0, so a hop_field of
 * 0 says the frame was malformed. Errors: IBR_ERR_PACKET for a frame the
 * stage cannot take (not 4k+2 bytes, shorter than its headers and ICRC, of
 * another LNH, longer than 8190 bytes); the frame and the state are then
 * left as they were. */
ibr_status ibr_stage_frame(ibr_model m, uint8_t *frame, size_t len, uint16_t switch_id, uint8_t port, int congested,
                           uint32_t *state, size_t state_words, ibr_stage_result *result, uint32_t *corrupt);

/* Writes into the last two bytes of the len-byte frame the VCRC of the bytes
 * before them, whatever PktLen says: a testbench's tool to make a frame whose
 * PktLen or ICRC is wrong and whose VCRC is right (ibr_stage_frame takes it
 * as sound to its VCRC check). The frame must be one ibr_stage_frame takes
 * (IBR_ERR_PACKET otherwise, the frame left as it was). */
ibr_status ibr_frame_seal(ibr_model m, uint8_t *frame, size_t len);

/* Batches. A batch call does what its single call does, to each of n
 * packets in order, in one call: from Python one foreign call instead of n,
 * from C the handle's lookup, its lock and the generator's state conversion
 * once instead of n times. The packets lie in one buffer: packet i is the
 * len[i] bytes at data + off[i], inside the size bytes of data, in order and
 * not overlapping (off[i] >= off[i-1] + len[i-1]).
 *
 * A batch whose arguments are wrong (a NULL pointer, a packet of length 0 or
 * outside data or overlapping the one before, a congested flag other than 0
 * or 1, more than 16,777,216 packets) is refused with IBR_ERR_ARG before any
 * packet is touched, the message naming the index of the packet concerned
 * ("ibr_stage_batch: packet 7: ...").
 *
 * Otherwise every packet is processed, and each gets the outcome its single
 * call would give it: a packet the single call refuses is left as it was,
 * draws nothing, and the batch goes on with the next one. status (n entries;
 * may be NULL) receives each packet's ibr_status. The call returns IBR_OK
 * when every packet succeeded; otherwise the status of the first that failed,
 * and the handle keeps (as one failed call) the message "packet I of N: ...
 * (F of N packets failed; the others were processed)", I the index of the
 * first. */

/* ibr_stage on each packet, all leaving switch switch_id by output port
 * port: congested[i] (0 or 1) is packet i's congested bit (congested may be
 * NULL: none is congested). With state == NULL the stages draw from the
 * model's generator for the link; otherwise state is the generator state
 * before the first packet and receives the state after the batch (a packet
 * that failed drew nothing), also when some packets failed. results
 * (n entries; may be NULL) receives each staged packet's result. */
ibr_status ibr_stage_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len, size_t n,
                           uint16_t switch_id, uint8_t port, const uint8_t *congested, uint32_t *state,
                           size_t state_words, ibr_stage_result *results, ibr_status *status);

/* ibr_stage_frame on each frame, as ibr_stage_batch on packets: corrupt
 * (n entries; may be NULL) receives each staged frame's IBR_CORRUPT_*
 * reasons. */
ibr_status ibr_stage_frame_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len,
                                 size_t n, uint16_t switch_id, uint8_t port, const uint8_t *congested,
                                 uint32_t *state, size_t state_words, ibr_stage_result *results, uint32_t *corrupt,
                                 ibr_status *status);

/* ibr_send on each packet, all from the sender NIC with LID lid. */
ibr_status ibr_send_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len, size_t n,
                          uint16_t lid, ibr_status *status);

/* The current generator state of the model's generator for link
 * (switch_id, port), the one ibr_stage with state == NULL draws from, and
 * its replacement. The handle keeps a link's generator from its first use on
 * (memory grows with the number of distinct links used this way). */
ibr_status ibr_port_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words);
ibr_status ibr_port_set_state(ibr_model m, uint16_t switch_id, uint8_t port, const uint32_t *state, size_t state_words);

/* The generator state the configuration's seed gives port (switch_id, port)
 * (docs/spec.md section 6), for a caller that keeps the state itself; the
 * handle keeps nothing. */
ibr_status ibr_port_seed_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words);

/* The receiver NIC: checks the VCRC and ICRC of pkt and reads its sample. */
ibr_status ibr_receive(ibr_model m, const uint8_t *pkt, size_t len, ibr_sample *sample);

/* Reads or writes one telemetry field of pkt by name ("hop_bit", "cong_bit",
 * "hop_count", "hop_rand", ...: package header's names). Writing recomputes
 * the VCRC. */
ibr_status ibr_field_get(ibr_model m, const uint8_t *pkt, size_t len, const char *name, uint64_t *value);
ibr_status ibr_field_set(ibr_model m, uint8_t *pkt, size_t len, const char *name, uint64_t value);

/* How packet got differs from want, one difference a line (header fields by
 * name, telemetry fields, CRCs, bytes), into buf: "" when they are equal.
 * A text longer than cap-1 bytes is truncated and gives IBR_ERR_SPACE. */
ibr_status ibr_diff(ibr_model m, const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
                    char *buf, size_t cap);

/* A decoder (Alg. 7 or 9, the one-bit schemes) over a candidate set: the n
 * links a packet between one source and one destination might cross,
 * links[i] at hop position hops[i] (1..path_len) of paths of path_len hops.
 * The full-ID scheme reads its samples directly (ibr_receive). */
ibr_status ibr_decoder_new(ibr_model m, int path_len, const ibr_link *links, const int32_t *hops, size_t n,
                           ibr_decoder *out);

/* Adds one received packet (checked and read as ibr_receive does), or one
 * sample: its bits 0 or 1, its counts from 0 to the model's count_max. */
ibr_status ibr_decoder_add_packet(ibr_decoder d, const uint8_t *pkt, size_t len);
ibr_status ibr_decoder_add_sample(ibr_decoder d, const ibr_sample *sample);

/* The batch forms (see Batches above): n packets in one buffer, or n samples
 * (samples[0..n-1]). */
ibr_status ibr_decoder_add_packets(ibr_decoder d, const uint8_t *data, size_t size, const size_t *off,
                                   const size_t *len, size_t n, ibr_status *status);
ibr_status ibr_decoder_add_samples(ibr_decoder d, const ibr_sample *samples, size_t n, ibr_status *status);

/* The estimates of every candidate link, in the candidate set's order, with
 * the threshold of section 5.3 for longest path L and confidence p (the
 * thesis: 0.99): out holds cap entries and *n is set to the number of links
 * (give cap >= n; a smaller cap gives IBR_ERR_SPACE and writes only *n). The
 * packets added so far are all counted. */
ibr_status ibr_decoder_estimates(ibr_decoder d, int L, double p, ibr_estimate *out, size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* IBRESERVOIR_H */
