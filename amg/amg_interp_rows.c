/* amg/amg_interp_rows.c: what the classical interpolations share: the
 * coarse index of each C point, the truncation of one row of P to its
 * -amg_classical_pmax largest entries (scaled so the row sum stays, as
 * hypre's P_max_elmts), and a CSR whose rows are appended in order. */
#include "amg.h"
#include <math.h>

ng_status ng_amg_coarse_index(int32_t n, const int8_t *cf, int32_t **cidx, int32_t *nc)
{
  NG_CHECK(NG_MALLOC(*cidx, n > 0 ? n : 1));
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) (*cidx)[i] = cf[i] == 1 ? c++ : -1;
  *nc = c;
  return NG_SUCCESS;
}

/* Tie order of column c in row i: a hash, so that equal weights (a
 * Laplacian's F point between 6 C points) are not always cut on the same
 * side of the grid, as keeping the smallest columns would (measured: no
 * change of the iteration counts on spheres7:64, 20 -> 19). */
static uint32_t tie(int32_t row, int32_t c)
{
  uint64_t x = ((uint64_t)(uint32_t)row << 32 | (uint32_t)c) * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(x >> 32);
}

/* Insertion sort of (col, val) pairs: descending |val| then tie(row, col)
 * (by_size), or ascending col. */
static void sort_pairs(int32_t row, int32_t *col, double *val, int n, int by_size)
{
  for (int a = 1; a < n; a++) {
    int32_t c = col[a];
    double v = val[a];
    int b = a - 1;
    while (b >= 0 && (by_size ? fabs(val[b]) < fabs(v) || (fabs(val[b]) == fabs(v) && tie(row, col[b]) > tie(row, c))
                              : col[b] > c)) {
      col[b + 1] = col[b];
      val[b + 1] = val[b];
      b--;
    }
    col[b + 1] = c;
    val[b + 1] = v;
  }
}

int ng_amg_interp_truncate(int32_t row, int32_t *col, double *val, int n, int pmax)
{
  if (pmax > 0 && n > pmax) {
    double all = 0, kept = 0;
    for (int a = 0; a < n; a++) all += val[a];
    sort_pairs(row, col, val, n, 1);
    for (int a = 0; a < pmax; a++) kept += val[a];
    double s = kept != 0 ? all / kept : 1.0;
    for (int a = 0; a < pmax; a++) val[a] *= s;
    n = pmax;
  }
  sort_pairs(row, col, val, n, 0);
  return n;
}

ng_status ng_csr_builder_init(ng_csr_builder *B, int32_t n, int32_t nc, int64_t guess)
{
  memset(B, 0, sizeof(*B));
  B->cap = guess > 0 ? guess : 1;
  NG_CHECK(ng_csr_alloc(&B->P, n, nc, B->cap));
  B->P.nnz = 0;
  B->P.rowptr[0] = 0;
  return NG_SUCCESS;
}

ng_status ng_csr_builder_append(ng_csr_builder *B, int32_t i, const int32_t *col, const double *val, int m)
{
  ng_csr *P = &B->P;
  if (P->nnz + m > B->cap) {
    int64_t cap = 2 * B->cap + m;
    NG_CHECK(ng_host_realloc((void **)&P->col, (size_t)cap, sizeof(int32_t), "P->col"));
    NG_CHECK(ng_host_realloc((void **)&P->val, (size_t)cap, sizeof(double), "P->val"));
    B->cap = cap;
  }
  memcpy(P->col + P->nnz, col, (size_t)m * sizeof(int32_t));
  memcpy(P->val + P->nnz, val, (size_t)m * sizeof(double));
  P->nnz += m;
  P->rowptr[i + 1] = P->nnz;
  return NG_SUCCESS;
}
