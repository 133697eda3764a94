// SPDX-License-Identifier: Apache-2.0

// ibr_dpi.cc: the DPI-C adapter of ibr_dpi_pkg.sv. Each function converts its
// SystemVerilog arguments (svBitVecVal vectors, svBit, chandle) and calls one
// function of the C interface (capi/include/ibreservoir.h); it keeps no state
// but the strings it returns and the message of a call it refused itself,
// and it never prints or aborts.
//
// Packets: packet_t holds byte i of the packet in bits 8i+7..8i, so byte i is
// bits 8*(i%4).. of word i/4 of the svBitVecVal array. States: bit i of the
// state is bit i%32 of word i/32, the C interface's layout as it is.
//
// Define IBR_DPI_PROTOTYPES as the simulator's DPI header (Verilator:
// "V<top>__Dpi.h") to have the compiler check every function below against
// the declarations it made from ibr_dpi_pkg.sv.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ibreservoir.h"
#include "svdpi.h"
#ifdef IBR_DPI_PROTOTYPES
#include IBR_DPI_PROTOTYPES
#endif

// The longest packet_t (bytes) and state_t (bits) the adapter converts.
#define IBR_DPI_MAX_BYTES 16384
#define IBR_DPI_MAX_STATE_BITS 8192

// The message of the last call the adapter refused itself (this thread's):
// ibr_dpi_error returns it before the handle's own.
static thread_local char adapter_error[256];
static thread_local char text[65536];  // the returned strings

static ibr_model handle_of(void *model) { return reinterpret_cast<uintptr_t>(model); }

static int refuse(const char *what, int a, int b) {
  snprintf(adapter_error, sizeof adapter_error, "ibr_dpi: %s (%d, %d)", what, a, b);
  return IBR_ERR_ARG;
}

// begin starts a call of function fn on model: it clears the adapter's
// message and refuses a null chandle (IBR_ERR_HANDLE, with a message).
static int begin(void *model, const char *fn) {
  adapter_error[0] = 0;
  if (model == nullptr) {
    snprintf(adapter_error, sizeof adapter_error,
             "ibr_dpi: %s: the model chandle is null (ibr_dpi_model_new failed or was not called)", fn);
    return IBR_ERR_HANDLE;
  }
  return IBR_OK;
}

// packet_ok checks a packet argument's length against its vector's width.
static int packet_ok(int len, int max_bytes) {
  if (max_bytes <= 0 || max_bytes % 4 != 0 || max_bytes > IBR_DPI_MAX_BYTES) {
    return refuse("max_bytes must be ibr_dpi_pkg::MaxBytes, a positive multiple of 4", max_bytes, IBR_DPI_MAX_BYTES);
  }
  if (len < 0 || len > max_bytes) return refuse("packet length outside 0..max_bytes", len, max_bytes);
  return IBR_OK;
}

static int state_ok(int state_bits) {
  if (state_bits <= 0 || state_bits % 32 != 0 || state_bits > IBR_DPI_MAX_STATE_BITS) {
    return refuse("state_bits must be ibr_dpi_pkg::StateBits, a positive multiple of 32", state_bits, IBR_DPI_MAX_STATE_BITS);
  }
  return IBR_OK;
}

