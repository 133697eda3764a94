// SPDX-License-Identifier: Apache-2.0

/*
 * stage.c: the C library in a C program. A sender NIC's packet crosses a
 * 5-hop path (the third switch's port congested), the receiver reads it,
 * then 2000 packets take the same path and a decoder over the 13 candidate
 * links of a small fat tree finds the path and the congestion.
 *
 *   go build -buildmode=c-archive -o out/lib/libibreservoir.a ./capi
 *   cc -I capi/include -o out/lib/stage capi/example/stage.c out/lib/libibreservoir.a -lpthread
 *   out/lib/stage "hash=crc32 count-bits=4"
 *
 * capi/example/example.py does the same through Python's ctypes; the test
 * of package capi holds both to the Go model's transcript.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ibreservoir.h"

static ibr_model m;

/* check stops the program on an error, printing the handle's message. */
static void check(ibr_status st, uintptr_t h, const char *what) {
  if (st != IBR_OK) {
    char msg[512];
    ibr_last_error(h, msg, sizeof msg);
    fprintf(stderr, "%s: status %d: %s\n", what, st, msg);
    exit(1);
  }
}

static const ibr_link path[5] = {{1, 33}, {10, 1}, {100, 2}, {21, 1}, {2, 5}};

/* packet builds a packet from LID 0x0101 to 0x0202 and sends it. */
static size_t packet(uint8_t *buf, size_t cap, uint32_t psn, const char *payload, size_t n) {
  ibr_packet_spec spec;
  ibr_packet_spec_init(&spec); /* an RC SEND Only (OpCode 0x04), P_Key 0xFFFF */
  spec.slid = 0x0101;
  spec.dlid = 0x0202;
  spec.dest_qp = 0x42;
  spec.psn = psn;
  spec.payload = (const uint8_t *)payload;
  spec.payload_len = n;
  size_t len;
  check(ibr_packet_build(m, &spec, buf, cap, &len), m, "ibr_packet_build");
  check(ibr_send(m, buf, len, spec.slid), m, "ibr_send");
  return len;
}

int main(int argc, char **argv) {
  char err[512];
  if (ibr_model_new(argc > 1 ? argv[1] : "", &m, err, sizeof err) != IBR_OK) {
    fprintf(stderr, "configuration: %s\n", err);
    return 2;
  }
  char config[512];
  check(ibr_model_config(m, config, sizeof config), m, "ibr_model_config");
  printf("libibreservoir %s: %s\n", ibr_version(), config);

  uint8_t pkt[256];
  size_t len = packet(pkt, sizeof pkt, 7, "hello", 5);
  for (int hop = 0; hop < 5; hop++) {
    ibr_stage_result r;
    /* state NULL: the handle's own generator for the port */
    check(ibr_stage(m, pkt, len, path[hop].switch_id, path[hop].port, hop == 2, NULL, 0, &r), m, "ibr_stage");
    printf("hop %d %d:%d l=%d replaced=%d count=%d\n", hop + 1, path[hop].switch_id, path[hop].port, r.hop_l,
           r.hop_replaced, r.hop_count);
  }
  ibr_sample s;
  check(ibr_receive(m, pkt, len, &s), m, "ibr_receive");
  printf("received: id %u, hop bit %d, congested bit %d, weight %d\n", s.id, s.hop_bit, s.cong_bit, s.hop_count);

  ibr_info info;
  check(ibr_model_info(m, &info), m, "ibr_model_info");
  if (info.scheme == IBR_SCHEME_FULLID) {
    ibr_free(m);
    return 0; /* the full-ID scheme reads its samples directly */
  }
  const ibr_link links[13] = {{1, 33}, {1, 34}, {10, 1}, {10, 2}, {11, 1}, {11, 2}, {100, 1},
                              {100, 2}, {101, 1}, {101, 2}, {20, 1}, {21, 1}, {2, 5}};
  const int32_t hops[13] = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5};
  ibr_decoder d;
  check(ibr_decoder_new(m, 5, links, hops, 13, &d), m, "ibr_decoder_new");
  for (uint32_t psn = 0; psn < 2000; psn++) {
    len = packet(pkt, sizeof pkt, psn, NULL, 0);
    for (int hop = 0; hop < 5; hop++) {
      check(ibr_stage(m, pkt, len, path[hop].switch_id, path[hop].port, hop == 2, NULL, 0, NULL), m, "ibr_stage");
    }
    check(ibr_decoder_add_packet(d, pkt, len), d, "ibr_decoder_add_packet");
  }
  ibr_estimate es[13];
  size_t n;
  check(ibr_decoder_estimates(d, 5, 0.99, es, 13, &n), d, "ibr_decoder_estimates");
  for (size_t i = 0; i < n; i++) {
    if (es[i].passed) {
      printf("hop %d %d:%d W=%lld (threshold %.0f) congested fraction %.2f\n", es[i].hop, es[i].link.switch_id,
             es[i].link.port, (long long)es[i].w, es[i].threshold, es[i].fraction);
    }
  }
  ibr_free(d);
  ibr_free(m);
  return 0;
}
