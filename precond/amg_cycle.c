/* precond/amg_cycle.c: the V-cycle (METHODS.md section 4): damped Jacobi
 * pre-smoothing from a zero guess, restriction of the residual, recursion,
 * prolongation and correction, the same number of post-sweeps. Jacobi and
 * R = P^T make it symmetric for CG. Everything runs on the context's memory
 * through the SpMV tables and ctx->vops: no allocation, host copy or sync
 * (unless per-level profiling is switched on by a benchmark). */
#include "amg.h"

/* r = b - A x on level l (level 0 through the user's matrix). */
static ng_status residual(ng_precond P, ng_amg *M, int l, const double *b, const double *x, double *r)
{
  ng_context ctx = P->ctx;
  ng_amg_level *L = &M->L[l];
  if (l == 0) {
    NG_CHECK(ng_matrix_apply_raw(P->A, x, r));
    NG_CHECK(ctx->vops->xpay(ctx, L->n, b, -1.0, r));
  } else {
    NG_CHECK(ctx->vops->copy(ctx, L->n, b, r));
    NG_CHECK(L->Aops->apply(L->Adata, -1.0, x, 1.0, r));
  }
  return NG_SUCCESS;
}

/* sweeps of x += omega D^-1 (b - A x); zero: x starts at 0 (first sweep is dinv .* b). */
static ng_status jacobi(ng_precond P, ng_amg *M, int l, int sweeps, int zero, const double *b, double *x)
{
  ng_context ctx = P->ctx;
  ng_amg_level *L = &M->L[l];
  if (zero) {
    if (sweeps == 0) NG_CHECK(ctx->vops->fill(ctx, L->n, 0.0, x));
    else NG_CHECK(ctx->vops->pointwise_mult(ctx, L->n, L->dinv, b, x));
  }
  for (int s = zero ? 1 : 0; s < sweeps; s++) {
    NG_CHECK(residual(P, M, l, b, x, L->r));
    NG_CHECK(ctx->vops->pointwise_mult(ctx, L->n, L->dinv, L->r, L->r));
    NG_CHECK(ctx->vops->axpy(ctx, L->n, 1.0, L->r, x));
  }
  return NG_SUCCESS;
}

/* Profiling (benchmarks): wait for the queued work and charge it to level l. */
static ng_status charge(ng_precond P, ng_amg *M, int l, double *t)
{
  if (!M->profile) return NG_SUCCESS;
  NG_CHECK(P->ctx->vops->sync(P->ctx));
  double now = ng_wtime();
  if (l >= 0) M->L[l].seconds += now - *t;
  *t = now;
  return NG_SUCCESS;
}

static ng_status cycle(ng_precond P, ng_amg *M, int l, const double *b, double *x)
{
  ng_amg_level *L = &M->L[l];
  double t = 0;
  NG_CHECK(charge(P, M, -1, &t));
  if (l == M->nlevels - 1) {
    if (M->coarse_direct) NG_CHECK(M->Cops->apply(M->Cdata, 1.0, b, 0.0, x));
    else NG_CHECK(jacobi(P, M, l, L->pre, 1, b, x));
    NG_CHECK(charge(P, M, l, &t));
    return NG_SUCCESS;
  }
  ng_amg_level *C = &M->L[l + 1];
  NG_CHECK(jacobi(P, M, l, L->pre, 1, b, x));
  NG_CHECK(residual(P, M, l, b, x, L->r));
  NG_CHECK(L->Rops->apply(L->Rdata, 1.0, L->r, 0.0, C->b));
  NG_CHECK(charge(P, M, l, &t));
  NG_CHECK(cycle(P, M, l + 1, C->b, C->x));
  NG_CHECK(charge(P, M, -1, &t));
  NG_CHECK(L->Pops->apply(L->Pdata, 1.0, C->x, 1.0, x));
  NG_CHECK(jacobi(P, M, l, L->post, 0, b, x));
  NG_CHECK(charge(P, M, l, &t));
  return NG_SUCCESS;
}

ng_status ng_amg_vcycle(ng_precond P, ng_amg *M, const double *r, double *z)
{
  NG_CHECK(cycle(P, M, 0, r, z));
  return NG_SUCCESS;
}
