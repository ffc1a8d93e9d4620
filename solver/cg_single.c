/* solver/cg_single.c: conjugate gradients with one reduction an iteration
 * (Chronopoulos & Gear, "s-step iterative methods for symmetric linear
 * systems", J. Comput. Appl. Math. 25, 1989; the preconditioned form as in
 * PETSc's KSPCG with -ksp_cg_single_reduction). cg takes it with
 * -cg_single_reduction 1 on several ranks with no or a diagonal
 * preconditioner (solver/cg.c): the textbook form waits twice an iteration,
 * for (p, A p) and for (r, M^-1 r), each wait a device sync plus an
 * allreduce. Here one, for two more vector passes (u and w read again):
 * measured on 4 H100s with NVLink (lap27:256, Jacobi) 0.436 ms an iteration
 * against the textbook's 0.414, so it is an option for networks where an
 * allreduce costs more than two passes over the local vectors.
 *
 * With u = M^-1 r, w = A u and s = A p kept by recurrence:
 *   gamma = (r, u), delta = (w, u)          one allreduce, with (r, r)
 *   beta = gamma / gamma_old, alpha = gamma / (delta - beta gamma / alpha_old)
 *   p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, u = M^-1 r
 *   w = A u
 * delta - beta gamma / alpha_old is (p, A p) in exact arithmetic, checked
 * > 0 like the textbook's. The iterates are CG's: the same counts, residuals
 * equal to rounding. The update pass is one vops call (cg1_update) whose
 * sums stay on the device until the (w, u) after the SpMV (cg1_dot): one
 * wait an iteration. Work: r, p, w (q), s, and u (z) with a preconditioner;
 * without one u is r. */
#include "solver.h"
#include <math.h>

ng_status ng_cg_single_solve(ng_solver S, const double *b, double *x, const double *dinv)
{
  ng_context ctx = S->ctx;
  const ng_vec_ops *v = ctx->vops;
  int32_t n = S->A->n_local;
  int pre = S->P != NULL;
  double *r = S->work[0], *p = S->work[1], *w = S->work[2], *s = S->work[pre ? 4 : 3];
  double *u = pre ? S->work[3] : r;
  double res[3], stash[2], gamma, alpha, beta = 0.0;
  int done;

  /* r = b - A x, u = M^-1 r, w = A u; {(w, u), (r, u), (r, r)} summed */
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(v->xpay(ctx, n, b, -1.0, r));
  if (pre) NG_CHECK(v->pointwise_mult(ctx, n, dinv, r, u));
  NG_CHECK(ng_op_apply(S, u, w));
  {
    const double *xs[3] = {w, r, r}, *ys[3] = {u, u, r};
    NG_CHECK(v->dot_local(ctx, n, 3, xs, ys, res));
  }
  NG_CHECK(ng_comm_allreduce_sum(ctx, res, 3));
  NG_CHECK(ng_krylov_begin(S, sqrt(res[2]), &done));
  if (done) return NG_SUCCESS;
  gamma = res[1];
  if (!isfinite(gamma))
    return ng_krylov_preconditioned_nonfinite(S, 0, "(r, M^-1 r)", gamma, u, "M^-1 r", "(r, M^-1 r) overflowed");
  if (!isfinite(res[0])) return ng_krylov_nonfinite(S, 1, "(p, A p)", res[0], "A p overflowed: p was finite");
  if (gamma == 0.0) return ng_krylov_breakdown(S, 1, "rho = (r, M^-1 r)", gamma);
  if (!(res[0] > 0.0)) return ng_krylov_cg_curvature(S, 1, "non-positive curvature (p, A p)", res[0]);
  alpha = gamma / res[0];

  for (int it = 1; it <= S->maxit; it++) {
    /* p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, u = M^-1 r */
    NG_CHECK(v->cg1_update(ctx, n, alpha, beta, dinv, u, w, p, s, x, r, stash));
    NG_CHECK(ng_op_apply(S, u, w));
    NG_CHECK(v->cg1_dot(ctx, n, w, u, stash, res));
    NG_CHECK(ng_comm_allreduce_sum(ctx, res, 3));
    NG_CHECK(ng_krylov_check(S, it, sqrt(res[2]), &done));
    if (done) return NG_SUCCESS;
    double gamma_new = res[1], delta = res[0];
    if (!isfinite(gamma_new))
      return ng_krylov_preconditioned_nonfinite(S, it, "(r, M^-1 r)", gamma_new, u, "M^-1 r",
                                                "(r, M^-1 r) overflowed");
    if (!isfinite(delta)) return ng_krylov_nonfinite(S, it + 1, "(p, A p)", delta, "A p overflowed: p was finite");
    if (gamma_new == 0.0) return ng_krylov_breakdown(S, it + 1, "rho = (r, M^-1 r)", gamma_new);
    beta = gamma_new / gamma;
    double pq = delta - beta * gamma_new / alpha; /* (p, A p) of the next direction */
    if (!(pq > 0.0)) return ng_krylov_cg_curvature(S, it + 1, "non-positive curvature (p, A p)", pq);
    alpha = gamma_new / pq;
    gamma = gamma_new;
  }
  return ng_krylov_not_converged(S);
}
