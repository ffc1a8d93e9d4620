/* smoother/smoother_jacobi.c: damped Jacobi, x += omega D^-1 (b - A x)
 * (METHODS.md section 4), omega = -amg_omega or 4 / (3 rho(D^-1 A)). The
 * diagonal omega / a_ii (S->dinv) is made by the setup's finish_level for
 * every smoother; Jacobi needs nothing else. Symmetric by itself, so the
 * post-sweeps are the pre-sweeps; under MPI exact (the level's SpMV). A
 * level whose table has the fused entry (spmv/spmv.h) sweeps in one pass. */
#include "smoother.h"

static ng_status jacobi_setup(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                              ng_matrix dist, void **data)
{
  *data = NULL;
  return NG_SUCCESS;
}

static ng_status jacobi_update(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                               void *data)
{
  return NG_SUCCESS;
}

/* Sweeps through the level table's fused entry: each reads one vector and
 * writes the other of x and S->r, so the sweeps alternate between them;
 * from zero the first sweep (dinv .* b) starts in the one that makes the
 * last land in x, otherwise an odd count ends with a copy. The same
 * arithmetic as the unfused sweeps below, one pass instead of four. */
static ng_status jacobi_fused(ng_context ctx, ng_smoother_level *S, int sweeps, int zero, const double *b, double *x)
{
  double *cur = x, *t = S->r;
  int m = zero ? sweeps - 1 : sweeps, done;
  if (zero) {
    cur = m % 2 ? t : x;
    NG_CHECK(ctx->vops->pointwise_mult(ctx, S->n, S->dinv, b, cur));
  }
  for (int s = 0; s < m; s++) {
    double *next = cur == x ? t : x;
    NG_CHECK(ng_smoother_jacobi_fused(S, b, cur, next, &done));
    cur = next;
  }
  if (cur != x) NG_CHECK(ctx->vops->copy(ctx, S->n, cur, x));
  return NG_SUCCESS;
}

/* sweeps of x += D^-1 (b - A x) (dinv holds omega); zero: x starts at 0 (first sweep is dinv .* b). */
static ng_status jacobi(ng_context ctx, ng_smoother_level *S, int sweeps, int zero, const double *b, double *x)
{
  if (zero && sweeps == 0) {
    NG_CHECK(ctx->vops->fill(ctx, S->n, 0.0, x));
    return NG_SUCCESS;
  }
  if (S->Aops && S->Aops->fused && sweeps > 0) {
    NG_CHECK(jacobi_fused(ctx, S, sweeps, zero, b, x));
    return NG_SUCCESS;
  }
  if (zero) NG_CHECK(ctx->vops->pointwise_mult(ctx, S->n, S->dinv, b, x));
  for (int s = zero ? 1 : 0; s < sweeps; s++) {
    NG_CHECK(ng_smoother_residual(ctx, &ng_smoother_jacobi, S, b, x, S->r));
    NG_CHECK(ctx->vops->pointwise_mult(ctx, S->n, S->dinv, S->r, S->r));
    NG_CHECK(ctx->vops->axpy(ctx, S->n, 1.0, S->r, x));
  }
  return NG_SUCCESS;
}

static ng_status jacobi_pre(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                            const double *b, double *x)
{
  NG_CHECK(jacobi(ctx, S, sweeps, 1, b, x));
  return NG_SUCCESS;
}

static ng_status jacobi_post(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                             const double *b, double *x)
{
  NG_CHECK(jacobi(ctx, S, sweeps, 0, b, x));
  return NG_SUCCESS;
}

static void jacobi_destroy(ng_context ctx, void *data) { (void)data; }

const ng_smoother_ops ng_smoother_jacobi = {
  .name = "jacobi",
  .split_coarse = 0,
  .setup = jacobi_setup,
  .update = jacobi_update,
  .pre = jacobi_pre,
  .post = jacobi_post,
  .destroy = jacobi_destroy,
};

const ng_smoother_ops *ng_smoother_find(const char *name)
{
  static const ng_smoother_ops *const all[] = {&ng_smoother_jacobi, &ng_smoother_mcgs, &ng_smoother_mmcgs,
                                               &ng_smoother_chebyshev};
  for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
    if (!strcmp(all[k]->name, name)) return all[k];
  return NULL;
}
