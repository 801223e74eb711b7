/* The fp32 peak of one core, measured: 12 independent chains of fused
 * multiply-adds on vectors of VECTOR_BYTES bytes (enough chains to cover the
 * FMA latency times the FMA pipes of current x86 cores). bench/run.py
 * compiles it with -march=native and -mprefer-vector-width of VECTOR_BYTES
 * (without it, compilers split 64-byte vectors into 256-bit halves on
 * Intel's AVX-512 cores) for each vector width the host has and keeps the
 * fastest, so that a core that splits 512-bit operations into two
 * 256-bit halves (AMD Zen 4) is not credited twice its throughput.
 * Prints GFLOP/s (2 flops per lane of each FMA), best of 3 runs. */
#include <stdio.h>
#include <time.h>

#ifndef VECTOR_BYTES
#define VECTOR_BYTES 32
#endif
#define LANES (VECTOR_BYTES / 4)
#define CHAINS 12

typedef float vec __attribute__((vector_size(VECTOR_BYTES)));

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  /* volatile: the compiler cannot fold the chains. */
  volatile float scale = 0.9999999f, shift = 1e-7f;
  vec x, y, acc[CHAINS];
  for (int lane = 0; lane < LANES; ++lane) {
    x[lane] = scale;
    y[lane] = shift;
  }
  for (int i = 0; i < CHAINS; ++i)
    acc[i] = y * (float)i;
  const long steps = 10000000;
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double start = seconds();
    for (long step = 0; step < steps; ++step)
      for (int i = 0; i < CHAINS; ++i)
        acc[i] = acc[i] * x + y;
    double rate = 2.0 * LANES * CHAINS * steps / (seconds() - start) / 1e9;
    if (rate > best)
      best = rate;
  }
  float sum = 0;
  for (int i = 0; i < CHAINS; ++i)
    sum += acc[i][0];
  /* The sum keeps the chains live; it is printed second and ignored. */
  printf("%.1f %g\n", best, sum);
  return 0;
}
