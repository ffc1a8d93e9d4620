/* amg/amg_fine.c: the finest level's operator in the V-cycle
 * (-amg_fine_format). The finest level is 95% of a cycle (lap27:256 on the
 * H100), and the user's matrix is usually CSR, so the cycle may keep its
 * own copy of A in a faster format as L[0].s.Aops: "auto" (the default) takes
 * dia_half, else dia, on a one-rank GPU context (a stencil: 0.76 ms per
 * lap27:256 product against CSR's 2.41) and the matrix itself elsewhere
 * and for smoothers that give the residual from a copy of their own (mcgs,
 * mmcgs: no 4 ms conversion at 100^3 for the one product a cycle);
 * "matrix" always the matrix; any other spec that format, the matrix when
 * it refuses A. On the GPU the copy is converted on the device from the
 * matrix's device CSR (amg_fine_cuda.cu), nothing crosses PCIe. Its tables
 * also have the fused smoother pass (spmv/spmv.h: ng_spmv_ops.fused). Under
 * MPI the finest level is always the distributed matrix. */
#include "amg.h"
#include "../spmv/formats.h"
#include "../smoother/smoother.h"

static ng_status create(ng_context ctx, ng_amg *M, ng_matrix A, const char *spec, const ng_spmv_ops **ops,
                        void **data)
{
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) return ng_amg_fine_create_dev(ctx, M, A, spec, ops, data);
#else
  (void)M;
#endif
  return ng_spmv_create(ctx, spec, &A->local, ops, data);
}

/* the copy now holds A's current values (amg.c's operator_table lends it) */
static ng_status current(ng_amg *M, ng_matrix A)
{
  M->fine_of = A;
  M->fine_seq = A->values_seq;
  return NG_SUCCESS;
}

ng_status ng_amg_fine_table(ng_context ctx, ng_amg *M, ng_matrix A, int refresh)
{
  ng_amg_level *L = &M->L[0];
  const char *cand[2] = {M->fine_format, NULL};
  M->fine_of = NULL; /* until made or refreshed below */
  if (refresh) {
    if (!L->s.Aops) return NG_SUCCESS; /* the matrix itself */
#ifdef NG_HAVE_CUDA
    /* new values in place from the matrix's device CSR (dia, dia_half) */
    if (ctx->on_gpu) {
      int done = 0;
      NG_CHECK(ng_amg_fine_refresh_dev(ctx, M, A, L->s.Aops, L->s.Adata, &done));
      if (done) return current(M, A);
    }
#endif
    /* else convert again from the matrix (on the GPU from its device CSR,
     * cheaper than a refill from the host copy); a table that refuses the
     * new values steps back to the next candidate or the matrix */
    L->s.Aops->destroy(L->s.Adata);
    L->s.Aops = NULL;
    L->s.Adata = NULL;
    cand[0] = M->fine_used;
  } else {
    M->fine_used[0] = 0;
    if (ctx->size > 1 || !strcmp(M->fine_format, "matrix")) return NG_SUCCESS;
    if (!strcmp(M->fine_format, "auto")) {
      /* a smoother with its own copy of A gives the residual (mcgs, mmcgs:
       * their blocks), the only use of this copy in their cycle */
      if (!ctx->on_gpu || M->sopts.ops->residual) return NG_SUCCESS;
      cand[0] = "dia_half";
      cand[1] = "dia";
    }
  }
  for (int k = 0; k < 2 && cand[k]; k++) {
    const ng_spmv_ops *ops;
    void *data;
    ng_status st = create(ctx, M, A, cand[k], &ops, &data);
    /* not a stencil (or no longer symmetric): the next candidate, else the
     * matrix; "auto" also steps back when the copy does not fit in memory */
    if (st == NG_ERR_DOES_NOT_FIT || (st == NG_ERR_DEVICE_MEMORY && !strcmp(M->fine_format, "auto"))) {
      ng_error_clear();
      continue;
    }
    NG_CHECK(st);
    L->s.Aops = ops;
    L->s.Adata = data;
    if (cand[k] != M->fine_used) snprintf(M->fine_used, sizeof(M->fine_used), "%s", cand[k]);
    return current(M, A);
  }
  M->fine_used[0] = 0;
  return NG_SUCCESS;
}
