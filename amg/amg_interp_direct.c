/* amg/amg_interp_direct.c: direct interpolation (Stueben, "Algebraic
 * multigrid (AMG): an introduction with applications", 1999, section
 * A.7.2.1) with negative and positive couplings apart. An F point i
 * interpolates from its strong C points C_i:
 *   w_ij = -alpha_i a_ij / a_ii (a_ij < 0),  w_ij = -beta_i a_ij / a_ii (a_ij > 0),
 *   alpha_i = sum_{k != i} a_ik^- / sum_{j in C_i} a_ij^-, beta_i the same for the
 * positive parts; with no positive coupling in C_i the positive ones are
 * added to a_ii instead. A row of zero sum interpolates the constant. */
#include "amg.h"

/* Row i (an F point) into col/val; returns its length (0: no strong C point). */
static int f_row(const ng_csr *A, const ng_graph *S, const int8_t *cf, const int32_t *cidx, const double *diag,
                 int32_t *smark, int32_t i, int32_t *col, double *val)
{
  double neg = 0, pos = 0, negc = 0, posc = 0, d = diag[i];
  for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) smark[S->col[q]] = i;
  for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
    int32_t j = A->col[q];
    double a = A->val[q];
    if (j == i) continue;
    int interp = smark[j] == i && cf[j] == 1;
    if (a < 0) neg += a, negc += interp ? a : 0;
    else pos += a, posc += interp ? a : 0;
  }
  if (negc == 0) return 0;
  if (posc == 0) d += pos;
  double alpha = neg / negc, beta = posc != 0 ? pos / posc : 0;
  int m = 0;
  for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
    int32_t j = A->col[q];
    double a = A->val[q];
    if (j == i || smark[j] != i || cf[j] != 1) continue;
    col[m] = cidx[j];
    val[m++] = -(a < 0 ? alpha : beta) * a / d;
  }
  return m;
}

ng_status ng_amg_interp_direct(const ng_csr *A, const ng_graph *S, const int8_t *cf, int pmax, ng_csr *P)
{
  int32_t n = A->nrows, nc, one;
  double val1 = 1.0, *diag = NULL, *val = NULL;
  int32_t *cidx = NULL, *smark = NULL, *col = NULL;
  ng_csr_builder B = {0};
  ng_status st;
  size_t nn = n > 0 ? (size_t)n : 1;
  memset(P, 0, sizeof(*P));
  NG_CHECK_GOTO(st, ng_amg_coarse_index(n, cf, &cidx, &nc), out);
  NG_CHECK_GOTO(st, NG_MALLOC(diag, nn), out);
  NG_CHECK_GOTO(st, ng_csr_diagonal(A, diag, 1), out);
  NG_CHECK_GOTO(st, NG_MALLOC(smark, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(col, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(val, nn), out);
  for (int32_t i = 0; i < n; i++) smark[i] = -1;
  NG_CHECK_GOTO(st, ng_csr_builder_init(&B, n, nc, (int64_t)n * (pmax > 0 ? pmax : 8)), out);
  for (int32_t i = 0; i < n; i++) {
    if (cf[i] == 1) {
      one = cidx[i];
      NG_CHECK_GOTO(st, ng_csr_builder_append(&B, i, &one, &val1, 1), out);
      continue;
    }
    int m = f_row(A, S, cf, cidx, diag, smark, i, col, val);
    m = ng_amg_interp_truncate(i, col, val, m, pmax);
    NG_CHECK_GOTO(st, ng_csr_builder_append(&B, i, col, val, m), out);
  }
  *P = B.P;
  B.P.rowptr = NULL, B.P.col = NULL, B.P.val = NULL;
out:
  ng_csr_free(&B.P);
  ng_free(cidx);
  ng_free(diag);
  ng_free(smark);
  ng_free(col);
  ng_free(val);
  return st;
}
