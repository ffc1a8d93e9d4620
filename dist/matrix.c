/* dist/matrix.c: building a distributed matrix (local block, off-rank block,
 * halo plan) from whole or per-rank CSR input, choosing its SpMV format, and
 * applying it. One rank is the case with no off-rank block. */
#include "dist.h"
#include "../comm/halo.h"
#include "../spmv/formats.h" /* ng_spmv_create */
#include <math.h>

/* Selects a format for the local block and CSR for the off-rank block. */
static ng_status matrix_setup_spmv(ng_matrix A, const char *format)
{
  const ng_spmv_ops *ops = NULL;
  if (A->csr_ops) { /* a format of the matrix's own choice goes: the CSR is the base again */
    A->spmv->destroy(A->spmv_data);
    A->spmv = A->csr_ops;
    A->spmv_data = A->csr_data;
    A->csr_ops = NULL;
    A->csr_data = NULL;
  }
  void *data = NULL, *old = A->spmv_data;
  /* "name[:options]"; "auto" times the formats and reports "auto:<chosen>".
   * The current instance is the base: on the GPU the new format is built
   * from its device CSR (no upload); it is taken over (old = NULL) when the
   * new one keeps it (csr, or auto choosing csr). */
  NG_CHECK(ng_spmv_create_from(A->ctx, format, &A->local, A->spmv, &old, &ops, &data));
  if (A->spmv && old) A->spmv->destroy(old);
  A->spmv = ops;
  A->spmv_data = data;
  snprintf(A->format, sizeof(A->format), "%s", ops->describe ? ops->describe(data) : format);
  if (A->n_halo > 0 && !A->spmv_off) {
    /* a block with fewer than half its rows non-empty (the usual: only
     * boundary rows couple to other ranks) skips the empty ones */
    int on_gpu = A->ctx->on_gpu;
    int32_t used = 0;
    for (int32_t i = 0; i < A->offrank.nrows; i++) used += A->offrank.rowptr[i + 1] > A->offrank.rowptr[i];
    A->spmv_off = used < A->offrank.nrows / 2 ? &ng_spmv_csr_rows_host : ng_spmv_find("csr", on_gpu);
#ifdef NG_HAVE_CUDA
    /* on the GPU too: cuSPARSE's CSR walks the empty rows between a middle
     * rank's two boundary bands (spmv/csr_rows_cuda.cu says how slowly) */
    if (on_gpu && A->spmv_off == &ng_spmv_csr_rows_host) A->spmv_off = &ng_spmv_csr_rows_cuda;
#endif
    NG_CHECK(A->spmv_off->create(A->ctx, &A->offrank, &A->spmv_off_data));
  }
  if (A->n_halo > 0 && !A->halo_values) NG_CHECK(A->ctx->vops->alloc(A->ctx, &A->halo_values, A->n_halo));
  return NG_SUCCESS;
}

/* The local block's format when the user has not chosen, on a GPU context
 * with several ranks: a stencil's block runs in dia_half (symmetric) or
 * dia, as the one-rank V-cycle's finest level does (amg/amg_fine.c:
 * 0.76 ms a lap27:256 product against CSR's 2.41 on an H100), so that the
 * Krylov SpMV and the distributed V-cycle's level 0 (which is the matrix)
 * take the fast path with default options (issue 29 item 2). Converted on
 * the device from the CSR instance, which stays (csr_ops) for the setups
 * that read the device CSR. Anything that is not a stencil, or does not fit
 * in memory, keeps CSR; ng_matrix_set_format overrides it. One rank keeps
 * CSR here: its V-cycle makes its own copy with the fused smoother kernels. */
static ng_status matrix_fast_format(ng_matrix A)
{
  static const char *const cand[2] = {"dia_half", "dia"};
  if (!A->ctx->on_gpu || A->ctx->size == 1 || A->n_local == 0 || A->csr_ops || strcmp(A->spmv->name, "csr"))
    return NG_SUCCESS;
  for (int k = 0; k < 2; k++) {
    const ng_spmv_ops *ops;
    void *data, *base = A->spmv_data;
    ng_status st = ng_spmv_create_from(A->ctx, cand[k], &A->local, A->spmv, &base, &ops, &data);
    if (st == NG_ERR_DOES_NOT_FIT || st == NG_ERR_DEVICE_MEMORY) {
      ng_error_clear();
      continue;
    }
    NG_CHECK(st);
    if (base) { /* not taken over (a non-CSR format never is): kept for the setups */
      A->csr_ops = A->spmv;
      A->csr_data = base;
    }
    A->spmv = ops;
    A->spmv_data = data;
    snprintf(A->format, sizeof(A->format), "%s", ops->describe ? ops->describe(data) : cand[k]);
    return NG_SUCCESS;
  }
  return NG_SUCCESS;
}

/* Splits this rank's rows [row_begin, row_end) given with global columns
 * into the local block (columns renumbered from 0) and the off-rank block
 * (columns numbered by their rank in the sorted list of distinct halo
 * columns: ng_index_map, as an off-rank block may repeat few columns many
 * times), remembering where each input value went. */
