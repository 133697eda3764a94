// SPDX-License-Identifier: Apache-2.0

// The public entry points of ibreservoir.h. Each calls its Go function
// (capi.go) with the same arguments; the casts only drop the const that
// cgo's declarations cannot carry. Compiling this file against both
// ibreservoir.h and cgo's _cgo_export.h checks every prototype of the header
// against the Go functions.
//
// fork(): the Go runtime's threads do not survive it, and a call into Go in
// the child of a process that loaded the library waits for them forever. A
// pthread_atfork child handler, registered when the library is loaded, marks
// the child; every entry point then returns IBR_ERR_FORK without entering Go
// (FORKED below), and the calls with a message buffer say why.
#include <pthread.h>
#include <string.h>

#include "ibreservoir.h"
#include "_cgo_export.h"

static volatile int ibr_forked;

static void ibr_mark_child(void) { ibr_forked = 1; }

__attribute__((constructor)) static void ibr_register_fork(void) { pthread_atfork(NULL, NULL, ibr_mark_child); }

static const char ibr_fork_message[] =
    "libibreservoir: called in the child of a fork(): the Go runtime the library runs on does not survive fork(); "
    "use the library in the parent, or in a process started by exec (from Python's multiprocessing, the \"spawn\" "
    "or \"forkserver\" start method)";

// fork_message copies the message into buf (cap bytes, truncated, NUL-ended).
static void fork_message(char *buf, size_t cap) {
  if (buf == NULL || cap == 0) return;
  size_t n = strlen(ibr_fork_message);
  if (n > cap - 1) n = cap - 1;
  memcpy(buf, ibr_fork_message, n);
  buf[n] = 0;
}

#define FORKED                         \
  do {                                 \
    if (ibr_forked) return IBR_ERR_FORK; \
  } while (0)

static const char *volatile ibr_version_string;

const char *ibr_version(void) {
  if (ibr_version_string == NULL) {
    if (ibr_forked) return "unknown (libibreservoir called in the child of a fork())";
    ibr_version_string = ibrgo_version();
  }
  return ibr_version_string;
}

void ibr_packet_spec_init(ibr_packet_spec *spec) {
  if (spec == NULL) return;
  memset(spec, 0, sizeof *spec);
  spec->init = IBR_PACKET_SPEC_INIT;
  spec->opcode = 0x04; /* RC SEND Only */
  spec->pkey = 0xFFFF; /* the default partition */
}

ibr_status ibr_model_new(const char *config, ibr_model *out, char *err, size_t err_cap) {
  if (ibr_forked) {
    if (out != NULL) *out = 0;
    fork_message(err, err_cap);
    return IBR_ERR_FORK;
  }
  return ibrgo_model_new((char *)config, out, err, err_cap);
}

ibr_status ibr_free(uintptr_t handle) {
  FORKED;
  return ibrgo_free(handle);
}

ibr_status ibr_last_error(uintptr_t handle, char *buf, size_t cap) {
  if (ibr_forked) {
    fork_message(buf, cap);
    return IBR_ERR_FORK;
  }
  return ibrgo_last_error(handle, buf, cap);
}

uint64_t ibr_error_count(uintptr_t handle) { return ibr_forked ? 0 : ibrgo_error_count(handle); }

ibr_status ibr_clear_errors(uintptr_t handle) {
  FORKED;
  return ibrgo_clear_errors(handle);
}

ibr_status ibr_model_info(ibr_model m, ibr_info *info) {
  FORKED;
  return ibrgo_model_info(m, info);
}

ibr_status ibr_model_config(ibr_model m, char *buf, size_t cap) {
  FORKED;
  return ibrgo_model_config(m, buf, cap);
}

ibr_status ibr_model_digest(ibr_model m, char *buf, size_t cap) {
  FORKED;
  return ibrgo_model_digest(m, buf, cap);
}

ibr_status ibr_packet_build(ibr_model m, const ibr_packet_spec *spec, uint8_t *buf, size_t cap, size_t *len) {
  FORKED;
  return ibrgo_packet_build(m, (ibr_packet_spec *)spec, buf, cap, len);
}

ibr_status ibr_send(ibr_model m, uint8_t *pkt, size_t len, uint16_t lid) {
  FORKED;
  return ibrgo_send(m, pkt, len, lid);
}

ibr_status ibr_stage(ibr_model m, uint8_t *pkt, size_t len, uint16_t switch_id, uint8_t port, int congested,
                     uint32_t *state, size_t state_words, ibr_stage_result *result) {
  FORKED;
  return ibrgo_stage(m, pkt, len, switch_id, port, congested, state, state_words, result);
}

ibr_status ibr_port_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words) {
  FORKED;
  return ibrgo_port_state(m, switch_id, port, state, state_words);
}

