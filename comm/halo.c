/* comm/halo.c: halo plans. Single-rank builds need none; the MPI transport
 * replaces these with the real plan (issue 3). */
#include "internal.h"

ng_status ng_halo_plan_create(ng_matrix A)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "matrices spread over several ranks need the MPI halo plan (not built yet)");
}
ng_status ng_halo_begin(ng_matrix A, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no halo plan"); }
ng_status ng_halo_end(ng_matrix A) { return NG_ERROR(NG_ERR_INTERNAL, "no halo plan"); }
void ng_halo_plan_destroy(struct ng_halo_plan *h) { (void)h; }
ng_status ng_partition_rows_by_nnz(ng_context ctx, const ng_csr *A, int64_t *starts)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "distributing a whole matrix over %d ranks is not built yet", ctx->size);
}
