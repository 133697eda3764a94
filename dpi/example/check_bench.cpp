// SPDX-License-Identifier: Apache-2.0

// check_bench.cpp: the throughput of the scoreboard's check, the part of
// ibr_dpi_tb that runs per packet whatever the RTL: the model's cut-through
// switch stage through the DPI adapter (ibr_dpi_stage_frame, with
// svBitVecVal arguments as a simulator passes them) and the comparison of its output with the DUT's.
// Here the "DUT" output is the model's own from a first pass (kept as a
// 64-bit FNV-1a hash of its bytes), so the second, timed pass checks every
// packet against a known-good answer.
//
//   check_bench CONFIG_LOCAL CONFIG_GLOBAL PACKETS
//
// prints CHECK packets=N mismatches=M seconds=S cpu=C: the check loop's
// elapsed time, and the CPU time the whole process (the Go runtime's threads
// too) spent in it.
//
// 4096 packets are built beforehand (untimed) and sent through the port in
// turn, PACKETS in all: random headers, payloads of 0..60 bytes, a quarter of
// them global, one in eight with a VCRC bit flipped (stomped by the stage), the port's generator state carried from packet to packet. package dpi's BenchmarkScoreboardCheck builds it
// against a scoreboard build's library and runs it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

// The adapter's prototypes, as Verilator declared them from ibr_dpi_pkg.sv
// (the obj directory of a scoreboard build).
#include "Vibr_dpi_tb__Dpi.h"

namespace {
constexpr int kMaxBytes = 256, kWords = kMaxBytes / 4, kStateBits = 256, kStateWords = kStateBits / 32;

constexpr long kRing = 4096;

struct Packet {
  svBitVecVal in[kWords];
  int len, model;
  bool congested;
};

// fnv hashes a packet's len bytes (byte i in bits 8*(i%4).. of word i/4).
uint64_t fnv(const svBitVecVal *v, int len) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < len; i++) h = (h ^ uint8_t(v[i / 4] >> (8 * (i % 4)))) * 0x100000001b3ULL;
  return h;
}

uint64_t rs = 0x9E3779B97F4A7C15;
uint64_t rnd() {
  rs ^= rs >> 12;
  rs ^= rs << 25;
  rs ^= rs >> 27;
  return rs * 0x2545F4914F6CDD1DULL;
}

double clock(clockid_t id) {
  timespec t;
  clock_gettime(id, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}
}  // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: check_bench CONFIG_LOCAL CONFIG_GLOBAL PACKETS\n");
    return 2;
  }
  const long n = std::atol(argv[3]);
  void *models[2];
  for (int k = 0; k < 2; k++) {
    if (ibr_dpi_model_new(argv[1 + k], &models[k]) != 0) {
      std::fprintf(stderr, "configuration: %s\n", ibr_dpi_error(nullptr));
      return 2;
    }
  }
  std::vector<Packet> pkts(kRing);
  std::vector<uint64_t> answers(size_t(n > 0 ? n : 1));
  svBitVecVal state0[kStateWords] = {0}, state[kStateWords], gid[4], payload[kWords];
  ibr_dpi_port_state(models[0], 7, 3, state0, kStateBits);
  for (long i = 0; i < kRing; i++) {
    Packet &p = pkts[size_t(i)];
    p.model = rnd() % 4 == 0;
    p.congested = rnd() & 1;
    for (auto &w : gid) w = svBitVecVal(rnd());
    for (auto &w : payload) w = svBitVecVal(rnd());
    if (ibr_dpi_build(models[p.model], rnd(), rnd(), rnd() % 16, rnd() % 16, rnd(), rnd(), rnd() % (1 << 24),
                      rnd() % (1 << 24), rnd() % 64, rnd(), rnd() % (1 << 20), rnd(), gid, gid, payload,
                      int(rnd() % 61), p.in, &p.len, kMaxBytes) != 0) {
      std::fprintf(stderr, "build: %s\n", ibr_dpi_error(models[p.model]));
      return 2;
    }
    if (rnd() % 8 == 0) {
      const int b = p.len - 1;  // the VCRC's second byte
      p.in[b / 4] ^= svBitVecVal(1) << (8 * (b % 4) + int(rnd() % 8));
    }
  }
  // Pass 1: the answers ("the DUT's output").
  svBitVecVal pkt[kWords];
  std::memcpy(state, state0, sizeof state);
  for (long i = 0; i < n; i++) {
    const Packet &p = pkts[size_t(i % kRing)];
    int l, field, corrupt;
    svBit hash, rep, sat;
    std::memcpy(pkt, p.in, sizeof pkt);
    if (ibr_dpi_stage_frame(models[p.model], pkt, p.len, 7, 3, p.congested, state, &l, &hash, &rep, &sat, &field,
                            &corrupt, kMaxBytes, kStateBits) != 0) {
      std::fprintf(stderr, "stage: %s\n", ibr_dpi_error(models[p.model]));
      return 2;
    }
    answers[size_t(i)] = fnv(pkt, p.len);
  }
  // Pass 2, timed: the scoreboard's check of every packet.
  std::memcpy(state, state0, sizeof state);
  long mismatches = 0;
  const double t0 = clock(CLOCK_MONOTONIC), c0 = clock(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; i++) {
    const Packet &p = pkts[size_t(i % kRing)];
    int l, field, corrupt;
    svBit hash, rep, sat;
    std::memcpy(pkt, p.in, sizeof pkt);
    ibr_dpi_stage_frame(models[p.model], pkt, p.len, 7, 3, p.congested, state, &l, &hash, &rep, &sat, &field,
                        &corrupt, kMaxBytes, kStateBits);
    mismatches += fnv(pkt, p.len) != answers[size_t(i)];
  }
  const double secs = clock(CLOCK_MONOTONIC) - t0, cpu = clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
  std::printf("CHECK packets=%ld mismatches=%ld seconds=%.6f cpu=%.6f\n", n, mismatches, secs, cpu);
  return mismatches != 0;
}