ibr_status ibr_port_set_state(ibr_model m, uint16_t switch_id, uint8_t port, const uint32_t *state, size_t state_words) {
  FORKED;
  return ibrgo_port_set_state(m, switch_id, port, (uint32_t *)state, state_words);
}

ibr_status ibr_port_seed_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words) {
  FORKED;
  return ibrgo_port_seed_state(m, switch_id, port, state, state_words);
}

ibr_status ibr_receive(ibr_model m, const uint8_t *pkt, size_t len, ibr_sample *sample) {
  FORKED;
  return ibrgo_receive(m, (uint8_t *)pkt, len, sample);
}

ibr_status ibr_field_get(ibr_model m, const uint8_t *pkt, size_t len, const char *name, uint64_t *value) {
  FORKED;
  return ibrgo_field_get(m, (uint8_t *)pkt, len, (char *)name, value);
}

ibr_status ibr_field_set(ibr_model m, uint8_t *pkt, size_t len, const char *name, uint64_t value) {
  FORKED;
  return ibrgo_field_set(m, pkt, len, (char *)name, value);
}

ibr_status ibr_diff(ibr_model m, const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
                    char *buf, size_t cap) {
  FORKED;
  return ibrgo_diff(m, (uint8_t *)got, got_len, (uint8_t *)want, want_len, buf, cap);
}

ibr_status ibr_decoder_new(ibr_model m, int path_len, const ibr_link *links, const int32_t *hops, size_t n,
                           ibr_decoder *out) {
  FORKED;
  return ibrgo_decoder_new(m, path_len, (ibr_link *)links, (int32_t *)hops, n, out);
}

ibr_status ibr_decoder_add_packet(ibr_decoder d, const uint8_t *pkt, size_t len) {
  FORKED;
  return ibrgo_decoder_add_packet(d, (uint8_t *)pkt, len);
}

ibr_status ibr_decoder_add_sample(ibr_decoder d, const ibr_sample *sample) {
  FORKED;
  return ibrgo_decoder_add_sample(d, (ibr_sample *)sample);
}

ibr_status ibr_decoder_estimates(ibr_decoder d, int L, double p, ibr_estimate *out, size_t cap, size_t *n) {
  FORKED;
  return ibrgo_decoder_estimates(d, L, p, out, cap, n);
}

ibr_status ibr_stage_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len, size_t n,
                           uint16_t switch_id, uint8_t port, const uint8_t *congested, uint32_t *state,
                           size_t state_words, ibr_stage_result *results, ibr_status *status) {
  FORKED;
  return ibrgo_stage_batch(m, data, size, (size_t *)off, (size_t *)len, n, switch_id, port, (uint8_t *)congested, state,
                           state_words, results, status);
}

ibr_status ibr_send_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len, size_t n,
                          uint16_t lid, ibr_status *status) {
  FORKED;
  return ibrgo_send_batch(m, data, size, (size_t *)off, (size_t *)len, n, lid, status);
}

ibr_status ibr_decoder_add_packets(ibr_decoder d, const uint8_t *data, size_t size, const size_t *off,
                                   const size_t *len, size_t n, ibr_status *status) {
  FORKED;
  return ibrgo_decoder_add_packets(d, (uint8_t *)data, size, (size_t *)off, (size_t *)len, n, status);
}

ibr_status ibr_decoder_add_samples(ibr_decoder d, const ibr_sample *samples, size_t n, ibr_status *status) {
  FORKED;
  return ibrgo_decoder_add_samples(d, (ibr_sample *)samples, n, status);
}

ibr_status ibr_stage_frame(ibr_model m, uint8_t *frame, size_t len, uint16_t switch_id, uint8_t port, int congested,
                           uint32_t *state, size_t state_words, ibr_stage_result *result, uint32_t *corrupt) {
  FORKED;
  return ibrgo_stage_frame(m, frame, len, switch_id, port, congested, state, state_words, result, corrupt);
}

ibr_status ibr_frame_seal(ibr_model m, uint8_t *frame, size_t len) {
  FORKED;
  return ibrgo_frame_seal(m, frame, len);
}

ibr_status ibr_stage_frame_batch(ibr_model m, uint8_t *data, size_t size, const size_t *off, const size_t *len,
                                 size_t n, uint16_t switch_id, uint8_t port, const uint8_t *congested,
                                 uint32_t *state, size_t state_words, ibr_stage_result *results, uint32_t *corrupt,
                                 ibr_status *status) {
  FORKED;
  return ibrgo_stage_frame_batch(m, data, size, (size_t *)off, (size_t *)len, n, switch_id, port, (uint8_t *)congested,
                                 state, state_words, results, corrupt, status);
}
