// pairsweep counts the d in [0, 2^32) with bit31(b1*d) == bit31(b2*d): the
// agreement of two Hmult0 hashes over every link d (thesis section 5.4), as a
// plain C loop. BenchmarkPairSweep compiles it with gcc -O3 -march=native and
// measures it beside the Go kernels on the same machine in the same run.
//
// usage: pairsweep B1 B2 REPS
// prints: COUNT NANOSECONDS   (the count, and the total time of REPS sweeps)
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static uint64_t agree(uint32_t b1, uint32_t b2) {
	uint64_t n = 0;
	for (uint64_t d = 0; d < (UINT64_C(1) << 32); d++) {
		uint32_t x = (uint32_t)d;
		n += (((b1 * x) ^ (b2 * x)) >> 31) ^ 1;
	}
	return n;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: pairsweep B1 B2 REPS\n");
		return 2;
	}
	volatile uint32_t b1 = (uint32_t)strtoul(argv[1], NULL, 0);
	volatile uint32_t b2 = (uint32_t)strtoul(argv[2], NULL, 0);
	long reps = strtol(argv[3], NULL, 0);
	if (reps < 1) {
		fprintf(stderr, "pairsweep: REPS must be at least 1\n");
		return 2;
	}
	struct timespec t0, t1;
	uint64_t n = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < reps; i++) {
		uint64_t c = agree(b1, b2);
		if (i > 0 && c != n) {
			fprintf(stderr, "pairsweep: count changed between repetitions\n");
			return 1;
		}
		n = c;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
	printf("%" PRIu64 " %" PRId64 "\n", n, ns);
	return 0;
}
