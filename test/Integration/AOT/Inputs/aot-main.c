/* aot.test: calls kernels compiled by einsum-compile, linked with
   libEinsumRuntime only, and compares them with plain loops. */
#include "eq.h"
#include "mod.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void expect(const char *what, double error) {
  printf("%s: %s (max abs error %.3g)\n", what,
         error <= 1e-4 ? "ok" : "MISMATCH", error);
  if (error > 1e-4)
    ++failures;
}

static void expectStatus(const char *what, int status, int expected) {
  printf("%s: status %d: %s\n", what, status, einsumRuntimeLastError());
  if (status != expected)
    ++failures;
}

static float value(int i) { return (float)((i * 37) % 17) / 8.0f - 1.0f; }

enum { B = 8, I = 64, J = 32, K = 48 };

int main(void) {
  /* bmm: row-major operands, sizes and strides NULL. */
  float *a = malloc(sizeof(float) * B * I * J);
  float *b = malloc(sizeof(float) * B * J * K);
  float *c = malloc(sizeof(float) * B * I * K);
  float *ref = malloc(sizeof(float) * B * I * K);
  for (int i = 0; i < B * I * J; ++i)
    a[i] = value(i);
  for (int i = 0; i < B * J * K; ++i)
    b[i] = value(i + 5);
  for (int n = 0; n < B; ++n)
    for (int i = 0; i < I; ++i)
      for (int k = 0; k < K; ++k) {
        double sum = 0;
        for (int j = 0; j < J; ++j)
          sum += (double)a[(n * I + i) * J + j] * b[(n * J + j) * K + k];
        ref[(n * I + i) * K + k] = (float)sum;
      }
  double error = 0;
  expectStatus("bmm", bmm(a, NULL, NULL, b, NULL, NULL, c, NULL, NULL), 0);
  for (int i = 0; i < B * I * K; ++i)
    error = fmax(error, fabs(c[i] - ref[i]));
  expect("bmm row-major", error);

  /* bmm with B stored transposed (strides in elements) and an output
     with padded rows: copied around the call. */
  float *bt = malloc(sizeof(float) * B * K * J);
  for (int n = 0; n < B; ++n)
    for (int j = 0; j < J; ++j)
      for (int k = 0; k < K; ++k)
        bt[(n * K + k) * J + j] = b[(n * J + j) * K + k];
  int64_t btStrides[] = {K * J, 1, J};
  enum { PAD = K + 3 };
  float *padded = calloc(B * I * PAD, sizeof(float));
  int64_t paddedStrides[] = {I * PAD, PAD, 1};
  int64_t aSizes[] = {B, I, J}, btSizes[] = {B, J, K}, cSizes[] = {B, I, K};
  expectStatus("bmm strided",
               bmm(a, aSizes, NULL, bt, btSizes, btStrides, padded, cSizes,
                   paddedStrides),
               0);
  error = 0;
  for (int n = 0; n < B; ++n)
    for (int i = 0; i < I; ++i)
      for (int k = 0; k < K; ++k)
        error = fmax(error, fabs(padded[(n * I + i) * PAD + k] -
                                 ref[(n * I + i) * K + k]));
  expect("bmm strided", error);

  /* Misaligned input pointers (numpy aligns to 16 bytes). */
  float *shifted = malloc(sizeof(float) * (B * I * J + 1));
  memcpy(shifted + 1, a, sizeof(float) * B * I * J);
  expectStatus("bmm misaligned",
               bmm(shifted + 1, NULL, NULL, b, NULL, NULL, c, NULL, NULL), 0);
  error = 0;
  for (int i = 0; i < B * I * K; ++i)
    error = fmax(error, fabs(c[i] - ref[i]));
  expect("bmm misaligned", error);

  /* Wrong sizes: refused before the kernel runs. */
  int64_t wrong[] = {B, I, J + 1};
  expectStatus("bmm wrong sizes",
               bmm(a, wrong, NULL, b, NULL, NULL, c, NULL, NULL),
               EINSUM_STATUS_INVALID_ARGUMENT);

  /* colsum 'ij->j' over ?x5 f64. */
  double x[7 * 5], sums[5];
  for (int i = 0; i < 7 * 5; ++i)
    x[i] = value(i);
  int64_t xSizes[] = {7, 5};
  expectStatus("colsum", colsum(x, xSizes, NULL, sums, NULL, NULL), 0);
  error = 0;
  for (int j = 0; j < 5; ++j) {
    double sum = 0;
    for (int i = 0; i < 7; ++i)
      sum += x[i * 5 + j];
    error = fmax(error, fabs(sums[j] - sum));
  }
  expect("colsum 7 rows", error);
  expectStatus("colsum without sizes",
               colsum(x, NULL, NULL, sums, NULL, NULL),
               EINSUM_STATUS_INVALID_ARGUMENT);

  /* mm 'ij,jk->ik' with every size dynamic: a contracted size that differs
     between the operands is the kernel's run-time error. */
  float p[3 * 4], q[4 * 2], r[3 * 2];
  for (int i = 0; i < 12; ++i)
    p[i] = value(i);
  for (int i = 0; i < 8; ++i)
    q[i] = value(i + 3);
  int64_t pSizes[] = {3, 4}, qSizes[] = {4, 2}, rSizes[] = {3, 2};
  expectStatus("mm", mm(p, pSizes, NULL, q, qSizes, NULL, r, rSizes, NULL),
               0);
  error = 0;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 2; ++k) {
      double sum = 0;
      for (int j = 0; j < 4; ++j)
        sum += (double)p[i * 4 + j] * q[j * 2 + k];
      error = fmax(error, fabs(r[i * 2 + k] - sum));
    }
  expect("mm 3x4 4x2", error);
  int64_t qBad[] = {3, 2};
  expectStatus("mm mismatched j",
               mm(p, pSizes, NULL, q, qBad, NULL, r, rSizes, NULL),
               EINSUM_STATUS_KERNEL_ERROR);

  /* chain, a function of an .mlir file: (?x4) (4x3) (3x2). */
  float m[6 * 4], n3[4 * 3], o[3 * 2], chainOut[6 * 2];
  for (int i = 0; i < 24; ++i)
    m[i] = value(i + 1);
  for (int i = 0; i < 12; ++i)
    n3[i] = value(i + 2);
  for (int i = 0; i < 6; ++i)
    o[i] = value(i + 4);
  int64_t mSizes[] = {6, 4}, chainSizes[] = {6, 2};
  expectStatus("chain",
               chain(m, mSizes, NULL, n3, NULL, NULL, o, NULL, NULL, chainOut,
                     chainSizes, NULL),
               0);
  error = 0;
  for (int i = 0; i < 6; ++i)
    for (int l = 0; l < 2; ++l) {
      double sum = 0;
      for (int k = 0; k < 3; ++k) {
        double ab = 0;
        for (int j = 0; j < 4; ++j)
          ab += (double)m[i * 4 + j] * n3[j * 3 + k];
        sum += ab * o[k * 2 + l];
      }
      error = fmax(error, fabs(chainOut[i * 2 + l] - sum));
    }
  expect("chain 6 rows", error);

  /* trace 'ii->' of a 5x5 f64, a scalar output. */
  double t[25], traceOut = 0, traceRef = 0;
  for (int i = 0; i < 25; ++i)
    t[i] = value(i);
  for (int i = 0; i < 5; ++i)
    traceRef += t[i * 6];
  expectStatus("trace", trace(t, NULL, NULL, &traceOut, NULL, NULL), 0);
  expect("trace", fabs(traceOut - traceRef));

  free(a);
  free(b);
  free(c);
  free(ref);
  free(bt);
  free(padded);
  free(shifted);
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
