/* amg/amg_wcycle.c: the W-cycle's coarse-correction weights (issue 31
 * item 3). The W-cycle corrects twice from level l, each time from the
 * true residual: e <- (I - T)^2 e with T = P B R A_l, B the cycle from
 * level l + 1. That is symmetric, and positive definite (as a
 * preconditioner) only when every eigenvalue t of B G, G = R A_l P, lies
 * in (0, 2): (1 - t)^2 < 1. With Galerkin coarse operators (A_{l+1} = G)
 * and a convergent symmetric smoother the cycle under-corrects, t <= 1.
 * The non-Galerkin sparsified coarse operators (-amg_sparsify,
 * amg_sparsify.c) lump weak negative couplings onto the diagonal, A_{l+1}
 * <= G, so B ~ A_{l+1}^-1 over-corrects: lambda_max(B G) reached 3 on
 * stretch7:24 and 14.7 on jump2q1:24, and the W-cycle was indefinite while
 * the V-cycle (one correction, I - T <= I for any positive definite B) was
 * not. So with -amg_cycle w the setup estimates lambda_max(B G) level by
 * level, coarsest first (B includes the weights below), by power iteration
 * in the G inner product from a fixed start vector, and weights the second
 * correction (below). The first correction, and the V-cycle's, have no
 * weight (w = 1 exactly: the V-cycle is unchanged bit for bit). Every step
 * goes through the level tables and ctx->vops, so one rank, MPI and GPU
 * contexts run it alike. */
#include "amg.h" /* and the level helpers of amg_cycle.c */
#include <math.h>

#define W_POWER_ITERS 15
/* The second correction's weight w = min(1, W_MARGIN / (lambda_max - 1)):
 * e <- (I - w T)(I - T) e, p(t) = (1 - t)(1 - w t) is 1 at t = 0, falls,
 * then rises, so it stays below 1 on (0, lambda_max] iff p(lambda_max) < 1,
 * i.e. w < 1 / (lambda_max - 1); W_MARGIN = 0.5 leaves p(lambda_max) =
 * 1 - lambda_max / 2 and room for the power iteration's underestimate (a
 * Rayleigh quotient, from below) up to 2x. The first correction keeps
 * w = 1, so every mode with t <= 1 is reduced at least as much as by the
 * V-cycle. Tried before: both corrections weighted by 1.5 / lambda_max
 * (then 1 / lambda_max): jump2q1:24 (-amg_coarse_size 20, lambda_max 14.7)
 * took 76 W iterations against the V-cycle's 54. */
#define W_MARGIN 0.5

/* lambda_max(B G) of the correction from level l (power iteration). */
static ng_status estimate(ng_precond P, ng_amg *M, int l, double *fine[2], double *coarse[3], double *lambda)
{
  ng_context ctx = P->ctx;
  ng_amg_level *L = &M->L[l];
  int32_t nc = M->L[l + 1].s.n;
  double *v = coarse[0], *gv = coarse[1], *w = coarse[2], est = 0.0, *h = NULL;
  NG_CHECK(NG_MALLOC(h, nc > 0 ? nc : 1));
  for (int32_t i = 0; i < nc; i++) h[i] = 1.0 + 0.5 * sin(0.7 * i + 0.3 * l); /* fixed start: updates repeat it */
  ng_status st = ctx->vops->upload(ctx, v, h, nc);
  ng_free(h);
  NG_CHECK(st);
  *lambda = 0.0;
  for (int it = 0; it < W_POWER_ITERS; it++) {
    NG_CHECK(L->Pops->apply(L->Pdata, 1.0, v, 0.0, fine[0]));
    NG_CHECK(ng_amg_level_apply(P, M, l, 1.0, fine[0], 0.0, fine[1]));
    NG_CHECK(L->Rops->apply(L->Rdata, 1.0, fine[1], 0.0, gv));
    NG_CHECK(ng_amg_cycle_level(P, M, l + 1, gv, w));
    const double *x[3] = {v, w, w}, *y[3] = {gv, gv, w};
    double d[3] = {0, 0, 0};
    if (nc > 0) NG_CHECK(ctx->vops->dot_local(ctx, nc, 3, x, y, d));
    NG_CHECK(ng_comm_allreduce_sum(ctx, d, 3)); /* every rank, also one without coarse rows */
    if (!(d[0] > 0) || !(d[2] > 0) || !isfinite(d[1])) break; /* G or B vanished on v: keep the last estimate */
    est = d[1] / d[0]; /* (B G v, v)_G / (v, v)_G */
    if (nc > 0) NG_CHECK(ctx->vops->axpbypcz(ctx, nc, 1.0 / sqrt(d[2]), w, 0.0, w, 0.0, v));
  }
  *lambda = est;
  return NG_SUCCESS;
}

ng_status ng_amg_w_weights(ng_precond P, ng_amg *M)
{
  ng_context ctx = P->ctx;
  for (int l = 0; l < M->nlevels; l++) {
    M->L[l].wscale = 1.0;
    M->L[l].wlambda = 0.0;
  }
  if (M->cycle_gamma <= 1 || M->nlevels < 2) return NG_SUCCESS;
  int32_t nf = 1, ncmax = 1;
  for (int l = 0; l + 1 < M->nlevels; l++) {
    if (M->L[l].s.n > nf) nf = M->L[l].s.n;
    if (M->L[l + 1].s.n > ncmax) ncmax = M->L[l + 1].s.n;
  }
  double *fine[2] = {NULL, NULL}, *coarse[3] = {NULL, NULL, NULL};
  ng_status st = NG_SUCCESS;
  for (int k = 0; k < 2 && !st; k++) st = ctx->vops->alloc(ctx, &fine[k], nf);
  for (int k = 0; k < 3 && !st; k++) st = ctx->vops->alloc(ctx, &coarse[k], ncmax);
  for (int l = M->nlevels - 2; l >= 0 && !st; l--) {
    if (ng_amg_coarse_visits(M, l) < 2) continue;
    double lambda = 0.0;
    st = estimate(P, M, l, fine, coarse, &lambda);
    M->L[l].wlambda = lambda;
    if (!st && lambda > 1.0 + W_MARGIN) M->L[l].wscale = W_MARGIN / (lambda - 1.0);
  }
  for (int k = 0; k < 2; k++)
    if (fine[k]) ctx->vops->free(ctx, fine[k]);
  for (int k = 0; k < 3; k++)
    if (coarse[k]) ctx->vops->free(ctx, coarse[k]);
  NG_CHECK(st);
  return NG_SUCCESS;
}
