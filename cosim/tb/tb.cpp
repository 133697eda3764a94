// SPDX-License-Identifier: Apache-2.0

// The self-checking Verilator testbench of package cosim (ibreservoir verify).
//
// It reads a binary switch-stage vector file (format in vectors/format.go and
// docs/rtl.md; its offsets and flags in ibr_vectors.h, generated from
// vectors/format.go), streams each input packet into ibr_cosim_top in beats of BEAT
// bytes (the stage's DataW/8; one packet per beat, the last beat padded: empty),
// and compares every byte of every output packet, every per-packet status bit
// and the generator state after every draw with the vector. Inputs change away
// from the sampling edge (with the falling edge), as in Verilator's
// examples/make_tracing_c.
//
// The file's vectors are split, at generator-chain boundaries (a vector that
// loads its generator state), into +parts contiguous ranges, of which this
// process runs range +part; that range is split again across the top's LANES
// egress ports, each a separate stream. Vector indices in the output are
// indices in the file. The file's first vector starts a range whether or not
// it loads: one that does not draws from the generator's reset state, and
// the first range's first lane runs it straight after reset, with nothing
// loaded. A raw packet (kFlagRaw: no BTH) is compared byte for byte and
// reports no status.
//
// Plusargs:
//   +vectors=FILE   the binary vector file
//   +sel=N          the configuration of ibr_cosim_top to run
//   +digest=HEX     the configuration digest the file must carry (vectors.ConfigDigest)
//   +part=K +parts=P  run the K-th of P ranges (default 0 of 1)
//   +maxfail=N      mismatches printed in full (default 10; all are counted)
//   +stall=N        hold out_ready_i low one cycle in N (0: never), to exercise backpressure
//   +gap=N          an idle input cycle after every N packets of a lane (0: never)
//   +wgap=N         an idle input cycle before about one word in N, at any word
//                   position of a packet, first and last included (default 11; 0: never)
//   +seed=N         seed of the word gaps and of cong_i off the sop word (default 1)
//   +dense=1        SEGMENTED: each packet at the first legal segment (default 0:
//                   now and then a few idle segments before it, from the seed)
//   +packcheck=FILE SEGMENTED: no simulation; pack the frames of FILE (lines "len
//                   idle": the frame's bytes and idle segments before it) and print
//                   each beat as "SEGBEAT sop seg eop empty"
// SEGMENTED (-DSEGMENTED=1, 256- and 512-bit beats): the stream follows
// docs/rtl.md's "Segmented beats", as verilog.PackSegments packs it (SegPacker
// below): a packet starts at an 8-byte segment, a beat may end one packet and
// start the next; the idle bytes are random. A packet that loads the
// generator starts a beat of its own (the load comes between packets). The
// egress is reassembled by its sop, sop segment, eop and empty, and each
// packet's sop segment must be the one it entered at (a sop-seg mismatch).
// cong_i carries the vector's congested bit while a lane offers its sop word
// and a pseudo-random value on every other cycle: the stage must sample it
// with the sop word and at no other time.
//
// Output lines, parsed by package cosim:
//   MISMATCH index=I what=packet got=HEX want=HEX
//   MISMATCH index=I what=stat got=FLAGS,FIELD,MALFORMED want=FLAGS,FIELD,MALFORMED
//   MISMATCH index=I what=state got=HEX want=HEX
//   MISMATCH index=I what=extra|extra-stat got=... want=none   (I: the last vector
//            whose packet, or status, came out before the unexpected one)
//   MISMATCH index=I what=deadlock|finish ...                  (I: the oldest vector in flight)
//   COV field=F replace=R cong=C sat=S n=N
//   LATENCY cycles=L beats=N   (N beats left L cycles after they were taken; with
//            +stall=0 the stage's own latency, beat by beat)
//   RESULT vectors=V mismatches=M cycles=C beats=B seconds=S   (B: beats taken at the ingress)
#include <verilated.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <map>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "Vibr_cosim_top.h"
#include "ibr_vectors.h"

#ifndef LANES
#define LANES 1
#endif
// BEAT: bytes a beat (the stage's DataW/8: 8, 16, 32 or 64); EMPTYW: log2 of it.
#ifndef BEAT
#define BEAT 8
#endif
#ifndef EMPTYW
#define EMPTYW 3
#endif
static_assert(BEAT % 8 == 0 && (1 << EMPTYW) == BEAT, "BEAT is 2^EMPTYW bytes, whole 64-bit words");
// SEGW: width of the sop-segment ports, log2 of the 8-byte segments a beat (1
// at 8 and 16 bytes).
#ifndef SEGW
#define SEGW 1
#endif
static_assert(SEGW >= 1 && (BEAT <= 16 ? SEGW == 1 : (8 << SEGW) == BEAT), "SEGW is log2(BEAT/8), at least 1");
#ifndef SEGMENTED
#define SEGMENTED 0
#endif
static_assert(!SEGMENTED || BEAT == 32 || BEAT == 64, "segmented beats are 256 or 512 bits");

