/*
 * The one-reservoir decode (thesis Alg. 9) as a plain C loop, for the Go
 * benchmark BenchmarkDecodeOneReservoir to compare against: built with
 * gcc -O3 -march=native and run on the same packets and candidate links.
 * The hash is Hmult0 (section 5.4): bit31(1846571429 * id * d).
 *
 * Input (little-endian): uint32 nlinks, npkts, reps; uint32 d[nlinks];
 * then per packet uint32 id, uint32 hop_bit, uint32 cong_bit, uint32 w.
 * Output: one line "ns <elapsed ns for reps passes>", then one line per link
 * "<count> <congested count>" after one pass, for the cross-check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void decode(uint32_t nlinks, const uint32_t *d, uint32_t npkts, const uint32_t *pk,
                   int64_t *counts, int64_t *cong) {
	for (uint32_t i = 0; i < npkts; i++) {
		uint32_t id = pk[4 * i], bit = pk[4 * i + 1], cbit = pk[4 * i + 2];
		int64_t w = pk[4 * i + 3];
		if (w == 0)
			continue;
		uint32_t k = 1846571429u * id;
		for (uint32_t j = 0; j < nlinks; j++) {
			int64_t s = ((k * d[j]) >> 31) == bit ? w : -w;
			counts[j] += s;
			if (cbit)
				cong[j] += s;
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
	uint32_t *d = malloc(4 * (size_t)nlinks), *pk = malloc(16 * (size_t)npkts);
	int64_t *counts = calloc(nlinks, 8), *cong = calloc(nlinks, 8);
	if (fread(d, 4, nlinks, f) != nlinks || fread(pk, 16, npkts, f) != npkts) {
		fprintf(stderr, "short input\n");
		return 1;
	}
	decode(nlinks, d, npkts, pk, counts, cong);
	int64_t *c2 = calloc(nlinks, 8), *g2 = calloc(nlinks, 8);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t r = 0; r < reps; r++)
		decode(nlinks, d, npkts, pk, c2, g2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t sum = 0;
	for (uint32_t j = 0; j < nlinks; j++)
		sum += c2[j] + g2[j];
	printf("ns %lld %lld\n", (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)), (long long)sum);
	for (uint32_t j = 0; j < nlinks; j++)
		printf("%lld %lld\n", (long long)counts[j], (long long)cong[j]);
	return 0;
}
