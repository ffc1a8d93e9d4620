/* amg/amg_kcycle.c: the K-cycle (-amg_cycle k; Notay and Vassilevski,
 * "Recursive Krylov-based multigrid cycles", Numer. Linear Algebra Appl.
 * 15, 2008). On every level l >= 1 that is not the coarsest, the coarse
 * correction solves A_l e = r by at most two iterations of flexible CG,
 * FCG(1), preconditioned by the cycle from level l (which makes its own
 * K-steps below: the recursion), in place of one cycle:
 *   c1 = B r, v1 = A c1, rho1 = (c1, v1), alpha1 = (c1, r),
 *   r~ = r - (alpha1 / rho1) v1; if ||r~|| <= t ||r||: e = (alpha1 / rho1) c1,
 *   else c2 = B r~, v2 = A c2, gamma = (c2, v1), beta = (c2, v2),
 *   alpha2 = (c2, r~), delta = beta - gamma^2 / rho1,
 *   e = (alpha1 / rho1 - gamma alpha2 / (rho1 delta)) c1 + (alpha2 / delta) c2,
 * with t = 0.25. ||r~|| comes from the first step's products, ||r~||^2 =
 * (r, r) - 2 a (v1, r) + a^2 (v1, v1) with a = alpha1 / rho1, so a step
 * makes one reduction per iteration (the five, then three, products fused
 * into one dot_local and one all-reduce over the ranks). The coefficients
 * depend on r: the preconditioner is not linear, and CG uses its flexible
 * beta (P->variable, solver/cg.c). Four work vectors per level, allocated
 * after the setup (ng_amg_k_setup); everything goes through the level
 * tables and ctx->vops, so one rank, MPI and GPU contexts run it alike (a
 * K-step waits for its products: no CUDA graph, no FP32 cycle). */
#include "amg.h" /* and the level helpers of amg_cycle.c */
#include <math.h>

#define K_TOL 0.25 /* Notay's t: a second iteration unless ||r~|| <= t ||r|| */

int ng_amg_k_level(const ng_amg *M, int l) { return M->kcycle && l >= 1 && l < M->nlevels - 1; }

ng_status ng_amg_k_setup(ng_precond P, ng_amg *M)
{
  ng_context ctx = P->ctx;
  for (int l = 0; l < M->nlevels; l++) {
    ng_amg_level *L = &M->L[l];
    if (!ng_amg_k_level(M, l)) continue;
    for (int k = 0; k < 4; k++)
      if (!L->kw[k]) {
        NG_CHECK(ctx->vops->alloc(ctx, &L->kw[k], L->s.n > 0 ? L->s.n : 1));
        NG_CHECK(ctx->vops->fill(ctx, L->s.n, 0.0, L->kw[k]));
      }
  }
  return NG_SUCCESS;
}

void ng_amg_k_free(ng_context ctx, ng_amg *M)
{
  for (int l = 0; M->L && l < M->max_levels; l++)
    for (int k = 0; k < 4; k++) {
      if (M->L[l].kw[k]) ctx->vops->free(ctx, M->L[l].kw[k]);
      M->L[l].kw[k] = NULL;
    }
}

/* d[k] = (x_k, y_k) for k < count, summed over the ranks (every rank
 * calls it, also one without rows on this level). */
static ng_status dots(ng_context ctx, int32_t n, int count, const double *const *x, const double *const *y, double *d)
{
  for (int k = 0; k < count; k++) d[k] = 0.0;
  if (n > 0) NG_CHECK(ctx->vops->dot_local(ctx, n, count, x, y, d));
  NG_CHECK(ng_comm_allreduce_sum(ctx, d, count));
  return NG_SUCCESS;
}

ng_status ng_amg_k_step(ng_precond P, ng_amg *M, int l, const double *r, double *e)
{
  ng_context ctx = P->ctx;
  ng_amg_level *L = &M->L[l];
  int32_t n = L->s.n;
  double *c1 = e, *v1 = L->kw[0], *rt = L->kw[1], *c2 = L->kw[2], *v2 = L->kw[3];
  double d[5];
  /* first iteration: c1 = B r, v1 = A c1 */
  NG_CHECK(ng_amg_cycle_level(P, M, l, r, c1));
  NG_CHECK(ng_amg_level_apply(P, M, l, 1.0, c1, 0.0, v1));
  {
    const double *x[5] = {c1, c1, r, v1, v1}, *y[5] = {v1, r, r, r, v1};
    NG_CHECK(dots(ctx, n, 5, x, y, d));
  }
  double rho1 = d[0], alpha1 = d[1], rr = d[2];
  /* B not positive on this r (an indefinite cycle) or nothing to solve:
   * the plain cycle's correction */
  if (!(rho1 > 0.0) || !isfinite(rho1) || !isfinite(alpha1) || !(rr > 0.0)) return NG_SUCCESS;
  double a = alpha1 / rho1, rtrt = rr - 2.0 * a * d[3] + a * a * d[4];
  if (rtrt <= K_TOL * K_TOL * rr) {
    if (n > 0) NG_CHECK(ctx->vops->scale(ctx, n, a, c1));
    return NG_SUCCESS;
  }
  /* second iteration: r~ = r - a v1, c2 = B r~, v2 = A c2 */
  if (n > 0) NG_CHECK(ctx->vops->axpbypcz(ctx, n, 1.0, r, -a, v1, 0.0, rt));
  NG_CHECK(ng_amg_cycle_level(P, M, l, rt, c2));
  NG_CHECK(ng_amg_level_apply(P, M, l, 1.0, c2, 0.0, v2));
  {
    const double *x[3] = {c2, c2, c2}, *y[3] = {v1, v2, rt};
    NG_CHECK(dots(ctx, n, 3, x, y, d));
  }
  double gamma = d[0], beta = d[1], alpha2 = d[2], delta = beta - gamma * gamma / rho1;
  if (!(delta > 0.0) || !isfinite(delta) || !isfinite(alpha2)) { /* c2 adds nothing A-orthogonal to c1 */
    if (n > 0) NG_CHECK(ctx->vops->scale(ctx, n, a, c1));
    return NG_SUCCESS;
  }
  /* e = (a - gamma alpha2 / (rho1 delta)) c1 + (alpha2 / delta) c2 */
  if (n > 0) NG_CHECK(ctx->vops->axpbypcz(ctx, n, alpha2 / delta, c2, 0.0, c2, a - gamma * alpha2 / (rho1 * delta), c1));
  return NG_SUCCESS;
}
