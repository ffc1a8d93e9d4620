/* amg/amg_interp_ext.c: extended+i interpolation (De Sterck, Falgout,
 * Nolting, Yang, "Distance-two interpolation for parallel algebraic
 * multigrid", Numer. Linear Algebra Appl. 15, 2008; hypre's interp type 6,
 * hypre_BoomerAMGBuildExtPIInterp). An F point i interpolates from
 * C^_i = its strong C points and those of its strong F neighbours k:
 *   w_ij = -(a_ij + sum_k a_ik abar_kj / s_k) / (a_ii + sum_weak a_il
 *                                                 + sum_k a_ik abar_ki / s_k),
 *   s_k = sum_{l in C^_i + {i}} abar_kl, abar_kl = a_kl when its sign is
 * opposite to a_kk's, else 0 (a k with s_k = 0 goes to the diagonal). Every
 * other neighbour (weak, or a C point outside C^_i) is lumped into the
 * diagonal, so a row of zero sum interpolates the constant exactly. */
#include "amg.h"

typedef struct {
  const ng_csr *A;
  const ng_graph *S;
  const int8_t *cf;
  const int32_t *cidx;
  const double *diag;
  int32_t *mark, *pos, *smark; /* mark[j] == i: j in C^_i at pos[j]; smark[j] == i: j in S_i */
  int32_t *col;                /* the row being built */
  double *val;
} ext_work;

static void add_interp_point(ext_work *W, int32_t i, int32_t j, int *m)
{
  if (W->cf[j] != 1 || W->mark[j] == i) return;
  W->mark[j] = i;
  W->pos[j] = *m;
  W->col[*m] = W->cidx[j];
  W->val[*m] = 0;
  (*m)++;
}

/* Distributes a_ik of the strong F neighbour k over C^_i and i; returns what goes to the diagonal. */
static double distribute(ext_work *W, int32_t i, int32_t k, double aik)
{
  const ng_csr *A = W->A;
  double sgn = W->diag[k] < 0 ? -1.0 : 1.0, sum = 0, dg = 0;
  for (int64_t q = A->rowptr[k]; q < A->rowptr[k + 1]; q++) {
    int32_t l = A->col[q];
    if (l != k && (W->mark[l] == i || l == i) && sgn * A->val[q] < 0) sum += A->val[q];
  }
  if (sum == 0) return aik;
  double f = aik / sum;
  for (int64_t q = A->rowptr[k]; q < A->rowptr[k + 1]; q++) {
    int32_t l = A->col[q];
    if (l == k || sgn * A->val[q] >= 0) continue;
    if (W->mark[l] == i) W->val[W->pos[l]] += f * A->val[q];
    else if (l == i) dg += f * A->val[q];
  }
  return dg;
}

/* Row i of P (an F point) into W->col/val; returns its length. */
static int f_row(ext_work *W, int32_t i)
{
  const ng_csr *A = W->A;
  const ng_graph *S = W->S;
  int m = 0;
  for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
    int32_t k = S->col[q];
    W->smark[k] = i;
    add_interp_point(W, i, k, &m);
    if (W->cf[k] == 1) continue;
    for (int64_t r = S->rowptr[k]; r < S->rowptr[k + 1]; r++) add_interp_point(W, i, S->col[r], &m);
  }
  if (m == 0) return 0;
  double d = W->diag[i];
  for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
    int32_t j = A->col[q];
    if (j == i) continue;
    if (W->mark[j] == i) W->val[W->pos[j]] += A->val[q];
    else if (W->smark[j] == i && W->cf[j] != 1) d += distribute(W, i, j, A->val[q]);
    else d += A->val[q];
  }
  if (d == 0) return 0;
  for (int a = 0; a < m; a++) W->val[a] /= -d;
  return m;
}

ng_status ng_amg_interp_extended_rows(const ng_csr *A, const ng_graph *S, const int8_t *cf, const int32_t *cidx,
                                     int32_t nrows, int64_t row0, int32_t nc, int pmax, ng_csr *P)
{
  int32_t n = A->nrows, one = 0;
  double val1 = 1.0;
  ext_work W = {A, S, cf, cidx, NULL, NULL, NULL, NULL, NULL, NULL};
  double *diag = NULL;
  ng_csr_builder B = {0};
  ng_status st;
  size_t nn = n > 0 ? (size_t)n : 1;
  memset(P, 0, sizeof(*P));
  NG_CHECK_GOTO(st, NG_MALLOC(diag, nn), out);
  NG_CHECK_GOTO(st, ng_csr_diagonal(A, diag, 0), out);
  for (int32_t i = 0; i < n; i++) /* P's rows and the neighbours' (not the distributed level's empty rows) */
    if (diag[i] == 0.0 && (i < nrows || A->rowptr[i + 1] > A->rowptr[i])) {
      st = i < nrows ? NG_ERROR(NG_ERR_NUMERIC, "row %lld (0-based %lld) has a zero or missing diagonal entry",
                                (long long)(row0 + i + 1), (long long)(row0 + i))
                     : NG_ERROR(NG_ERR_NUMERIC, "a neighbouring rank's row has a zero or missing diagonal entry");
      goto out;
    }
  NG_CHECK_GOTO(st, NG_MALLOC(W.mark, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(W.pos, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(W.smark, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(W.col, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(W.val, nn), out);
  for (int32_t i = 0; i < n; i++) W.mark[i] = W.smark[i] = -1;
  W.diag = diag;
  NG_CHECK_GOTO(st, ng_csr_builder_init(&B, nrows, nc, (int64_t)nrows * (pmax > 0 ? pmax : 8)), out);
  for (int32_t i = 0; i < nrows; i++) {
    if (cf[i] == 1) {
      one = cidx[i];
      NG_CHECK_GOTO(st, ng_csr_builder_append(&B, i, &one, &val1, 1), out);
      continue;
    }
    int m = f_row(&W, i);
    m = ng_amg_interp_truncate((int32_t)(row0 + i), W.col, W.val, m, pmax); /* ties by the global row */
    NG_CHECK_GOTO(st, ng_csr_builder_append(&B, i, W.col, W.val, m), out);
  }
  *P = B.P;
  B.P.rowptr = NULL, B.P.col = NULL, B.P.val = NULL;
out:
  ng_csr_free(&B.P);
  ng_free(diag);
  ng_free(W.mark);
  ng_free(W.pos);
  ng_free(W.smark);
  ng_free(W.col);
  ng_free(W.val);
  return st;
}

ng_status ng_amg_interp_extended(const ng_csr *A, const ng_graph *S, const int8_t *cf, int pmax, ng_csr *P)
{
  int32_t *cidx = NULL, nc;
  memset(P, 0, sizeof(*P));
  NG_CHECK(ng_amg_coarse_index(A->nrows, cf, &cidx, &nc));
  ng_status st = ng_amg_interp_extended_rows(A, S, cf, cidx, A->nrows, 0, nc, pmax, P);
  ng_free(cidx);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}
