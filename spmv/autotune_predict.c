/* spmv/autotune_predict.c: the structural profile of a CSR block on the host
 * (spmv/autotune_cuda.cu computes the same numbers on the device) and, from
 * it, each format's refusal by its converter's own rules and a lower bound on
 * the bytes one SpMV moves in it (spmv/autotune.h). "auto" converts only the
 * formats these bounds leave a chance to win. */
#include "autotune.h"
#include <math.h>

ng_status ng_spmv_profile_host(const ng_csr *A, ng_spmv_profile *p)
{
  int64_t n = A->nrows;
  memset(p, 0, sizeof(*p));
  p->n = n;
  p->ncols = A->ncols;
  p->nnz = A->nnz;
  p->ndiag = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > p->max_row) p->max_row = len;
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) p->nnz_lower += A->col[q] <= i;
  }
  if (A->nrows != A->ncols || n == 0) {
    if (n == 0 && A->ncols == 0) p->ndiag = 0, p->diag_symmetric = 1;
    return NG_SUCCESS;
  }
  unsigned char *mark = NULL; /* mark[off + n - 1]: diagonal off present */
  NG_CHECK(NG_CALLOC(mark, 2 * n - 1));
  for (int64_t i = 0; i < n; i++)
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) mark[A->col[q] - i + n - 1] = 1;
  p->ndiag = 0;
  p->diag_symmetric = 1;
  for (int64_t k = -(n - 1); k <= n - 1; k++) {
    if (!mark[k + n - 1]) continue;
    p->ndiag++;
    p->ndiag_lower += k <= 0;
    if (!mark[n - 1 - k]) p->diag_symmetric = 0;
  }
  ng_free(mark);
  return NG_SUCCESS;
}

/* Same refusals as ng_dia_build / ng_dia_convert_cuda. */
static int predict_dia(const ng_spmv_profile *p, int half, const ng_spmv_opts *o, double *lo, char *why, size_t len)
{
  const char *name = half ? "dia_half" : "dia";
  int maxd = o->dia_max_diags < NG_DIA_MAXD ? o->dia_max_diags : NG_DIA_MAXD;
  double n = (double)p->n, nd = half ? p->ndiag_lower : p->ndiag, stored = half ? p->nnz_lower : p->nnz;
  if (p->ndiag < 0) return snprintf(why, len, "%s: not square", name), 1;
  if (p->n > (1 << 30)) return snprintf(why, len, "%s: more than 2^30 rows", name), 1;
  if (half && !p->diag_symmetric) return snprintf(why, len, "dia_half: diagonal pattern not symmetric"), 1;
  if (p->ndiag > maxd) return snprintf(why, len, "%s: %d diagonals > %d", name, (int)p->ndiag, maxd), 1;
  if (nd > 0 && nd * n > o->dia_max_fill * stored)
    return snprintf(why, len, "%s: %.0f slots > %g x %.0f nonzeros", name, nd * n, o->dia_max_fill, stored), 1;
  *lo = 8.0 * nd * n + 4.0 * nd;
  return 0;
}

int ng_spmv_predict(const ng_spmv_profile *p, const char *name, double *lo_bytes, char *why, size_t len)
{
  ng_spmv_opts o;
  double n = (double)p->n, nnz = (double)p->nnz, lo = 0.0;
  if (ng_spmv_opts_parse(name, NULL, &o) != NG_SUCCESS) { /* a bad environment: let the converter say so */
    *lo_bytes = 0.0;
    return 0;
  }
  double vec = 8.0 * (double)p->ncols + 8.0 * n; /* x read once, y written once */
  if (!strcmp(name, "csr")) {
    lo = 12.0 * nnz + 4.0 * (n + 1);
  } else if (!strcmp(name, "dia") || !strcmp(name, "dia_half")) {
    if (predict_dia(p, !strcmp(name, "dia_half"), &o, &lo, why, len)) return 1;
  } else if (!strcmp(name, "ell") || !strcmp(name, "ellr")) {
    double mean = p->n ? nnz / n : 0.0;
    if (p->max_row > 0 && (double)p->max_row > o.ell_max_ratio * mean)
      return snprintf(why, len, "%s: longest row %lld > %g x mean %.2f", name, (long long)p->max_row,
                      o.ell_max_ratio, mean), 1;
    /* ell reads every padded slot; ellr at least the row lengths and the entries */
    lo = !strcmp(name, "ell") ? 12.0 * (double)p->max_row * n : 12.0 * nnz + 4.0 * n;
  } else if (!strcmp(name, "sell")) {
    double ns = ceil(n / o.sell_c);
    lo = 12.0 * nnz + 4.0 * n + 8.0 * (ns + 1); /* no padding at best */
  } else if (!strcmp(name, "codsell")) {
    double ns = ceil(n / o.sell_c);
    lo = 8.0 * nnz + 4.0 * n + 24.0 * (ns + 1); /* every value, no column index at best */
  } else {
    lo = 0.0;
    vec = 0.0;
  }
  *lo_bytes = lo + vec;
  return 0;
}