namespace {

using namespace ibr_vectors;
constexpr int kStateW = kMaxStateBits;  // generator-state bits per lane of ibr_cosim_top

struct Rec {
  uint64_t index;
  uint16_t len;
  uint8_t flags, port, ndiff, field;
  uint16_t sw;
  const uint8_t* state_in;   // nullptr unless kFlagLoad and a state
  const uint8_t* state_out;  // nullptr without a state
  const uint8_t* in;
  const uint8_t* diffs;
};

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

std::string hexOf(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = d[p[i] >> 4];
    s[2 * i + 1] = d[p[i] & 15];
  }
  return s;
}

// State bytes (a little-endian bit string) printed most significant first, as rng.State.Hex.
std::string stateHex(const uint8_t* p, size_t n) {
  uint8_t r[kMaxStateBits / 8];
  for (size_t i = 0; i < n; i++) r[i] = p[n - 1 - i];
  return hexOf(r, n);
}

long plusarg(VerilatedContext* ctx, const char* name, long def) {
  std::string key = std::string(name) + "=";
  const char* m = ctx->commandArgsPlusMatch(key.c_str());
  if (!m || !*m) return def;
  return std::strtol(m + key.size() + 1, nullptr, 10);
}

// Bits lo..lo+w-1 of a port, integral (up to 64 bits) or wide.
template <typename T>
void setBits(T& p, int lo, int w, uint64_t v) {
  static_assert(std::is_integral<T>::value, "integral port");
  const uint64_t m = (w == 64 ? ~uint64_t(0) : ((uint64_t(1) << w) - 1)) << lo;
  p = T((uint64_t(p) & ~m) | ((v << lo) & m));
}
template <std::size_t N>
void setBits(VlWide<N>& p, int lo, int w, uint64_t v) {
  if (lo % 32 == 0 && w % 32 == 0) {
    for (int i = 0; i < w / 32; i++) p[lo / 32 + i] = uint32_t(v >> (32 * i));
    return;
  }
  for (int i = 0; i < w; i++) {
    const int b = lo + i;
    p[b / 32] = (p[b / 32] & ~(uint32_t(1) << (b % 32))) | (uint32_t(v >> i & 1) << (b % 32));
  }
}
template <typename T>
uint64_t getBits(const T& p, int lo, int w) {
  static_assert(std::is_integral<T>::value, "integral port");
  const uint64_t m = w == 64 ? ~uint64_t(0) : ((uint64_t(1) << w) - 1);
  return (uint64_t(p) >> lo) & m;
}
template <std::size_t N>
uint64_t getBits(const VlWide<N>& p, int lo, int w) {
  if (lo % 32 == 0 && w % 32 == 0) {
    uint64_t v = 0;
    for (int i = 0; i < w / 32; i++) v |= uint64_t(p[lo / 32 + i]) << (32 * i);
    return v;
  }
  uint64_t v = 0;
  for (int i = 0; i < w; i++) {
    const int b = lo + i;
    v |= uint64_t(p[b / 32] >> (b % 32) & 1) << i;
  }
  return v;
}

struct File {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t sb = 0;  // state bytes
  uint64_t first = 0, end = 0;  // this process's records: first..end-1
  std::vector<uint64_t> offs;   // their offsets: offs[i-first]

  Rec rec(uint64_t i) const {
    const uint8_t* p = data + offs[i - first];
    Rec r;
    r.index = i;
    r.len = le16(p + kRecPosLen);
    r.flags = p[kRecPosFlags];
    r.port = p[kRecPosPort];
    r.sw = le16(p + kRecPosSwitch);
    r.ndiff = p[kRecPosDiffs];
    r.field = p[kRecPosField];
    size_t o = kRecHeadLen;
    r.state_in = r.state_out = nullptr;
    if (sb) {
      if (r.flags & kFlagLoad) {
        r.state_in = p + o;
        o += sb;
      }
      r.state_out = p + o;
      o += sb;
    }
    r.in = p + o;
    r.diffs = p + o + r.len;
    return r;
  }
  // A range may start at vector i when a fresh generator state is loaded
  // there, or at the file's first vector (the reset state's chain).
  bool boundary(uint64_t i) const {
    return i == end || i == 0 || sb == 0 || (data[offs[i - first] + kRecPosFlags] & kFlagLoad);
  }
  // The first boundary at or after i, within first..end.
  uint64_t align(uint64_t i) const {
    while (i < end && !boundary(i)) i++;
    return i;
  }
};

// SegPacker places frames in a segmented stream as verilog.PackSegments
// does: frame i at the first legal segment at least idle segments after the
// segment holding frame i-1's last byte, legal when its sop beat holds no
// other sop and its eop beat no other eop (segments and beats count from the
// stream's start). Only the previous frame's beats can clash: the frames are
// in order.
struct SegPacker {
  static constexpr int64_t kS = BEAT / 8;  // segments a beat
  int64_t pos = 0, last_sop = -1, last_eop = -1;
  int64_t place(int len, int64_t idle) {
    const int64_t g = (len + 7) / 8;
    int64_t start = pos + idle;
    while (start / kS == last_sop || (start + g - 1) / kS == last_eop) start = (start / kS + 1) * kS;
    last_sop = start / kS;
    last_eop = (start + g - 1) / kS;
    pos = start + g;
    return start;
  }
};

