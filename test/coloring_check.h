/* test/coloring_check.h: whether a coloring is proper, for the coloring
 * tests (test_amg, test_amg_gpu). Header-only test code. */
#ifndef NG_TEST_COLORING_CHECK_H
#define NG_TEST_COLORING_CHECK_H
#include "../smoother/level.h" /* ng_graph */

/* 1 when every vertex has a color and no two adjacent vertices of G share one. */
static inline int ng_test_coloring_valid(const ng_graph *G, const int32_t *color)
{
  for (int32_t i = 0; i < G->n; i++) {
    if (color[i] < 0) return 0;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (G->col[k] != i && color[G->col[k]] == color[i]) return 0;
  }
  return 1;
}
#endif
