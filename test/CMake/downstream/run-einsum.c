/* A C program that compiles and runs an einsum through the C API. */
#include "einsum-c/Einsum.h"

#include <stdio.h>

int main(void) {
  EinsumEngine engine;
  char *error = NULL;
  if (einsumEngineCreate(&engine, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  int64_t shapeA[] = {2, 3}, shapeB[] = {3, 2};
  const int64_t *shapes[] = {shapeA, shapeB};
  int ranks[] = {2, 2};
  EinsumOptions options;
  einsumOptionsInit(&options);
  options.threads = 1;
  EinsumKernel kernel;
  if (einsumCompile(engine, "ij,jk->ik", 2, ranks, shapes, EINSUM_F32,
                    &options, &kernel, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  float a[6] = {0, 1, 2, 3, 4, 5}, b[6] = {0, 1, 2, 3, 4, 5}, c[4];
  const void *inputs[] = {a, b};
  if (einsumKernelRun(kernel, 2, inputs, NULL, c, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  printf("ij,jk->ik = [[%g, %g], [%g, %g]]\n", c[0], c[1], c[2], c[3]);

  /* A transposed (strided) operand. */
  int64_t stridesA[] = {1, 2};
  const int64_t *strides[] = {stridesA, NULL};
  float at[6] = {0, 3, 1, 4, 2, 5};
  const void *inputs2[] = {at, b};
  if (einsumKernelRun(kernel, 2, inputs2, strides, c, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  printf("strided = [[%g, %g], [%g, %g]]\n", c[0], c[1], c[2], c[3]);

  /* The gradient with respect to operand 1 for the output gradient g:
     A^T g, a kernel of three operands. */
  EinsumKernel gradient;
  if (einsumCompileGrad(engine, "ij,jk->ik", 2, ranks, shapes, EINSUM_F32,
                        &options, 1, &gradient, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  float g[4] = {0, 1, 2, 3}, gb[6];
  const void *gradInputs[] = {a, b, g};
  if (einsumKernelRun(gradient, 3, gradInputs, NULL, gb, &error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  printf("grad(b) = [[%g, %g], [%g, %g], [%g, %g]], %d operands\n", gb[0],
         gb[1], gb[2], gb[3], gb[4], gb[5],
         einsumKernelNumOperands(gradient));
  einsumKernelDestroy(gradient);

  /* Errors come back as strings. */
  int64_t bad[] = {4, 2};
  const int64_t *badShapes[] = {shapeA, bad};
  EinsumKernel unused;
  if (einsumCompile(engine, "ij,jk->ik", 2, ranks, badShapes, EINSUM_F32,
                    &options, &unused, &error)) {
    printf("error: %s\n", error);
    einsumFreeString(error);
  }
  char *report = NULL;
  int64_t s0[] = {8, 2}, s1[] = {2, 8}, s2[] = {8, 2};
  const int64_t *chain[] = {s0, s1, s2};
  int chainRanks[] = {2, 2, 2};
  if (einsumExplain(engine, "ij,jk,kl->il", 3, chainRanks, chain, EINSUM_F64,
                    NULL, 1, &report, &error) == 0) {
    printf("%s", report);
    einsumFreeString(report);
  }
  einsumKernelDestroy(kernel);
  einsumEngineDestroy(engine);
  return 0;
}