// A SegBeat is the structure of one beat of a segmented stream: the packets
// whose bytes it holds (the tail ending in it, open before it, and the head
// starting in it; -1 for none) as indices into the placed frames.
struct SegBeat {
  int tail = -1, head = -1;
  bool sop = false, eop = false;
  int seg = 0, empty = 0;
};

// segBeat is beat b's structure, given the placed frames' first segments
// and lengths from index first on, of which frame first may be open before b.
template <typename Start, typename Len>
SegBeat segBeat(int64_t b, size_t first, size_t n, Start start, Len len) {
  SegBeat t;
  const int64_t lo = b * BEAT, hi = lo + BEAT;  // the beat's bytes, stream-wide
  for (size_t i = first; i < n && 8 * start(i) < hi; i++) {
    const int64_t at = 8 * start(i), end = at + len(i);
    if (end <= lo) continue;
    if (at < lo) {
      t.tail = int(i);
    } else {
      t.head = int(i);
      t.sop = true;
      t.seg = int((at - lo) / 8);
    }
    if (end <= hi) {
      t.eop = true;
      t.empty = int(hi - end);
    }
  }
  return t;
}

// segOpenAfter says whether a packet is open after a beat of structure t:
// one that starts in it and does not end in it, or the tail going on.
bool segOpenAfter(const SegBeat& t) { return t.eop ? (t.head >= 0 && t.tail >= 0) : (t.head >= 0 || t.tail >= 0); }

// segNext is the beat after beat b that holds a byte: b+1 while a packet
// is open after b, else the beat of the next packet's first segment (next,
// -1 when none is placed).
int64_t segNext(int64_t b, bool open, int64_t next) {
  if (open || next < 0) return b + 1;
  return std::max(b + 1, next / SegPacker::kS);
}

// segIdleByte is an idle byte of a segmented stream: random, but the same for
// the same beat and lane, so a beat offered again is offered unchanged.
uint8_t segIdleByte(uint64_t seed, int64_t b, int lane) {
  uint64_t z = seed + uint64_t(b) * 0x9E3779B97F4A7C15ull + uint64_t(lane) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return uint8_t(z ^ (z >> 31));
}

// packCheck packs the frames of path (lines "len idle") and prints each beat
// that holds a byte: the check of SegPacker against verilog.PackSegments.
int packCheck(const char* path) {
  FILE* in = std::fopen(path, "r");
  if (!in) {
    std::fprintf(stderr, "tb: cannot open %s\n", path);
    return 2;
  }
  SegPacker pk;
  std::vector<int64_t> start;
  std::vector<int> len;
  int n, idle;
  while (std::fscanf(in, "%d %d", &n, &idle) == 2) {
    if (n < 6 || n % 4 != 2 || idle < 0) {
      std::fprintf(stderr, "tb: %s: frame of %d bytes after %d idle segments\n", path, n, idle);
      std::fclose(in);
      return 2;
    }
    len.push_back(n);
    start.push_back(pk.place(n, idle));
  }
  std::fclose(in);
  size_t first = 0;
  int64_t b = start.empty() ? 0 : start[0] / SegPacker::kS;
  while (first < len.size()) {
    const SegBeat t = segBeat(b, first, len.size(), [&](size_t i) { return start[i]; }, [&](size_t i) { return len[i]; });
    std::printf("SEGBEAT %d %d %d %d\n", t.sop, t.sop ? t.seg : 0, t.eop, t.eop ? t.empty : 0);
    if (t.eop) first++;
    b = segNext(b, segOpenAfter(t), first < len.size() ? start[first] : -1);
  }
  return 0;
}

struct Placed {
  Rec r;
  int64_t start;  // first segment, stream-wide
};

struct Lane {
  uint64_t next = 0, end = 0;
  uint64_t first = 0;                             // the lane's first vector
  uint64_t last_out = UINT64_MAX, last_stat = UINT64_MAX;  // the last vectors checked
  Rec cur{};
  bool have = false, loaded = false;
  bool holding = false;  // the word offered last cycle was not taken: offer it again
  int w = 0;
  uint64_t sent = 0, idle_at = 0;
  std::deque<Rec> pend_out, pend_stat;
  uint8_t outbuf[kMaxPacket + 64];  // up to one beat past the longest packet
  size_t outlen = 0;
  // SEGMENTED: the placed packets not yet wholly taken (the first may be
  // partly taken), the beat offered next (stream-wide), the ingress sop
  // segments of the packets awaited at the egress, and whether the egress
  // has a packet open.
  SegPacker pk;
  std::deque<Placed> pl;
  int64_t beat = 0;
  std::deque<int> pend_seg;
  bool out_open = false;
  // The cycles at which the beats in flight were taken, oldest first.
  std::deque<uint64_t> taken_at;
};

// oldest is the index of the oldest vector in flight on any lane (for a
// deadlock or an early $finish), or of the next one to send.
template <std::size_t N>
uint64_t oldest(const Lane (&lanes)[N]) {
  uint64_t o = UINT64_MAX;
  for (const Lane& l : lanes) {
    if (!l.pend_out.empty() && l.pend_out.front().index < o) o = l.pend_out.front().index;
    if (!l.pend_stat.empty() && l.pend_stat.front().index < o) o = l.pend_stat.front().index;
    if (l.have && l.cur.index < o) o = l.cur.index;
  }
  return o == UINT64_MAX ? 0 : o;
}

}  // namespace

