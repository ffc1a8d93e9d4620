/* solver/cg.c: conjugate gradients (cg; pcg is another name of it), with
 * the -precond preconditioner or none.
 * Hestenes & Stiefel (1952); the preconditioned form as in Saad, Iterative
 * Methods for Sparse Linear Systems, 2nd ed., Algorithm 9.1. Without a
 * preconditioner z is r itself (no copy). Work: r, p, q (+ z with one).
 *
 * Fused for few passes over memory (same arithmetic as the textbook form):
 * one pass does r -= alpha q and (r, r) (and, with a diagonal preconditioner
 * such as Jacobi, z = D r and (r, z) too); the update x += alpha p is
 * deferred into the pass that makes the next direction p = z + beta p, so p
 * is read once for both. On exit the deferred x update is applied. On one
 * rank, (p, A p) and the residual update are one call (cg_step) whose
 * alpha never leaves the device, so an iteration waits on the device once.
 * NaN/Inf: (r, M^-1 r), (p, A p) and ||r|| are checked where they are
 * formed (NG_ERR_NUMERIC naming the iteration, krylov_util.c).
 *
 * Singular A with a null space (-null_space, ng_solver_set_null_space):
 * solver.c gives b and x0 projected; here z = M^-1 r is projected before
 * (r, z) is formed, so every p, and x, stays orthogonal to the null space
 * (the preconditioner, Jacobi too, is then applied unfused). A variable
 * preconditioner (P->variable: AMG's K-cycle, a nonlinear M) gets the
 * flexible CG's Polak-Ribiere beta (Notay, SIAM J. Sci. Comput. 22, 2000:
 * FCG(1)), one more product in the same reduction. Safeguards
 * (krylov_util.c): (p, A p) <= 0 is NG_ERR_BREAKDOWN naming the likely
 * causes; on a matrix measured nonsymmetric once (two products of A at
 * its first solve), a residual growing past NG_CG_GROWTH times its
 * smallest is NG_ERR_DIVERGED instead of a run to -maxit.
 *
 * The true residual at the end (issue 31): when the recurrence's ||r||
 * meets the target, b - A x is computed once (one product, one norm). If
 * it has drifted above the target (rounding in r -= alpha A p: seen on
 * spheres7, k = 1e6 inclusions, 1e-10 recurrence against 1e-9 true) the
 * recurrence restarts from it (residual replacement: r = b - A x, z = M^-1 r,
 * p = z), at most NG_KRYLOV_REPLACEMENTS times (krylov_util.c); a solve that still does not
 * meet the target in b - A x is NG_ERR_NOT_CONVERGED saying so. The
 * iterations before are unchanged bit for bit (the fused one-rank path
 * too); the multi-rank one-reduction form (cg_single.c) gets the check.
 *
 * A preconditioner that asks (P->adapt_after: AMG's -amg_coarsening auto)
 * gets CG's residual reduction and condition estimate after that many
 * iterations (krylov_adapt.c, scalars only); when it rebuilds itself, the
 * recurrence restarts from x with r = b - A x. */
#include "solver.h"
#include <math.h>


/* Given r: z = M^-1 r (projected with a null space), rho = (r, z), rr = (r, r). */
static ng_status cg_precondition(ng_solver S, double *r, double *z, double *rho, double *rr)
{
  ng_context ctx = S->ctx;
  int32_t n = S->A->n_local;
  double d[2];
  if (S->P) {
    NG_CHECK(ng_pc_apply(S, r, z));
    NG_CHECK(ng_krylov_null_project(S, z, NULL));
    NG_CHECK(ng_dot2(ctx, n, r, z, r, r, d));
    *rho = d[0], *rr = d[1];
  } else {
    NG_CHECK(ng_krylov_null_project(S, r, NULL));
    NG_CHECK(ng_dot(ctx, n, r, r, rr));
    *rho = *rr;
  }
  return NG_SUCCESS;
}

/* r -= alpha q; z = M^-1 r; rz = (r, z), rr = (r, r) summed over ranks.
 * zq (non-NULL: a variable preconditioner) = (z, q) in the same
 * reduction, for the flexible beta. */