static void to_bytes(const svBitVecVal *v, uint8_t *b, int n) {
  for (int i = 0; i < n; i++) b[i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
}

// from_bytes writes n bytes into the max_bytes-byte vector v, zero after them.
static void from_bytes(const uint8_t *b, int n, svBitVecVal *v, int max_bytes) {
  memset(v, 0, (size_t)max_bytes);
  for (int i = 0; i < n; i++) v[i / 4] |= (svBitVecVal)b[i] << (8 * (i % 4));
}

extern "C" {

const char *ibr_dpi_version(void) { return ibr_version(); }

int ibr_dpi_model_new(const char *cfg, void **model) {
  ibr_model m = 0;
  adapter_error[0] = 0;
  int st = ibr_model_new(cfg, &m, adapter_error, sizeof adapter_error);
  *model = reinterpret_cast<void *>(m);
  return st;
}

void ibr_dpi_free(void *model) {
  if (model) ibr_free(handle_of(model));
}

const char *ibr_dpi_error(void *model) {
  if (adapter_error[0] || !model) return adapter_error;
  ibr_last_error(handle_of(model), text, sizeof text);
  return text;
}

int ibr_dpi_info(void *model, int *scheme, int *lnh, int *count_bits, int *sender_l, int *state_bits,
                 int *max_switch, int *max_port) {
  ibr_info i;
  int st = begin(model, "ibr_dpi_info");
  if (st != IBR_OK) return st;
  st = ibr_model_info(handle_of(model), &i);
  if (st == IBR_OK) {
    *scheme = i.scheme;
    *lnh = i.lnh;
    *count_bits = i.count_bits;
    *sender_l = i.sender_l;
    *state_bits = i.state_bits;
    *max_switch = i.max_switch;
    *max_port = i.max_port;
  }
  return st;
}

const char *ibr_dpi_config(void *model) {
  text[0] = 0;
  if (begin(model, "ibr_dpi_config") != IBR_OK) return text;
  if (ibr_model_config(handle_of(model), text, sizeof text) != IBR_OK) text[0] = 0;
  return text;
}

const char *ibr_dpi_digest(void *model) {
  text[0] = 0;
  if (begin(model, "ibr_dpi_digest") != IBR_OK) return text;
  if (ibr_model_digest(handle_of(model), text, sizeof text) != IBR_OK) text[0] = 0;
  return text;
}

int ibr_dpi_build(void *model, unsigned short slid, unsigned short dlid, unsigned char sl, unsigned char vl,
                  unsigned char opcode, unsigned short pkey, unsigned int dest_qp, unsigned int psn,
                  unsigned char resv6, unsigned char tclass, unsigned int flow_label, unsigned char hop_limit,
                  const svBitVecVal *sgid, const svBitVecVal *dgid, const svBitVecVal *payload, int payload_len,
                  svBitVecVal *pkt, int *len, int max_bytes) {
  int st = begin(model, "ibr_dpi_build");
  if (st == IBR_OK) st = packet_ok(payload_len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t data[IBR_DPI_MAX_BYTES], out[IBR_DPI_MAX_BYTES];
  ibr_packet_spec spec;
  ibr_packet_spec_init(&spec);  // then every field from the arguments
  spec.slid = slid;
  spec.dlid = dlid;
  spec.sl = sl;
  spec.vl = vl;
  spec.opcode = opcode;
  spec.pkey = pkey;
  spec.dest_qp = dest_qp;
  spec.psn = psn;
  spec.resv6 = resv6;
  spec.tclass = tclass;
  spec.flow_label = flow_label;
  spec.hop_limit = hop_limit;
  to_bytes(sgid, spec.sgid, 16);
  to_bytes(dgid, spec.dgid, 16);
  to_bytes(payload, data, payload_len);
  spec.payload = data;
  spec.payload_len = (size_t)payload_len;
  size_t n = 0;
  st = ibr_packet_build(handle_of(model), &spec, out, (size_t)max_bytes, &n);
  if (st == IBR_OK) {
    from_bytes(out, (int)n, pkt, max_bytes);
    *len = (int)n;
  }
  return st;
}

int ibr_dpi_send(void *model, svBitVecVal *pkt, int len, unsigned short lid, int max_bytes) {
  int st = begin(model, "ibr_dpi_send");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  st = ibr_send(handle_of(model), b, (size_t)len, lid);
  if (st == IBR_OK) from_bytes(b, len, pkt, max_bytes);
  return st;
}

int ibr_dpi_stage(void *model, svBitVecVal *pkt, int len, unsigned short switch_id, unsigned char port,
                  svBit congested, svBitVecVal *state, int *hop_l, svBit *hash_bit, svBit *replaced,
                  svBit *saturated, int *hop_field, int max_bytes, int state_bits) {
  int st = begin(model, "ibr_dpi_stage");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st == IBR_OK) st = state_ok(state_bits);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  ibr_stage_result r;
  // The state's words are svBitVecVal's, the C interface's layout: passed as they are.
  st = ibr_stage(handle_of(model), b, (size_t)len, switch_id, port, congested, state, (size_t)(state_bits / 32), &r);
  if (st == IBR_OK) {
    from_bytes(b, len, pkt, max_bytes);
    *hop_l = r.hop_l;
    *hash_bit = (svBit)r.hash_bit;
    *replaced = (svBit)r.hop_replaced;
    *saturated = (svBit)r.hop_saturated;
    *hop_field = r.hop_field;
  }
  return st;
}

int ibr_dpi_stage_frame(void *model, svBitVecVal *pkt, int len, unsigned short switch_id, unsigned char port,
                        svBit congested, svBitVecVal *state, int *hop_l, svBit *hash_bit, svBit *replaced,
                        svBit *saturated, int *hop_field, int *corrupt, int max_bytes, int state_bits) {
  int st = begin(model, "ibr_dpi_stage_frame");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st == IBR_OK) st = state_ok(state_bits);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  ibr_stage_result r;
  uint32_t c = 0;
  st = ibr_stage_frame(handle_of(model), b, (size_t)len, switch_id, port, congested, state, (size_t)(state_bits / 32),
                       &r, &c);
  if (st == IBR_OK) {
    from_bytes(b, len, pkt, max_bytes);
    *hop_l = r.hop_l;
    *hash_bit = (svBit)r.hash_bit;
    *replaced = (svBit)r.hop_replaced;
    *saturated = (svBit)r.hop_saturated;
    *hop_field = r.hop_field;
    *corrupt = (int)c;
  }
  return st;
}

int ibr_dpi_frame_seal(void *model, svBitVecVal *pkt, int len, int max_bytes) {
  int st = begin(model, "ibr_dpi_frame_seal");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  st = ibr_frame_seal(handle_of(model), b, (size_t)len);
  if (st == IBR_OK) from_bytes(b, len, pkt, max_bytes);
  return st;
}

int ibr_dpi_port_state(void *model, unsigned short switch_id, unsigned char port, svBitVecVal *state,
                       int state_bits) {
  int st = begin(model, "ibr_dpi_port_state");
  if (st == IBR_OK) st = state_ok(state_bits);
  if (st != IBR_OK) return st;
  return ibr_port_seed_state(handle_of(model), switch_id, port, state, (size_t)(state_bits / 32));
}

int ibr_dpi_receive(void *model, const svBitVecVal *pkt, int len, unsigned int *id, int *hop_bit, int *cong_bit,
                    int *hop_count, int *cong_count, int max_bytes) {
  int st = begin(model, "ibr_dpi_receive");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  ibr_sample s;
  st = ibr_receive(handle_of(model), b, (size_t)len, &s);
  if (st == IBR_OK) {
    *id = s.id;
    *hop_bit = s.hop_bit;
    *cong_bit = s.cong_bit;
    *hop_count = s.hop_count;
    *cong_count = s.cong_count;
  }
  return st;
}

int ibr_dpi_field_get(void *model, const svBitVecVal *pkt, int len, const char *name, unsigned long long *value,
                      int max_bytes) {
  int st = begin(model, "ibr_dpi_field_get");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  uint64_t v = 0;
  st = ibr_field_get(handle_of(model), b, (size_t)len, name, &v);
  if (st == IBR_OK) *value = v;
  return st;
}

int ibr_dpi_field_set(void *model, svBitVecVal *pkt, int len, const char *name, unsigned long long value,
                      int max_bytes) {
  int st = begin(model, "ibr_dpi_field_set");
  if (st == IBR_OK) st = packet_ok(len, max_bytes);
  if (st != IBR_OK) return st;
  uint8_t b[IBR_DPI_MAX_BYTES];
  to_bytes(pkt, b, len);
  st = ibr_field_set(handle_of(model), b, (size_t)len, name, value);
  if (st == IBR_OK) from_bytes(b, len, pkt, max_bytes);
  return st;
}

const char *ibr_dpi_diff(void *model, const svBitVecVal *got, int got_len, const svBitVecVal *want, int want_len,
                         int max_bytes) {
  if (begin(model, "ibr_dpi_diff") != IBR_OK || packet_ok(got_len, max_bytes) != IBR_OK ||
      packet_ok(want_len, max_bytes) != IBR_OK) {
    return adapter_error;
  }
  uint8_t g[IBR_DPI_MAX_BYTES], w[IBR_DPI_MAX_BYTES];
  to_bytes(got, g, got_len);
  to_bytes(want, w, want_len);
  int st = ibr_diff(handle_of(model), g, (size_t)got_len, w, (size_t)want_len, text, sizeof text);
  if (st != IBR_OK && st != IBR_ERR_SPACE) ibr_last_error(handle_of(model), text, sizeof text);
  return text;
}

}  // extern "C"
