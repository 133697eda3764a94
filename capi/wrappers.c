// The public entry points of ibreservoir.h. Each calls its Go function
// (capi.go) with the same arguments; the casts only drop the const that
// cgo's declarations cannot carry. Compiling this file against both
// ibreservoir.h and cgo's _cgo_export.h checks every prototype of the header
// against the Go functions.
#include "ibreservoir.h"
#include "_cgo_export.h"

const char *ibr_version(void) { return ibrgo_version(); }

ibr_status ibr_model_new(const char *config, ibr_model *out, char *err, size_t err_cap) {
  return ibrgo_model_new((char *)config, out, err, err_cap);
}

ibr_status ibr_free(uintptr_t handle) { return ibrgo_free(handle); }

ibr_status ibr_last_error(uintptr_t handle, char *buf, size_t cap) { return ibrgo_last_error(handle, buf, cap); }

uint64_t ibr_error_count(uintptr_t handle) { return ibrgo_error_count(handle); }

ibr_status ibr_clear_errors(uintptr_t handle) { return ibrgo_clear_errors(handle); }

ibr_status ibr_model_info(ibr_model m, ibr_info *info) { return ibrgo_model_info(m, info); }

ibr_status ibr_model_config(ibr_model m, char *buf, size_t cap) { return ibrgo_model_config(m, buf, cap); }

ibr_status ibr_model_digest(ibr_model m, char *buf, size_t cap) { return ibrgo_model_digest(m, buf, cap); }

ibr_status ibr_packet_build(ibr_model m, const ibr_packet_spec *spec, uint8_t *buf, size_t cap, size_t *len) {
  return ibrgo_packet_build(m, (ibr_packet_spec *)spec, buf, cap, len);
}

ibr_status ibr_send(ibr_model m, uint8_t *pkt, size_t len, uint16_t lid) { return ibrgo_send(m, pkt, len, lid); }

ibr_status ibr_stage(ibr_model m, uint8_t *pkt, size_t len, uint16_t switch_id, uint8_t port, int congested,
                     uint32_t *state, size_t state_words, ibr_stage_result *result) {
  return ibrgo_stage(m, pkt, len, switch_id, port, congested, state, state_words, result);
}

ibr_status ibr_port_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words) {
  return ibrgo_port_state(m, switch_id, port, state, state_words);
}

ibr_status ibr_port_set_state(ibr_model m, uint16_t switch_id, uint8_t port, const uint32_t *state, size_t state_words) {
  return ibrgo_port_set_state(m, switch_id, port, (uint32_t *)state, state_words);
}

ibr_status ibr_port_seed_state(ibr_model m, uint16_t switch_id, uint8_t port, uint32_t *state, size_t state_words) {
  return ibrgo_port_seed_state(m, switch_id, port, state, state_words);
}

ibr_status ibr_receive(ibr_model m, const uint8_t *pkt, size_t len, ibr_sample *sample) {
  return ibrgo_receive(m, (uint8_t *)pkt, len, sample);
}

ibr_status ibr_field_get(ibr_model m, const uint8_t *pkt, size_t len, const char *name, uint64_t *value) {
  return ibrgo_field_get(m, (uint8_t *)pkt, len, (char *)name, value);
}

ibr_status ibr_field_set(ibr_model m, uint8_t *pkt, size_t len, const char *name, uint64_t value) {
  return ibrgo_field_set(m, pkt, len, (char *)name, value);
}

ibr_status ibr_diff(ibr_model m, const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
                    char *buf, size_t cap) {
  return ibrgo_diff(m, (uint8_t *)got, got_len, (uint8_t *)want, want_len, buf, cap);
}

ibr_status ibr_decoder_new(ibr_model m, int path_len, const ibr_link *links, const int32_t *hops, size_t n,
                           ibr_decoder *out) {
  return ibrgo_decoder_new(m, path_len, (ibr_link *)links, (int32_t *)hops, n, out);
}

ibr_status ibr_decoder_add_packet(ibr_decoder d, const uint8_t *pkt, size_t len) {
  return ibrgo_decoder_add_packet(d, (uint8_t *)pkt, len);
}

ibr_status ibr_decoder_add_sample(ibr_decoder d, const ibr_sample *sample) {
  return ibrgo_decoder_add_sample(d, (ibr_sample *)sample);
}

ibr_status ibr_decoder_estimates(ibr_decoder d, int L, double p, ibr_estimate *out, size_t cap, size_t *n) {
  return ibrgo_decoder_estimates(d, L, p, out, cap, n);
}