static ng_status matrix_split(ng_matrix A, const int64_t *rowptr, const int64_t *gcol, const double *val)
{
  int32_t n = A->n_local, nc = A->n_col_local;
  int64_t nnz = rowptr[n], nloc = 0, noff = 0, *off = NULL, c0 = A->col_begin;
  int sorted = 1;
  ng_index_map H;
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      if (gcol[p] < 0 || gcol[p] >= A->n_col_global)
        return NG_ERROR(NG_ERR_ARGUMENT, "entry %lld has global column %lld outside 0..%lld", (long long)p,
                        (long long)gcol[p], (long long)A->n_col_global - 1);
      if (!isfinite(val[p]))
        return NG_ERROR(NG_ERR_NUMERIC, "entry %lld (column %lld) is not finite", (long long)p, (long long)gcol[p]);
      if (gcol[p] >= c0 && gcol[p] < c0 + nc) nloc++; else noff++;
      if (p > rowptr[i] && gcol[p] <= gcol[p - 1]) sorted = 0;
    }
  NG_CHECK(NG_MALLOC(off, noff));
  int64_t k = 0;
  for (int64_t p = 0; p < nnz; p++)
    if (!(gcol[p] >= c0 && gcol[p] < c0 + nc)) off[k++] = gcol[p];
  ng_status st = ng_index_map_build(&H, off, noff);
  ng_free(off);
  NG_CHECK(st);
  A->n_halo = H.n;
  A->halo_gcol = H.sorted;
  H.sorted = NULL;
  st = ng_csr_alloc(&A->local, n, nc, nloc);
  if (!st) st = ng_csr_alloc(&A->offrank, n, H.n, noff);
  if (!st && noff && !sorted) st = NG_MALLOC(A->value_map, nnz); /* sorted rows: input_order() merges */
  if (st) {
    ng_index_map_free(&H);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  int64_t a = 0, b = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      int64_t g = gcol[p];
      if (g >= c0 && g < c0 + nc) {
        A->local.col[a] = (int32_t)(g - c0);
        A->local.val[a] = val[p];
        if (A->value_map) A->value_map[p] = a;
        a++;
      } else {
        A->offrank.col[b] = ng_index_map_find(&H, g);
        A->offrank.val[b] = val[p];
        if (A->value_map) A->value_map[p] = nloc + b;
        b++;
      }
    }
    A->local.rowptr[i + 1] = a;
    A->offrank.rowptr[i + 1] = b;
  }
  ng_index_map_free(&H);
  return NG_SUCCESS;
}

/* matrix_split for input whose columns are given compactly: ccol[p] indexes
 * cmap (m global columns, strictly ascending), as AMG's distributed P holds
 * them. The result is matrix_split's on the global columns cmap[ccol[p]]
 * (the halo: the used off-rank columns of cmap, already in global order),
 * found by a table over the m columns instead of a hash map of every
 * off-rank entry (an agglomerated level's P is all off-rank). The passes
 * over the rows run on all threads (P of a 256^3 level 0 has ~70M
 * entries): one checks, marks the used off-rank columns and counts each
 * row's local entries, one fills each row's two parts; the result does not
 * depend on the threads. */
static ng_status matrix_split_compact(ng_matrix A, const int64_t *rowptr, const int32_t *ccol, const int64_t *cmap,
                                      int32_t m, const double *val)
{
  int32_t n = A->n_local, nc = A->n_col_local, nh = 0;
  int64_t nnz = rowptr[n], nloc = 0, noff = 0, c0 = A->col_begin, bad = 0, unsorted = 0;
  int32_t *tab = NULL; /* compact column -> local column, or -1 - halo column */
  unsigned char *used = NULL;
  for (int32_t q = 0; q < m; q++)
    if (cmap[q] < 0 || cmap[q] >= A->n_col_global || (q > 0 && cmap[q] <= cmap[q - 1]))
      return NG_ERROR(NG_ERR_INTERNAL, "compact column %d: global column %lld out of range or order", (int)q,
                      (long long)cmap[q]);
  NG_CHECK(NG_CALLOC(used, m > 0 ? m : 1));
  ng_status st = NG_MALLOC(tab, m > 0 ? m : 1);
  /* the marking pass checks cheaply: one unsigned compare per column, and
   * val - val summed (0 while every value is finite, NaN after an inf or a
   * NaN); only when something is wrong does the exact pass below find the
   * first bad entry, with the message it always gave */
  double z = 0.0;
  int64_t *lrp = NULL; /* each row's local entries (lrp[i + 1]), then the offsets */
  if (!st) st = NG_MALLOC(lrp, (size_t)n + 1);
  if (!st) {
    lrp[0] = 0;
#pragma omp parallel for schedule(static) reduction(+ : z, bad, unsorted) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
      int64_t cl = 0;
      for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
        uint32_t c = (uint32_t)ccol[p];
        unsorted += p > rowptr[i] && ccol[p] <= ccol[p - 1]; /* cmap ascends: the global order */
        if (c >= (uint32_t)m) {
          bad++;
          continue;
        }
        z += val[p] - val[p];
        if (cmap[c] >= c0 && cmap[c] < c0 + nc) {
          cl++;
          continue;
        }
        unsigned char u;
#pragma omp atomic read
        u = used[c];
        if (!u) {
#pragma omp atomic write
          used[c] = 1; /* every writer stores the same value */
        }
      }
      lrp[i + 1] = cl;
    }
  }
  for (int64_t q = 0; !st && (bad || z != 0.0) && q < nnz; q++) {
    if (ccol[q] < 0 || ccol[q] >= m)
      st = NG_ERROR(NG_ERR_INTERNAL, "entry %lld has compact column %d outside 0..%d", (long long)q, (int)ccol[q],
                    (int)m - 1);
    else if (!isfinite(val[q]))
      st = NG_ERROR(NG_ERR_NUMERIC, "entry %lld (column %lld) is not finite", (long long)q, (long long)cmap[ccol[q]]);
  }
  for (int32_t q = 0; !st && q < m; q++) {
    if (cmap[q] >= c0 && cmap[q] < c0 + nc) tab[q] = (int32_t)(cmap[q] - c0);
    else if (used[q]) tab[q] = -1 - nh++;
    else tab[q] = INT32_MIN; /* unused off-rank column: no halo entry */
  }
  ng_free(used);
  if (!st) {
    for (int32_t i = 0; i < n; i++) lrp[i + 1] += lrp[i];
    nloc = lrp[n];
    noff = nnz - nloc;
  }
  if (!st) st = NG_MALLOC(A->halo_gcol, nh > 0 ? nh : 1);
  if (!st) st = ng_csr_alloc(&A->local, n, nc, nloc);
  if (!st) st = ng_csr_alloc(&A->offrank, n, nh, noff);
  if (!st && noff && unsorted) st = NG_MALLOC(A->value_map, nnz); /* sorted rows: input_order() merges */
  if (st) {
    ng_free(tab);
    ng_free(lrp);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  A->n_halo = nh;
  for (int32_t q = 0; q < m; q++)
    if (tab[q] < 0 && tab[q] != INT32_MIN) A->halo_gcol[-1 - tab[q]] = cmap[q];
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i <= n; i++) {
    A->local.rowptr[i] = lrp[i];
    A->offrank.rowptr[i] = rowptr[i] - lrp[i];
  }
  ng_free(lrp);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t a = A->local.rowptr[i], b = A->offrank.rowptr[i];
    for (int64_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
      int32_t t = tab[ccol[q]];
      if (t >= 0) {
        A->local.col[a] = t;
        A->local.val[a] = val[q];
        if (A->value_map) A->value_map[q] = a;
        a++;
      } else {
        A->offrank.col[b] = -1 - t;
        A->offrank.val[b] = val[q];
        if (A->value_map) A->value_map[q] = nloc + b;
        b++;
      }
    }
  }
  ng_free(tab);
  return NG_SUCCESS;
}