int main(int argc, char** argv) {
  const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
  ctx->commandArgs(argc, argv);
  if (const char* pm = ctx->commandArgsPlusMatch("packcheck="); SEGMENTED && pm && *pm) {
    return packCheck(pm + std::strlen("+packcheck="));
  }
  const char* vm = ctx->commandArgsPlusMatch("vectors=");
  if (!vm || !*vm) {
    std::fprintf(stderr, "tb: no +vectors=FILE\n");
    return 2;
  }
  const std::string path(vm + std::strlen("+vectors="));
  const long sel = plusarg(ctx.get(), "sel", 0);
  const long part = plusarg(ctx.get(), "part", 0);
  const long parts = plusarg(ctx.get(), "parts", 1);
  const long maxfail = plusarg(ctx.get(), "maxfail", 10);
  const long stall = plusarg(ctx.get(), "stall", 0);
  const long gap = plusarg(ctx.get(), "gap", 0);
  const long wgap = plusarg(ctx.get(), "wgap", 11);
  const bool dense = plusarg(ctx.get(), "dense", 0) != 0;
  const uint64_t seed = uint64_t(plusarg(ctx.get(), "seed", 1));
  uint64_t rnd = uint64_t(plusarg(ctx.get(), "seed", 1)) * 0x9E3779B97F4A7C15ull | 1;
  // xorshift64: the word gaps and the off-sop cong_i values.
  auto next_rnd = [&rnd]() {
    rnd ^= rnd << 13;
    rnd ^= rnd >> 7;
    rnd ^= rnd << 17;
    return rnd;
  };
  if (parts < 1 || part < 0 || part >= parts) {
    std::fprintf(stderr, "tb: +part=%ld of +parts=%ld\n", part, parts);
    return 2;
  }
  if (stall < 0 || stall == 1 || gap < 0 || wgap < 0 || maxfail < 0) {
    std::fprintf(stderr, "tb: +stall=%ld (0 or 2 or more), +gap=%ld, +wgap=%ld, +maxfail=%ld (0 or more)\n", stall, gap,
                 wgap, maxfail);
    return 2;
  }

  // Map the file and index this process's range (below). Each process checks
  // the bounds of every record it walks, the last one all of them; a record's
  // diffs are checked when it is used.
  File f;
  const int fd = open(path.c_str(), O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::fprintf(stderr, "tb: cannot open %s\n", path.c_str());
    return 2;
  }
  f.size = size_t(st.st_size);
  f.data = static_cast<const uint8_t*>(mmap(nullptr, f.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0));
  if (f.data == MAP_FAILED || f.size < kHeaderLen || std::memcmp(f.data, kMagic, sizeof kMagic - 1) != 0 ||
      le32(f.data + kPosVersion) != kVersion) {
    std::fprintf(stderr, "tb: %s is not a version-%u binary vector file\n", path.c_str(), unsigned(kVersion));
    return 2;
  }
  f.sb = le32(f.data + kPosStateBytes);
  if (f.sb % 8 != 0 || f.sb > kStateW / 8) {
    std::fprintf(stderr, "tb: %s: state of %zu bytes\n", path.c_str(), f.sb);
    return 2;
  }
  const uint64_t count = le64(f.data + kPosCount);
  const uint64_t digest = le64(f.data + kPosDigest);
  if (count == 0) {
    std::fprintf(stderr, "tb: %s holds no vectors: a run would check nothing\n", path.c_str());
    return 2;
  }
  // A count the file cannot hold is refused before anything is sized by it.
  if (count > (f.size - kHeaderLen) / kMinRecord) {
    std::fprintf(stderr, "tb: %s: the header counts %" PRIu64 " vectors, but its %zu bytes hold at most %zu: the count is wrong\n",
                 path.c_str(), count, f.size, (f.size - kHeaderLen) / kMinRecord);
    return 2;
  }
  if (const char* dm = ctx->commandArgsPlusMatch("digest="); dm && *dm) {
    const uint64_t want = std::strtoull(dm + std::strlen("+digest="), nullptr, 16);
    if (want != digest) {
      std::fprintf(stderr, "tb: configuration mismatch: %s holds vectors for configuration digest %016" PRIx64
                   ", the RTL configuration's is %016" PRIx64 "\n", path.c_str(), digest, want);
      return 2;
    }
  }
  // Walk the records' heads, checking each against the file, as far as this
  // process's range, and keep the offsets of the range only. The range runs
  // from the first chain boundary at or after count*part/parts to the first at
  // or after count*(part+1)/parts, where the next process's range begins.
  const uint64_t want_lo = count * uint64_t(part) / uint64_t(parts);
  const uint64_t want_hi = count * uint64_t(part + 1) / uint64_t(parts);
  bool started = false;
  f.first = f.end = count;
  uint64_t i = 0;
  size_t off = kHeaderLen;
  for (; i < count; i++) {
    if (off + kRecHeadLen > f.size) {
      std::fprintf(stderr, "tb: record %" PRIu64 " cut short\n", i);
      return 2;
    }
    const uint8_t* p = f.data + off;
    __builtin_prefetch(p + 1024);  // the walk is a chain of dependent loads; fetch ahead
    const size_t len = le16(p + kRecPosLen);
    const size_t dstart = kRecHeadLen + (f.sb ? ((p[kRecPosFlags] & kFlagLoad) ? 2 : 1) * f.sb : 0) + len;
    size_t n = dstart + kDiffLen * p[kRecPosDiffs];
    n += (kRecAlign - n % kRecAlign) % kRecAlign;
    if (len < kMinPacket || len > kMaxPacket || off + n > f.size) {
      std::fprintf(stderr, "tb: record %" PRIu64 " malformed\n", i);
      return 2;
    }
    const bool boundary = i == 0 || f.sb == 0 || (p[kRecPosFlags] & kFlagLoad);
    if (!started && i >= want_lo && boundary) {
      started = true;
      f.first = i;
      f.offs.reserve(want_hi - want_lo + 1024);
    }
    if (started && i >= want_hi && boundary) break;
    if (started) f.offs.push_back(off);
    off += n;
  }
  f.end = started ? i : count;
  // The process that walked the whole file checks that the header's count
  // is the file's: a count too small would let a run check too few vectors.
  if (i == count && off != f.size) {
    std::fprintf(stderr, "tb: %s: %zu bytes after the %" PRIu64 " records the header counts: the count is wrong\n",
                 path.c_str(), f.size - off, count);
    return 2;
  }

  // SEGMENTED: place the lane's next packets (two, so that a beat's head is
  // known with its tail): one that loads the generator at a beat of its own,
  // the others at the first legal segment (+dense=1) or, one in four, after
  // 0..2S-1 idle segments. Then the beat to offer.
  auto segRefill = [&](Lane& l) {
    while (l.pl.size() < 2 && l.next < l.end) {
      const Rec r = f.rec(l.next++);
      int64_t idle = 0;
      if (r.state_in) {
        idle = (SegPacker::kS - l.pk.pos % SegPacker::kS) % SegPacker::kS;
      } else if (!dense) {
        const uint64_t x = next_rnd();
        idle = (x >> 20) % 4 == 0 ? int64_t((x >> 30) % uint64_t(2 * SegPacker::kS)) : 0;
      }
      l.pl.push_back(Placed{r, l.pk.place(r.len, idle)});
    }
    l.have = !l.pl.empty();
    if (l.have) l.cur = l.pl.front().r;
  };
  auto segBeatOf = [](const Lane& l) {
    return segBeat(l.beat, 0, l.pl.size(), [&](size_t i) { return l.pl[i].start; }, [&](size_t i) { return int(l.pl[i].r.len); });
  };

  // This process's range, then the lanes' ranges, at chain boundaries.
  const uint64_t lo = f.first;
  const uint64_t hi = f.end;
  Lane lanes[LANES];
  for (int k = 0; k < LANES; k++) {
    lanes[k].next = f.align(lo + (hi - lo) * uint64_t(k) / LANES);
    lanes[k].end = f.align(lo + (hi - lo) * uint64_t(k + 1) / LANES);
    if (lanes[k].next > hi) lanes[k].next = hi;
    if (lanes[k].end > hi) lanes[k].end = hi;
    lanes[k].first = lanes[k].next;
    if (SEGMENTED) {
      segRefill(lanes[k]);
      if (lanes[k].have) lanes[k].beat = lanes[k].pl.front().start / SegPacker::kS;
    } else if (lanes[k].next < lanes[k].end) {
      lanes[k].cur = f.rec(lanes[k].next++);
      lanes[k].have = true;
    }
  }

  auto* top = new Vibr_cosim_top{ctx.get()};
  top->sel_i = uint8_t(sel);
  top->clk_i = 0;
  top->rst_ni = 0;
  top->eval();
  top->clk_i = 1;
  top->eval();
  top->clk_i = 0;
  top->rst_ni = 1;
  top->eval();

  // Coverage: (field, replace, cong, sat) -> packets.
  static uint64_t cov[256][2][2][2];
  uint64_t mismatches = 0, checked = 0, cycles = 0, words = 0;
  std::map<uint64_t, uint64_t> latency;  // cycles from ingress to egress: beats
  auto fail = [&](uint64_t index, const char* what, const std::string& got, const std::string& want) {
    if (mismatches < uint64_t(maxfail)) {
      std::printf("MISMATCH index=%" PRIu64 " what=%s got=%s want=%s\n", index, what, got.c_str(), want.c_str());
    }
    mismatches++;
  };
  auto busy = [&]() {
    for (const Lane& l : lanes) {
      if (l.have || !l.pend_out.empty() || !l.pend_stat.empty()) return true;
    }
    return false;
  };

  // finishOut compares the lane's reassembled packet (outbuf, outlen bytes)
  // with its vector's output; false: a record is malformed.
  auto finishOut = [&](Lane& l) {
    const Rec r = l.pend_out.front();
    l.pend_out.pop_front();
    if (SEGMENTED) l.pend_seg.pop_front();
    const size_t n = l.outlen;
    uint8_t want[kMaxPacket];
    std::memcpy(want, r.in, r.len);
    for (int q = 0; q < r.ndiff; q++) {
      // Checked here, not while indexing: indexing reads only the records' heads.
      const uint16_t at = le16(r.diffs + 3 * q);
      if (at >= r.len) {
        std::fprintf(stderr, "tb: record %" PRIu64 ": diff beyond the packet\n", r.index);
        return false;
      }
      want[at] = r.diffs[3 * q + 2];
    }
    if (n != r.len || std::memcmp(l.outbuf, want, r.len) != 0) {
      fail(r.index, "packet", hexOf(l.outbuf, n > sizeof(l.outbuf) ? sizeof(l.outbuf) : n), hexOf(want, r.len));
    }
    checked++;
    l.last_out = r.index;
    l.outlen = 0;
    return true;
  };

  const auto t0 = std::chrono::steady_clock::now();
  while (busy()) {
    // The falling edge, and this cycle's inputs with it (away from the
    // sampling edge); one evaluation settles both.
    top->clk_i = 0;
    const bool ready = !(stall > 0 && cycles % uint64_t(stall) == uint64_t(stall) - 1);
    for (int k = 0; k < LANES; k++) {
      Lane& l = lanes[k];
      bool valid = false, cfg = false, load = false;
      setBits(top->out_ready_i, k, 1, ready);
      const bool gap_now = gap > 0 && l.w == 0 && l.sent > 0 && l.sent % uint64_t(gap) == 0 && l.idle_at != l.sent;
      const uint64_t x = next_rnd();
      setBits(top->cong_i, k, 1, (x >> 40) & 1);  // any value off the sop word
      // The packet whose generator state must be loaded before its sop beat.
      SegBeat sb{};
      const Rec* ld = nullptr;
      if (SEGMENTED && l.have) {
        sb = segBeatOf(l);
        if (sb.head >= 0 && l.pl[size_t(sb.head)].r.state_in && !l.loaded) ld = &l.pl[size_t(sb.head)].r;
      } else if (l.have && l.cur.state_in && !l.loaded) {
        ld = &l.cur;
      }
      if (l.have && gap_now) {
        l.idle_at = l.sent;
      } else if (l.have && wgap > 0 && !l.holding && !ld && (x >> 8) % uint64_t(wgap) == 0) {
        // An idle cycle inside (or before) the packet.
      } else if (l.have) {
        if (ld) {
          // Load the generator only when none of this lane's draws is outstanding.
          if (l.pend_stat.empty()) {
            load = true;
            for (size_t q = 0; q < f.sb / 4; q++) {
              setBits(top->gen_state_i, kStateW * k + 32 * int(q), 32, le32(ld->state_in + 4 * q));
            }
            l.loaded = true;
          }
        } else if (SEGMENTED) {
          // Beat l.beat of the lane's segmented stream: the tail's and the
          // head's bytes, random idle bytes around them.
          const int64_t b0 = l.beat * BEAT;
          for (int q = 0; q < BEAT / 8; q++) {
            uint64_t d = 0;
            for (int b = 0; b < 8; b++) {
              const int64_t at = b0 + 8 * q + b;
              uint8_t c = segIdleByte(seed + uint64_t(k), l.beat, 8 * q + b);
              for (int p : {sb.tail, sb.head}) {
                if (p < 0) continue;
                const Placed& pp = l.pl[size_t(p)];
                const int64_t off = at - 8 * pp.start;
                if (off >= 0 && off < pp.r.len) c = pp.r.in[off];
              }
              d = d << 8 | c;
            }
            setBits(top->in_data_i, 8 * BEAT * k + 8 * BEAT - 64 * (q + 1), 64, d);
          }
          valid = true;
          setBits(top->in_sop_i, k, 1, sb.sop);
          setBits(top->in_eop_i, k, 1, sb.eop);
          setBits(top->in_empty_i, EMPTYW * k, EMPTYW, uint64_t(sb.eop ? sb.empty : 0));
          setBits(top->in_sop_seg_i, SEGW * k, SEGW, uint64_t(sb.sop ? sb.seg : 0));
          if (sb.sop) {
            const Rec& r = l.pl[size_t(sb.head)].r;
            cfg = true;
            setBits(top->cfg_switch_i, 16 * k, 16, r.sw);
            setBits(top->cfg_port_i, 8 * k, 8, r.port);
            setBits(top->cong_i, k, 1, (r.flags & kFlagCongested) != 0);
          }
        } else {
          const Rec& r = l.cur;
          const int nw = (r.len + BEAT - 1) / BEAT;
          // Beat l.w: packet bytes BEAT*l.w on, one packet per beat, lane 0
          // (the first byte on the wire) most significant; 64 bits at a time.
          for (int q = 0; q < BEAT / 8; q++) {
            const int at = BEAT * l.w + 8 * q;
            uint64_t d = 0;
            if (at + 8 <= r.len) {
              std::memcpy(&d, r.in + at, 8);
              d = __builtin_bswap64(d);  // the first byte on the wire is the most significant
            } else {
              for (int b = 0; b < 8; b++) {
                const int i = at + b;
                d = d << 8 | (i < r.len ? r.in[i] : 0);
              }
            }
            setBits(top->in_data_i, 8 * BEAT * k + 8 * BEAT - 64 * (q + 1), 64, d);
          }
          valid = true;
          setBits(top->in_sop_i, k, 1, l.w == 0);
          setBits(top->in_eop_i, k, 1, l.w == nw - 1);
          setBits(top->in_empty_i, EMPTYW * k, EMPTYW, uint64_t(BEAT * nw - r.len));
          if (l.w == 0) {
            cfg = true;
            setBits(top->cfg_switch_i, 16 * k, 16, r.sw);
            setBits(top->cfg_port_i, 8 * k, 8, r.port);
            setBits(top->cong_i, k, 1, (r.flags & kFlagCongested) != 0);
          }
        }
      }
      setBits(top->in_valid_i, k, 1, valid);
      setBits(top->cfg_we_i, k, 1, cfg);
      setBits(top->gen_load_i, k, 1, load);
    }
    top->eval();

    // Sample before the rising edge.
    for (int k = 0; k < LANES; k++) {
      Lane& l = lanes[k];
      l.holding = getBits(top->in_valid_i, k, 1) && !getBits(top->in_ready_o, k, 1);
      if (getBits(top->in_valid_i, k, 1) && getBits(top->in_ready_o, k, 1)) l.taken_at.push_back(cycles);
      if (getBits(top->out_valid_o, k, 1) && getBits(top->out_ready_i, k, 1) && !l.taken_at.empty()) {
        latency[cycles - l.taken_at.front()]++;
        l.taken_at.pop_front();
      }
      if (SEGMENTED && getBits(top->in_valid_i, k, 1) && getBits(top->in_ready_o, k, 1)) {
        words++;
        const SegBeat t = segBeatOf(l);
        if (t.head >= 0) {
          const Rec& r = l.pl[size_t(t.head)].r;
          l.pend_out.push_back(r);
          l.pend_seg.push_back(t.seg);
          if (!(r.flags & kFlagRaw)) l.pend_stat.push_back(r);  // a raw packet has no status
          l.loaded = false;
        }
        if (t.eop) {  // the ending packet is the first placed
          l.pl.pop_front();
          l.sent++;
        }
        segRefill(l);
        l.beat = segNext(l.beat, segOpenAfter(t), l.pl.empty() ? -1 : l.pl.front().start);
      } else if (getBits(top->in_valid_i, k, 1) && getBits(top->in_ready_o, k, 1)) {
        const int nw = (l.cur.len + BEAT - 1) / BEAT;
        words++;
        if (l.w == 0) {
          // The packet's first words may leave before its last one enters.
          l.pend_out.push_back(l.cur);
          if (!(l.cur.flags & kFlagRaw)) l.pend_stat.push_back(l.cur);  // a raw packet has no status
        }
        if (++l.w == nw) {
          l.w = 0;
          l.sent++;
          l.loaded = false;
          l.have = l.next < l.end;
          if (l.have) l.cur = f.rec(l.next++);
        }
      }
      if (SEGMENTED && getBits(top->out_valid_o, k, 1) && getBits(top->out_ready_i, k, 1)) {
        // Reassemble by the rules: the open packet's bytes up to the eop's
        // last lane, then the head's from its sop segment.
        uint8_t beat[BEAT];
        for (int q = 0; q < BEAT / 8; q++) {
          const uint64_t d = getBits(top->out_data_o, 8 * BEAT * k + 8 * BEAT - 64 * (q + 1), 64);
          for (int b = 0; b < 8; b++) beat[8 * q + b] = uint8_t(d >> (56 - 8 * b));
        }
        const bool sop = getBits(top->out_sop_o, k, 1), eop = getBits(top->out_eop_o, k, 1);
        const int seg = int(getBits(top->out_sop_seg_o, SEGW * k, SEGW));
        const int last = eop ? BEAT - 1 - int(getBits(top->out_empty_o, EMPTYW * k, EMPTYW)) : BEAT - 1;
        const uint64_t at = !l.pend_out.empty() ? l.pend_out.front().index : (l.last_out != UINT64_MAX ? l.last_out : l.first);
        auto append = [&](int from, int to) {
          for (int b = from; b <= to; b++) {
            if (l.outlen < sizeof(l.outbuf)) l.outbuf[l.outlen] = beat[b];
            l.outlen++;
          }
        };
        bool tail_done = false;
        if (l.out_open) {
          if (sop && !eop) fail(at, "sop-seg", "sop while a packet is open, no eop", "eop first");
          append(0, last);
          if (eop) {
            l.out_open = false;
            tail_done = true;
            if (!finishOut(l)) return 2;
          }
        }
        if (sop) {
          if (l.pend_out.empty()) {
            fail(l.last_out != UINT64_MAX ? l.last_out : l.first, "extra", "sop", "none");
          } else {
            if (seg != l.pend_seg.front()) fail(l.pend_out.front().index, "sop-seg", std::to_string(seg), std::to_string(l.pend_seg.front()));
            if (tail_done && 8 * seg <= last) fail(l.pend_out.front().index, "sop-seg", "sop at or before the eop's last byte", "after it");
            if (eop && !tail_done) {
              if (8 * seg > last) fail(l.pend_out.front().index, "sop-seg", "eop before the sop, none open", "a whole packet");
              append(8 * seg, last);
              if (!finishOut(l)) return 2;
            } else {
              append(8 * seg, BEAT - 1);
              l.out_open = true;
            }
          }
        } else if (!tail_done && !l.out_open) {
          fail(at, "extra", "a beat with no sop and no packet open", "none");
        }
      } else if (getBits(top->out_valid_o, k, 1) && getBits(top->out_ready_i, k, 1)) {
        if (l.pend_out.empty()) {
          char g[20];
          std::snprintf(g, sizeof g, "%016" PRIx64, getBits(top->out_data_o, 8 * BEAT * k + 8 * BEAT - 64, 64));
          fail(l.last_out != UINT64_MAX ? l.last_out : l.first, "extra", g, "none");
        } else {
          // One packet a beat: every packet starts at segment 0.
          if (getBits(top->out_sop_o, k, 1) && getBits(top->out_sop_seg_o, SEGW * k, SEGW) != 0) {
            fail(l.pend_out.front().index, "sop-seg", std::to_string(getBits(top->out_sop_seg_o, SEGW * k, SEGW)), "0");
          }
          for (int q = 0; q < BEAT / 8; q++) {
            const uint64_t d = getBits(top->out_data_o, 8 * BEAT * k + 8 * BEAT - 64 * (q + 1), 64);
            if (l.outlen + 8 <= sizeof(l.outbuf)) {
              for (int b = 0; b < 8; b++) l.outbuf[l.outlen + b] = uint8_t(d >> (56 - 8 * b));
            }
            l.outlen += 8;
          }
          if (getBits(top->out_eop_o, k, 1)) {
            l.outlen -= getBits(top->out_empty_o, EMPTYW * k, EMPTYW);
            if (!finishOut(l)) return 2;
          }
        }
      }
      if (getBits(top->stat_valid_o, k, 1)) {
        if (l.pend_stat.empty()) {
          fail(l.last_stat != UINT64_MAX ? l.last_stat : l.first, "extra-stat", "1", "none");
        } else {
          const Rec r = l.pend_stat.front();
          l.pend_stat.pop_front();
          l.last_stat = r.index;
          const bool rep = getBits(top->stat_replace_o, k, 1), sat = getBits(top->stat_saturated_o, k, 1);
          const bool hash = getBits(top->stat_hash_o, k, 1), cong = getBits(top->stat_cong_o, k, 1);
          const int field = int(getBits(top->stat_field_o, 8 * k, 8));
          const int malformed = int(getBits(top->stat_malformed_o, k, 1));
          const uint8_t got = uint8_t((rep ? kFlagReplace : 0) | (sat ? kFlagSaturated : 0) | (hash ? kFlagHash : 0) |
                                      (cong ? kFlagCongested : 0));
          const uint8_t want = r.flags & (kFlagReplace | kFlagSaturated | kFlagHash | kFlagCongested);
          // A field of 0 after the stage is a malformed sender-draw
          // packet's (a count field is at least 1 after the stage).
          const int want_malformed = r.field == 0;
          if (got != want || field != r.field || malformed != want_malformed) {
            char g[32], x[32];
            std::snprintf(g, sizeof g, "%02x,%02x,%d", got, field, malformed);
            std::snprintf(x, sizeof x, "%02x,%02x,%d", want, r.field, want_malformed);
            fail(r.index, "stat", g, x);
          }
          if (r.state_out) {
            uint8_t s[kMaxStateBits / 8];
            for (size_t q = 0; q < f.sb / 4; q++) {
              const uint32_t v = uint32_t(getBits(top->gen_state_o, kStateW * k + 32 * int(q), 32));
              for (int b = 0; b < 4; b++) s[4 * q + b] = uint8_t(v >> (8 * b));
            }
            if (std::memcmp(s, r.state_out, f.sb) != 0) fail(r.index, "state", stateHex(s, f.sb), stateHex(r.state_out, f.sb));
          }
          cov[field & 255][rep][cong][sat]++;
        }
      }
    }

    top->clk_i = 1;
    top->eval();
    cycles++;
    if (ctx->gotFinish()) {
      fail(oldest(lanes), "finish", "$finish", "none");
      break;
    }
    if (cycles > 64 * (words + 16) + 100000) {
      fail(oldest(lanes), "deadlock", "stuck", "progress");
      break;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();
  for (const auto& e : latency) std::printf("LATENCY cycles=%" PRIu64 " beats=%" PRIu64 "\n", e.first, e.second);
  for (int field = 0; field < 256; field++) {
    for (int rep = 0; rep < 2; rep++) {
      for (int cong = 0; cong < 2; cong++) {
        for (int sat = 0; sat < 2; sat++) {
          if (const uint64_t n = cov[field][rep][cong][sat]) {
            std::printf("COV field=%d replace=%d cong=%d sat=%d n=%" PRIu64 "\n", field, rep, cong, sat, n);
          }
        }
      }
    }
  }
  std::printf("RESULT vectors=%" PRIu64 " mismatches=%" PRIu64 " cycles=%" PRIu64 " beats=%" PRIu64 " seconds=%.6f\n",
              checked, mismatches, cycles, words, secs);
  delete top;
  return mismatches ? 1 : 0;
}
