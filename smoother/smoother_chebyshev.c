/* smoother/smoother_chebyshev.c: Chebyshev polynomial smoother in D^-1 A
 * (Saad, Iterative Methods for Sparse Linear Systems, Algorithm 12.1 with
 * the Jacobi preconditioner; the default smoother of AmgX and PETSc GAMG).
 * One sweep applies the degree -amg_cheby_degree polynomial that is
 * smallest over [lmax / -amg_cheby_ratio, lmax]; lmax = 1.1 rho(D^-1 A)
 * from the estimate the setup makes anyway (12 power iterations: from below,
 * hence the 10% margin; PETSc GAMG uses the same 1.1 and a ratio of 10).
 * The smoother is p(D^-1 A) D^-1 r with a fixed polynomial: symmetric, so
 * post-sweeps are pre-sweeps and AMG-PCG stays valid. SpMV and vector ops
 * only (ctx->vops and the level's table): parallel on the GPU and exact
 * under MPI. S->dinv holds omega / a_ii, so the interval is scaled by omega. */
#include "smoother.h"

typedef struct {
  double *d, *w; /* work vectors, context memory */
} cheby;

static ng_status cheby_setup(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                             ng_matrix dist, void **data)
{
  cheby *c;
  NG_CHECK(NG_CALLOC(c, 1));
  *data = c;
  NG_CHECK(ctx->vops->alloc(ctx, &c->d, S->n));
  NG_CHECK(ctx->vops->alloc(ctx, &c->w, S->n));
  /* zeroed once, as the cycle's vectors (amg_setup.c: a CUDA-graph cycle's
   * copy of d into x is checked by initcheck before the graph writes d) */
  NG_CHECK(ctx->vops->fill(ctx, S->n, 0.0, c->d));
  NG_CHECK(ctx->vops->fill(ctx, S->n, 0.0, c->w));
  return NG_SUCCESS;
}

/* the interval follows S->rho and S->omega, which the update recomputes */
static ng_status cheby_update(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                              void *data)
{
  return NG_SUCCESS;
}

/* sweeps of x += p(D^-1 A) D^-1 (b - A x); zero: x = 0 on entry. */
static ng_status chebyshev(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps, int zero,
                           const double *b, double *x)
{
  const ng_vec_ops *v = ctx->vops;
  cheby *c = S->sdata;
  int32_t n = S->n;
  double lmax = 1.1 * S->rho * S->omega, lmin = lmax / o->cheby_ratio;
  double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin), sigma = theta / delta;
  if (zero && sweeps == 0) NG_CHECK(v->fill(ctx, n, 0.0, x));
  for (int s = 0; s < sweeps; s++) {
    double rho_old = 1.0 / sigma;
    /* r = b - A x (r = b from zero); d = D^-1 r / theta; x += d */
    const double *r0 = b;
    if (!(zero && s == 0)) {
      NG_CHECK(ng_smoother_residual(ctx, &ng_smoother_chebyshev, S, b, x, S->r));
      r0 = S->r;
    } else NG_CHECK(v->copy(ctx, n, b, S->r));
    NG_CHECK(v->pointwise_mult(ctx, n, S->dinv, r0, c->w));
    NG_CHECK(v->axpbypcz(ctx, n, 1.0 / theta, c->w, 0.0, c->w, 0.0, c->d));
    if (zero && s == 0) NG_CHECK(v->copy(ctx, n, c->d, x));
    else NG_CHECK(v->axpy(ctx, n, 1.0, c->d, x));
    for (int k = 1; k < o->cheby_degree; k++) {
      double rho = 1.0 / (2.0 * sigma - rho_old);
      /* r -= A d; d = rho rho_old d + 2 rho / delta D^-1 r; x += d */
      NG_CHECK(ng_smoother_apply(ctx, S, -1.0, c->d, 1.0, S->r));
      NG_CHECK(v->pointwise_mult(ctx, n, S->dinv, S->r, c->w));
      NG_CHECK(v->axpbypcz(ctx, n, 2.0 * rho / delta, c->w, 0.0, c->w, rho * rho_old, c->d));
      NG_CHECK(v->axpy(ctx, n, 1.0, c->d, x));
      rho_old = rho;
    }
  }
  return NG_SUCCESS;
}

static ng_status cheby_pre(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                           const double *b, double *x)
{
  NG_CHECK(chebyshev(ctx, o, S, sweeps, 1, b, x));
  return NG_SUCCESS;
}

static ng_status cheby_post(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                            const double *b, double *x)
{
  NG_CHECK(chebyshev(ctx, o, S, sweeps, 0, b, x));
  return NG_SUCCESS;
}

static void cheby_destroy(ng_context ctx, void *data)
{
  cheby *c = data;
  if (!c) return;
  ctx->vops->free(ctx, c->d);
  ctx->vops->free(ctx, c->w);
  ng_free(c);
}

const ng_smoother_ops ng_smoother_chebyshev = {
  .name = "chebyshev",
  .split_coarse = 0,
  .setup = cheby_setup,
  .update = cheby_update,
  .pre = cheby_pre,
  .post = cheby_post,
  .destroy = cheby_destroy,
};