static ng_status cg_residual_update(ng_solver S, const double *dinv, double alpha, const double *q, double *r,
                                    double *z, double *rz, double *rr, double *zq)
{
  ng_context ctx = S->ctx;
  int32_t n = S->A->n_local;
  double d[3] = {0, 0, 0};
  if (zq) {
    NG_CHECK(ctx->vops->cg_update_r(ctx, n, alpha, q, r, NULL, NULL, &d[1]));
    NG_CHECK(ng_pc_apply(S, r, z));
    NG_CHECK(ng_krylov_null_project(S, z, NULL));
    const double *xs[2] = {r, q}, *ys[2] = {z, z};
    double e[2];
    NG_CHECK(ctx->vops->dot_local(ctx, n, 2, xs, ys, e));
    d[0] = e[0], d[2] = e[1];
    NG_CHECK(ng_comm_allreduce_sum(ctx, d, 3));
    *rz = d[0], *rr = d[1], *zq = d[2];
    return NG_SUCCESS;
  }
  if (dinv) {
    NG_CHECK(ctx->vops->cg_update_r(ctx, n, alpha, q, r, dinv, z, d));
  } else {
    NG_CHECK(ctx->vops->cg_update_r(ctx, n, alpha, q, r, NULL, NULL, &d[1]));
    if (S->P) NG_CHECK(ng_pc_apply(S, r, z));
    NG_CHECK(ng_krylov_null_project(S, z, NULL)); /* z = r without P */
    if (S->P) {
      const double *xs[1] = {r}, *ys[1] = {z};
      NG_CHECK(ctx->vops->dot_local(ctx, n, 1, xs, ys, &d[0]));
    } else {
      d[0] = d[1];
    }
  }
  NG_CHECK(ng_comm_allreduce_sum(ctx, d, 2));
  *rz = d[0];
  *rr = d[1];
  return NG_SUCCESS;
}

