/* amg/amg_fine_cuda.cu: the finest level's V-cycle operator on the GPU
 * (amg_fine.c) converted from the matrix's own device CSR: the converters
 * of spmv/convert_cuda.cu read an ng_dcsr, a view of the matrix's csr_cuda
 * arrays (ng_dcsr_view: columns and values borrowed, 32-bit row offsets
 * widened once); a matrix in another format is uploaded from its host copy
 * instead. The view is kept in M->fine_dcsr so that an update refills the
 * copy's values in place from it (update_dev), with no allocation. */
#include "amg.h"
#include "../spmv/autotune.h"
#include "../spmv/convert_cuda.h"

/* M->fine_dcsr for A's current SpMV table: reused while it views the
 * table's arrays (same columns and values; the pattern of A never
 * changes, so neither do the widened offsets), else made again.
 * NG_ERR_ARGUMENT, quiet: A is not a csr_cuda table. */
static ng_status fine_view(ng_context ctx, ng_amg *M, ng_matrix A, ng_dcsr **view)
{
  int32_t *rp32, *col = NULL;
  int64_t *rp64;
  double *val = NULL;
  if (ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp64, &col, &val) != NG_SUCCESS &&
      ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp32, &col, &val) != NG_SUCCESS)
    return NG_ERR_ARGUMENT;
  ng_dcsr *d = (ng_dcsr *)M->fine_dcsr;
  if (d && d->col == col && d->val == val) {
    *view = d;
    return NG_SUCCESS;
  }
  ng_dcsr_destroy(M->fine_dcsr);
  M->fine_dcsr = NULL;
  void *v;
  NG_CHECK(ng_dcsr_view(ctx, ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &A->local, &v));
  M->fine_dcsr = v;
  *view = (ng_dcsr *)v;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_fine_create_dev(ng_context ctx, ng_amg *M, ng_matrix A, const char *spec,
                                            const ng_spmv_ops **ops, void **data)
{
  ng_dcsr *d = NULL;
  ng_status st = fine_view(ctx, M, A, &d);
  if (st == NG_ERR_ARGUMENT) return ng_spmv_create_dev(ctx, spec, &A->local, NULL, ops, data);
  NG_CHECK(st);
  NG_CHECK(ng_spmv_create_dev(ctx, spec, &A->local, d, ops, data));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_fine_refresh_dev(ng_context ctx, ng_amg *M, ng_matrix A, const ng_spmv_ops *ops,
                                             void *data, int *done)
{
  ng_dcsr *d = NULL;
  *done = 0;
  if (!ops->update_dev) return NG_SUCCESS;
  ng_status st = fine_view(ctx, M, A, &d);
  if (st == NG_ERR_ARGUMENT) return NG_SUCCESS;
  NG_CHECK(st);
  st = ops->update_dev(data, d);
  /* e.g. dia_half and values no longer symmetric: the caller converts again
   * (and steps back to the matrix when that refuses too) */
  if (st == NG_ERR_DOES_NOT_FIT) {
    ng_error_clear();
    return NG_SUCCESS;
  }
  NG_CHECK(st);
  *done = 1;
  return NG_SUCCESS;
}

extern "C" void ng_amg_fine_free_dev(ng_amg *M)
{
  ng_dcsr_destroy(M->fine_dcsr);
  M->fine_dcsr = NULL;
}