/* Checks one rank's own arguments (no communication). */
static ng_status distributed_check_local(int64_t n_global, int64_t row_begin, int64_t row_end, const int64_t *rowptr,
                                         const void *gcol, const double *val, ng_matrix *Aout)
{
  NG_ASSERT_ARG(Aout && (rowptr || row_end == row_begin), "ng_matrix_create_distributed: null argument");
  NG_ASSERT_ARG(n_global >= 0, "negative matrix size %lld", (long long)n_global);
  NG_ASSERT_ARG(row_begin >= 0 && row_end >= row_begin && row_end <= n_global,
                "row range [%lld, %lld) is not inside 0..%lld", (long long)row_begin, (long long)row_end,
                (long long)n_global);
  NG_ASSERT_ARG(row_end - row_begin <= INT32_MAX, "a rank may own at most 2^31-1 rows (asked %lld)",
                (long long)(row_end - row_begin));
  if (!rowptr) return NG_SUCCESS; /* no rows, no entries */
  int32_t n = (int32_t)(row_end - row_begin);
  NG_ASSERT_ARG(rowptr[0] == 0, "rowptr[0] must be 0 (is %lld)", (long long)rowptr[0]);
  for (int32_t i = 0; i < n; i++)
    NG_ASSERT_ARG(rowptr[i + 1] >= rowptr[i], "rowptr decreases at local row %d", (int)i);
  NG_ASSERT_ARG(rowptr[n] == 0 || (gcol && val), "null column or value array");
  return NG_SUCCESS;
}

/* Every step that can fail on one rank only is followed by ng_comm_agree, so
 * that all ranks leave with an error (naming the failing rank) instead of
 * some waiting forever in the next collective. */
static ng_status create_rect(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                             int64_t n_col_global, int64_t col_begin, int64_t col_end, const int64_t *rowptr,
                             const int64_t *gcol, const int32_t *ccol, const int64_t *cmap, int32_t m,
                             const double *val, ng_matrix *Aout)
{
  ng_matrix A = NULL;
  int64_t *starts = NULL;
  static const int64_t zero = 0;
  NG_ASSERT_ARG(ctx, "ng_matrix_create_distributed: null context");
  const void *cols = gcol ? (const void *)gcol : ccol;
  ng_status st = distributed_check_local(n_global, row_begin, row_end, rowptr, cols, val, Aout);
  if (Aout) *Aout = NULL;
  if (!rowptr) rowptr = &zero;
  /* the local checks' status agreed with the ranges' check; the split's
   * with the halo plan's first allocations (one collective each) */
  NG_CHECK_GOTO(st, ng_comm_check_ranges(ctx, st, n_global, row_begin, row_end, n_col_global, col_begin, col_end,
                                         &starts), fail);
  st = NG_CALLOC(A, 1);
  if (!st) {
    A->ctx = ctx;
    A->n_global = n_global;
    A->row_begin = row_begin;
    A->n_local = (int32_t)(row_end - row_begin);
    A->n_col_global = n_col_global;
    A->col_begin = col_begin;
    A->n_col_local = (int32_t)(col_end - col_begin);
    st = gcol || !ccol ? matrix_split(A, rowptr, gcol, val) : matrix_split_compact(A, rowptr, ccol, cmap, m, val);
  }
  if (ctx->size > 1) st = ng_halo_plan_create(ctx, A, starts, st); /* agreed there, on every path */
  if (st) goto fail; /* one rank: nothing to agree */
  {
    double t = (double)(A->local.nnz + A->offrank.nnz); /* summed in the SpMV's agreement */
    st = matrix_setup_spmv(A, "csr");
    NG_CHECK_GOTO(st, ng_comm_agree_sum(ctx, st, &t, 1), fail);
    A->nnz_global = (int64_t)t;
  }
  ng_free(starts);
  *Aout = A;
  return NG_SUCCESS;
fail:
  ng_free(starts);
  ng_matrix_destroy(A);
  return st;
}

ng_status ng_matrix_create_rect(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                int64_t n_col_global, int64_t col_begin, int64_t col_end, const int64_t *rowptr,
                                const int64_t *gcol, const double *val, ng_matrix *Aout)
{
  NG_CHECK(create_rect(ctx, n_global, row_begin, row_end, n_col_global, col_begin, col_end, rowptr, gcol, NULL, NULL, 0,
                       val, Aout));
  return NG_SUCCESS;
}

ng_status ng_matrix_create_rect_compact(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                        int64_t n_col_global, int64_t col_begin, int64_t col_end,
                                        const int64_t *rowptr, const int32_t *ccol, const int64_t *cmap, int32_t m,
                                        const double *val, ng_matrix *Aout)
{
  NG_CHECK(create_rect(ctx, n_global, row_begin, row_end, n_col_global, col_begin, col_end, rowptr, NULL, ccol, cmap, m,
                       val, Aout));
  return NG_SUCCESS;
}