static ng_status cg_solve(ng_solver S, const double *b, double *x)
{
  ng_context ctx = S->ctx;
  const ng_vec_ops *v = ctx->vops;
  int32_t n = S->A->n_local;
  double *r = S->work[0], *p = S->work[1], *q = S->work[2];
  double *z = S->P ? S->work[3] : r;
  /* with a null space z is projected before (r, z): no fused diagonal */
  const double *dinv = S->P && S->P->ops->diagonal && !S->null_n ? S->P->ops->diagonal(S->P) : NULL;
  double rho, rr, d3[3], rmin;
  int done, itmin = 0;
  /* One rank with no or a diagonal preconditioner: one host wait per
   * iteration (cg_step). Several with -cg_single_reduction 1: one
   * reduction per iteration (solver/cg_single.c). Otherwise (p, q) is
   * summed over ranks first. */
  int one_step = ctx->size == 1 && (dinv || !S->P) && !S->null_n;
  /* a variable preconditioner (AMG's K-cycle): the flexible beta below */
  int flexible = S->P && S->P->variable;
  int replacements = 0, restart, rebuilt;
  ng_cg_lanczos lz = {.n = 0}; /* for the preconditioner's adapt hook (krylov_adapt.c) */
  if (ctx->size > 1 && (dinv || !S->P) && !S->classic_cg && !S->null_n) {
    NG_CHECK(ng_cg_single_solve(S, b, x, dinv));
    replacements = NG_KRYLOV_REPLACEMENTS; /* the check only: an error when b - A x misses the target */
    NG_CHECK(ng_krylov_verify(S, b, x, r, S->iterations, &replacements, &restart));
    return NG_SUCCESS;
  }

  /* r0 = b - A x0,  z0 = M^-1 r0,  p0 = z0 */
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(v->xpay(ctx, n, b, -1.0, r));
  NG_CHECK(cg_precondition(S, r, z, &rho, &rr));
  NG_CHECK(ng_krylov_begin(S, sqrt(rr), &done));
  if (done) return NG_SUCCESS;
  /* once per operator: is A symmetric? (p and q are free until below) */
  if (S->asymmetry < 0) NG_CHECK(ng_krylov_asymmetry(S, b, p, q, &S->asymmetry));
  rmin = sqrt(rr);
  if (!isfinite(rho))
    return ng_krylov_preconditioned_nonfinite(S, 0, "(r, M^-1 r)", rho, z, "M^-1 r", "(r, M^-1 r) overflowed");
  NG_CHECK(v->copy(ctx, n, z, p));

  for (int it = 1; it <= S->maxit; it++) {
    if (rho == 0.0) return ng_krylov_breakdown(S, it, "rho = (r, M^-1 r)", rho);
    /* a negative (r, M^-1 r) (an indefinite preconditioner: AMG with
     * sparsified coarse operators on some jump and stretched-grid problems)
     * does not stop CG: it still converges there, slowly (jump2q1:70 with
     * the default AMG), where stopping turned a slow solve into a failure;
     * a non-positive (p, A p) below does stop it, naming the causes */
    /* alpha = (r, z) / (p, A p) */
    NG_CHECK(ng_op_apply(S, p, q));
    double pq, alpha, rho_new = 0.0, zq = 0.0;
    if (one_step) {
      /* (p, q), alpha, r -= alpha q, z = D r and the new (r, z), (r, r) in
       * one call: alpha is formed on the device too (bitwise the same) */
      NG_CHECK(v->cg_step(ctx, n, rho, p, q, r, dinv, z, d3));
      pq = d3[2];
      if (!isfinite(pq)) return ng_krylov_nonfinite(S, it, "(p, A p)", pq, "A p overflowed: p was finite");
      if (!(pq > 0.0)) return ng_krylov_cg_curvature(S, it, "non-positive curvature (p, A p)", pq);
      alpha = rho / pq;
      rho_new = d3[0];
      rr = d3[1];
    } else {
      NG_CHECK(ng_dot(ctx, n, p, q, &pq));
      if (!isfinite(pq)) return ng_krylov_nonfinite(S, it, "(p, A p)", pq, "A p overflowed: p was finite");
      if (!(pq > 0.0)) return ng_krylov_cg_curvature(S, it, "non-positive curvature (p, A p)", pq);
      alpha = rho / pq;
      /* r -= alpha A p,  z = M^-1 r  (x += alpha p is deferred) */
      NG_CHECK(cg_residual_update(S, dinv, alpha, q, r, z, &rho_new, &rr, flexible ? &zq : NULL));
    }
    ng_status st = ng_krylov_check(S, it, sqrt(rr), &done);
    if (st == NG_SUCCESS && !done && S->asymmetry > NG_CG_ASYMMETRY_TOL && sqrt(rr) > NG_CG_GROWTH * rmin)
      st = ng_krylov_cg_growth(S, it, sqrt(rr), rmin, itmin);
    if (sqrt(rr) < rmin) rmin = sqrt(rr), itmin = it;
    if (st != NG_SUCCESS || done) {
      NG_CHECK(v->axpy(ctx, n, alpha, p, x)); /* alpha and p are finite here */
      NG_CHECK(st);
      NG_CHECK(ng_krylov_verify(S, b, x, r, it, &replacements, &restart));
      if (!restart) return NG_SUCCESS;
      /* residual replacement: restart the recurrence from r = b - A x */
      NG_CHECK(cg_precondition(S, r, z, &rho, &rr));
      if (!isfinite(rho))
        return ng_krylov_preconditioned_nonfinite(S, it, "(r, M^-1 r)", rho, z, "M^-1 r", "(r, M^-1 r) overflowed");
      NG_CHECK(v->copy(ctx, n, z, p));
      lz.n = 0;
      continue;
    }
    /* a finite r with a non-finite (r, M^-1 r): the preconditioner's z */
    if (!isfinite(rho_new)) {
      st = ng_krylov_preconditioned_nonfinite(S, it, "(r, M^-1 r)", rho_new, z, "M^-1 r", "(r, M^-1 r) overflowed");
      NG_CHECK(v->axpy(ctx, n, alpha, p, x)); /* x of this iteration (finite) */
      return st;
    }
    /* x += alpha p,  p = z + beta p,  beta = (r_new, z_new) / (r, z); with a
     * variable preconditioner Polak-Ribiere's (z_new, r_new - r) / (z, r),
     * r_new - r = -alpha q: no vector kept */
    double beta = flexible ? -alpha * zq / rho : rho_new / rho;
    /* -amg_coarsening auto: after a few iterations the AMG may rebuild
     * itself from CG's report (krylov_adapt.c); then restart from x */
    NG_CHECK(ng_cg_adapt_step(S, &lz, alpha, beta, rho_new, it, &rebuilt));
    if (rebuilt) { /* x's deferred update, r = b - A x afresh (no drift carried over), or from 0 */
      NG_CHECK(v->axpy(ctx, n, alpha, p, x));
      NG_CHECK(ng_krylov_restart_point(S, b, x, r, S->adapt_rate >= 1.0));
      NG_CHECK(cg_precondition(S, r, z, &rho, &rr));
      if (!isfinite(rho))
        return ng_krylov_preconditioned_nonfinite(S, it, "(r, M^-1 r)", rho, z, "M^-1 r", "(r, M^-1 r) overflowed");
      NG_CHECK(v->copy(ctx, n, z, p));
      continue;
    }
    NG_CHECK(v->cg_update_xp(ctx, n, alpha, beta, z, x, p));
    rho = rho_new;
  }
  return ng_krylov_not_converged(S);
}

/* one more work vector than the textbook form needs: s of cg_single.c */
const ng_solver_ops ng_solver_cg = {"cg", 4, 5, cg_solve, NULL, 1};
