/*
 * The one-reservoir decode (thesis Alg. 9) as a plain C loop, for the Go
 * benchmark BenchmarkDecodeOneReservoir to compare against: built with
 * gcc -O3 -march=native and run on the same packets and candidate links.
 * The hash is Hmult0 (section 5.4): bit31(1846571429 * id * d).
 *
 * Written as well as plain C allows, with no intrinsics, so that the
 * compiler's own vectorization sets the bar:
 *
 *  - Alg. 9 adds w*(-1)^(H ^ bit) to counts[d]. With s = w*(-1)^bit and
 *    H = sign bit of k*d (k = 1846571429*id), that is s - 2*s*H: a per-batch
 *    constant (the sum of s) and a term the product's sign bit switches on,
 *    (-2*s) & (int32)(k*d) >> 31.
 *  - Packets are taken in batches of BATCH; a batch's records (k, -2*s) are
 *    split into the congested packets, which charge both arrays, and the
 *    others, which charge the counts only.
 *  - Links are taken in blocks of BL: for each block the batch's records
 *    stream past 32-bit sums the compiler keeps in vector registers, widened
 *    to 64 bits once per block and batch.
 *
 * Input (little-endian): uint32 nlinks, npkts, reps; uint32 d[nlinks];
 * then per packet uint32 id, uint32 hop_bit, uint32 cong_bit, uint32 w
 * (w < 2^16). Output: one line "ns <elapsed ns for reps passes> <checksum>
 * cpu <the thread's CPU ns for them>",
 * then one line per link "<count> <congested count>" after one pass, for
 * the cross-check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 4096 /* 4096 * 2 * (2^16-1) < 2^31: the 32-bit sums cannot overflow */
#define BL 64

static uint32_t k1[BATCH], k2[BATCH];
static int32_t w1[BATCH], w2[BATCH];

static void decode(uint32_t nlinks, const uint32_t *d, uint32_t npkts, const uint32_t *pk,
                   int64_t *counts, int64_t *cong) {
	for (uint32_t i0 = 0; i0 < npkts; i0 += BATCH) {
		uint32_t end = npkts - i0 < BATCH ? npkts : i0 + BATCH;
		int64_t base = 0, gbase = 0;
		int n1 = 0, n2 = 0;
		for (uint32_t i = i0; i < end; i++) {
			uint32_t id = pk[4 * i], bit = pk[4 * i + 1], cbit = pk[4 * i + 2];
			int32_t w = (int32_t)pk[4 * i + 3];
			if (w == 0)
				continue;
			int32_t s = bit ? -w : w;
			base += s;
			if (cbit) {
				gbase += s;
				k2[n2] = 1846571429u * id;
				w2[n2++] = -2 * s;
			} else {
				k1[n1] = 1846571429u * id;
				w1[n1++] = -2 * s;
			}
		}
		for (uint32_t j0 = 0; j0 < nlinks; j0 += BL) {
			int32_t c32[BL] = {0}, g32[BL] = {0};
			const uint32_t *dj = d + j0;
			for (int i = 0; i < n1; i++) {
				uint32_t k = k1[i];
				int32_t w = w1[i];
				for (int j = 0; j < BL; j++)
					c32[j] += w & ((int32_t)(k * dj[j]) >> 31);
			}
			for (int i = 0; i < n2; i++) {
				uint32_t k = k2[i];
				int32_t w = w2[i];
				for (int j = 0; j < BL; j++) {
					int32_t m = w & ((int32_t)(k * dj[j]) >> 31);
					c32[j] += m;
					g32[j] += m;
				}
			}
			uint32_t n = nlinks - j0 < BL ? nlinks - j0 : BL;
			for (uint32_t j = 0; j < n; j++) {
				counts[j0 + j] += c32[j] + base;
				cong[j0 + j] += g32[j] + gbase;
			}
		}
	}
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: decode_loop input\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	uint32_t hdr[3];
	if (fread(hdr, 4, 3, f) != 3) {
		fprintf(stderr, "short header\n");
		return 1;
	}
	uint32_t nlinks = hdr[0], npkts = hdr[1], reps = hdr[2];
	/* d is padded to a whole block of zeros: a zero d has no sign bit. */
	uint32_t *d = calloc((size_t)nlinks + BL, 4), *pk = malloc(16 * (size_t)npkts);
	int64_t *counts = calloc(nlinks, 8), *cong = calloc(nlinks, 8);
	if (!d || !pk || !counts || !cong) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	if (fread(d, 4, nlinks, f) != nlinks || fread(pk, 16, npkts, f) != npkts) {
		fprintf(stderr, "short input\n");
		return 1;
	}
	for (uint32_t i = 0; i < npkts; i++) {
		if (pk[4 * i + 3] >= 1u << 16) {
			fprintf(stderr, "packet %u: weight %u is not a 16-bit count\n", i, pk[4 * i + 3]);
			return 1;
		}
	}
	decode(nlinks, d, npkts, pk, counts, cong);
	int64_t *c2 = calloc(nlinks, 8), *g2 = calloc(nlinks, 8);
	struct timespec t0, t1, u0, u1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &u0);
	for (uint32_t r = 0; r < reps; r++)
		decode(nlinks, d, npkts, pk, c2, g2);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &u1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t sum = 0;
	for (uint32_t j = 0; j < nlinks; j++)
		sum += c2[j] + g2[j];
	printf("ns %lld %lld cpu %lld\n", (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)), (long long)sum,
	       (long long)((u1.tv_sec - u0.tv_sec) * 1000000000LL + (u1.tv_nsec - u0.tv_nsec)));
	for (uint32_t j = 0; j < nlinks; j++)
		printf("%lld %lld\n", (long long)counts[j], (long long)cong[j]);
	return 0;
}