/* The fast format of a matrix just made (agreed: a CUDA failure on one
 * rank fails all); the matrix destroyed on failure. */
static ng_status fast_or_destroy(ng_context ctx, ng_matrix *Aout)
{
  ng_status st = ng_comm_agree(ctx, matrix_fast_format(*Aout));
  if (st) {
    ng_matrix_destroy(*Aout);
    *Aout = NULL;
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  return NG_SUCCESS;
}

ng_status ng_matrix_create_distributed(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                       const int64_t *rowptr, const int64_t *gcol, const double *val,
                                       ng_matrix *Aout)
{
  NG_CHECK(ng_matrix_create_distributed_csr(ctx, n_global, row_begin, row_end, rowptr, gcol, val, Aout));
  NG_CHECK(fast_or_destroy(ctx, Aout));
  return NG_SUCCESS;
}

ng_status ng_matrix_adopt_blocks(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, ng_csr *local,
                                 const int64_t *orp, const int64_t *ogc, const double *oval, ng_matrix *Aout)
{
  NG_CHECK(ng_matrix_create_blocks(ctx, st, n_global, row_begin, local, orp, ogc, oval, NULL, NULL, Aout));
  NG_CHECK(fast_or_destroy(ctx, Aout));
  return NG_SUCCESS;
}

ng_status ng_matrix_create_distributed_csr(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                           const int64_t *rowptr, const int64_t *gcol, const double *val,
                                           ng_matrix *Aout)
{
  NG_CHECK(ng_matrix_create_rect(ctx, n_global, row_begin, row_end, n_global, row_begin, row_end, rowptr, gcol, val,
                                 Aout));
  return NG_SUCCESS;
}

/* One rank: W (square, host) becomes the matrix's local block as it is,
 * without the global-column copy and the split of the general path, so that
 * a 2e9-entry problem is held once on the host (26 GB for lap27:432, not
 * three times). W is emptied, on failure too. */
static ng_status adopt(ng_context ctx, ng_csr *W, int validate, ng_matrix *Aout)
{
  ng_matrix A = NULL;
  ng_status st = NG_SUCCESS;
  NG_ASSERT_ARG(ctx && W && Aout, "ng_matrix_adopt_local: null argument");
  *Aout = NULL;
  if (ctx->size != 1)
    st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_adopt_local: one rank only (%d ranks)", ctx->size);
  else if (W->nrows != W->ncols)
    st = NG_ERROR(NG_ERR_ARGUMENT, "the matrix must be square (is %d x %d)", (int)W->nrows, (int)W->ncols);
  else if (validate)
    st = ng_csr_validate(W);
  if (!st) st = NG_CALLOC(A, 1);
  if (st) {
    ng_csr_free(W);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  A->ctx = ctx;
  A->n_global = A->n_col_global = W->nrows;
  A->n_local = A->n_col_local = W->nrows;
  A->local = *W;
  A->nnz_global = W->nnz;
  memset(W, 0, sizeof(*W));
  st = ng_csr_alloc(&A->offrank, A->n_local, 0, 0); /* as matrix_split leaves it: no halo columns */
  if (!st) st = matrix_setup_spmv(A, "csr");
  if (st) {
    ng_matrix_destroy(A);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *Aout = A;
  return NG_SUCCESS;
}

ng_status ng_matrix_adopt_local(ng_context ctx, ng_csr *W, ng_matrix *A)
{
  NG_CHECK(adopt(ctx, W, 1, A));
  return NG_SUCCESS;
}

ng_status ng_matrix_adopt_built(ng_context ctx, ng_csr *W, ng_matrix *A)
{
  NG_CHECK(adopt(ctx, W, 0, A));
  return NG_SUCCESS;
}

ng_status ng_matrix_adopt_device(ng_context ctx, ng_csr *W, const ng_spmv_ops *ops, void *data, ng_matrix *Aout)
{
  ng_matrix A = NULL;
  ng_status st = ctx->size == 1 && W->nrows == W->ncols
                     ? NG_CALLOC(A, 1)
                     : NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_adopt_device: a square matrix on one rank");
  *Aout = NULL;
  if (st) {
    ops->destroy(data);
    ng_csr_free(W);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  A->ctx = ctx;
  A->n_global = A->n_col_global = W->nrows;
  A->n_local = A->n_col_local = W->nrows;
  A->local = *W; /* row offsets only: col and val NULL until ng_matrix_host_current */
  A->nnz_global = W->nnz;
  A->host_stale = 2;
  memset(W, 0, sizeof(*W));
  A->spmv = ops;
  A->spmv_data = data;
  snprintf(A->format, sizeof(A->format), "%s", ops->name);
  st = ng_csr_alloc(&A->offrank, A->n_local, 0, 0); /* no halo columns, as adopt leaves it */
  if (st) {
    ng_matrix_destroy(A);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *Aout = A;
  return NG_SUCCESS;
}

/* A row's next entry in global column order, from the local block's
 * position *a (row end ae) and the off-rank block's *b (end be): >= 0 a
 * local entry, < 0 the off-rank entry -1 - it (ng_matrix_entry_gcol's
 * naming); the position taken advances. */
static inline int64_t merged_next(ng_matrix A, int64_t *a, int64_t ae, int64_t *b, int64_t be)
{
  int64_t ga = *a < ae ? A->col_begin + A->local.col[*a] : INT64_MAX;
  int64_t gb = *b < be ? A->halo_gcol[A->offrank.col[*b]] : INT64_MAX;
  return ga <= gb ? (*a)++ : -1 - (*b)++;
}

int64_t ng_matrix_merged_row(ng_matrix A, int32_t i, int64_t *src)
{
  const ng_csr *L = &A->local, *O = &A->offrank;
  int64_t a = L->rowptr[i], ae = L->rowptr[i + 1], k = 0;
  int64_t b = A->n_halo ? O->rowptr[i] : 0, be = A->n_halo ? O->rowptr[i + 1] : 0;
  while (a < ae || b < be) src[k++] = merged_next(A, &a, ae, &b, be);
  /* a block out of column order (not made by this library): sorted here */
  for (int64_t q = 1; q < k; q++)
    for (int64_t r = q; r > 0 && ng_matrix_entry_gcol(A, src[r - 1]) > ng_matrix_entry_gcol(A, src[r]); r--) {
      int64_t t = src[r];
      src[r] = src[r - 1];
      src[r - 1] = t;
    }
  return k;
}

ng_status ng_matrix_coupled_rows(ng_matrix A, const int32_t **rows, int32_t *cnt)
{
  if (!A->coupled) {
    const ng_csr *O = &A->offrank;
    int32_t n = A->n_local, k = 0;
    for (int32_t i = 0; A->n_halo && i < n; i++) k += O->rowptr[i + 1] > O->rowptr[i];
    NG_CHECK(NG_MALLOC(A->coupled, k ? k : 1));
    k = 0;
    for (int32_t i = 0; A->n_halo && i < n; i++)
      if (O->rowptr[i + 1] > O->rowptr[i]) A->coupled[k++] = i;
    A->n_coupled = k;
  }
  *rows = A->coupled;
  *cnt = A->n_coupled;
  return NG_SUCCESS;
}

ng_status ng_matrix_host_current(ng_matrix A)
{
  if (!A->host_stale) return NG_SUCCESS;
#ifdef NG_HAVE_CUDA
  int whole = A->host_stale == 2;
  if (whole) {
    NG_CHECK(NG_MALLOC(A->local.col, A->local.nnz ? A->local.nnz : 1));
    NG_CHECK(NG_MALLOC(A->local.val, A->local.nnz ? A->local.nnz : 1));
  }
  NG_CHECK(ng_matrix_device_download(A, whole));
  A->host_stale = 0;
  return NG_SUCCESS;
#else
  return NG_ERROR(NG_ERR_INTERNAL, "a device-only matrix in a build without CUDA");
#endif
}

/* This rank's rows [starts[rank], starts[rank+1]) of a whole matrix W that
 * this rank holds (the one-rank case of matrix_from_root). */
static ng_status matrix_from_local_copy(ng_context ctx, const ng_csr *W, const int64_t *starts, ng_matrix *A)
{
  ng_status st = NG_SUCCESS;
  int64_t b = starts[ctx->rank], e = starts[ctx->rank + 1];
  int64_t p0 = W->rowptr[b], cnt = W->rowptr[e] - p0;
  int64_t *rp = NULL, *g = NULL;
  st = NG_MALLOC(g, cnt);
  if (!st) st = NG_MALLOC(rp, e - b + 1);
  if (!st) {
    for (int64_t i = b; i <= e; i++) rp[i - b] = W->rowptr[i] - p0;
    for (int64_t p = 0; p < cnt; p++) g[p] = W->col[p0 + p];
  }
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  NG_CHECK_GOTO(st, ng_matrix_create_distributed(ctx, W->nrows, b, e, rp, g, W->val + p0, A), done);
done:
  ng_free(rp);
  ng_free(g);
  return st;
}

/* Whole matrix W on rank 0 (ignored on the others; st is rank 0's status of
 * producing it): validated there, split into nnz-balanced contiguous row
 * blocks and scattered. With one rank W is simply the local block. */
static ng_status matrix_from_root(ng_context ctx, ng_status st, const ng_csr *W, ng_matrix *A)
{
  int64_t *starts = NULL, *rp = NULL, *g = NULL;
  double *v = NULL;
  if (!st && ctx->rank == 0) st = ng_csr_validate(W);
  if (!st && ctx->rank == 0 && W->nrows != W->ncols)
    st = NG_ERROR(NG_ERR_ARGUMENT, "the matrix must be square (is %d x %d)", (int)W->nrows, (int)W->ncols);
  if (st == NG_SUCCESS || ctx->rank != 0) {
    ng_status a = NG_MALLOC(starts, ctx->size + 1);
    if (a) st = a;
  }
  if (!st && ctx->rank == 0) st = ng_partition_rows_by_nnz(ctx, W, starts);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  if (ctx->size == 1) {
    NG_CHECK_GOTO(st, matrix_from_local_copy(ctx, W, starts, A), done);
    goto done;
  }
  NG_CHECK_GOTO(st, ng_comm_bcast_int64(ctx, starts, ctx->size + 1), done);
  NG_CHECK_GOTO(st, ng_distribute_csr(ctx, W, starts, &rp, &g, &v), done);
  NG_CHECK_GOTO(st, ng_matrix_create_distributed(ctx, starts[ctx->size], starts[ctx->rank], starts[ctx->rank + 1],
                                                 rp, g, v, A), done);
done:
  ng_free(starts);
  ng_free(rp);
  ng_free(g);
  ng_free(v);
  return st;
}

ng_status ng_matrix_create_csr(ng_context ctx, int32_t nrows, int32_t ncols, const int64_t *rowptr,
                               const int32_t *col, const double *val, ng_matrix *A)
{
  ng_status st = NG_SUCCESS;
  NG_ASSERT_ARG(ctx && A, "ng_matrix_create_csr: null argument");
  *A = NULL;
  ng_csr W = {0, 0, 0, NULL, NULL, NULL};
  if (ctx->rank == 0) {
    if (nrows < 0 || ncols < 0 || !rowptr)
      st = NG_ERROR(NG_ERR_ARGUMENT, "ng_matrix_create_csr: bad size %d x %d or null rowptr", (int)nrows, (int)ncols);
    else if (rowptr[nrows] != 0 && !(col && val))
      st = NG_ERROR(NG_ERR_ARGUMENT, "ng_matrix_create_csr: null column or value array");
    else
      W = (ng_csr){nrows, ncols, rowptr[nrows], (int64_t *)rowptr, (int32_t *)col, (double *)val};
  }
  NG_CHECK(matrix_from_root(ctx, st, &W, A));
  return NG_SUCCESS;
}

ng_status ng_matrix_read_mtx(ng_context ctx, const char *path, ng_matrix *A)
{
  ng_csr W = {0, 0, 0, NULL, NULL, NULL};
  ng_status st = NG_SUCCESS;
  NG_ASSERT_ARG(ctx && path && A, "ng_matrix_read_mtx: null argument");
  *A = NULL;
  if (ctx->rank == 0) st = ng_mmio_read_csr(path, &W);
  st = matrix_from_root(ctx, st, &W, A);
  if (ctx->rank == 0) ng_csr_free(&W);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* The first non-finite entry of val[0..n), or -1: a parallel count first
 * (the common all-finite case reads the array once with every thread). */
static int64_t first_nonfinite(const double *val, int64_t n)
{
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (n > 100000)
  for (int64_t p = 0; p < n; p++) bad += !isfinite(val[p]);
  if (!bad) return -1;
  for (int64_t p = 0; p < n; p++)
    if (!isfinite(val[p])) return p;
  return -1;
}

/* The values in creation order (val[p], p over this rank's input entries)
 * into the blocks' slots (in = 1) or out of them (in = 0): through
 * value_map, or, without one, the identity (no off-rank entries) or each
 * row's two blocks merged by global column (rows given in ascending
 * columns). */
static void input_order(ng_matrix A, double *val, int in)
{
  const ng_csr *L = &A->local, *O = &A->offrank;
  int64_t nloc = L->nnz, nnz = nloc + O->nnz;
  if (!A->value_map && O->nnz) {
#pragma omp parallel for schedule(static) if (nnz > 100000)
    for (int32_t i = 0; i < A->n_local; i++) {
      int64_t a = L->rowptr[i], ae = L->rowptr[i + 1], b = O->rowptr[i], be = O->rowptr[i + 1], p = a + b;
      while (a < ae || b < be) {
        int64_t s = merged_next(A, &a, ae, &b, be);
        double *slot = s >= 0 ? &L->val[s] : &O->val[-1 - s];
        if (in) *slot = val[p++];
        else val[p++] = *slot;
      }
    }
  } else if (!A->value_map) {
#pragma omp parallel for schedule(static) if (nloc > 100000)
    for (int64_t p = 0; p < nloc; p++) {
      if (in) L->val[p] = val[p];
      else val[p] = L->val[p];
    }
  } else {
#pragma omp parallel for schedule(static) if (nnz > 100000)
    for (int64_t p = 0; p < nnz; p++) {
      int64_t s = A->value_map[p];
      double *slot = s < nloc ? &L->val[s] : &O->val[s - nloc];
      if (in) *slot = val[p];
      else val[p] = *slot;
    }
  }
}

ng_status ng_matrix_values_in_input_order(ng_matrix A, double *val)
{
  NG_CHECK(ng_matrix_host_current(A));
  input_order(A, val, 0);
  return NG_SUCCESS;
}

ng_status ng_matrix_update_values(ng_matrix A, const double *val)
{
  NG_ASSERT_ARG(A && (val || A->nnz_global == 0), "ng_matrix_update_values: null argument");
  int64_t nloc = A->local.nnz, nnz = nloc + A->offrank.nnz;
  NG_CHECK(ng_matrix_host_current(A)); /* a device-only matrix: its host arrays first */
  /* all checked before any is written: a refused update leaves A as it was */
  int64_t bad = first_nonfinite(val, nnz);
  if (bad >= 0) return NG_ERROR(NG_ERR_NUMERIC, "new value %lld is not finite", (long long)bad);
#ifdef NG_HAVE_CUDA
  /* a matrix updated on a GPU context is updated every time step: its host
   * values are page-locked once, so that each upload runs at the full PCIe
   * rate (pageable copies are staged by the driver at a fraction of it) */
  if (A->ctx->on_gpu && !A->pinned) A->pinned = ng_cuda_host_pin(A->local.val, (size_t)nloc * sizeof(double)) ? 1 : -1;
#endif
  input_order(A, (double *)val, 1);
  NG_CHECK(A->spmv->update_values(A->spmv_data, &A->local));
  if (A->csr_ops) NG_CHECK(A->csr_ops->update_values(A->csr_data, &A->local));
  if (A->spmv_off) NG_CHECK(A->spmv_off->update_values(A->spmv_off_data, &A->offrank));
  A->values_seq++;
  return NG_SUCCESS;
}

ng_status ng_matrix_get_size(ng_matrix A, int64_t *n_global, int32_t *n_local, int64_t *nnz_global)
{
  NG_ASSERT_ARG(A, "ng_matrix_get_size: null matrix");
  if (n_global) *n_global = A->n_global;
  if (n_local) *n_local = A->n_local;
  if (nnz_global) *nnz_global = A->nnz_global;
  return NG_SUCCESS;
}

ng_status ng_matrix_get_local_nnz(ng_matrix A, int64_t *nnz_local)
{
  NG_ASSERT_ARG(A && nnz_local, "ng_matrix_get_local_nnz: null argument");
  *nnz_local = A->local.nnz + A->offrank.nnz;
  return NG_SUCCESS;
}

ng_status ng_matrix_get_ownership(ng_matrix A, int64_t *row_begin, int64_t *row_end)
{
  NG_ASSERT_ARG(A, "ng_matrix_get_ownership: null matrix");
  if (row_begin) *row_begin = A->row_begin;
  if (row_end) *row_end = A->row_begin + A->n_local;
  return NG_SUCCESS;
}

ng_status ng_matrix_set_format(ng_matrix A, const char *format)
{
  NG_ASSERT_ARG(A && format, "ng_matrix_set_format: null argument");
  NG_CHECK(matrix_setup_spmv(A, format));
  return NG_SUCCESS;
}

/* The matrix from its two blocks as AMG's uncoupled levels make them: the
 * local block given (its host CSR taken over, *local emptied; its SpMV
 * table ldata too when not NULL, else made from it), the off-rank block in
 * global columns (none in this rank's range), split here against the
 * sorted halo columns; then the halo plan and the CSR tables as
 * create_rect's. Collective; st: the caller's status so far, agreed with
 * the plan. */
static ng_status create_blocks(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, ng_csr *local,
                               const int64_t *orp, const int64_t *ogc, const double *oval, const ng_spmv_ops *lops,
                               void *ldata, int defer, ng_matrix *Aout)
{
  ng_matrix A = NULL;
  int64_t *starts = NULL;
  int32_t n = local->nrows;
  ng_index_map H = {0};
  *Aout = NULL;
  if (!st) st = NG_MALLOC(starts, ctx->size + 1);
  if (!st) st = NG_CALLOC(A, 1);
  if (!st) {
    A->ctx = ctx;
    A->n_global = A->n_col_global = n_global;
    A->row_begin = A->col_begin = row_begin;
    A->n_local = A->n_col_local = n;
    A->local = *local;
    memset(local, 0, sizeof(*local));
    if (ldata) {
      A->spmv = lops;
      A->spmv_data = ldata;
      ldata = NULL;
    }
    st = ng_index_map_build(&H, ogc, orp[n]);
  }
  if (!st) {
    A->n_halo = H.n;
    A->halo_gcol = H.sorted;
    H.sorted = NULL;
    st = ng_csr_alloc(&A->offrank, n, A->n_halo, orp[n]);
  }
  if (!st) {
    memcpy(A->offrank.rowptr, orp, ((size_t)n + 1) * sizeof(int64_t));
    memcpy(A->offrank.val, oval, (size_t)orp[n] * sizeof(double));
    for (int64_t p = 0; p < orp[n]; p++) A->offrank.col[p] = ng_index_map_find(&H, ogc[p]);
    if (A->n_halo && A->halo_gcol[0] < row_begin + n && A->halo_gcol[A->n_halo - 1] >= row_begin)
      for (int32_t h = 0; h < A->n_halo && !st; h++)
        if (A->halo_gcol[h] >= row_begin && A->halo_gcol[h] < row_begin + n)
          st = NG_ERROR(NG_ERR_INTERNAL, "an off-rank block names own column %lld", (long long)A->halo_gcol[h]);
  }
  ng_index_map_free(&H);
  if (ldata) lops->destroy(ldata); /* not taken over (an early failure) */
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_starts(ctx, n, starts);
  if (ctx->size > 1 && defer) { /* the plan later (ng_matrix_halo_ensure), the same verdict on every rank */
    st = ng_comm_agree(ctx, st);
    if (!st) A->halo_deferred = 1;
  } else if (ctx->size > 1) {
    st = ng_halo_plan_create(ctx, A, starts, st); /* agreed there */
  }
  if (!st) {
    double t = (double)(A->local.nnz + A->offrank.nnz);
    st = matrix_setup_spmv(A, "csr");
    st = ng_comm_agree_sum(ctx, st, &t, 1);
    if (A) A->nnz_global = (int64_t)t;
  }
  ng_free(starts);
  if (st) {
    ng_matrix_destroy(A);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *Aout = A;
  return NG_SUCCESS;
}

ng_status ng_matrix_create_blocks(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, ng_csr *local,
                                  const int64_t *orp, const int64_t *ogc, const double *oval,
                                  const ng_spmv_ops *lops, void *ldata, ng_matrix *Aout)
{
  return create_blocks(ctx, st, n_global, row_begin, local, orp, ogc, oval, lops, ldata, 0, Aout);
}

ng_status ng_matrix_create_blocks_deferred(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin,
                                           ng_csr *local, const int64_t *orp, const int64_t *ogc, const double *oval,
                                           const ng_spmv_ops *lops, void *ldata, ng_matrix *Aout)
{
  return create_blocks(ctx, st, n_global, row_begin, local, orp, ogc, oval, lops, ldata, 1, Aout);
}

ng_status ng_matrix_halo_ensure(ng_matrix A)
{
  if (!A->halo_deferred) return NG_SUCCESS;
  ng_context ctx = A->ctx;
  int64_t *starts = NULL;
  ng_status st = NG_MALLOC(starts, ctx->size + 1);
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_starts(ctx, A->n_local, starts);
  st = ng_halo_plan_create(ctx, A, starts, st); /* agreed there */
  ng_free(starts);
  NG_CHECK(st);
  A->halo_deferred = 0;
  return NG_SUCCESS;
}

const char *ng_matrix_format(ng_matrix A) { return A ? A->format : ""; }

/* Overlap: the exchange is started, the local block (all rows, owned
 * columns) runs while messages travel, then the off-rank block adds the
 * boundary rows' halo contributions. A rank with no halo of its own may
 * still have to send (A->halo without spmv_off). */
ng_status ng_matrix_apply_ab(ng_matrix A, double alpha, const double *x, double beta, double *y)
{
  if (A->halo_deferred)
    return NG_ERROR(NG_ERR_INTERNAL, "a product with a matrix whose halo plan was deferred and not made "
                                     "(ng_matrix_halo_ensure)");
  if (A->halo) NG_CHECK(ng_halo_begin(A, x));
  NG_CHECK(A->spmv->apply(A->spmv_data, alpha, x, beta, y));
  if (A->halo) {
    NG_CHECK(ng_halo_end(A));
    if (A->spmv_off) NG_CHECK(A->spmv_off->apply(A->spmv_off_data, alpha, A->halo_values, 1.0, y));
  }
  return NG_SUCCESS;
}

ng_status ng_matrix_apply_raw(ng_matrix A, const double *x, double *y)
{
  NG_CHECK(ng_matrix_apply_ab(A, 1.0, x, 0.0, y));
  return NG_SUCCESS;
}

ng_status ng_matrix_apply(ng_matrix A, ng_vector x, ng_vector y)
{
  NG_ASSERT_ARG(A && x && y, "ng_matrix_apply: null argument");
  NG_ASSERT_ARG(x->n == A->n_local && y->n == A->n_local, "ng_matrix_apply: vector sizes %d, %d differ from the %d local rows",
                (int)x->n, (int)y->n, (int)A->n_local);
  NG_ASSERT_ARG(x != y, "ng_matrix_apply: x and y must be different vectors");
  NG_CHECK(ng_matrix_apply_raw(A, x->data, y->data));
  return NG_SUCCESS;
}

ng_status ng_matrix_write_mtx(ng_matrix A, const char *path)
{
  NG_ASSERT_ARG(A && path, "ng_matrix_write_mtx: null argument");
  if (A->ctx->size > 1)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "ng_matrix_write_mtx: writing a matrix spread over %d ranks is not supported yet",
                    A->ctx->size);
  NG_CHECK(ng_matrix_host_current(A));
  NG_CHECK(ng_mmio_write_csr(path, &A->local));
  return NG_SUCCESS;
}

/* One SpMV table's bytes, where they are (a table made on the block
 * itself, the host CSR, holds nothing of its own). */
static void table_memory(ng_matrix A, const ng_spmv_ops *ops, const void *data, int64_t bytes[NG_MEM_SPACES])
{
  if (!ops || !data || data == (const void *)&A->local || data == (const void *)&A->offrank) return;
  bytes[ops->on_gpu ? NG_MEM_DEVICE : NG_MEM_HOST] += (int64_t)ops->bytes(data);
}

void ng_matrix_memory(ng_matrix A, int64_t bytes[NG_MEM_SPACES])
{
  for (int s = 0; s < NG_MEM_SPACES; s++) bytes[s] = 0;
  if (!A) return;
  bytes[NG_MEM_HOST] = (int64_t)(sizeof(*A) + ng_csr_bytes(&A->local) + ng_csr_bytes(&A->offrank));
  if (A->halo_gcol) bytes[NG_MEM_HOST] += (int64_t)A->n_halo * (int64_t)sizeof(int64_t);
  if (A->value_map) bytes[NG_MEM_HOST] += (A->local.nnz + A->offrank.nnz) * (int64_t)sizeof(int64_t);
  table_memory(A, A->spmv, A->spmv_data, bytes);
  table_memory(A, A->csr_ops, A->csr_data, bytes);
  table_memory(A, A->spmv_off, A->spmv_off_data, bytes);
  if (A->halo_values)
    bytes[A->ctx->on_gpu ? NG_MEM_DEVICE : NG_MEM_HOST] += (int64_t)A->n_halo * (int64_t)sizeof(double);
}

ng_status ng_matrix_destroy(ng_matrix A)
{
  if (!A) return NG_SUCCESS;
  if (A->spmv) A->spmv->destroy(A->spmv_data);
  if (A->csr_ops) A->csr_ops->destroy(A->csr_data);
  if (A->spmv_off) A->spmv_off->destroy(A->spmv_off_data);
  if (A->halo_values) A->ctx->vops->free(A->ctx, A->halo_values);
  ng_halo_plan_destroy(A->halo);
#ifdef NG_HAVE_CUDA
  if (A->pinned > 0) ng_cuda_host_unpin(A->local.val);
#endif
  ng_csr_free(&A->local);
  ng_csr_free(&A->offrank);
  ng_free(A->halo_gcol);
  ng_free(A->coupled);
  ng_free(A->value_map);
  ng_free(A);
  return NG_SUCCESS;
}

/* Rank 0 reads the whole vector and scatters it by the ranks' lengths. */
ng_status ng_vector_read_mtx(ng_vector v, const char *path)
{
  double *x = NULL;
  int32_t n = 0;
  int64_t *starts = NULL;
  NG_ASSERT_ARG(v && path, "ng_vector_read_mtx: null argument");
  ng_context ctx = v->ctx;
  double *mine = NULL;
  ng_status st = NG_SUCCESS;
  if (ctx->rank == 0) {
    st = ng_mmio_read_array(path, &x, &n);
    if (!st && (int64_t)n != v->n_global)
      st = NG_ERROR(NG_ERR_ARGUMENT, "%s holds %d entries but the vector has %lld", path, (int)n,
                    (long long)v->n_global);
  }
  if (!st) st = NG_MALLOC(starts, ctx->size + 1);
  if (!st) st = NG_MALLOC(mine, v->n);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  if (ctx->size == 1) {
    st = ng_vector_set_values(v, x);
  } else {
    NG_CHECK_GOTO(st, ng_comm_starts(ctx, v->n, starts), done);
    NG_CHECK_GOTO(st, ng_distribute_values(ctx, x, starts, mine), done);
    st = ng_vector_set_values(v, mine);
  }
  st = ng_comm_agree(ctx, st);
done:
  ng_free(x);
  ng_free(mine);
  ng_free(starts);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* Gathered to rank 0, which writes the file; every rank gets its status. */
ng_status ng_vector_write_mtx(ng_vector v, const char *path)
{
  double *x = NULL, *all = NULL;
  int64_t *starts = NULL;
  NG_ASSERT_ARG(v && path, "ng_vector_write_mtx: null argument");
  ng_context ctx = v->ctx;
  ng_status st = NG_MALLOC(x, v->n);
  if (!st) st = NG_MALLOC(starts, ctx->size + 1);
  if (!st) st = ng_vector_get_values(v, x);
  if (!st && ctx->rank == 0) st = NG_MALLOC(all, v->n_global);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  if (ctx->size > 1) {
    NG_CHECK_GOTO(st, ng_comm_starts(ctx, v->n, starts), done);
    NG_CHECK_GOTO(st, ng_gather_values(ctx, x, starts, all), done);
  } else if (v->n) {
    memcpy(all, x, (size_t)v->n * sizeof(double));
  }
  if (ctx->rank == 0) st = ng_mmio_write_array(path, all, (int32_t)v->n_global);
  st = ng_comm_agree(ctx, st);
done:
  ng_free(x);
  ng_free(all);
  ng_free(starts);
  NG_CHECK(st);
  return NG_SUCCESS;
}

const char *ng_spmv_autotune_report(ng_matrix A)
{
  return A ? ng_spmv_auto_report(A->spmv, A->spmv_data) : "";
}
