/* aot-cuda.test: calls GPU kernels compiled by einsum-compile --target=cuda
   on device buffers (through the runtime's mgpu* functions), linked with
   libEinsumRuntime only. Without a CUDA driver or device, every call
   reports EINSUM_STATUS_NO_DEVICE; with one, the results are compared with
   plain loops. */
#include "gpu.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* libEinsumRuntime's CUDA driver shim (einsum/Runtime/Cuda.h). */
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);

static float value(int i) { return (float)((i * 37) % 17) / 8.0f - 1.0f; }

enum { M = 67, K = 45, N = 75, B = 3 };

int main(void) {
  float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
  float *c = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; ++i)
    a[i] = value(i);
  for (int i = 0; i < K * N; ++i)
    b[i] = value(i + 3);
  void *da = mgpuMemAlloc(sizeof(float) * M * K, NULL, false);
  void *db = mgpuMemAlloc(sizeof(float) * K * N, NULL, false);
  void *dc = mgpuMemAlloc(sizeof(float) * M * N, NULL, false);
  int status = mm(da, NULL, NULL, db, NULL, NULL, dc, NULL, NULL);
  if (status == EINSUM_STATUS_NO_DEVICE) {
    printf("mm: status %d: %s\n", status, einsumRuntimeLastError());
    free(a);
    free(b);
    free(c);
    return 0;
  }
  if (!da || !db || !dc) {
    printf("device allocation failed\n");
    return 1;
  }
  mgpuMemcpy(da, a, sizeof(float) * M * K, NULL);
  mgpuMemcpy(db, b, sizeof(float) * K * N, NULL);
  status = mm(da, NULL, NULL, db, NULL, NULL, dc, NULL, NULL);
  mgpuMemcpy(c, dc, sizeof(float) * M * N, NULL);
  double error = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += (double)a[i * K + k] * b[k * N + j];
      error = fmax(error, fabs(c[i * N + j] - sum));
    }
  printf("mm on the device: status %d, max abs error %.3g\n", status, error);
  /* bmm: ?x32x16 by ?x16x8, the batch size given at the call. */
  int64_t xs[] = {B, 32, 16}, ys[] = {B, 16, 8}, zs[] = {B, 32, 8};
  float *x = malloc(sizeof(float) * B * 32 * 16);
  float *y = malloc(sizeof(float) * B * 16 * 8);
  float *z = malloc(sizeof(float) * B * 32 * 8);
  for (int i = 0; i < B * 32 * 16; ++i)
    x[i] = value(i);
  for (int i = 0; i < B * 16 * 8; ++i)
    y[i] = value(i + 1);
  void *dx = mgpuMemAlloc(sizeof(float) * B * 32 * 16, NULL, false);
  void *dy = mgpuMemAlloc(sizeof(float) * B * 16 * 8, NULL, false);
  void *dz = mgpuMemAlloc(sizeof(float) * B * 32 * 8, NULL, false);
  mgpuMemcpy(dx, x, sizeof(float) * B * 32 * 16, NULL);
  mgpuMemcpy(dy, y, sizeof(float) * B * 16 * 8, NULL);
  int bstatus = bmm(dx, xs, NULL, dy, ys, NULL, dz, zs, NULL);
  mgpuMemcpy(z, dz, sizeof(float) * B * 32 * 8, NULL);
  double berror = 0;
  for (int n = 0; n < B; ++n)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 8; ++j) {
        double sum = 0;
        for (int k = 0; k < 16; ++k)
          sum += (double)x[(n * 32 + i) * 16 + k] * y[(n * 16 + k) * 8 + j];
        berror = fmax(berror, fabs(z[(n * 32 + i) * 8 + j] - sum));
      }
  printf("bmm on the device: status %d, max abs error %.3g\n", bstatus,
         berror);
  void *buffers[] = {da, db, dc, dx, dy, dz};
  for (int i = 0; i < 6; ++i)
    mgpuMemFree(buffers[i], NULL);
  void *host[] = {a, b, c, x, y, z};
  for (int i = 0; i < 6; ++i)
    free(host[i]);
  bool ok = status == 0 && bstatus == 0 && error < 1e-3 && berror < 1e-3;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
