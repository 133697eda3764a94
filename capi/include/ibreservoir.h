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
 * Include this header (-I capi/include), not the libibreservoir.h that go
 * build writes beside the library: that one declares the internal entry
 * points this header's functions call. Link with -lpthread (and -ldl on
 * older C libraries).
 * docs/testbench.md walks through it; capi/example/ holds a C program and
 * a Python (ctypes) example.
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
 * PktLen, PadCnt, PayLen, the CRCs, the footer) are not here. */
typedef struct {
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

/* Builds a packet of the model's kind from *spec into buf (cap bytes) and
 * sets *len to its length; the telemetry fields are as spec->resv6 gives them
 * (ibr_send initialises them). */
ibr_status ibr_packet_build(ibr_model m, const ibr_packet_spec *spec, uint8_t *buf, size_t cap, size_t *len);

/* The sender NIC with LID lid (Alg. 2 and 5): initialises the telemetry
 * fields of pkt in place and recomputes the VCRC. With sender draws each LID
 * has its own generator, kept in the handle and seeded from the
 * configuration's seed. */
ibr_status ibr_send(ibr_model m, uint8_t *pkt, size_t len, uint16_t lid);

/* One switch stage (Alg. 3, 6, 8) on pkt in place, for the packet leaving
 * switch switch_id by output port port with congested bit congested (0 or
 * 1). With state == NULL the stage draws from the handle's own generator for
 * that port (seeded from the configuration's seed on first use; see
 * ibr_port_state). Otherwise state (state_words words) is the port's
 * generator state before the stage and receives the state after it, as the
 * RTL's gen_state_i and gen_state_o. result may be NULL. */
ibr_status ibr_stage(ibr_model m, uint8_t *pkt, size_t len, uint16_t switch_id, uint8_t port, int congested,
                     uint32_t *state, size_t state_words, ibr_stage_result *result);

/* The current generator state of the handle's own port (switch_id, port),
 * the state ibr_stage with state == NULL draws from, and its replacement.
 * The handle keeps a port from its first use on (memory grows with the
 * number of distinct ports used this way). */
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
 * sample. */
ibr_status ibr_decoder_add_packet(ibr_decoder d, const uint8_t *pkt, size_t len);
ibr_status ibr_decoder_add_sample(ibr_decoder d, const ibr_sample *sample);

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
